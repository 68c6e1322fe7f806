package session

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
	"github.com/tmux-mcp/tmux-mcp/session/internal/termtext"
)

// Wait outcomes, as libtmux-mcp names them.
const (
	OutcomeMatched   = "matched"
	OutcomeAnyOutput = "any_output"
	OutcomeStopped   = "stopped"
	OutcomeAltScreen = "alternate_screen"
	OutcomeTimeout   = "timeout"
)

// What a wait matches against (WaitArgs.Since).
const (
	// SinceInput matches what the pane printed after the last input this
	// process sent it, the echo of the typed text left out. It is the
	// default when there was such input.
	SinceInput = "input"
	// SinceStart matches only what the pane prints after the wait starts.
	SinceStart = "start"
	// SinceScreen matches the visible screen at the start too, then new
	// output. It is the default when this process sent the pane no input.
	SinceScreen = "screen"
)

// Where a match was found (WaitResult.MatchedIn).
const (
	InOutput = "output" // lines the pane printed, as a person reads them
	InScreen = "screen" // the screen as drawn (capture-pane)
)

// WaitArgs are the arguments of [Server.WaitForText].
type WaitArgs struct {
	Pane     PaneRef  // the pane to wait on; a zero PaneRef is [KindNoTarget]
	Patterns []string // none: wait for any new output
	Stop     []string // patterns that end the wait as a failure; they win ties
	// Absent are patterns none of which may be on the pane's screen when a
	// pattern matches: the match counts only once they are gone (a CLI's
	// "esc to interrupt" while it works). The rows are then read from
	// tmux's grid after every output, so a match seen while one was there
	// is looked at again.
	Absent    []string
	Regex     bool
	MatchCase bool
	Timeout   time.Duration
	// Since is what is matched: SinceInput, SinceStart or SinceScreen; ""
	// picks SinceInput after input from this process, else SinceScreen.
	Since string
	// Interval is the least time between two reads of the screen of a
	// full-screen program, which are made only after it printed; 0 means
	// 50 ms.
	Interval time.Duration
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
	MatchedAtEntry     bool // the match was there when the wait started
	StopMatchedAtEntry bool
	AlternateScreen    bool     // the pane was in a full-screen program (the alternate screen)
	Tail               []string // the last lines seen: at most 20 lines and 2 KB
	Elapsed            time.Duration
	Since              string // what was matched: SinceInput, SinceStart or SinceScreen
	MatchedIn          string // InOutput or InScreen; "" when nothing matched
	// EchoSkipped is how many lines were not matched because they were the
	// pane's echo of the text this process typed.
	EchoSkipped int
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
				return nil, errorf(KindInvalid, "bad regular expression %q: %v", p, err)
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
	rows      []string            // the visible screen, wrapped lines joined
	screenTop panestream.GridMark // the screen's top row
	cursorRow int                 // the cursor's row in the grid
}

// readEntry reads the pane's mode and its visible screen in one round
// trip.
func (s *Server) readEntry(ctx context.Context, pane string) (entryState, error) {
	rs, err := s.exec(ctx,
		controlmode.NewCommand("display-message", "-p", "-t", pane, "#{pane_id} #{alternate_on} #{pane_dead} #{history_size} #{history_limit} #{cursor_y}"),
		CaptureArgs{Join: true}.command(pane))
	if err != nil {
		return entryState{}, err
	}
	f := strings.Fields(strings.Join(rs[0].Lines, ""))
	if len(f) != 6 || f[0] != pane {
		return entryState{}, errorf(KindNotFound, "can't find pane: %s", pane)
	}
	hist, _ := strconv.Atoi(f[3])
	limit, _ := strconv.Atoi(f[4])
	cy, _ := strconv.Atoi(f[5])
	// Rows as a person reads them: -J keeps the blanks a full-screen
	// program drew at the end of its rows.
	rows := trimBlankTail(rs[1].Lines)
	for i, r := range rows {
		rows[i] = strings.TrimRight(r, " ")
	}
	return entryState{alternate: f[1] == "1", dead: f[2] == "1", rows: rows,
		screenTop: panestream.GridMark{Known: true, Row: hist, History: hist, Limit: limit}, cursorRow: hist + cy}, nil
}

// Check reports the argument errors ([KindInvalid]) that
// [Server.WaitForText] would answer a with, without a call to tmux: a
// caller that looks up a default pane first can check a before it.
func (a WaitArgs) Check() error {
	_, _, err := a.compile()
	return err
}

// compile returns a's success and stop patterns as matchers.
func (a WaitArgs) compile() (pats, stops matcher, err error) {
	if pats, err = compile(a.Patterns, a.Regex, a.MatchCase); err != nil {
		return nil, nil, err
	}
	if stops, err = compile(a.Stop, a.Regex, a.MatchCase); err != nil {
		return nil, nil, err
	}
	if _, err = compile(a.Absent, a.Regex, a.MatchCase); err != nil {
		return nil, nil, err
	}
	if len(a.Absent) > 0 && len(a.Patterns) == 0 {
		return nil, nil, errorf(KindInvalid, "absent patterns need patterns to wait for")
	}
	switch a.Since {
	case "", SinceInput, SinceStart, SinceScreen:
	default:
		return nil, nil, errorf(KindInvalid, "unknown start %q for a wait: want input, start or screen", a.Since)
	}
	return pats, stops, nil
}

// WaitForText waits until a line of the pane's text matches a pattern (or,
// with no patterns, until any output arrives), a stop pattern matches, or
// the timeout passes.
//
// What it matches is a.Since. After input from this process (the default
// then), it matches what the pane printed after tmux answered that input,
// without the pane's echo of the typed text: never the command line just
// typed, nor lines that were on screen before. Otherwise it matches the
// visible screen at the start (SinceScreen) or only what comes after the
// start (SinceStart).
//
// Output is followed on the pane's stream from a position taken before the
// start is read, so nothing that lands meanwhile is missed. It wakes on
// %output and never polls. Text is matched as a person would read it:
// escape sequences removed, one line per line. While the pane shows a
// full-screen program (the alternate screen: vim, less, a TUI), lines mean
// little, and the screen as drawn is matched instead, read again after the
// program prints: at once, then at most once per a.Interval.
func (s *Server) WaitForText(ctx context.Context, a WaitArgs) (WaitResult, error) {
	start := time.Now()
	pats, stops, err := a.compile()
	if err != nil {
		return WaitResult{}, err
	}
	interval := a.Interval
	if interval <= 0 {
		interval = 50 * time.Millisecond
	}
	pane, err := s.ResolvePane(ctx, a.Pane)
	if err != nil {
		return WaitResult{}, err
	}
	st, release, err := s.watchPane(ctx, pane)
	if err != nil {
		return WaitResult{}, err
	}
	defer release()
	in := st.LastInput()
	since := a.Since
	if since == "" {
		since = SinceScreen
		if in.Sent {
			since = SinceInput
		}
	}
	if since == SinceInput && !in.Sent {
		since = SinceStart // no input to follow: only what comes next
	}
	cursor, _ := st.Position()
	w := &waiter{pats: pats, stops: stops, res: WaitResult{PaneID: pane, MatchedIndex: -1, Since: since}}
	width := s.paneWidth(pane)
	w.out.text.Width = width
	done := func(outcome string) (WaitResult, error) {
		w.res.Outcome, w.res.Elapsed = outcome, time.Since(start)
		if w.out.echo != nil {
			w.res.EchoSkipped = w.out.echo.skipped
		}
		return w.res, nil
	}

	entry, err := s.readEntry(ctx, pane)
	if err != nil {
		return WaitResult{}, err
	}
	// Where the rows after the wait's start begin in tmux's grid, read
	// there once the output moves between rows (see gridFollow).
	var grid gridFollow
	switch since {
	case SinceInput:
		if in.Grid.Known {
			grid = followFrom(in.Grid)
		}
	case SinceScreen:
		grid = followFrom(entry.screenTop)
	case SinceStart:
		grid = followFrom(entry.screenTop)
		grid.row = entry.cursorRow + 1
	}
	// lookGrid matches the grid's rows from the mark: on an inline TUI the
	// lines rebuilt from output miss what was drawn over rows above.
	lookGrid := func(atEntry bool) (string, bool, error) {
		if !grid.active || len(pats) == 0 {
			return "", false, nil
		}
		rows, alternate, err := s.readRows(ctx, pane, &grid)
		if err != nil || alternate {
			return "", false, err // full-screen: the screen is read instead
		}
		if since == SinceInput {
			echo := newEchoFilter(in.Typed)
			rows = slices.DeleteFunc(rows, echo.line)
		}
		w.seen = nil
		w.seen.add(rows...)
		w.res.Tail = w.seen
		outcome, ok := w.match(rows, InScreen, atEntry)
		return outcome, ok, nil
	}
	if len(a.Absent) > 0 {
		absent, _ := compile(a.Absent, a.Regex, a.MatchCase) // checked by compile above
		w.absentOnScreen = func() bool {
			rs, err := s.exec(ctx, CaptureArgs{Join: true}.command(pane))
			if err != nil {
				return true // the wait's next read says what became of the pane
			}
			i, _ := absent.first(rs[0].Lines)
			return i >= 0
		}
		// A match seen while an absent pattern is there must be looked at
		// again after the next output: the rows are read whole each time.
		grid.active = since != SinceInput || in.Grid.Known
	}
	screen := entry.alternate
	// The first read after output comes at once; later ones at most once
	// per interval. Any output after a read leads to another, so the
	// screen is always read after the program's last output.
	var lastRead time.Time
	if screen {
		w.res.AlternateScreen = true
		// A screen drawn before the input (the old page of less, say) is
		// not an answer to it: after input, the screen counts once the
		// program has printed since.
		drawn := true
		switch since {
		case SinceStart:
			drawn = false
		case SinceInput:
			drawn = !in.Fed || st.Read(in.Offset).Next > in.Offset
		}
		if drawn {
			if outcome, ok := w.screen(entry.rows, true); ok {
				return done(outcome)
			}
		} else {
			w.seen.add(entry.rows...)
			w.res.Tail = w.seen
		}
	} else {
		var lines []string
		var partial string
		switch since {
		case SinceScreen:
			lines = entry.rows
			w.seen.add(lines...)
			w.res.Tail = w.seen
			if outcome, ok := w.match(lines, InScreen, true); ok {
				return done(outcome)
			}
		case SinceInput:
			w.out.echo = newEchoFilter(in.Typed)
			r := st.Read(in.Offset)
			if in.Fed && r.Missed == 0 && !r.Paused && !r.ConnLost {
				// The stream holds all the pane printed since the input.
				cursor = r.Next
				if b, known := st.LineBefore(in.Offset); known {
					w.out.prime(b)
				} else if in.Col > 0 {
					w.out.prime(bytes.Repeat([]byte{' '}, in.Col))
				}
				lines, partial = w.out.write(r.Data)
				// The program went full-screen after the entry's look (less
				// just started): its page's output counts, and from here on
				// its screen is read, now first.
				if w.out.text.AltScreen() {
					screen, w.res.AlternateScreen = true, true
				}
				if outcome, ok := w.output(lines, partial, true); ok {
					return done(outcome)
				}
				if (w.out.text.Redrawn() || grid.active) && in.Grid.Known && !screen {
					grid.active = true
					if outcome, ok, err := lookGrid(true); err != nil {
						return WaitResult{}, err
					} else if ok {
						return done(outcome)
					}
				}
				if screen {
					e, err := s.readEntry(ctx, pane)
					if err != nil {
						return WaitResult{}, err
					}
					lastRead = time.Now()
					if outcome, ok := w.screen(e.rows, true); ok {
						return done(outcome)
					}
				}
				break
			}
			// Nothing followed the pane when the input went in (or too
			// much came since): the screen from the input's echo on stands
			// in. Without the echo on screen, the whole screen came after
			// the input if the pane was followed (the echo scrolled away);
			// if not, only what comes next counts.
			if i := lastEcho(entry.rows, in.Typed); i >= 0 {
				lines = entry.rows[i+1:]
				w.out.echo = nil
			} else if in.Fed {
				lines = entry.rows
			}
			w.seen.add(lines...)
			w.res.Tail = w.seen
			if outcome, ok := w.match(lines, InScreen, true); ok {
				return done(outcome)
			}
		}
	}

	wctx, cancel := context.WithTimeout(ctx, a.Timeout)
	defer cancel()
	var tick <-chan time.Time
	if a.Progress != nil {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		tick = t.C
	}
	for {
		if err := s.waitStream(wctx, st, cursor, tick, a.Progress, start); err != nil {
			if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
				return done(OutcomeTimeout)
			}
			return WaitResult{}, fromExec(err)
		}
		if screen {
			// Read the screen at most once per interval: the program may
			// be drawing still.
			if !pause(wctx, interval-time.Since(lastRead)) {
				if ctx.Err() == nil {
					return done(OutcomeTimeout)
				}
				return WaitResult{}, fromExec(ctx.Err())
			}
		}
		r := st.Read(cursor)
		cursor = r.Next
		if r.ConnLost {
			// The client ended: because the pane's session went with the
			// pane, or for a reason that leaves the pane running.
			if _, err := s.Pane(ctx, pane); IsNotFound(err) {
				return WaitResult{}, errorf(KindNotFound, "pane %s exited while waiting", pane)
			}
			return WaitResult{}, errorf(KindConnLost, "the tmux client following pane %s ended (the server died, or the client was detached); wait again", pane)
		}
		if len(r.Data) > 0 {
			w.res.SawNewOutput = true
		}
		lines, partial := w.out.write(r.Data)
		if r.Paused && !screen {
			// tmux threw output away: the screen it resumed with stands
			// in for what was lost.
			lines = append(r.Snapshot, lines...)
		}
		if w.out.text.AltScreen() && !screen {
			screen, w.res.AlternateScreen = true, true
			lastRead = time.Time{}
		}
		if screen {
			if r.Gone {
				return WaitResult{}, errorf(KindNotFound, "pane %s exited while waiting", pane)
			}
			e, err := s.readEntry(ctx, pane)
			if err != nil {
				return WaitResult{}, err
			}
			lastRead = time.Now()
			if !e.alternate && !w.out.text.AltScreen() {
				// The program left the full-screen mode: back to lines,
				// from where it did.
				screen = false
				off := w.out.text.AltScreenExit()
				w.out = outputText{text: termtext.Lines{Width: width}}
				if off < 0 {
					continue
				}
				lines, partial = w.out.write(r.Data[off:])
				if outcome, ok := w.output(lines, partial, false); ok {
					return done(outcome)
				}
				continue
			}
			if outcome, ok := w.screen(e.rows, false); ok {
				return done(outcome)
			}
			continue
		}
		if outcome, ok := w.output(lines, partial, false); ok {
			return done(outcome)
		}
		if r.Gone {
			return WaitResult{}, errorf(KindNotFound, "pane %s exited while waiting", pane)
		}
		if (w.out.text.Redrawn() || grid.active) && (since != SinceInput || in.Grid.Known) {
			grid.active = true
			// At most one read per interval while output flows; the
			// output that comes meanwhile is in the read that follows.
			if !pause(wctx, interval-time.Since(grid.last)) {
				if ctx.Err() == nil {
					return done(OutcomeTimeout)
				}
				return WaitResult{}, fromExec(ctx.Err())
			}
			if outcome, ok, err := lookGrid(false); err != nil {
				return WaitResult{}, err
			} else if ok {
				return done(outcome)
			}
		}
		// The partial line stays in text and is matched again once more of
		// it has arrived.
	}
}

// waiter is the matching state of one wait.
type waiter struct {
	pats, stops matcher
	res         WaitResult
	seen        tail
	out         outputText
	// absentOnScreen, if set, reports whether an Absent pattern is on the
	// screen now; a match then does not count yet.
	absentOnScreen func() bool
}

// output matches lines the pane printed (and the line it is printing).
func (w *waiter) output(lines []string, partial string, entry bool) (string, bool) {
	w.seen.add(lines...)
	all := lines
	if partial != "" {
		all = append(all[:len(all):len(all)], partial)
		w.res.Tail = append(append([]string(nil), w.seen...), partial)
	} else {
		w.res.Tail = append([]string(nil), w.seen...)
	}
	if len(all) > 0 && entry {
		w.res.SawNewOutput = true
	}
	if len(w.pats) == 0 && len(all) > 0 {
		if outcome, ok := w.match(all, InOutput, entry); ok {
			return outcome, true // a stop pattern
		}
		w.res.Found, w.res.MatchedIn, w.res.MatchedAtEntry = true, InOutput, entry
		return OutcomeAnyOutput, true
	}
	return w.match(all, InOutput, entry)
}

// screen matches the screen as drawn.
func (w *waiter) screen(rows []string, entry bool) (string, bool) {
	w.seen = nil
	w.seen.add(rows...)
	w.res.Tail = w.seen
	if len(w.pats) == 0 && !entry && w.res.SawNewOutput {
		w.res.Found, w.res.MatchedIn = true, InScreen
		return OutcomeAnyOutput, true
	}
	return w.match(rows, InScreen, entry)
}

// match checks lines against the stop patterns, then the patterns.
func (w *waiter) match(lines []string, where string, entry bool) (string, bool) {
	if i, hit := w.stops.first(lines); i >= 0 {
		w.res.MatchedIndex, w.res.MatchedLines, w.res.StopMatchedAtEntry, w.res.MatchedIn = i, hit, entry, where
		return OutcomeStopped, true
	}
	if i, hit := w.pats.first(lines); i >= 0 {
		if w.absentOnScreen != nil && w.absentOnScreen() {
			return "", false
		}
		w.res.Found, w.res.MatchedIndex, w.res.MatchedLines, w.res.MatchedAtEntry, w.res.MatchedIn = true, i, hit, entry, where
		return OutcomeMatched, true
	}
	return "", false
}

// pause waits for d, which spaces out reads of a pane that is printing;
// it reports false if ctx ended first. It does not wait when d <= 0.
func pause(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// waitStream waits for a change in st after cursor, calling progress on
// each tick.
func (s *Server) waitStream(ctx context.Context, st *panestream.Stream, cursor int64, tick <-chan time.Time, progress func(time.Duration), start time.Time) error {
	for {
		ticked, err := st.WaitOrTick(ctx, cursor, tick)
		if !ticked {
			return err
		}
		progress(time.Since(start))
	}
}

// lastOutput returns the second after pane last printed, as tmux 3.8 keeps
// it (pane_last_output_time, whole seconds); false if it never printed or
// the time cannot be read.
func (s *Server) lastOutput(ctx context.Context, pane string) (time.Time, bool) {
	rs, err := s.exec(ctx, controlmode.NewCommand("display-message", "-p", "-t", pane, "#{pane_last_output_time}"))
	if err != nil {
		return time.Time{}, false
	}
	sec, err := strconv.ParseInt(strings.Join(rs[0].Lines, ""), 10, 64)
	if err != nil || sec <= 0 {
		return time.Time{}, false
	}
	return time.Unix(sec+1, 0), true
}

// QuietArgs are the arguments of [Server.WaitQuiet].
type QuietArgs struct {
	Pane PaneRef
	// Quiet is how long the pane must print nothing; 0 waits for the first
	// output instead.
	Quiet   time.Duration
	Timeout time.Duration
	// Progress, if set, is called about once a second while waiting.
	Progress func(elapsed time.Duration)
}

// QuietResult is the outcome of [Server.WaitQuiet].
type QuietResult struct {
	PaneID   string
	Changed  bool // the pane printed since this process's last input to it, or during the wait
	Quiet    bool // the pane was quiet for QuietArgs.Quiet
	TimedOut bool
	Bytes    int64 // bytes the pane printed since that input, or during the wait
	Elapsed  time.Duration
	// Wake is how late the wait woke after the quiet period was over, the
	// delay of the timer and the scheduler; for the README's figure.
	Wake time.Duration
}

// WaitQuiet waits until the pane has printed nothing for a.Quiet (a
// full-screen program has finished drawing, an agent has finished
// answering), or with a.Quiet zero until it prints anything, or until the
// timeout. On tmux 3.8 and later, a pane whose output no client of ours
// followed yet is quiet since the second after tmux last saw it print.
// Changed and Bytes count from this process's last input to the
// pane when its output was followed since, even if the output came before
// the wait, and from where the last WaitQuiet on the pane ended if that is
// later; a wait with a.Quiet zero for a change that already happened
// returns at once. Quiet is counted from the pane's last output or the last input
// this process sent it, whichever is later, as far as they are known: a
// pane nobody followed before the wait counts from the wait's start. A
// timer, reset by each %output, does the waiting: nothing is polled.
func (s *Server) WaitQuiet(ctx context.Context, a QuietArgs) (QuietResult, error) {
	start := time.Now()
	pane, err := s.ResolvePane(ctx, a.Pane)
	if err != nil {
		return QuietResult{}, err
	}
	fed := s.fed(pane)
	st, release, err := s.watchPane(ctx, pane)
	if err != nil {
		return QuietResult{}, err
	}
	defer release()
	cursor, changed := st.Position()
	res := QuietResult{PaneID: pane}
	since := start
	in := st.LastInput()
	if fed && in.Sent && in.Fed {
		// What the pane printed since this process's last input to it
		// counts, even when it came before the wait: a wait that starts
		// after the answer sees that there was one. Once a wait has told
		// of it, the next counts from where that one ended.
		from := max(in.Offset, st.LastLook())
		if r := st.Read(from); r.Next > from {
			res.Changed, res.Bytes = true, r.Next-from
		}
	}
	defer func() { st.NoteLook(cursor) }()
	if last := st.LastOutput(); fed && !last.IsZero() {
		since = last
		if in.Sent && in.At.After(since) {
			since = in.At
		}
	} else if a.Quiet > 0 && !in.Sent && s.release().knowsLastOutput() {
		// Nothing followed the pane's output yet: tmux 3.8 knows when it
		// last printed, to the second. The second after it is when the
		// pane was last seen quiet for sure.
		if at, ok := s.lastOutput(ctx, pane); ok && at.Before(since) {
			since = at
		}
	}
	if res.Changed && a.Quiet == 0 {
		res.Elapsed = time.Since(start)
		return res, nil
	}
	wctx, cancel := context.WithTimeout(ctx, a.Timeout)
	defer cancel()
	var timer *time.Timer
	var quietC <-chan time.Time
	if a.Quiet > 0 {
		timer = time.NewTimer(time.Until(since.Add(a.Quiet)))
		defer timer.Stop()
		quietC = timer.C
	}
	done := func() (QuietResult, error) {
		res.Elapsed = time.Since(start)
		return res, nil
	}
	var tick <-chan time.Time
	if a.Progress != nil {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-tick:
			a.Progress(time.Since(start))
			continue
		case <-wctx.Done():
			if ctx.Err() != nil {
				return QuietResult{}, fromExec(ctx.Err())
			}
			res.TimedOut = true
			return done()
		case <-quietC:
			// The timer may have fired just as output came: look first.
			if r := st.Read(cursor); len(r.Data) == 0 && !r.Gone && !r.ConnLost {
				res.Quiet = true
				res.Wake = time.Since(since.Add(a.Quiet))
				return done()
			}
			quietC = nil
		case <-changed:
		}
		_, changed = st.Position() // before the read, so no change is missed
		r := st.Read(cursor)
		cursor = r.Next
		if r.ConnLost {
			if _, err := s.Pane(ctx, pane); IsNotFound(err) {
				return QuietResult{}, errorf(KindNotFound, "pane %s exited while waiting", pane)
			}
			return QuietResult{}, errorf(KindConnLost, "the tmux client following pane %s ended (the server died, or the client was detached); wait again", pane)
		}
		if r.Gone {
			return QuietResult{}, errorf(KindNotFound, "pane %s exited while waiting", pane)
		}
		if len(r.Data) > 0 {
			res.Changed = true
			res.Bytes += int64(len(r.Data))
			if a.Quiet == 0 {
				return done()
			}
			since = st.LastOutput()
			timer.Reset(time.Until(since.Add(a.Quiet)))
			quietC = timer.C
		} else if quietC == nil && a.Quiet > 0 {
			timer.Reset(time.Until(since.Add(a.Quiet)))
			quietC = timer.C
		}
	}
}
