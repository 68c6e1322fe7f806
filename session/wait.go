package session

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// Wait outcomes, as libtmux-mcp names them.
const (
	OutcomeMatched   = "matched"
	OutcomeAnyOutput = "any_output"
	OutcomeStopped   = "stopped"
	OutcomeAltScreen = "alternate_screen"
	OutcomeTimeout   = "timeout"
)

// WaitArgs are the arguments of [Server.WaitForText].
type WaitArgs struct {
	Pane      PaneRef  // a zero PaneRef waits on the first session's active pane
	Patterns  []string // none: wait for any new output
	Stop      []string // patterns that end the wait as a failure; they win ties
	Regex     bool
	MatchCase bool
	Timeout   time.Duration
	// Progress, if set, is called about once a second while waiting.
	Progress func(elapsed time.Duration)
}

// WaitResult is the outcome of a wait.
type WaitResult struct {
	PaneID             string
	Found              bool // matched, or any output when no pattern was given
	Outcome            string
	MatchedIndex       int // index into Patterns (or Stop when stopped); -1 if none
	MatchedLines       []string
	SawNewOutput       bool
	MatchedAtEntry     bool
	StopMatchedAtEntry bool
	AlternateScreen    bool
	Tail               []string // the last lines seen: at most 20 lines and 2 KB
	Elapsed            time.Duration
}

// matcher is a compiled pattern list.
type matcher []func(string) bool

func compile(patterns []string, regex, matchCase bool) (matcher, error) {
	m := make(matcher, 0, len(patterns))
	for _, p := range patterns {
		if regex {
			if !matchCase {
				p = "(?i)" + p
			}
			re, err := regexp.Compile(p)
			if err != nil {
				return nil, errorf(CodeInvalidArguments, false, "bad regular expression %q: %v", p, err)
			}
			m = append(m, re.MatchString)
			continue
		}
		if matchCase {
			m = append(m, func(s string) bool { return strings.Contains(s, p) })
			continue
		}
		lp := strings.ToLower(p)
		m = append(m, func(s string) bool { return strings.Contains(strings.ToLower(s), lp) })
	}
	return m, nil
}

// first returns the index of the first pattern any line matches, and the
// lines that match it.
func (m matcher) first(lines []string) (int, []string) {
	for i, f := range m {
		var hit []string
		for _, l := range lines {
			if f(l) {
				hit = append(hit, l)
			}
		}
		if hit != nil {
			return i, hit
		}
	}
	return -1, nil
}

// tail keeps the last lines seen, within 20 lines and 2 KB.
type tail []string

func (t *tail) add(lines ...string) {
	*t = append(*t, lines...)
	if n := len(*t); n > 20 {
		*t = (*t)[n-20:]
	}
	size := 0
	for i := len(*t) - 1; i >= 0; i-- {
		size += len((*t)[i]) + 1
		if size > 2048 {
			*t = (*t)[i+1:]
			break
		}
	}
}

// entryState is what one round trip tells about a pane when a wait starts.
type entryState struct {
	alternate bool
	dead      bool
	rows      []string // the visible screen, wrapped lines joined
}

// readEntry reads the pane's mode and its visible screen in one round
// trip.
func (s *Server) readEntry(ctx context.Context, pane string) (entryState, error) {
	rs, err := s.exec(ctx,
		controlmode.NewCommand("display-message", "-p", "-t", pane, "#{pane_id} #{alternate_on} #{pane_dead}"),
		controlmode.NewCommand("capture-pane", "-p", "-J", "-t", pane))
	if err != nil {
		return entryState{}, err
	}
	f := strings.Fields(strings.Join(rs[0].Lines, ""))
	if len(f) != 3 || f[0] != pane {
		return entryState{}, errorf(CodeNotFound, true, "can't find pane: %s", pane)
	}
	return entryState{alternate: f[1] == "1", dead: f[2] == "1", rows: trimBlankTail(rs[1].Lines)}, nil
}

// WaitForText waits until a line of the pane's text matches a pattern (or,
// with no patterns, until any output arrives), a stop pattern matches, the
// pane switches to the alternate screen, or the timeout passes.
//
// It first checks the visible screen (a pattern already there matches at
// entry), then follows the pane's output stream from a position taken
// before that check, so output that lands while the wait starts is never
// missed. It wakes on
// %output, within a millisecond, and never polls. Text is matched as a
// person would read it: escape sequences removed, one line per line.
func (s *Server) WaitForText(ctx context.Context, a WaitArgs) (WaitResult, error) {
	start := time.Now()
	pats, err := compile(a.Patterns, a.Regex, a.MatchCase)
	if err != nil {
		return WaitResult{}, err
	}
	stops, err := compile(a.Stop, a.Regex, a.MatchCase)
	if err != nil {
		return WaitResult{}, err
	}
	pane, err := s.ResolvePane(ctx, a.Pane, true)
	if err != nil {
		return WaitResult{}, err
	}
	st, release, err := s.watchPane(ctx, pane)
	if err != nil {
		return WaitResult{}, err
	}
	defer release()
	cursor, _ := st.position()
	res := WaitResult{PaneID: pane, MatchedIndex: -1}
	done := func(outcome string) (WaitResult, error) {
		res.Outcome, res.Elapsed = outcome, time.Since(start)
		return res, nil
	}

	entry, err := s.readEntry(ctx, pane)
	if err != nil {
		return WaitResult{}, err
	}
	var seen tail
	seen.add(entry.rows...)
	res.Tail = seen
	if entry.alternate {
		res.AlternateScreen = true
		return done(OutcomeAltScreen)
	}
	if i, hit := stops.first(entry.rows); i >= 0 {
		res.MatchedIndex, res.MatchedLines, res.StopMatchedAtEntry = i, hit, true
		return done(OutcomeStopped)
	}
	if i, hit := pats.first(entry.rows); i >= 0 {
		res.Found, res.MatchedIndex, res.MatchedLines, res.MatchedAtEntry = true, i, hit, true
		return done(OutcomeMatched)
	}

	wctx, cancel := context.WithTimeout(ctx, a.Timeout)
	defer cancel()
	var text lineReader
	var tick <-chan time.Time
	if a.Progress != nil {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		tick = t.C
	}
	for {
		if err := s.waitStream(wctx, st, cursor, tick, a.Progress, start); err != nil {
			if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
				res.Tail = seen
				return done(OutcomeTimeout)
			}
			return WaitResult{}, fromExec(err)
		}
		r := st.read(cursor)
		cursor = r.next
		if r.connLost {
			// The client ended: because the pane's session went with the
			// pane, or for a reason that leaves the pane running.
			if _, err := s.Pane(ctx, pane); IsNotFound(err) {
				return WaitResult{}, errorf(CodeNotFound, true, "pane %s exited while waiting", pane)
			}
			return WaitResult{}, errorf(CodeConnectionLost, false, "the tmux client following pane %s ended (the server died, or the client was detached); wait again", pane)
		}
		if len(r.data) > 0 {
			res.SawNewOutput = true
		}
		text.write(r.data)
		lines := append(text.take(), text.line())
		if r.paused {
			// tmux threw output away: the screen it resumed with stands
			// in for what was lost.
			lines = append(r.snapshot, lines...)
		}
		seen.add(lines[:len(lines)-1]...)
		res.Tail = append(append([]string(nil), seen...), lines[len(lines)-1])
		if text.alt {
			res.AlternateScreen = true
			return done(OutcomeAltScreen)
		}
		if i, hit := stops.first(lines); i >= 0 {
			res.MatchedIndex, res.MatchedLines = i, hit
			return done(OutcomeStopped)
		}
		if len(pats) == 0 && res.SawNewOutput {
			res.Found = true
			return done(OutcomeAnyOutput)
		}
		if i, hit := pats.first(lines); i >= 0 {
			res.Found, res.MatchedIndex, res.MatchedLines = true, i, hit
			return done(OutcomeMatched)
		}
		if r.gone {
			return WaitResult{}, errorf(CodeNotFound, true, "pane %s exited while waiting", pane)
		}
		// The partial line stays in text and is matched again once more of
		// it has arrived.
	}
}

// waitStream waits for a change in st after cursor, calling progress on
// each tick.
func (s *Server) waitStream(ctx context.Context, st *paneStream, cursor int64, tick <-chan time.Time, progress func(time.Duration), start time.Time) error {
	if tick == nil {
		return st.wait(ctx, cursor)
	}
	for {
		wctx, cancel := context.WithCancel(ctx)
		errc := make(chan error, 1)
		go func() { errc <- st.wait(wctx, cursor) }()
		select {
		case err := <-errc:
			cancel()
			return err
		case <-tick:
			cancel()
			<-errc
			progress(time.Since(start))
		}
	}
}
