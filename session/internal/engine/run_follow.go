package engine

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/errs"
	"github.com/tmux-mcp/tmux-mcp/session/internal/paneread"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
	"github.com/tmux-mcp/tmux-mcp/session/internal/shellrun"
	"github.com/tmux-mcp/tmux-mcp/session/internal/termtext"
)

// A runningCommand is a line RunCommand typed into a pane's shell, followed from
// the moment it is typed until it ends, whatever the call that typed it
// does: a call's timeout ends the call, not the following, so a later
// [Engine.WaitForCommand] gets the exit status of a build that took an
// hour. Its follower is the only writer of its state.
type runningCommand struct {
	id     string
	pane   string
	owner  string // OwnerOf the call that typed it: others cannot see it
	pid    string // pane_pid when typed; another one means a respawn
	prompt string // the cursor's row, left of the cursor, when typed
	row    int    // the cursor's row in the grid (history included) when typed
	// drawn is the grid row the output starts on, when it is known, and
	// lastLine the command's last line, which the row above it ends with.
	drawn gridAt
	// marks is what tmux had recorded of the shell's OSC 133 marks when
	// the line was typed (3.8): a later end mark is the line's.
	marks    CommandMarks
	lastLine string
	start    time.Time
	command  string // the command the line runs
	from     int64  // the stream offset the command's output starts after
	// outFrom is the stream offset of the command's first byte of output,
	// after the typed line's echo and the start marker; 0 until known.
	outFrom int64
	gen     string // the server's generation when it was typed
	cancel  context.CancelFunc
	done    chan struct{} // closed when res and err are final
	// typed is closed once the line is typed and the fields above are
	// final. A background command for a shell still starting is kept
	// before (see runPending): until then only id, pane, owner, start,
	// out, cancel and done may be read.
	typed chan struct{}
	// follow is the context of a kept command's follower, which its
	// cancel ends; nil for one typed at once.
	follow context.Context

	mu       sync.Mutex
	returned int  // the lines of output answers covered so far (outputLines.since)
	begun    bool // the shell printed the start marker
	moved    bool // the pane printed a line break since: the shell took the line
	blind    bool // output was lost before the start marker came: started or not, unknown
	// backRow and backSeen are what the look that found the shell back at
	// its prompt saw: the prompt's row, and the screen's rows between the
	// command and it (EndUnknown's reason and output).
	backRow  string
	backSeen []string
	// raw is the command's output as the pane printed it, from stream
	// offset rawFrom on, its newest rawCap bytes, kept for rawKeep after
	// it ended: capture_since reads it from its cursor once the pane (or
	// its server) is gone.
	raw     []byte
	rawFrom int64
	endedAt time.Time
	out     outputLines
	res     RunResult // final once done is closed
	err     error     // the command's outcome is this error
}

// RunEnd says how a command ended.
type RunEnd string

const (
	// EndExited: the command ended; its exit status is known.
	EndExited RunEnd = "exited"
	// EndShellExited: the shell that ran it ended and tmux kept the pane
	// dead (remain-on-exit), with the shell's status when tmux knows it.
	EndShellExited RunEnd = "shell_exited"
	// EndPaneClosed: the pane is gone: its shell exited (the command ran
	// exit or exec), or the pane, its window or its session was killed.
	// tmux tells these apart for no one.
	EndPaneClosed RunEnd = "pane_closed"
	// EndRespawned: another program was started in the pane
	// (respawn-pane -k) and the shell that ran the command is gone.
	EndRespawned RunEnd = "pane_respawned"
	// EndServerExited: the tmux server is gone: it was killed, or the
	// pane's session was its last.
	EndServerExited RunEnd = "server_exited"
	// EndUnknown: the shell is back at its prompt, but the end marker came
	// while no client of ours was attached (the client was being
	// replaced), so the exit status is unknown.
	EndUnknown RunEnd = "unknown"
)

// commandCap bounds how many commands a Server keeps: the oldest ended one
// is forgotten first, else the oldest still followed, which stops being
// followed. Each keeps at most its output bound (RunArgs).
const commandCap = 64

// commandSet is a Server's commands, by id, oldest first.
type commandSet struct {
	mu     sync.Mutex
	byID   map[string]*runningCommand
	order  []*runningCommand
	wg     sync.WaitGroup
	closed bool
}

// add keeps c, forgetting the oldest when full, and reports false once
// the set is closed.
func (cs *commandSet) add(c *runningCommand) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.closed {
		return false
	}
	if cs.byID == nil {
		cs.byID = map[string]*runningCommand{}
	}
	if len(cs.order) >= commandCap {
		drop := 0
		for i, o := range cs.order {
			if o.ended() {
				drop = i
				break
			}
		}
		old := cs.order[drop]
		old.cancel()
		delete(cs.byID, old.id)
		cs.order = append(cs.order[:drop], cs.order[drop+1:]...)
	}
	cs.byID[c.id] = c
	cs.order = append(cs.order, c)
	cs.wg.Add(1)
	return true
}

func (cs *commandSet) get(id string) *runningCommand {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.byID[id]
}

// runningIn returns the command still followed in pane, nil if none;
// except is not counted.
func (cs *commandSet) runningIn(pane string, except *runningCommand) *runningCommand {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, c := range cs.order {
		if c.pane == pane && !c.ended() && c != except {
			return c
		}
	}
	return nil
}

// close stops every follower and waits for them.
func (cs *commandSet) close() {
	cs.mu.Lock()
	cs.closed = true
	for _, c := range cs.order {
		c.cancel()
	}
	cs.mu.Unlock()
	cs.wg.Wait()
}

// end records how c ended, once: the first to learn it (its follower, or
// a wait that looked at the pane) tells it, and the follower stops.
func (c *runningCommand) end(end RunEnd, status int, hasStatus bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended() {
		return
	}
	res := RunResult{CommandID: c.id, PaneID: c.pane, End: end, Started: c.begun || end == EndExited,
		ExitStatus: status, HasStatus: hasStatus}
	res.ShellExited = end == EndShellExited || end == EndPaneClosed || end == EndServerExited || end == EndRespawned
	if end == EndUnknown {
		res.EndReason = c.unknownReason()
	}
	c.out.trim(c.out.max, c.out.maxBytes) // what the answers read from now on (answer)
	res.Elapsed = time.Since(c.start)
	c.endedAt = time.Now()
	c.res, c.err = res, err
	close(c.done)
	c.cancel()
}

// The bounds of the output a command keeps for capture_since once its
// pane is gone: the newest rawCap bytes, for rawKeep after it ended.
const (
	rawCap  = 256 << 10
	rawKeep = 10 * time.Minute
)

// keepRaw appends output to c.raw, within rawCap. c.mu is held.
func (c *runningCommand) keepRaw(data []byte) {
	c.raw = append(c.raw, data...)
	if over := len(c.raw) - rawCap; over > 0 {
		c.raw = append([]byte(nil), c.raw[over:]...)
		c.rawFrom += int64(over)
	}
}

// rawSince returns the output c keeps from stream offset offset on, and
// the offset it starts at, for a cursor of c's pane and generation gen
// whose pane is gone; missed reports that some of it is no longer kept.
// ok is false when offset is not within c's output or c keeps none.
func (c *runningCommand) rawSince(gen string, offset int64) (data []byte, at int64, missed, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	end := c.rawFrom + int64(len(c.raw))
	switch {
	case c.outFrom == 0 || c.gen != gen || offset < c.from || offset > end: // outFrom first: gen is set before typing, outFrom (under mu) after
		return nil, 0, false, false
	case !c.endedAt.IsZero() && time.Since(c.endedAt) > rawKeep:
		return nil, 0, false, false
	case offset < c.rawFrom:
		// The typed line (a cursor from before the output), or output
		// no longer kept.
		return c.raw, c.rawFrom, offset >= c.outFrom || c.rawFrom > c.outFrom, true
	}
	return c.raw[offset-c.rawFrom:], offset, false, true
}

// outputOf returns the output kept by the newest command of owner in pane
// (of generation gen) that holds offset, as rawSince does.
func (cs *commandSet) outputOf(owner, pane, gen string, offset int64) (data []byte, at int64, missed, ok bool) {
	cs.mu.Lock()
	order := append([]*runningCommand(nil), cs.order...)
	cs.mu.Unlock()
	for i := len(order) - 1; i >= 0; i-- {
		if c := order[i]; c.owner == owner && c.pane == pane {
			if data, at, missed, ok = c.rawSince(gen, offset); ok {
				return data, at, missed, true
			}
		}
	}
	return nil, 0, false, false
}

// outputFrom is the stream offset a read of c's whole output starts at:
// its first byte of output once known, else where it was typed (its echo,
// the wrapper line, comes first then).
func (c *runningCommand) outputFrom() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return cmp.Or(c.outFrom, c.from)
}

// unknownReason says why the exit status of c, found back at its
// prompt, is unknown, and puts what the screen showed in its output when
// its stream gave none. c.mu is held.
func (c *runningCommand) unknownReason() string {
	var why string
	switch {
	case c.blind:
		why = "output was lost before the command's start marker came (tmux discarded it, or the client following the pane was replaced)"
	case c.begun:
		why = "the command's end marker never came: the command was interrupted (C-c), or the shell left it"
	default:
		why = "neither of the command's markers reached tmux-mcp: the pane's output was lost (the client following it was replaced), or the shell did not run the line as typed"
	}
	reason := fmt.Sprintf("the shell is back at its prompt (%q) but %s; the exit status is unknown", c.backRow, why)
	if len(c.out.lines) == 0 && c.out.dropped == 0 && len(c.backSeen) > 0 {
		for _, l := range c.backSeen {
			c.out.add(l)
		}
		reason += "; output is what the screen shows between the command and the prompt"
	}
	return reason
}

// isTyped reports whether c's line was typed.
func (c *runningCommand) isTyped() bool {
	select {
	case <-c.typed:
		return true
	default:
		return false
	}
}

func (c *runningCommand) ended() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// newCommandID returns an id no one can guess (128 random bits): it is
// also the id of an MCP task, which a client may hold as a bearer token.
func newCommandID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails
	return "cmd-" + hex.EncodeToString(b)
}

// answer returns the command's result, the final one once it ended, else
// what it printed so far with TimedOut set, and counts its output as
// answered. Its output is what no earlier answer covered (from the start
// with fromStart), the newest maxLines lines of it (0: the command's own
// bound).
func (c *runningCommand) answer(maxLines int, fromStart bool) (RunResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	res := RunResult{CommandID: c.id, PaneID: c.pane, TimedOut: true, Started: c.begun, Elapsed: time.Since(c.start), AwaitingPrompt: !c.isTyped()}
	if c.ended() {
		if c.err != nil {
			return RunResult{}, c.err
		}
		res = c.res
	}
	from := c.returned
	if fromStart {
		from = 0
	}
	var left, next int
	var cut bool
	res.Output, left, cut, next = c.out.since(from, maxLines, 0)
	res.OutputTruncated, res.TruncatedLines = left > 0 || cut || c.out.lost, left
	res.EarlierLines = from
	c.returned = max(c.returned, next)
	return res, nil
}

// await waits up to timeout for c to end and returns its outcome; a
// command still running is reported with TimedOut and keeps being
// followed. For the call that typed it (typing), one that has not started
// yet is an error that says why: a shell that took the line as the rest
// of an earlier command will never start it; a later wait reports it as
// running, not started, for the follower goes on looking.
func (e *Engine) await(ctx context.Context, c *runningCommand, timeout time.Duration, typing bool, maxLines int, fromStart bool) (RunResult, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	if !c.isTyped() {
		// Kept for a shell's first prompt: the line is not typed yet.
		select {
		case <-c.typed:
		case <-c.done:
			return c.answer(maxLines, fromStart)
		case <-ctx.Done():
			return RunResult{}, errs.FromExec(ctx.Err())
		case <-t.C:
			return c.answer(maxLines, fromStart)
		}
	}
	select {
	case <-c.done:
	case <-ctx.Done():
		return RunResult{}, errs.FromExec(ctx.Err())
	case <-t.C:
		// Nothing wakes the follower when the pane dies and tmux keeps
		// it (remain-on-exit), nor when a shell back at its prompt printed
		// nothing since the follower last looked: look once.
		if end, status, known := e.paneFate(ctx, c); end != "" {
			c.end(end, status, known, nil)
		} else {
			e.backAtPrompt(ctx, c)
		}
	}
	res, err := c.answer(maxLines, fromStart)
	c.mu.Lock()
	blind := c.blind
	c.mu.Unlock()
	if err != nil || !res.TimedOut || res.Started || blind || !typing {
		return e.withCursor(ctx, res), err
	}
	if err := e.notStarted(ctx, c.pane, true, c.id); err != nil {
		return RunResult{}, err
	}
	return e.withCursor(ctx, res), nil
}

// withCursor gives a result whose output was cut the cursor that reads it
// whole.
func (e *Engine) withCursor(ctx context.Context, res RunResult) RunResult {
	if res.OutputTruncated && res.Cursor == "" {
		if c := e.cmds.get(res.CommandID); c != nil {
			res.Cursor = e.sinceCursor(ctx, c.pane, c.outputFrom())
		}
	}
	return res
}

// WaitForCommand waits up to timeout for the command RunCommand gave the
// id of to end, and returns what RunCommand would have: its exit status
// and output once it ended, else its output so far and TimedOut.
// Its output is what no earlier answer about the command returned, unless
// a.FromStart.
func (e *Engine) WaitForCommand(ctx context.Context, a CommandWaitArgs) (RunResult, error) {
	c := e.cmds.get(a.ID)
	if c == nil || c.owner != OwnerOf(ctx) {
		return RunResult{}, errs.Errorf(errs.KindNotFound, "no command %q: this process never ran it, or forgot it (it keeps the newest %d), or it was started by another client", a.ID, commandCap)
	}
	return e.await(ctx, c, a.Timeout, false, a.MaxLines, a.FromStart)
}

// interruptKey is what InterruptCommand sends: C-c, and no Enter, which
// would type an empty line after the shell's next prompt.
const interruptKey = "C-c"

// InterruptCommand stops the command RunCommand gave the id of, if it
// still runs: it sends C-c (and no Enter) to its pane, again each
// interruptAgain while the command runs, and waits up to wait for the
// command to end. It reports whether the command has ended.
// A command that ended already is left alone: its pane may run something
// else now.
func (e *Engine) InterruptCommand(ctx context.Context, id string, wait time.Duration) (bool, error) {
	c := e.cmds.get(id)
	if c == nil || c.owner != OwnerOf(ctx) {
		return false, errs.Errorf(errs.KindNotFound, "no command %q: this process never ran it, or forgot it, or it was started by another client", id)
	}
	if !c.ended() && !c.isTyped() {
		// Kept for its shell's first prompt: nothing was typed, and
		// nothing will be.
		c.end("", 0, false, errs.Errorf(errs.KindCancelled, "command %s was stopped before its line was typed (its shell had drawn no prompt yet); nothing ran", id))
		return true, nil
	}
	if c.ended() || e.cmds.runningIn(c.pane, nil) != c {
		return true, nil
	}
	press := func() error {
		_, err := e.host.SendKeys(ctx, PaneRef{PaneID: c.pane}, SendKeysArgs{Keys: interruptKey})
		return err
	}
	if err := press(); err != nil {
		return false, err
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	again := time.NewTicker(interruptAgain)
	defer again.Stop()
	for {
		select {
		case <-c.done:
			return true, nil
		case <-ctx.Done():
			return false, errs.FromExec(ctx.Err())
		case <-again.C:
			// A C-c can be lost: sent between a child's exit and its
			// shell taking the terminal back, it reaches an empty process
			// group, and a loop of short commands goes on. A person
			// presses it again; so does this, unless the shell is back at
			// its prompt (its follower will say so) or the pane is gone.
			if c.ended() || e.lookAtCommand(ctx, c) != "" {
				continue
			}
			if end, _, _ := e.paneFate(ctx, c); end != "" {
				continue
			}
			if err := press(); err != nil {
				return false, err
			}
		case <-t.C:
			// The follower looks at the pane only as it prints: a shell back
			// at its prompt may have printed nothing since. Look once.
			if end, status, known := e.paneFate(ctx, c); end != "" {
				c.end(end, status, known, nil)
			} else {
				e.backAtPrompt(ctx, c)
			}
			return c.ended(), nil
		}
	}
}

// interruptAgain is how long InterruptCommand waits for a command to end
// after a C-c before it presses C-c again.
const interruptAgain = time.Second

// CommandPane returns the pane command id was typed into, for a caller
// that checks what the asker may see.
func (e *Engine) CommandPane(ctx context.Context, id string) (string, bool) {
	c := e.cmds.get(id)
	if c == nil || c.owner != OwnerOf(ctx) {
		return "", false
	}
	return c.pane, true
}

// lookEvery spaces the follower's looks at the pane while the command
// prints: a respawned pane, or a shell back at its prompt without the end
// marker (the command was interrupted), is seen within about this long of
// its output.
const lookEvery = time.Second

// followCommand reads the pane's output until the command ends, and
// records how it ended. It owns pf and stops it when done.
func (e *Engine) followCommand(ctx context.Context, c *runningCommand, pf *paneFollow, tag string) {
	defer e.cmds.wg.Done()
	now := time.Now()
	f := &follower{e: e, c: c, pane: pf, scan: shellrun.NewScan(tag),
		rows:    paneread.RowTracker{Width: c.drawn.width},
		graceAt: now.Add(startGrace), look: now, timer: time.NewTimer(startGrace)}
	defer f.timer.Stop()
	f.run(ctx)
}

// A follower is the state of one command's follow: the pane's output
// followed, the scan for its markers, and when it last looked at the
// pane. Only its goroutine touches it.
type follower struct {
	e    *Engine
	c    *runningCommand
	pane *paneFollow
	text termtext.Lines
	rows paneread.RowTracker // where the output moved the cursor (readDrawn)
	scan shellrun.Scan
	// One timer for three deadlines: the next check of a command not
	// started yet (graceAt), a look put off because the last one was
	// recent (lookDue, zero if none), and the next check that the pane
	// still runs the shell, lookEvery after the last (checked).
	graceAt, look, lookDue, checked time.Time
	timer                           *time.Timer
	lastData                        time.Time // when output last came
	// sure is how many lines of output the command had when a check last
	// found its shell in the pane: lines after it may be a new program's.
	sure int
}

// burstGap is the pause in a command's output after which the pane is
// checked: the lines read until then count as the command's once the
// check finds its shell, and are dropped if a new program runs there
// (respawn-pane -k), whose start-up lines they may be.
const burstGap = 50 * time.Millisecond

// run follows the pane until the command ends: the one loop (see
// paneFollow.loop), with output and tick as its steps.
func (f *follower) run(ctx context.Context) {
	if err := f.pane.loop(ctx, f.timer.C, f); err != nil {
		// Ended by a wait that looked at the pane, or no longer followed.
		f.finish("", 0, false, errs.AfterChange(errs.Errorf(errs.KindConnLost,
			"command %s in pane %s is no longer followed (the server closed, or forgot it for newer ones); its outcome is unknown", f.c.id, f.c.pane)))
	}
}

// output takes what the pane printed, and reports whether the command
// ended; it never fails: how the following ended is the command's end.
func (f *follower) output(ctx context.Context) (bool, error) {
	f.lastData = time.Now()
	r, end, ended := f.consume(ctx)
	if ended {
		return true, nil
	}
	if (end != nil || r.ConnLost) && f.lost(ctx, end) {
		return true, nil
	}
	// Output the command did not end with: look at the pane for a
	// respawn or a shell back at its prompt (C-c ended the command),
	// at most every lookEvery, and once more lookEvery after the last
	// look if output came meanwhile, so the last burst is looked at.
	switch {
	case time.Since(f.look) >= lookEvery:
		if f.lookNow(ctx) {
			return true, nil
		}
	case f.lookDue.IsZero():
		f.lookDue = f.look.Add(lookEvery)
	}
	f.rearm()
	return false, nil
}

// finish records how the command ended and gives the pane's watch back.
func (f *follower) finish(end RunEnd, status int, hasStatus bool, err error) {
	f.c.mu.Lock()
	// Back at its prompt, the shell's last line is that prompt.
	if l := f.text.Line(); l != "" && !f.c.ended() && end != EndUnknown {
		f.c.out.add(l)
	}
	f.c.mu.Unlock()
	f.c.end(end, status, hasStatus, err)
	f.pane.stop()
}

// consume takes what the stream holds after the cursor, and reports
// whether the command ended; r is what was read, and end the end of the
// pane's following (see paneFollow.read).
func (f *follower) consume(ctx context.Context) (r panestream.Read, end error, ended bool) {
	c := f.c
	r, end = f.pane.read(ctx)
	lost := r.ConnLost || r.Paused || r.Missed > 0
	if lost && !f.scan.Begun() {
		// The start marker may be in what was lost.
		f.scan.AssumeBegun()
		c.mu.Lock()
		c.blind = true
		c.mu.Unlock()
	}
	data, ok := f.scan.Feed(r.Data)
	if !ok {
		f.finish("", 0, false, errs.AfterChange(errs.Errorf(errs.KindRefused, "cannot read the exit status the shell in pane %s printed", c.pane)))
		return r, end, true
	}
	f.text.Write(data)
	f.rows.Write(data)
	c.mu.Lock()
	if at, ok := f.scan.OutputStart(); ok && !c.blind && c.outFrom == 0 {
		c.outFrom, c.rawFrom = c.from+at, c.from+at
	}
	if c.outFrom != 0 && !lost {
		c.keepRaw(data)
	}
	c.begun = f.scan.Begun()
	c.moved = c.moved || bytes.IndexByte(r.Data, '\n') >= 0
	for _, l := range f.text.Take() {
		c.out.add(l)
	}
	c.out.lost = c.out.lost || lost
	c.mu.Unlock()
	if !f.scan.Done() {
		return r, end, false
	}
	if p, ok := f.e.awaitPrompt(ctx, f.pane, f.scan.Rest()); ok {
		f.e.prompts.store(c.pane, p)
	}
	f.readDrawn(ctx)
	f.finish(EndExited, f.scan.Status(), true, nil)
	return r, end, true
}

// tick handles the timer: a check of a command the shell has not started
// (it may have taken the line as the rest of an earlier one, and never
// will), or a look put off. It reports whether the command ended.
func (f *follower) tick(ctx context.Context) bool {
	now := time.Now()
	if !f.scan.Begun() && !now.Before(f.graceAt) {
		if err := f.e.notStarted(ctx, f.c.pane, false, f.c.id); err != nil {
			f.finish("", 0, false, err)
			return true
		}
		f.graceAt = now.Add(startGrace)
	}
	if !f.lookDue.IsZero() && !now.Before(f.lookDue) && f.lookNow(ctx) {
		return true
	}
	if !now.Before(f.checkAt()) && f.checkPane(ctx) {
		return true
	}
	f.rearm()
	return false
}

// checkAt is when the pane is next checked: burstGap after output that
// came since the last check, and lookEvery after the last check while the
// command prints nothing, for nothing in its output says that the pane
// was respawned, or died and was kept (remain-on-exit), until the new
// program prints, seconds later perhaps.
func (f *follower) checkAt() time.Time {
	if f.lastData.After(f.checked) {
		return f.lastData.Add(burstGap)
	}
	last := f.checked
	if f.look.After(last) {
		last = f.look
	}
	return last.Add(lookEvery)
}

// respawned ends the command as respawned. The output read since the
// last check that found the shell may be the new program's (its start-up
// lines, its prompt): it is dropped, and so is what the stream holds since
// the last read.
func (f *follower) respawned() {
	f.c.mu.Lock()
	f.c.out.cutAfter(f.sure)
	f.c.mu.Unlock()
	f.text = termtext.Lines{}
	f.finish(EndRespawned, 0, false, nil)
}

// checkPane checks, in one round trip, that the pane still runs the shell
// the command was typed into, and reports whether the command ended: the
// pane was respawned (what the stream holds since the last read is the new
// program's, and is not output), or is dead or gone.
func (f *follower) checkPane(ctx context.Context) bool {
	f.checked = time.Now()
	if f.e.sameShell(ctx, f.c) {
		f.c.mu.Lock()
		f.sure = f.c.out.dropped + len(f.c.out.lines)
		f.c.mu.Unlock()
		return false
	}
	fate, status, known := f.e.paneFate(ctx, f.c)
	switch fate {
	case "":
		return false
	case EndRespawned:
		f.respawned()
		return true
	}
	// The shell's last output (its end marker perhaps) is in the stream.
	if _, _, ended := f.consume(ctx); !ended {
		f.finish(fate, status, known, nil)
	}
	return true
}

// rearm sets the timer to the nearer of its two deadlines.
func (f *follower) rearm() {
	next := f.checkAt()
	if !f.lookDue.IsZero() && f.lookDue.Before(next) {
		next = f.lookDue
	}
	if !f.scan.Begun() && f.graceAt.Before(next) {
		next = f.graceAt
	}
	f.timer.Reset(time.Until(next))
}

// lookNow looks at the pane and reports whether the command ended.
func (f *follower) lookNow(ctx context.Context) bool {
	f.look, f.lookDue = time.Now(), time.Time{}
	end := f.e.lookAtCommand(ctx, f.c)
	if end == "" {
		return false
	}
	if end == EndRespawned {
		f.respawned()
		return true
	}
	// tmux delivers a pane's output before the reply to a command sent
	// after it was read: what the look saw drawn, the stream holds, the
	// end marker included if it came (a watcher's stream once synced).
	if err := f.e.host.SyncStream(ctx, f.pane.st); err != nil {
		return false
	}
	if _, _, ended := f.consume(ctx); !ended {
		if status, ok := f.e.statusFromMarks(ctx, f.c, end); ok {
			f.finish(EndExited, status, true, nil)
		} else {
			f.finish(end, 0, false, nil)
		}
	}
	return true
}

// statusFromMarks reads, for a command that ended with no end marker of
// ours (end is EndUnknown: interrupted, or the marker passed while no
// client was attached), the exit status its shell's own OSC 133 end mark
// carried, which tmux 3.8 keeps: an end mark recorded since the line was
// typed, with no command running. A shell that prints no marks, and every
// release before 3.8, leaves it unknown. The line keeps the command's
// status for the shell to report (shellrun.LineKeeping).
func (e *Engine) statusFromMarks(ctx context.Context, c *runningCommand, end RunEnd) (int, bool) {
	if end != EndUnknown || !e.host.Release().RecordsCommandMarks() {
		return 0, false
	}
	m, err := e.CommandMarks(ctx, c.pane)
	if err != nil || m.Running || !m.HasStatus || m == c.marks {
		return 0, false
	}
	return m.Status, true
}

// lost answers the end of the pane's following (end), or of the client
// that delivered its output when another follows the pane now (end nil):
// the pane's fate, looked at in either case, or a look at the pane at
// once, for what the old client did not deliver (the end marker perhaps)
// is lost. It reports whether the command ended.
func (f *follower) lost(ctx context.Context, end error) bool {
	if fate, status, known := f.e.paneFate(ctx, f.c); fate != "" {
		f.finish(fate, status, known, nil)
		return true
	}
	switch {
	case errs.IsNotFound(end):
		f.finish(EndPaneClosed, 0, false, nil)
		return true
	case end != nil:
		f.finish("", 0, false, errs.AfterChange(errs.Errorf(errs.KindConnLost,
			"the tmux client following pane %s ended while the command ran and no new one follows it; its outcome is unknown", f.c.pane)))
		return true
	}
	f.look = time.Time{}
	f.scan.DropRest()
	return false
}

// paneFate asks tmux what became of the pane of a command whose stream
// ended (the pane closed) or whose client ended. It returns "" while the
// pane lives with the same program.
func (e *Engine) paneFate(ctx context.Context, c *runningCommand) (end RunEnd, status int, known bool) {
	qctx, cancel := context.WithTimeout(ctx, lookTimeout)
	defer cancel()
	gen := e.host.Generation()
	var dead, ok bool
	// A client of ours that ended may be followed by one that finds the
	// server exiting: ask again.
	for try := 0; try < 3 && !ok && qctx.Err() == nil; try++ {
		dead, status, ok = e.paneDead(qctx, c.pane)
	}
	switch {
	case !ok:
		return "", 0, false
	case dead && status == -2:
		// Gone: with the server, if no session is left or it is another
		// server now.
		if e.serverGone(qctx, gen) {
			return EndServerExited, 0, false
		}
		return EndPaneClosed, 0, false
	case dead:
		return EndShellExited, status, status >= 0
	}
	if pid, err := e.panePid(qctx, c.pane); err == nil && pid != c.pid {
		return EndRespawned, 0, false
	}
	return "", 0, false
}

// serverGone reports whether the server of generation gen has exited or
// is exiting: no server answers, another one does, or it has no session
// left (tmux exits once its last session is gone).
func (e *Engine) serverGone(ctx context.Context, gen string) bool {
	rs, err := e.host.Exec(ctx, controlmode.NewCommand("list-sessions", "-F", "#{session_id}"))
	if err != nil {
		var fail *errs.Error
		return errors.As(err, &fail) && fail.Kind == errs.KindNoServer
	}
	return e.host.Generation() != gen || len(rs[0].Lines) == 0
}

// sameShell reports whether c's pane still runs, alive, the process c was
// typed into, in one round trip; true when tmux could not be asked.
func (e *Engine) sameShell(ctx context.Context, c *runningCommand) bool {
	qctx, cancel := context.WithTimeout(ctx, lookTimeout)
	defer cancel()
	rs, err := e.host.Exec(qctx, controlmode.NewCommand("display-message", "-p", "-t", c.pane, "#{pane_id}\t#{pane_dead}\t#{pane_pid}"))
	if err != nil {
		var fail *errs.Error
		return !(errors.As(err, &fail) && (fail.Kind == errs.KindNotFound || fail.Kind == errs.KindNoServer))
	}
	return strings.Join(rs[0].Lines, "") == c.pane+"\t0\t"+c.pid
}

func (e *Engine) panePid(ctx context.Context, pane string) (string, error) {
	rs, err := e.host.Exec(ctx, controlmode.NewCommand("display-message", "-p", "-t", pane, "#{pane_pid}"))
	if err != nil {
		return "", err
	}
	return strings.Join(rs[0].Lines, ""), nil
}

// lookAtCommand looks at the pane of a command that printed without
// ending: respawned, or its shell back at the prompt it had when the
// command was typed (the command was interrupted, or its end marker passed
// while no client was attached).
func (e *Engine) lookAtCommand(ctx context.Context, c *runningCommand) RunEnd {
	qctx, cancel := context.WithTimeout(ctx, lookTimeout)
	defer cancel()
	p, err := e.probe(qctx, c.pane)
	if err != nil || p.dead {
		return ""
	}
	if p.pid != c.pid {
		return EndRespawned
	}
	c.mu.Lock()
	moved := c.moved || c.begun
	c.mu.Unlock()
	// A shell that has not read the typed line yet (slow to start, or
	// busy) still shows the prompt it was typed at: back at a prompt
	// counts only once the cursor has left that row.
	if shells[p.program] && !p.alt && !p.mode && (moved || p.row > c.row) {
		row := shellrun.CursorRow(p.screen, p.at)
		if shellrun.SamePrompt(row, c.prompt) || shellrun.SamePrompt(row, e.prompts.load(c.pane)) {
			c.mu.Lock()
			c.backRow, c.backSeen = row, c.seenBetween(p)
			c.mu.Unlock()
			return EndUnknown
		}
	}
	return ""
}

// seenBetween returns the screen's rows, as p read them, between the
// command's rows and the cursor's (the prompt it is back at), those that
// scrolled off excepted.
func (c *runningCommand) seenBetween(p runProbe) []string {
	from := c.row + 1
	if c.drawn.known {
		from = c.drawn.row
	}
	first, last := max(from-p.hist, 0), min(p.at.CursorY, len(p.screen))
	if first >= last {
		return nil
	}
	seen := append([]string(nil), p.screen[first:last]...)
	for len(seen) > 0 && strings.TrimSpace(seen[len(seen)-1]) == "" {
		seen = seen[:len(seen)-1]
	}
	return seen
}

// backAtPrompt reports whether the command c has ended, looking at its
// pane: a shell back at its prompt (the command was interrupted) ends it,
// once its follower has had a moment to read an end marker that came.
func (e *Engine) backAtPrompt(ctx context.Context, c *runningCommand) bool {
	if c.ended() {
		return true
	}
	if !c.isTyped() {
		return false
	}
	end := e.lookAtCommand(ctx, c)
	if end == "" {
		return false
	}
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-c.done:
	case <-t.C:
		if status, ok := e.statusFromMarks(ctx, c, end); ok {
			c.end(EndExited, status, true, nil)
		} else {
			c.end(end, 0, false, nil)
		}
	case <-ctx.Done():
		return false
	}
	return true
}

// promptMemory holds, per pane, the prompt RunCommand last saw the pane's
// shell draw after a command: a plain "> " at the cursor is a continuation
// prompt in a pane whose prompt is something else. An entry is a few
// bytes; they are not removed.
type promptMemory struct {
	m sync.Map // pane -> string
}

func (pm *promptMemory) store(pane, prompt string) { pm.m.Store(pane, prompt) }

func (pm *promptMemory) load(pane string) string {
	p, _ := pm.m.Load(pane)
	str, _ := p.(string)
	return str
}
