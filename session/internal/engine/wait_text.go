package engine

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/tmux-mcp/tmux-mcp/session/internal/paneread"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
	"github.com/tmux-mcp/tmux-mcp/session/internal/termtext"
)

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
func (e *Engine) WaitForText(ctx context.Context, a WaitArgs) (WaitResult, error) {
	start := time.Now()
	pats, stops, err := a.compile()
	if err != nil {
		return WaitResult{}, err
	}
	pane, err := e.host.ResolvePane(ctx, a.Pane)
	if err != nil {
		return WaitResult{}, err
	}
	var t *textWait
	f, entry, err := e.followEntry(ctx, pane, func(f *paneFollow) { t = e.newTextWait(ctx, a, pane, f, start) })
	if err != nil {
		return WaitResult{}, err
	}
	defer f.stop()
	t.w.pats, t.w.stops = pats, stops
	t.startGrid(entry)
	if outcome, ok, err := t.atEntry(entry); err != nil {
		return WaitResult{}, err
	} else if ok {
		return t.done(outcome)
	}
	return t.follow()
}

// A textWait is one WaitForText in progress: where it is in the pane's
// stream, whether it reads lines or the screen, and its matching state.
// Only its call touches it.
type textWait struct {
	e        *Engine
	ctx      context.Context
	a        WaitArgs
	pane     string
	f        *paneFollow
	in       panestream.InputMark // the last input this process sent the pane
	since    string               // SinceInput, SinceStart or SinceScreen
	width    int                  // the pane's width, for rebuilt lines
	interval time.Duration        // the least time between two reads
	start    time.Time
	w        *waiter
	// grid is where the rows after the wait's start begin in tmux's grid,
	// read there once the output moves between rows (see gridFollow).
	grid gridFollow
	// screen is set while the pane shows a full-screen program: its
	// screen is matched, read at most once per interval (lastRead).
	screen   bool
	lastRead time.Time
	// moves follows where the output after the input moved the cursor:
	// output drawn above the input's row (fzf printing its pick where its
	// list began) is read from the grid too.
	moves paneread.RowTracker
	// gridEcho are the rows the last read of the grid took for echo.
	gridEcho []string
	outcome  string // the outcome output found
}

// errWaitOver ends a wait whose context ended during a pause between two
// reads; paneFollow.until answers it as the timeout or the caller's end.
var errWaitOver = errors.New("the wait's time is over")

// newTextWait settles what the wait matches. f's position was taken
// before the entry's look, so that nothing landing meanwhile is missed.
func (e *Engine) newTextWait(ctx context.Context, a WaitArgs, pane string, f *paneFollow, start time.Time) *textWait {
	in := f.st.LastInput()
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
	interval := a.Interval
	if interval <= 0 {
		interval = 50 * time.Millisecond
	}
	t := &textWait{e: e, ctx: ctx, a: a, pane: pane, f: f, in: in, since: since, interval: interval, start: start,
		w: &waiter{res: WaitResult{PaneID: pane, MatchedIndex: -1, Since: since}}}
	t.width = e.host.PaneWidth(pane)
	t.w.out.Text.Width = t.width
	return t
}

// startGrid places the grid mark the wait reads rows from, and arms the
// Absent check.
func (t *textWait) startGrid(entry entryState) {
	switch t.since {
	case SinceInput:
		if t.in.Grid.Known {
			t.grid = followFrom(t.in.Grid)
		}
	case SinceScreen:
		t.grid = followFrom(entry.screenTop)
	case SinceStart:
		t.grid = followFrom(entry.screenTop)
		t.grid.row = entry.cursorRow + 1
	}
	if len(t.a.Absent) == 0 {
		return
	}
	absent, _ := compile(t.a.Absent, t.a.Regex, t.a.MatchCase) // checked by compile before
	t.w.absentOnScreen = func() bool {
		rs, err := t.e.host.Exec(t.ctx, CaptureCommand(CaptureArgs{Join: true}, t.pane))
		if err != nil {
			return true // the wait's next read says what became of the pane
		}
		i, _ := absent.First(rs[0].Lines)
		return i >= 0
	}
	// A match seen while an absent pattern is there must be looked at
	// again after the next output: the rows are read whole each time.
	t.grid.active = t.since != SinceInput || t.in.Grid.Known
}

// done returns the wait's result with outcome.
func (t *textWait) done(outcome string) (WaitResult, error) {
	t.w.res.Outcome, t.w.res.Elapsed = outcome, time.Since(t.start)
	if t.w.out.Echo != nil {
		t.w.res.EchoSkipped = t.w.out.Echo.Skipped()
		t.w.res.EchoLines = t.w.out.Echo.Lines()
	}
	if t.w.res.MatchedIn == InScreen || t.w.res.EchoSkipped == 0 {
		if n := len(t.gridEcho); n > 0 {
			t.w.res.EchoSkipped, t.w.res.EchoLines = n, t.gridEcho[max(n-5, 0):]
		}
	}
	return t.w.res, nil
}

// atEntry matches what the wait starts with: the screen, or what the pane
// printed since the input. It reports whether the wait is over.
func (t *textWait) atEntry(entry entryState) (string, bool, error) {
	t.screen = entry.alternate
	if t.screen {
		outcome, ok := t.entryScreen(entry)
		return outcome, ok, nil
	}
	switch t.since {
	case SinceScreen:
		t.w.seen.Add(entry.rows...)
		t.w.res.Tail = t.w.seen
		outcome, ok := t.w.match(entry.rows, InScreen, true)
		// The stream's position was taken before the look, which may show
		// more of the line the stream was in the middle of (a shell
		// echoing typed keys): that line's start, from the stream, comes
		// first, so its rest completes it instead of making a line alone.
		start, _ := t.f.st.LineBefore(t.f.cursor)
		t.w.out.Text.Write(start)
		return outcome, ok, nil
	case SinceInput:
		return t.entryAfterInput(entry)
	}
	return "", false, nil
}

// entryScreen matches a full-screen program's screen at the start. A
// screen drawn before the input (the old page of less, say) is not an
// answer to it: after input, the screen counts once the program has
// printed since.
func (t *textWait) entryScreen(entry entryState) (string, bool) {
	t.w.res.AlternateScreen = true
	drawn := true
	switch t.since {
	case SinceStart:
		drawn = false
	case SinceInput:
		drawn = !t.in.Fed || t.f.st.Read(t.in.Offset).Next > t.in.Offset
	}
	if drawn {
		return t.w.screen(entry.rows, true)
	}
	t.w.seen.Add(entry.rows...)
	t.w.res.Tail = t.w.seen
	return "", false
}

// entryAfterInput matches what the pane printed since this process's last
// input to it, without the echo of the typed text.
func (t *textWait) entryAfterInput(entry entryState) (string, bool, error) {
	t.w.out.Echo = paneread.NewEchoFilter(t.in.Typed, t.in.Fresh)
	if r := t.f.st.Read(t.in.Offset); t.in.Fed && r.Missed == 0 && !r.Paused && !r.ConnLost {
		return t.entryFollowed(r) // the stream holds all of it
	}
	// Nothing followed the pane when the input went in (or too much came
	// since): the screen from the input's echo on stands in. Without the
	// echo on screen, the whole screen came after the input if the pane
	// was followed (the echo scrolled away); if not, only what comes next
	// counts.
	var lines []string
	if i := paneread.LastEcho(entry.rows, t.in.Typed); i >= 0 {
		lines = entry.rows[i+1:]
		t.w.out.Echo = nil
	} else if t.in.Fed {
		lines = entry.rows
	}
	t.w.seen.Add(lines...)
	t.w.res.Tail = t.w.seen
	outcome, ok := t.w.match(lines, InScreen, true)
	return outcome, ok, nil
}

// entryFollowed matches r, all the pane printed since the input.
func (t *textWait) entryFollowed(r panestream.Read) (string, bool, error) {
	t.f.cursor = r.Next
	if b, known := t.f.st.LineBefore(t.in.Offset); known {
		t.w.out.Prime(b)
	} else if t.in.Col > 0 {
		t.w.out.Prime(bytes.Repeat([]byte{' '}, t.in.Col))
	}
	lines, partial := t.w.out.Write(r.Data)
	_, _ = t.moves.Write(r.Data)
	// The program went full-screen after the entry's look (less just
	// started): its page's output counts, and from here on its screen is
	// read, now first.
	if t.w.out.Text.AltScreen() {
		t.screen, t.w.res.AlternateScreen = true, true
	}
	if outcome, ok := t.w.output(lines, partial, true); ok {
		return outcome, true, nil
	}
	if (t.w.out.Text.Redrawn() || t.grid.active) && t.in.Grid.Known && !t.screen {
		t.grid.active = true
		if outcome, ok, err := t.lookGrid(true); err != nil || ok {
			return outcome, ok, err
		}
	}
	if !t.screen {
		return "", false, nil
	}
	e, err := t.e.readEntry(t.ctx, t.pane)
	if err != nil {
		return "", false, err
	}
	t.lastRead = time.Now()
	outcome, ok := t.w.screen(e.rows, true)
	return outcome, ok, nil
}

// follow waits for the pane's output until a match, the timeout or the
// pane's end. It wakes on %output and never polls.
func (t *textWait) follow() (WaitResult, error) {
	tick, stop := progressTicker(t.a.Progress)
	defer stop()
	timedOut, err := t.f.until(t.ctx, t.a.Timeout, tick, t)
	switch {
	case err != nil:
		return WaitResult{}, err
	case timedOut:
		return t.done(OutcomeTimeout)
	}
	return t.done(t.outcome)
}

// tick reports the wait's progress: the ticks come only when the caller
// asked for it.
func (t *textWait) tick(context.Context) bool {
	t.progress()
	return false
}

// output matches what the pane printed; the wait is over at a match.
func (t *textWait) output(wctx context.Context) (bool, error) {
	// Read the screen at most once per interval: the program may be
	// drawing still.
	if t.screen && !pause(wctx, t.interval-time.Since(t.lastRead)) {
		return false, errWaitOver
	}
	outcome, ok, err := t.next(wctx)
	if ok {
		t.outcome = outcome
	}
	return ok, err
}

// progress reports the wait's progress, if the caller asked for it.
func (t *textWait) progress() { t.a.Progress(time.Since(t.start)) }

// next reads what the pane printed since the cursor and matches it. The
// partial line stays in the rebuilt text and is matched again once more
// of it has arrived.
func (t *textWait) next(wctx context.Context) (string, bool, error) {
	r, end := t.f.read(wctx)
	if printed(r) > 0 {
		t.w.res.SawNewOutput = true
	}
	lines, partial := t.w.out.Write(r.Data)
	_, _ = t.moves.Write(r.Data)
	if r.Paused && !t.screen {
		// tmux threw output away: the screen it resumed with stands in
		// for what was lost.
		lines = append(r.Snapshot, lines...)
	}
	if r.ConnLost && end == nil {
		// A client ended and another follows the pane now: what the
		// first did not deliver is on tmux's grid.
		t.grid.active = true
	}
	if t.w.out.Text.AltScreen() && !t.screen {
		t.screen, t.w.res.AlternateScreen = true, true
		t.lastRead = time.Time{}
	}
	if t.screen {
		return t.nextScreen(r, end)
	}
	if outcome, ok := t.w.output(lines, partial, false); ok {
		return outcome, true, nil
	}
	if end != nil {
		return "", false, end
	}
	if !(t.w.out.Text.Redrawn() || t.grid.active) || t.since == SinceInput && !t.in.Grid.Known {
		return "", false, nil
	}
	t.grid.active = true
	// At most one read per interval while output flows; the output that
	// comes meanwhile is in the read that follows.
	if !pause(wctx, t.interval-time.Since(t.grid.last)) {
		return "", false, errWaitOver
	}
	return t.lookGrid(false)
}

// nextScreen reads a full-screen program's screen after it printed r, or
// goes back to lines from where the program left the alternate screen.
func (t *textWait) nextScreen(r panestream.Read, end error) (string, bool, error) {
	if end != nil {
		return "", false, end
	}
	e, err := t.e.readEntry(t.ctx, t.pane)
	if err != nil {
		return "", false, err
	}
	t.lastRead = time.Now()
	if e.alternate || t.w.out.Text.AltScreen() {
		outcome, ok := t.w.screen(e.rows, false)
		return outcome, ok, nil
	}
	t.screen = false
	off := t.w.out.Text.AltScreenExit()
	t.w.out = paneread.Output{Text: termtext.Lines{Width: t.width}}
	if off < 0 {
		return "", false, nil
	}
	lines, partial := t.w.out.Write(r.Data[off:])
	outcome, ok := t.w.output(lines, partial, false)
	return outcome, ok, nil
}

// lookGrid matches the grid's rows from the mark: on an inline TUI the
// lines rebuilt from output miss what was drawn over rows above.
func (t *textWait) lookGrid(atEntry bool) (string, bool, error) {
	if !t.grid.active || len(t.w.pats) == 0 {
		return "", false, nil
	}
	if t.since == SinceInput && t.in.Cursor.Known {
		// Output that moved the cursor above the row the input went in on
		// drew there after the input: read from the highest such row.
		if up := t.in.Cursor.Row + t.moves.Highest(); up < t.grid.row {
			t.grid.row = max(up, 0)
		}
	}
	rows, alternate, err := t.e.readRows(t.ctx, t.pane, &t.grid)
	if err != nil || alternate {
		return "", false, err // full-screen: the screen is read instead
	}
	if t.since == SinceInput {
		// The echo is on the row the input was typed on, from its
		// column: rows above it were drawn after the input.
		rows, t.gridEcho = paneread.EchoRows(rows, t.in.Grid.Row-t.grid.row, t.in.Grid.Col, t.in.Typed)
	}
	t.w.seen = nil
	t.w.seen.Add(rows...)
	t.w.res.Tail = t.w.seen
	outcome, ok := t.w.match(rows, InScreen, atEntry)
	return outcome, ok, nil
}
