package engine

import (
	"context"
	"slices"
	"time"

	"github.com/tmux-mcp/tmux-mcp/session/internal/agentstate"
	"github.com/tmux-mcp/tmux-mcp/session/internal/errs"
)

// StateWaitArgs are the arguments of [Engine.WaitForState].
type StateWaitArgs struct {
	Panes []PaneRef // the panes to wait on; at least one
	// Until are the states that end the wait (agentstate's names).
	Until []string
	// All waits until every pane is in one of Until; else the first does.
	All     bool
	Timeout time.Duration
	// AnswerLines bounds an agent CLI's answer (0: 20).
	AnswerLines int
	// Progress, if set, is called about once a second while waiting.
	Progress func(elapsed time.Duration)
}

// PaneStateResult is one pane's state at the end of a wait.
type PaneStateResult struct {
	PaneID  string
	State   AgentState
	Reached bool // its state is one of Until
	// Answer is what the agent CLI answered since this process's last
	// input, when the pane runs one and the answer is on its screen or in
	// its record; AnswerFrom says which: "transcript" or "screen".
	Answer     []string
	AnswerFrom string
}

// StateWaitResult is the outcome of [Engine.WaitForState].
type StateWaitResult struct {
	Panes    []PaneStateResult // in the order asked
	TimedOut bool
	Elapsed  time.Duration
}

// How often a wait for a state looks at its panes: after output, once it
// has printed nothing for stateSettle (an agent redraws its spinner
// often); with no output, at growing intervals from stateSettle to
// stateLookMax, since a program can start or stop reading the terminal
// without printing anything.
const (
	stateSettle  = 100 * time.Millisecond
	stateLookMax = 2 * time.Second
)

// CheckStates reports an unknown state name in until ([errs.KindInvalid]).
func CheckStates(until []string) error {
	if len(until) == 0 {
		return errs.Errorf(errs.KindInvalid, "until names no state: want some of %v", AgentStates())
	}
	for _, u := range until {
		if !slices.Contains(AgentStates(), u) {
			return errs.Errorf(errs.KindInvalid, "unknown state %q: want some of %v", u, AgentStates())
		}
	}
	return nil
}

// WaitForState waits until a pane (or, with All, every pane) is in one of
// a.Until, or the timeout passes, and returns each pane's state. It wakes
// on the panes' output and looks at their state (row, screen, foreground
// program) once the output settles, and while they print nothing, at
// growing intervals up to 2 e.
func (e *Engine) WaitForState(ctx context.Context, a StateWaitArgs) (StateWaitResult, error) {
	start := time.Now()
	if err := CheckStates(a.Until); err != nil {
		return StateWaitResult{}, err
	}
	if len(a.Panes) == 0 {
		return StateWaitResult{}, errs.Errorf(errs.KindNoTarget, "no pane to wait on")
	}
	if a.AnswerLines <= 0 {
		a.AnswerLines = 20
	}
	ids := make([]string, 0, len(a.Panes))
	for _, ref := range a.Panes {
		id, err := e.host.ResolvePane(ctx, ref)
		if err != nil {
			return StateWaitResult{}, err
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	wctx, cancel := context.WithTimeout(ctx, a.Timeout)
	defer cancel()
	changed := make(chan int, len(ids))
	gone := make(chan error, len(ids))
	for i, id := range ids {
		f, err := e.followPane(ctx, id)
		if err != nil {
			return StateWaitResult{}, err
		}
		go watchOutput(wctx, f, i, changed, gone)
	}
	res := StateWaitResult{Panes: make([]PaneStateResult, len(ids))}
	look := time.NewTimer(0)
	defer look.Stop()
	var progress <-chan time.Time
	if a.Progress != nil {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		progress = t.C
	}
	interval := stateSettle
	for {
		select {
		case <-look.C:
			done, err := e.lookStates(ctx, ids, a, &res)
			if err != nil {
				return StateWaitResult{}, err
			}
			if done {
				res.Elapsed = time.Since(start)
				return res, nil
			}
			interval = min(2*interval, stateLookMax)
			look.Reset(interval)
		case <-changed:
			// Output: look once it settles.
			interval = stateSettle
			look.Reset(stateSettle)
		case err := <-gone:
			return StateWaitResult{}, err
		case <-progress:
			a.Progress(time.Since(start))
		case <-wctx.Done():
			if ctx.Err() != nil {
				return StateWaitResult{}, errs.FromExec(ctx.Err())
			}
			if _, err := e.lookStates(ctx, ids, a, &res); err != nil {
				return StateWaitResult{}, err
			}
			res.TimedOut = true
			res.Elapsed = time.Since(start)
			return res, nil
		}
	}
}

// watchOutput tells changed (i) each time the pane f follows prints, and
// gone why the following ended, until ctx ends. It alone touches f.
func watchOutput(ctx context.Context, f *paneFollow, i int, changed chan<- int, gone chan<- error) {
	defer f.stop()
	w := &outputWatch{f: f, i: i, changed: changed}
	if err := f.loop(ctx, nil, w); err != nil && ctx.Err() == nil {
		gone <- err
	}
}

// An outputWatch is watchOutput's step: it tells changed of output.
type outputWatch struct {
	f       *paneFollow
	i       int
	changed chan<- int
}

func (w *outputWatch) tick(context.Context) bool { return false } // no tick

func (w *outputWatch) output(ctx context.Context) (bool, error) {
	r, err := w.f.read(ctx)
	if err != nil {
		return false, err
	}
	if printed(r) > 0 {
		select {
		case w.changed <- w.i:
		default: // a look is due already
		}
	}
	return false, nil
}

// lookStates reads the state of each pane, and reports whether the wait
// is over.
func (e *Engine) lookStates(ctx context.Context, ids []string, a StateWaitArgs, res *StateWaitResult) (bool, error) {
	reached := 0
	for i, id := range ids {
		p, st, _, err := e.PaneState(ctx, PaneRef{PaneID: id})
		if err != nil {
			if errs.IsNotFound(err) {
				return false, paneExited(id)
			}
			return false, err
		}
		r := PaneStateResult{PaneID: id, State: st, Reached: slices.Contains(a.Until, st.State)}
		if r.Reached {
			reached++
			if st.Agent != "" {
				r.Answer, r.AnswerFrom = e.agentAnswer(ctx, p, st, a.AnswerLines)
			}
		}
		res.Panes[i] = r
		if r.Reached && !a.All {
			return true, nil
		}
	}
	return reached == len(ids), nil
}

// agentAnswer is what the agent CLI in p answered since this process's
// last input: from its record on the host when it keeps one, else from
// its screen (the rows as drawn: its lines are not wrapped ones).
func (e *Engine) agentAnswer(ctx context.Context, p Pane, st AgentState, maxLines int) ([]string, string) {
	if ans, ok := e.recordAnswer(ctx, st.Agent, p.PID); ok {
		return lastLines(ans, maxLines), "transcript"
	}
	_, lines, err := e.host.Capture(ctx, PaneRef{PaneID: p.ID}, CaptureArgs{})
	if err != nil {
		return nil, ""
	}
	typed := ""
	if stream, ok := e.host.Stream(p.ID); ok {
		if in := stream.LastInput(); len(in.Typed) > 0 {
			typed = in.Typed[len(in.Typed)-1]
		}
	}
	ans := lastLines(agentstate.Answer(st.Agent, lines, typed, maxLines), maxLines)
	if len(ans) == 0 {
		return nil, ""
	}
	return ans, "screen"
}

// An agent CLI writes its record a moment after it draws: Claude Code
// queues the lines of its transcript and writes them every 100 ms, later
// on a loaded machine. A record whose turn has not ended is read again,
// every recordRetry, for up to recordLag.
const (
	recordLag   = 2 * time.Second
	recordRetry = 100 * time.Millisecond
)

// recordAnswer is the latest answer in the record of the agent CLI agent
// whose process is pid, and whether the record holds one with text: read
// again while the record is behind the screen (its turn not ended), for
// up to recordLag. A turn that never ends there (one interrupted) costs
// that much before the screen answers.
func (e *Engine) recordAnswer(ctx context.Context, agent, pid string) ([]string, bool) {
	deadline := time.Now().Add(recordLag)
	for {
		rec, kept := e.host.RecordAnswer(ctx, agent, pid)
		if !kept {
			return nil, false
		}
		if rec.Ended || !time.Now().Before(deadline) {
			return rec.Lines, rec.Text
		}
		select {
		case <-ctx.Done():
			return rec.Lines, rec.Text
		case <-time.After(recordRetry):
		}
	}
}

// answerBytes bounds an answer: waits answer lean.
const answerBytes = 4 << 10

// lastLines is the newest n of lines, within answerBytes.
func lastLines(lines []string, n int) []string {
	if n > 0 && len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	size := 0
	for i := len(lines) - 1; i >= 0; i-- {
		if size += len(lines[i]) + 1; size > answerBytes {
			return lines[i+1:]
		}
	}
	return lines
}
