package engine

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/errs"
	"github.com/tmux-mcp/tmux-mcp/session/internal/paneread"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
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

// WaitArgs are the arguments of [Engine.WaitForText].
type WaitArgs struct {
	Pane     PaneRef  // the pane to wait on; a zero PaneRef is [errs.KindNoTarget]
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
	// EchoLines are the last of those lines (at most 5), as read.
	EchoLines []string
}

// entryState is what one round trip tells about a pane when a wait starts.
type entryState struct {
	session   string // the id of the session tmux puts the pane in
	alternate bool
	dead      bool
	rows      []string            // the visible screen, wrapped lines joined
	screenTop panestream.GridMark // the screen's top row
	cursorRow int                 // the cursor's row in the grid
}

// readEntry reads the pane's session, its mode and its visible screen in
// one round trip.
func (e *Engine) readEntry(ctx context.Context, pane string) (entryState, error) {
	rs, err := e.host.Exec(ctx,
		controlmode.NewCommand("display-message", "-p", "-t", pane, "#{pane_id} #{alternate_on} #{pane_dead} #{history_size} #{history_limit} #{cursor_y} #{pane_width} #{cursor_x} #{session_id}"),
		CaptureCommand(CaptureArgs{Join: true}, pane))
	if err != nil {
		return entryState{}, err
	}
	f := strings.Fields(strings.Join(rs[0].Lines, ""))
	if len(f) != 9 || f[0] != pane {
		return entryState{}, errs.Errorf(errs.KindNotFound, "can't find pane: %s", pane)
	}
	hist, _ := strconv.Atoi(f[3])
	limit, _ := strconv.Atoi(f[4])
	cy, _ := strconv.Atoi(f[5])
	width, _ := strconv.Atoi(f[6])
	cx, _ := strconv.Atoi(f[7])
	// Rows as a person reads them: -J keeps the blanks a full-screen
	// program drew at the end of its rows.
	rows := paneread.Readable(rs[1].Lines, width, cx, cy)
	return entryState{session: f[8], alternate: f[1] == "1", dead: f[2] == "1", rows: rows,
		screenTop: panestream.GridMark{Known: true, Row: hist, History: hist, Limit: limit}, cursorRow: hist + cy}, nil
}

// Check reports the argument errors ([errs.KindInvalid]) that
// [Engine.WaitForText] would answer a with, without a call to tmux: a
// caller that looks up a default pane first can check a before it.
func (a WaitArgs) Check() error {
	_, _, err := a.compile()
	return err
}

// compile compiles patterns (see paneread.Compile); a bad one is
// errs.KindInvalid.
func compile(patterns []string, regex, matchCase bool) (paneread.Matcher, error) {
	m, err := paneread.Compile(patterns, regex, matchCase)
	if err != nil {
		return nil, errs.Errorf(errs.KindInvalid, "%v", err)
	}
	return m, nil
}

// compile returns a's success and stop patterns as matchers.
func (a WaitArgs) compile() (pats, stops paneread.Matcher, err error) {
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
		return nil, nil, errs.Errorf(errs.KindInvalid, "absent patterns need patterns to wait for")
	}
	switch a.Since {
	case "", SinceInput, SinceStart, SinceScreen:
	default:
		return nil, nil, errs.Errorf(errs.KindInvalid, "unknown start %q for a wait: want input, start or screen", a.Since)
	}
	return pats, stops, nil
}

// waiter is the matching state of one wait.
type waiter struct {
	pats, stops paneread.Matcher
	res         WaitResult
	seen        paneread.Tail
	out         paneread.Output
	// absentOnScreen, if set, reports whether an Absent pattern is on the
	// screen now; a match then does not count yet.
	absentOnScreen func() bool
}

// output matches lines the pane printed (and the line it is printing).
func (w *waiter) output(lines []string, partial string, entry bool) (string, bool) {
	w.seen.Add(lines...)
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
	w.seen.Add(rows...)
	w.res.Tail = w.seen
	if len(w.pats) == 0 && !entry && w.res.SawNewOutput {
		w.res.Found, w.res.MatchedIn = true, InScreen
		return OutcomeAnyOutput, true
	}
	return w.match(rows, InScreen, entry)
}

// match checks lines against the stop patterns, then the patterns.
func (w *waiter) match(lines []string, where string, entry bool) (string, bool) {
	if i, hit := w.stops.First(lines); i >= 0 {
		w.res.MatchedIndex, w.res.MatchedLines, w.res.StopMatchedAtEntry, w.res.MatchedIn = i, hit, entry, where
		return OutcomeStopped, true
	}
	if i, hit := w.pats.First(lines); i >= 0 {
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

// progressTicker returns a channel that ticks each second for a wait that
// reports progress, and its stop; with no progress, a channel that never
// ticks.
func progressTicker(progress func(time.Duration)) (<-chan time.Time, func()) {
	if progress == nil {
		return nil, func() {}
	}
	t := time.NewTicker(time.Second)
	return t.C, t.Stop
}

// quietEntry reads, in one round trip, the pane's session, whose output
// a quiet wait follows, and when tmux last saw the pane print, which tmux
// keeps from 3.8 (#{pane_last_output_time}, whole seconds; empty before):
// the second after it, when the pane was last seen quiet for sure. last is
// zero when tmux does not say.
func (e *Engine) quietEntry(ctx context.Context, pane string) (session string, last time.Time, err error) {
	rs, err := e.host.Exec(ctx, controlmode.NewCommand("display-message", "-p", "-t", pane, "#{pane_id} #{session_id} #{pane_last_output_time}"))
	if err != nil {
		return "", time.Time{}, err
	}
	f := strings.Fields(strings.Join(rs[0].Lines, ""))
	if len(f) < 2 || f[0] != pane {
		return "", time.Time{}, errs.Errorf(errs.KindNotFound, "can't find pane: %s", pane)
	}
	if len(f) == 3 {
		if sec, err := strconv.ParseInt(f[2], 10, 64); err == nil && sec > 0 {
			last = time.Unix(sec+1, 0)
		}
	}
	return f[1], last, nil
}

// QuietArgs are the arguments of [Engine.WaitQuiet].
type QuietArgs struct {
	Pane PaneRef
	// Quiet is how long the pane must print nothing; 0 waits for the first
	// output instead.
	Quiet   time.Duration
	Timeout time.Duration
	// Reading makes a quiet pane count only once its foreground program is
	// blocked reading the terminal, or the kernel cannot tell (see
	// [Host] Foreground); it needs Quiet. It is looked at each time the
	// pane has been quiet for Quiet: one that is not reading then waits
	// for the next output and quiet.
	Reading bool
	// Progress, if set, is called about once a second while waiting.
	Progress func(elapsed time.Duration)
}

// QuietResult is the outcome of [Engine.WaitQuiet].
type QuietResult struct {
	PaneID   string
	Changed  bool // the pane printed since this process's last input to it, or during the wait
	Quiet    bool // the pane was quiet for QuietArgs.Quiet
	TimedOut bool
	Bytes    int64 // bytes the pane printed since that input, or during the wait
	Elapsed  time.Duration
	// Wake is how late the wait woke after the quiet period was over, the
	// delay of the timer and the scheduler; for the figure in docs/tools.md.
	Wake time.Duration
	// Foreground is what the pane's foreground program did at the last
	// look, when QuietArgs.Reading asked for one.
	Foreground *Foreground
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
func (e *Engine) WaitQuiet(ctx context.Context, a QuietArgs) (QuietResult, error) {
	start := time.Now()
	if a.Reading && a.Quiet <= 0 {
		return QuietResult{}, errs.Errorf(errs.KindInvalid, "waiting for the program to read input needs a quiet time")
	}
	pane, err := e.host.ResolvePane(ctx, a.Pane)
	if err != nil {
		return QuietResult{}, err
	}
	fed := e.host.Fed(pane)
	session, lastOutput, err := e.quietEntry(ctx, pane)
	if err != nil {
		return QuietResult{}, err
	}
	st, release, err := e.host.WatchPaneIn(pane, session)
	if err != nil {
		return QuietResult{}, err
	}
	f := newPaneFollow(e, pane, st, release)
	defer f.stop()
	q := &quietWait{e: e, ctx: ctx, a: a, pane: pane, f: f, start: start, since: start, res: QuietResult{PaneID: pane}}
	defer func() { f.st.NoteLook(f.cursor) }()
	q.atEntry(fed, lastOutput)
	if q.res.Changed && a.Quiet == 0 {
		return q.done()
	}
	return q.follow()
}

// A quietWait is one WaitQuiet in progress. Only its call touches it.
type quietWait struct {
	e     *Engine
	ctx   context.Context
	a     QuietArgs
	pane  string
	f     *paneFollow
	start time.Time
	// armed is set while the end of a quiet period is awaited; a pane
	// found quiet but busy (Reading) waits for output first.
	armed      bool
	progressAt time.Time // the next progress report; zero if none
	since      time.Time // when the pane was last seen printing, or told to
	timer      *time.Timer
	res        QuietResult
}

// atEntry counts what the pane printed since this process's last input
// to it, and finds when it last printed. fed reports whether its output
// was followed before this wait; lastOutput is when tmux last saw it print
// (see quietEntry).
func (q *quietWait) atEntry(fed bool, lastOutput time.Time) {
	st := q.f.st
	in := st.LastInput()
	if fed && in.Sent && in.Fed {
		// What the pane printed since this process's last input to it
		// counts, even when it came before the wait: a wait that starts
		// after the answer sees that there was one. Once a wait has told
		// of it, the next counts from where that one ended.
		from := max(in.Offset, st.LastLook())
		if r := st.Read(from); r.Next > from {
			q.res.Changed, q.res.Bytes = true, r.Next-from
		}
	}
	if last := st.LastOutput(); fed && !last.IsZero() {
		q.since = last
		if in.Sent && in.At.After(q.since) {
			q.since = in.At
		}
	} else if q.a.Quiet > 0 && !in.Sent && q.e.host.Release().KnowsLastOutput() {
		// Nothing followed the pane's output yet: tmux 3.8 knows when it
		// last printed, to the second.
		if !lastOutput.IsZero() && lastOutput.Before(q.since) {
			q.since = lastOutput
		}
	}
}

// done returns the wait's result.
func (q *quietWait) done() (QuietResult, error) {
	q.res.Elapsed = time.Since(q.start)
	return q.res, nil
}

// follow waits on the pane's stream, with one timer for the end of the
// quiet period, which each %output moves, and the progress reports:
// nothing is polled.
func (q *quietWait) follow() (QuietResult, error) {
	q.armed = q.a.Quiet > 0
	if q.a.Progress != nil {
		q.progressAt = q.start.Add(time.Second)
	}
	q.timer = time.NewTimer(time.Hour)
	defer q.timer.Stop()
	q.rearm()
	timedOut, err := q.f.until(q.ctx, q.a.Timeout, q.timer.C, q)
	if err != nil {
		return QuietResult{}, err
	}
	q.res.TimedOut = timedOut
	return q.done()
}

// output takes what the pane printed: with a quiet time, it starts the
// quiet period again; without, the wait is over.
func (q *quietWait) output(wctx context.Context) (bool, error) {
	since := q.since
	printed, err := q.read(wctx)
	switch {
	case err != nil:
		return false, err
	case printed && q.a.Quiet == 0:
		return true, nil
	case printed || !q.armed || q.since != since:
		q.armed = q.a.Quiet > 0
	}
	q.rearm()
	return false, nil
}

// tick handles the timer: a progress report due, or the end of the quiet
// period. It reports whether the pane is quiet, and sets the timer again
// if not.
func (q *quietWait) tick(context.Context) bool {
	if q.quietNow() {
		return true
	}
	q.rearm()
	return false
}

// quietNow reports whether the quiet period is over, after a progress
// report that is due.
func (q *quietWait) quietNow() bool {
	now := time.Now()
	if !q.progressAt.IsZero() && !now.Before(q.progressAt) {
		q.a.Progress(now.Sub(q.start))
		q.progressAt = now.Add(time.Second)
	}
	end := q.since.Add(q.a.Quiet)
	if !q.armed || now.Before(end) {
		return false
	}
	// The timer may have fired just as output came: look first.
	if r := q.f.st.Read(q.f.cursor); len(r.Data) > 0 || r.Gone || r.ConnLost {
		return false
	}
	if q.a.Reading && !q.reading() {
		// Busy, or asleep on something else: the next output starts
		// the next quiet period.
		q.armed = false
		return false
	}
	q.res.Quiet = true
	q.res.Wake = now.Sub(end)
	return true
}

// rearm sets the timer to the nearer of the quiet period's end and the
// next progress report.
func (q *quietWait) rearm() {
	t := q.timer
	var next time.Time
	if q.armed {
		next = q.since.Add(q.a.Quiet)
	}
	if !q.progressAt.IsZero() && (next.IsZero() || q.progressAt.Before(next)) {
		next = q.progressAt
	}
	if next.IsZero() {
		t.Stop()
		return
	}
	t.Reset(time.Until(next))
}

// reading looks at the pane's foreground program, and reports whether
// the wait may end: it reads the terminal, or no one can tell.
func (q *quietWait) reading() bool {
	fg := q.e.host.PaneForeground(q.ctx, q.pane)
	q.res.Foreground = &fg
	return !fg.Known || fg.Reading
}

// read takes what the pane printed since the cursor, and reports whether
// it printed anything. Output a lost client may not have delivered makes
// the quiet count from now.
func (q *quietWait) read(ctx context.Context) (bool, error) {
	r, err := q.f.read(ctx)
	n := int64(printed(r))
	if r.ConnLost {
		q.since = time.Now()
	}
	if n > 0 {
		q.res.Changed = true
		q.res.Bytes += n
		q.since = q.f.st.LastOutput()
	}
	return n > 0, err
}
