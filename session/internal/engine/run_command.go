package engine

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/errs"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
	"github.com/tmux-mcp/tmux-mcp/session/internal/shellrun"
	"github.com/tmux-mcp/tmux-mcp/session/internal/termtext"
)

// RunArgs are the arguments of [Engine.RunCommand].
type RunArgs struct {
	Pane    PaneRef
	Command string
	Timeout time.Duration
	// MaxLines keeps only the newest lines of output; 0 keeps them all.
	MaxLines int
	// MaxBytes keeps only the newest lines of output within this many
	// bytes (the newest line always, cut to it); 0 keeps them all.
	MaxBytes int
	// SuppressHistory types a space first, so shells that ignore lines
	// starting with one (HISTCONTROL=ignorespace, zsh's
	// HIST_IGNORE_SPACE) keep the command out of their history.
	SuppressHistory bool
	// Background returns as soon as the line is typed, with the command's
	// id: [Engine.WaitForCommand] reads its outcome. For a shell that has
	// not drawn its first prompt it returns at once: the line is typed
	// once the prompt is drawn (within Timeout), and until then the
	// outcome says AwaitingPrompt.
	Background bool
	// Typed, if not nil, is told the command's id as soon as the line is
	// typed, before the call waits (or, for a background command kept for
	// its shell's first prompt, as it is kept): a caller that answers
	// before the command ends (an MCP task) names what it answers with by
	// it.
	Typed func(id string)
}

// RunResult is the outcome of [Engine.RunCommand].
type RunResult struct {
	// CommandID names the command for [Engine.WaitForCommand].
	CommandID  string
	PaneID     string
	ExitStatus int  // valid when HasStatus
	HasStatus  bool // the command ended and its exit status is known
	// TimedOut reports that the command had not ended when the call's
	// timeout passed (or the call was in the background): it is still
	// followed, and End is "".
	TimedOut bool
	// Started reports that the shell started the command.
	Started bool
	// AwaitingPrompt reports that the line is not typed yet: the pane's
	// shell has not drawn its first prompt (a background command).
	AwaitingPrompt bool
	// End says how the command ended, "" while it runs.
	End RunEnd
	// EndReason says, when End is EndUnknown, why the status is unknown
	// and where the output comes from.
	EndReason string
	// ShellExited reports that the shell that ran the command is gone
	// (End is shell_exited, pane_closed, pane_respawned or server_exited).
	ShellExited     bool
	Output          []string
	OutputTruncated bool
	TruncatedLines  int
	// EarlierLines is how many lines of output earlier answers about the
	// command covered (returned, or cut from them): Output starts after
	// them. CommandWaitArgs.FromStart reads them again.
	EarlierLines int
	// Cursor, when the output was cut, reads the whole output with
	// capture_since from the command's start, as far as the pane's stream
	// (or, once the pane is gone, the command) still holds it.
	Cursor  string
	Elapsed time.Duration
}

// CommandWaitArgs are the arguments of [Engine.WaitForCommand].
type CommandWaitArgs struct {
	ID      string
	Timeout time.Duration
	// MaxLines keeps only the newest lines of the output not returned
	// before; 0 keeps as many as run_command would (RunArgs.MaxLines).
	MaxLines int
	// FromStart reads the output from its start (as far as the command
	// keeps it), not from where the previous answer ended.
	FromStart bool
}

// shells are the programs RunCommand types into. fish has its own syntax.
var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true,
	"mksh": true, "ash": true, "yash": true, "busybox": true, "fish": true}

// canonicalMax is the size of a tty's line buffer in canonical mode
// (Linux's N_TTY_BUF_SIZE): sh and dash read lines through it, and a
// longer line is cut.
const canonicalMax = 4096

// inputSettle bounds how long RunCommand waits for a pane to answer keys
// this process sent it without Enter just before.
const inputSettle = 500 * time.Millisecond

// clearSettle bounds how long after such a key RunCommand keeps looking at
// an input line that would be refused, for the key's effect (C-u clearing
// it) to reach the screen.
const clearSettle = 2 * time.Second

// startGrace is how long RunCommand waits for the shell to start the
// command before it looks at the pane for the reason it has not: a shell
// at a continuation prompt (left by input typed before) never will.
const startGrace = 2 * time.Second

// RunCommand types command into the pane's shell and returns its exit
// status and its complete output, read from the pane's output stream, so
// output longer than the screen is kept. The shell itself runs the command
// (cd and exports persist), through eval, between two markers that neither
// a person nor capture-pane sees (see internal/shellrun). Nothing but the command
// line is typed: no temporary file, no tmux wait-for on the shared channel.
// The command is followed until it ends, also after the call's timeout:
// the result's CommandID is for [Engine.WaitForCommand].
func (e *Engine) RunCommand(ctx context.Context, a RunArgs) (RunResult, error) {
	if a.Background {
		if c, ok, err := e.runPending(ctx, a); ok || err != nil {
			if err != nil {
				return RunResult{}, err
			}
			if a.Typed != nil {
				a.Typed(c.id) // not typed yet, but named: stopping it stops the typing
			}
			return c.answer(0, false)
		}
	}
	c, err := e.startCommand(ctx, a, nil)
	if err != nil {
		return RunResult{}, err
	}
	if a.Typed != nil {
		a.Typed(c.id)
	}
	var res RunResult
	if a.Background {
		res, err = c.answer(0, false)
	} else {
		res, err = e.await(ctx, c, a.Timeout, true, 0, false)
	}
	return res, errs.AfterChange(err) // the line was typed: whatever failed after, it may have run
}

// runPending answers a background command for a shell that has not drawn
// its first prompt at once (ok): the command is kept, and typed by a
// goroutine of its own once the prompt is drawn, as startCommand would
// have typed it. Any other pane is not its (ok false, nil error): the
// caller types at once. It fails only as the look at the pane fails.
func (e *Engine) runPending(ctx context.Context, a RunArgs) (*runningCommand, bool, error) {
	if strings.IndexByte(a.Command, 0) >= 0 {
		return nil, false, nil // startCommand says why
	}
	pane, err := e.host.ResolvePane(ctx, a.Pane)
	if err != nil {
		return nil, false, err
	}
	p, err := e.probe(ctx, pane)
	if err != nil {
		return nil, false, err
	}
	if p.dead || p.mode || p.alt || !(p.program == "tmux" || shells[p.program] && p.at.CursorX == 0 && blank(p.screen)) {
		return nil, false, nil
	}
	if c := e.cmds.runningIn(pane, nil); c != nil {
		return nil, false, nil // startCommand refuses, or finds it ended
	}
	// The pane's output is watched before the answer, not by the goroutine
	// below: a watcher is a new control client, and a control client still
	// identifying itself when another client makes a session crashes tmux
	// 3.3a. A caller that goes on after this answer (a test making its next
	// session) must not meet one half made.
	_, release, err := e.host.WatchPaneIn(pane, p.session)
	if err != nil {
		return nil, false, err
	}
	start := time.Now()
	fctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c := &runningCommand{id: newCommandID(), pane: pane, owner: OwnerOf(ctx), start: start, cancel: cancel, follow: fctx,
		done: make(chan struct{}), typed: make(chan struct{}), out: outputLines{max: a.MaxLines, maxBytes: a.MaxBytes}}
	if !e.cmds.add(c) {
		cancel()
		release()
		return nil, false, errs.Closed()
	}
	go func() {
		defer release() // startCommand holds the stream again while it follows
		// The call's timeout bounds the wait for the prompt, as it would
		// have bounded the call.
		tctx, stop := context.WithDeadline(fctx, start.Add(a.Timeout))
		defer stop()
		if _, err := e.startCommand(tctx, a, c); err != nil {
			c.end("", 0, false, err)
			e.cmds.wg.Done()
		}
	}()
	return c, true, nil
}

// startCommand looks at the pane, types the command line and starts its
// follower. Nothing is typed when it fails. pending, if not nil, is the
// background command kept for this line (runPending), to type it as.
func (e *Engine) startCommand(ctx context.Context, a RunArgs, pending *runningCommand) (*runningCommand, error) {
	start := time.Now()
	if pending != nil {
		start = pending.start
	}
	if strings.IndexByte(a.Command, 0) >= 0 {
		return nil, errs.Errorf(errs.KindInvalid, "command contains a NUL byte")
	}
	pane, err := e.host.ResolvePane(ctx, a.Pane)
	if err != nil {
		return nil, err
	}
	p, err := e.probe(ctx, pane)
	if err != nil {
		return nil, err
	}
	f, err := e.followPaneIn(pane, p.session)
	if err != nil {
		return nil, err
	}
	if c := e.cmds.runningIn(pane, pending); c != nil {
		if !e.endsAfterInput(ctx, f, c) {
			f.stop()
			return nil, errs.Fix(errs.Errorf(errs.KindRefused, "pane %s is still running command %s, typed by an earlier call; wait for it to end, or stop it with C-c and no Enter", pane, c.id), errs.RemedyWaitOrInterrupt)
		}
		// It ended a moment ago: what the first look saw is gone.
		if p2, err := e.probe(ctx, pane); err == nil {
			p = p2
		}
		f.skip()
	}
	p = e.settleInput(ctx, f, p)
	p, err = e.awaitReady(ctx, f, p, start.Add(a.Timeout))
	if err == nil {
		p, err = e.judgeReady(ctx, f, p)
	}
	var c *runningCommand
	if err == nil {
		c, err = e.typeCommand(ctx, a, p, f, start, pending)
	}
	if err != nil {
		f.stop()
		return nil, err
	}
	return c, nil
}

// endsAfterInput reports whether c, the command an earlier call typed in
// f's pane, has ended, or ends within clearSettle of the input this process
// sent it since (q to a pager, exit() to a REPL): run right after those
// keys, a command would otherwise be refused a moment before c ends.
func (e *Engine) endsAfterInput(ctx context.Context, f *paneFollow, c *runningCommand) bool {
	if e.backAtPrompt(ctx, c) {
		return true
	}
	in := f.st.LastInput()
	if !in.Sent || !in.At.After(c.start) {
		return false
	}
	t := time.NewTimer(time.Until(in.At.Add(clearSettle)))
	defer t.Stop()
	select {
	case <-c.done:
		return true
	case <-t.C:
	case <-ctx.Done():
		return false
	}
	return e.backAtPrompt(ctx, c)
}

// settleInput lets the pane answer keys this process sent it without
// Enter a moment ago (C-u to clear a line), which may not have reached the
// screen yet, before its input line is judged, and looks again.
func (e *Engine) settleInput(ctx context.Context, f *paneFollow, p runProbe) runProbe {
	in := f.st.LastInput()
	if !in.Sent || !in.Fed || in.Enter || time.Since(in.At) >= inputSettle {
		return p
	}
	if in.Offset == f.cursor {
		f.waitFor(ctx, inputSettle-time.Since(in.At)) // no answer yet: the pane shows what it shows
	}
	// The first look may have come before the answer: look again.
	if p2, err := e.probe(ctx, f.pane); err == nil {
		p = p2
	}
	f.skip()
	return p
}

// awaitReady gives a pane that is not at a shell prompt by the first look
// the moments it may need: a program told to quit, a new pane's shell
// starting, a prompt being drawn. A shell that has drawn nothing by
// deadline gets nothing typed: the line would wait in the terminal and run
// whenever the shell reads it, after this call.
func (e *Engine) awaitReady(ctx context.Context, f *paneFollow, p runProbe, deadline time.Time) (runProbe, error) {
	if !p.dead && !p.mode && (p.program == "tmux" || p.at.CursorX == 0 || p.alt || !shells[p.program]) {
		// Not ready by the first look, which came before the position was
		// taken: look again, or what the pane drew in between (its prompt)
		// would be waited for in vain.
		if p2, err := e.probe(ctx, f.pane); err == nil {
			p = p2
		}
	}
	// A program just told to quit (less after q) gives the pane back to
	// its shell a moment later, and one in a pane that has drawn nothing
	// yet may be a starting shell's (a login profile's mesg): look again
	// as it prints, for a moment, before refusing. Any other, which this
	// process sent no key to lately, holds the pane as it did, and is
	// refused at once.
	told, unwritten := toldLately(f.st.LastInput()), p.at.CursorX == 0 && blank(p.screen)
	if quitting(p) && (told || unwritten) {
		p = e.awaitShell(ctx, f, p)
	}
	// tmux names a pane just made "tmux" until its shell has started, and
	// a shell's prompt may not be drawn yet (the cursor on column 0): give
	// the prompt a moment to be drawn, and look again. A pane named "tmux"
	// is looked at again even when no prompt came: it may have been drawn
	// before the stream was following the pane (a new client attaching to
	// the pane's session), and the shell is there by now. Another program,
	// in a pane it has drawn on, is refused as it is.
	if p.dead || p.program != "tmux" && p.at.CursorX != 0 || quitting(p) && !told && !unwritten {
		return p, nil
	}
	p, err := e.awaitFirstPrompt(ctx, f, p, deadline)
	// What moved the cursor may not have been a prompt: a script's shell
	// (the pane names it "sh") that exec'd a program which printed, and
	// ends a moment later.
	if err == nil && quitting(p) {
		p = e.awaitShell(ctx, f, p)
	}
	return p, err
}

// toldLately reports whether this process sent the pane input (a key
// that may have told its program to quit) within quitWindow of now.
func toldLately(in panestream.InputMark) bool {
	return in.Sent && time.Since(in.At) < quitWindow
}

// quitWindow is how long after a key of ours a program holding the pane
// is given exitGrace to give it back: an agent quits a pager and runs a
// command in its next call, seconds later at most.
const quitWindow = 10 * time.Second

// quitting reports whether p shows a program, not the pane's shell, that
// may be about to give the pane back: one that is neither a shell nor
// tmux's name for a pane just made, or anything on the alternate screen.
func quitting(p runProbe) bool {
	return !p.dead && !p.mode && (p.alt || !shells[p.program] && p.program != "tmux")
}

// awaitFirstPrompt waits for the prompt of a shell that has not drawn one
// yet (the cursor on column 0, or tmux still naming the pane "tmux"), and
// looks again once it is drawn. By deadline, a shell that has drawn nothing
// gets nothing typed.
func (e *Engine) awaitFirstPrompt(ctx context.Context, f *paneFollow, p runProbe, deadline time.Time) (runProbe, error) {
	pane := f.pane
	gen := e.host.Generation()
	// A wait ended by the pane's following (the pane, or its server,
	// went away) ends this one: the reason is the answer, at once.
	var lost error
	wait := func(d time.Duration) bool {
		_, drawn, err := e.awaitPromptFor(ctx, f, nil, d)
		if err != nil && lost == nil {
			lost = err
		}
		return drawn
	}
	drawn := wait(promptGrace)
	if !drawn && lost == nil && (p.program == "tmux" || blank(p.screen)) {
		// The position first, then the look: a prompt drawn between the
		// two is on the screen the look reads, never skipped unseen.
		f.skip()
		if p2, err := e.probe(ctx, pane); err == nil {
			p = p2
		}
		// A new pane whose shell has drawn nothing yet (still reading
		// its rc files): wait once more, or the line would be echoed
		// before its line editor runs and hides it.
		if !p.dead && p.at.CursorX == 0 && blank(p.screen) {
			drawn = wait(promptGrace)
		}
	}
	if lost != nil {
		if err := e.goneWhileStarting(ctx, pane, gen); err != nil {
			return p, err
		}
		return p, lost
	}
	// Still nothing drawn: a login shell slow to start. Wait for its
	// prompt for the rest of the timeout, or type nothing.
	if !drawn && !p.dead && (shells[p.program] || p.program == "tmux") && p.at.CursorX == 0 && blank(p.screen) {
		// The stream wakes the wait; a look every second catches a
		// prompt it cannot hold (drawn before a watcher attached).
		for !drawn && lost == nil {
			rest := time.Until(deadline)
			if rest <= 0 {
				break
			}
			if drawn = wait(min(rest, time.Second)); drawn || lost != nil {
				break
			}
			f.skip()
			p2, err := e.probe(ctx, pane)
			if err != nil {
				break
			}
			if p = p2; p.dead || p.at.CursorX != 0 || !blank(p.screen) {
				drawn = !p.dead
				break
			}
		}
		if !drawn {
			// A wait that ended early: the pane, or its server, went away.
			if err := e.goneWhileStarting(ctx, pane, gen); err != nil {
				return p, err
			} else if lost != nil {
				return p, lost
			}
			return p, errs.Fix(errs.Errorf(errs.KindDeadline, "the shell in pane %s has drawn no prompt within the timeout (still starting?); nothing was typed. "+
				"Wait for its prompt, then retry", pane), errs.RemedyLookOrInterrupt)

		}
	}
	if drawn {
		if p2, err := e.probe(ctx, pane); err == nil {
			p = p2
		}
		f.skip()
	}
	return p, nil
}

// goneWhileStarting returns why a wait for the first prompt of pane's
// shell ended without one, when it is that the pane, or its server (of
// generation gen), is gone; nil while the pane lives.
func (e *Engine) goneWhileStarting(ctx context.Context, pane, gen string) error {
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookTimeout)
	defer cancel()
	dead, status, ok := e.paneDead(qctx, pane)
	switch {
	case !ok || !dead:
		return nil
	case status == -2 && e.serverGone(qctx, gen):
		return errs.ServerExited(e.host.Socket(), pane, "the command waited for the shell to draw its first prompt")
	case status == -2:
		return errs.Errorf(errs.KindNotFound, "pane %s closed before its shell drew a first prompt; nothing was typed", pane)
	}
	return errs.Fix(errs.Errorf(errs.KindRefused, "the shell in pane %s exited before drawing a first prompt; nothing was typed. Respawn the pane first", pane), errs.RemedyRespawn)
}

// judgeReady returns why a command must not be typed into the pane as p
// found it (refuseUnready), nil if it may be, with the last look. An input
// line refused a moment after this process sent the pane a key (C-u, not
// text, not Enter) is looked at again as the pane prints, until it passes
// or clearSettle after the key: a shell's answer to C-u may come after
// other output (fish repaints a line it highlights late), which
// settleInput takes for the answer. Text just typed is on the line by
// intent, and refused at once.
func (e *Engine) judgeReady(ctx context.Context, f *paneFollow, p runProbe) (runProbe, error) {
	err := e.refuseUnready(f.pane, p)
	in := f.st.LastInput()
	if err == nil || !in.Sent || !in.Fed || in.Enter || in.Fresh > 0 || e.refuseState(f.pane, p) != nil {
		return p, err
	}
	for until := time.Until(in.At.Add(clearSettle)); until > 0; until = time.Until(in.At.Add(clearSettle)) {
		if !f.waitFor(ctx, until) {
			break
		}
		f.skip()
		p2, perr := e.probe(ctx, f.pane)
		if perr != nil {
			break
		}
		if p, err = p2, e.refuseUnready(f.pane, p2); err == nil {
			return p, nil
		}
	}
	return p, err
}

// refuseUnready returns why a command must not be typed into the pane as
// p found it, nil if it may be: its state (refuseState), then its input
// line.
func (e *Engine) refuseUnready(pane string, p runProbe) error {
	if err := e.refuseState(pane, p); err != nil {
		return err
	}
	return e.refuseLine(pane, p)
}

// refuseState returns why the pane as p found it is not a shell at its
// prompt, nil if it is.
func (e *Engine) refuseState(pane string, p runProbe) error {
	switch {
	case p.dead:
		return errs.Fix(errs.Errorf(errs.KindRefused, "pane %s is dead; respawn it first", pane), errs.RemedyRespawn)
	case !shells[p.program]:
		return errs.Fix(errs.Errorf(errs.KindRefused, "pane %s is running %q, not a shell at its prompt; a command is typed into a shell (bash, zsh, sh). "+
			"Wait for it to finish, or stop it with C-c and no Enter, then retry", pane, p.program), errs.RemedyWaitOrInterrupt)

	case p.mode:
		return errs.Fix(errs.Errorf(errs.KindRefused, "pane %s is in copy or view mode, not at a shell prompt; leave the mode, then retry", pane), errs.RemedyLeaveMode)
	case p.alt:
		return errs.Errorf(errs.KindRefused, "pane %s is on the alternate screen (a full-screen program), not at a shell prompt", pane)
	case p.marks.Running:
		// The shell's own marks say a command runs that its program's
		// name does not show (a builtin such as read, a function).
		return errs.Fix(errs.Errorf(errs.KindRefused, "pane %s's shell is running a command (started %s, its OSC 133 marks say), not at its prompt; "+
			"wait for it to finish, or stop it with C-c and no Enter, then retry", pane, p.marks.Started.Format(time.TimeOnly)), errs.RemedyWaitOrInterrupt)

	}
	return nil
}

// refuseLine returns why the shell's input line as p found it must not
// have a command typed after it, nil if it may.
func (e *Engine) refuseLine(pane string, p runProbe) error {
	// Typed into a command left incomplete, the line would change what
	// that command means: refuse, having typed nothing.
	if row := shellrun.CursorRow(p.screen, p.at); shellrun.IsContinuation(row, e.prompts.load(pane), false) {
		return continuationError(pane, row, false)
	} else if typed, ok := shellrun.PendingInput(row, e.prompts.load(pane)); ok {
		// Typed after it, the command would run with that text before it
		// (a person's half-typed rm included): refuse, having typed nothing.
		return errs.Fix(errs.Errorf(errs.KindRefused, "the shell's input line in pane %s holds text typed and not run (%q); the command would run joined to it. "+
			"Nothing was typed. Clear the line (C-u, or C-c with no Enter) or run it (Enter), then retry", pane, typed), errs.RemedyInterrupt)

	}
	return nil
}

// typeCommand types the command line into the pane's shell and starts its
// follower, which takes f over. Nothing is typed when it fails. pending,
// if not nil, is the command kept for the line, which it fills in.
func (e *Engine) typeCommand(ctx context.Context, a RunArgs, p runProbe, f *paneFollow, start time.Time, pending *runningCommand) (*runningCommand, error) {
	pane := f.pane
	mark := make([]byte, 8)
	_, _ = rand.Read(mark) // never fails
	tag := hex.EncodeToString(mark)
	lead := ""
	if a.SuppressHistory {
		lead = " "
	}
	line, erases := shellrun.LineKeeping(p.program, tag, a.Command, lead, p.at, e.host.Release().RecordsCommandMarks())
	if (p.program == "sh" || p.program == "dash") && len(line) >= canonicalMax {
		return nil, errs.Fix(errs.Errorf(errs.KindInvalid, "the command is too long for %s in pane %s, which reads lines through the tty (at most %d bytes, and this one takes %d typed); "+
			"write it to a file first (paste it into cat > file) and run that, or use bash or zsh", p.program, pane, canonicalMax-1, len(line)), errs.RemedyPaste)

	}
	c, fctx, cancel := pending, context.Context(nil), func() {}
	if c != nil {
		fctx = c.follow
	} else {
		fctx, cancel = context.WithCancel(context.Background())
		c = &runningCommand{id: newCommandID(), pane: pane, owner: OwnerOf(ctx), start: start, cancel: cancel,
			done: make(chan struct{}), typed: make(chan struct{}), out: outputLines{max: a.MaxLines, maxBytes: a.MaxBytes}}
	}
	c.pid, c.prompt, c.row, c.from, c.gen = p.pid, shellrun.CursorRow(p.screen, p.at), p.row, f.cursor, e.host.Generation()
	c.command = a.Command
	c.marks = p.marks
	if rows, ok := shellrun.ReprintRows(a.Command, p.at.CursorX, p.at.Width); erases && ok {
		// The line puts the command on the prompt's rows again, so its
		// output starts on a row known in advance (see readDrawn).
		c.drawn = gridAt{known: true, row: p.row + rows, hist: p.hist, limit: p.limit, width: p.at.Width, height: p.at.Height}
		c.lastLine = a.Command[strings.LastIndexByte(a.Command, '\n')+1:]
	}
	ends := map[string]int64{pane: f.cursor}
	// A person may put the pane in copy mode after the look: tmux refuses
	// the line then (3.4 and later).
	typeLine, refused, err := e.host.TypeLine(ctx, pane, line)
	if err != nil {
		cancel()
		return nil, err
	}
	if pending != nil && pending.ended() {
		return nil, errs.Errorf(errs.KindCancelled, "command %s was stopped before its line was typed", pending.id) // nothing typed
	}
	if _, err := e.host.Exec(ctx, typeLine...); err != nil {
		cancel()
		_, err = refused(ctx, err)
		return nil, err
	}
	e.host.NoteInput(ends, pane, line, true, panestream.GridMark{}, "command: "+a.Command)
	if pending == nil && !e.cmds.add(c) {
		cancel()
		return nil, errs.Closed()
	}
	close(c.typed)
	go e.followCommand(fctx, c, f, tag)
	return c, nil
}

// exitGrace bounds how long RunCommand waits for a program that holds the
// pane to give it back to the shell; probeEvery spaces the looks.
const (
	exitGrace  = time.Second
	probeEvery = 10 * time.Millisecond
)

// awaitShell looks at the pane again each time it prints, at most every
// probeEvery and for at most exitGrace, until its shell holds it and it
// is off the alternate screen. It returns the last look; f's cursor is
// where the stream was before it, so that output drawn after the look (the
// prompt) is still ahead of the cursor.
func (e *Engine) awaitShell(ctx context.Context, f *paneFollow, p runProbe) runProbe {
	gctx, cancel := context.WithTimeout(ctx, exitGrace)
	defer cancel()
	var last time.Time
	for !p.dead && (p.alt || !shells[p.program]) {
		if _, err := f.wait(gctx, nil); err != nil {
			break
		}
		if !pause(gctx, probeEvery-time.Since(last)) {
			break
		}
		if _, err := f.read(gctx); err != nil {
			break
		}
		p2, err := e.probe(gctx, f.pane)
		if err != nil {
			break
		}
		p, last = p2, time.Now()
	}
	return p
}

// promptGrace bounds how long RunCommand waits for the shell's next
// prompt after the command ended.
const promptGrace = time.Second

// awaitPrompt waits until the shell's output after the end marker (after
// holds what came with the marker) has left the cursor off column 0: its
// next prompt is drawn. So the next call finds the cursor where the prompt
// left it, and a capture right after this call shows the prompt. zsh's
// PROMPT_SP draws and erases a mark on column 0 first.
// It returns the prompt's text on the cursor's row, and reports whether
// it saw the prompt drawn.
func (e *Engine) awaitPrompt(ctx context.Context, f *paneFollow, after []byte) (string, bool) {
	p, drawn, _ := e.awaitPromptFor(ctx, f, after, promptGrace)
	return p, drawn
}

// awaitPromptFor is awaitPrompt waiting up to d. Its error is the end of
// the pane's following (the pane or its server gone), not its own timeout.
func (e *Engine) awaitPromptFor(ctx context.Context, f *paneFollow, after []byte, d time.Duration) (string, bool, error) {
	var text termtext.Lines
	text.Write(after)
	pctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	for text.Cursor() == 0 {
		if _, err := f.wait(pctx, nil); err != nil {
			return "", false, nil
		}
		r, err := f.read(pctx)
		text.Write(r.Data)
		if err != nil {
			return "", false, err
		}
	}
	return text.BeforeCursor(), true, nil
}

// blank reports whether a screen shows nothing: a pane whose program has
// drawn nothing yet.
func blank(screen []string) bool {
	for _, l := range screen {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}

func continuationError(pane, row string, typed bool) error {
	what := "nothing was typed"
	if typed {
		what = "this command was taken as part of it, so it did not run"
	}
	e := errs.Fix(errs.Errorf(errs.KindRefused,
		"the shell in pane %s is at a continuation prompt (%q): it is waiting for the rest of a command typed before "+
			"(an unterminated quote, bracket or here-document); %s. "+
			"Send C-c with no Enter to discard the pending input, then run the command again", pane, row, what), errs.RemedyInterrupt)

	if typed {
		return errs.AfterChange(e)
	}
	return e
}

// runProbe is what RunCommand reads of a pane before typing.
type runProbe struct {
	program         string // pane_current_command, without a login shell's "-"
	pid             string
	row             int // the cursor's row in the grid, history included
	hist, limit     int // the history's size and limit
	alt, mode, dead bool
	session         string
	at              shellrun.Screen
	screen          []string
	// marks is what tmux recorded of the shell's OSC 133 marks (3.8).
	marks CommandMarks
}

// probe reads the pane's state, its session (for the output stream), where
// the line will be echoed and the screen, in one round trip.
func (e *Engine) probe(ctx context.Context, pane string) (runProbe, error) {
	cmds := []controlmode.Command{controlmode.NewCommand("display-message", "-p", "-t", pane,
		"#{pane_current_command}\t#{alternate_on}\t#{pane_in_mode}\t#{pane_dead}\t#{session_id}\t"+
			"#{cursor_x}\t#{cursor_y}\t#{pane_width}\t#{pane_height}\t#{pane_pid}\t#{history_size}\t#{history_limit}"),
		CaptureCommand(CaptureArgs{}, pane)}
	marks := e.host.Release().RecordsCommandMarks()
	if marks {
		cmds = append(cmds, MarksCommand(pane))
	}
	rs, err := e.host.Exec(ctx, cmds...)
	if err != nil {
		return runProbe{}, err
	}
	f := strings.Split(strings.Join(rs[0].Lines, ""), "\t")
	if len(f) != 12 || !strings.HasPrefix(f[4], "$") {
		return runProbe{}, errs.Errorf(errs.KindNotFound, "can't find pane: %s", pane)
	}
	p := runProbe{program: strings.TrimPrefix(f[0], "-"), alt: f[1] == "1", mode: f[2] == "1", dead: f[3] == "1",
		session: f[4], pid: f[9], screen: rs[1].Lines}
	p.at.CursorX, _ = strconv.Atoi(f[5])
	p.at.CursorY, _ = strconv.Atoi(f[6])
	p.at.Width, _ = strconv.Atoi(f[7])
	p.at.Height, _ = strconv.Atoi(f[8])
	p.hist, _ = strconv.Atoi(f[10])
	p.limit, _ = strconv.Atoi(f[11])
	p.row = p.hist + p.at.CursorY
	if marks {
		p.marks, _ = ParseMarks(pane, strings.Join(rs[2].Lines, ""))
	}
	return p, nil
}

// paneDead reports whether pane is gone or dead, and the exit status of
// its program when tmux kept it (remain-on-exit), else -1; -2 when the
// pane is gone. It reports false if tmux could not be asked.
func (e *Engine) paneDead(ctx context.Context, pane string) (dead bool, status int, ok bool) {
	qctx, cancel := context.WithTimeout(ctx, lookTimeout)
	defer cancel()
	// tmux marks a pane dead when its terminal closes and learns the exit
	// status when it reaps the process, which can be a later turn of its
	// loop (a CI run saw the status missing). No notification says when:
	// ask again, a few times, while the pane is dead without a status.
	for try := 0; ; try++ {
		rs, err := e.host.Exec(qctx, controlmode.NewCommand("display-message", "-p", "-t", pane, "#{pane_id}\t#{pane_dead}\t#{pane_dead_status}"))
		if err != nil {
			var fail *errs.Error
			if errors.As(err, &fail) && (fail.Kind == errs.KindNotFound || fail.Kind == errs.KindNoServer) {
				return true, -2, true // gone, or the server with it
			}
			return false, -1, false
		}
		// display-message does not fail for a pane that is gone: it
		// expands the formats empty.
		f := strings.Split(strings.Join(rs[0].Lines, ""), "\t")
		if len(f) != 3 || f[0] != pane {
			return true, -2, true
		}
		d, st := f[1], f[2]
		if d != "1" {
			return false, -1, true
		}
		if n, err := strconv.Atoi(st); err == nil {
			return true, n, true
		}
		if try == 20 {
			return true, -1, true
		}
		t := time.NewTimer(10 * time.Millisecond)
		select {
		case <-t.C:
		case <-qctx.Done():
			t.Stop()
			return true, -1, true
		}
	}
}

// notStarted looks at a pane whose shell has not started the command it
// was given. It returns the error that names why, or nil if it cannot
// tell yet (final false) and the wait should go on.
func (e *Engine) notStarted(ctx context.Context, pane string, final bool, id string) error {
	qctx, cancel := context.WithTimeout(ctx, lookTimeout)
	defer cancel()
	p, err := e.probe(qctx, pane)
	if err != nil {
		if final {
			return errs.AfterChange(errs.Errorf(errs.KindDeadline, "the shell in pane %s did not start the command before the timeout; "+
				"it is typed and may still run: command %s follows it", pane, id))
		}
		return nil
	}
	if p.dead {
		return nil // the caller finds out
	}
	row := shellrun.CursorRow(p.screen, p.at)
	if shellrun.IsContinuation(row, e.prompts.load(pane), true) {
		return continuationError(pane, row, true)
	}
	if final {
		return errs.AfterChange(errs.Fix(errs.Errorf(errs.KindDeadline, "the shell in pane %s (%s) did not start the command before the timeout, and its cursor line reads %q: "+
			"it may be busy or not reading input; look at the pane, or stop it with C-c and no Enter. "+
			"The line is typed and may still run: command %s follows it", pane, p.program, row, id), errs.RemedyLookOrInterrupt))
	}
	return nil
}

// outputLines keeps the output of a command, the newest max lines when
// max > 0.
type outputLines struct {
	max      int // lines kept, the newest; 0 for all
	maxBytes int // bytes kept, the newest lines'; 0 for all
	lines    []string
	size     int // bytes in lines
	dropped  int
	cut      bool // the newest line was cut to maxBytes
	lost     bool // tmux discarded output while the command ran
}

// add keeps l, and drops the oldest lines once twice the bounds are held:
// memory stays bounded however long the command prints.
func (o *outputLines) add(l string) {
	o.lines = append(o.lines, l)
	o.size += len(l) + 1
	overLines := o.max > 0 && len(o.lines) > 2*o.max
	overBytes := o.maxBytes > 0 && o.size > 2*o.maxBytes
	if overLines || overBytes {
		o.trim(o.max, o.maxBytes)
		o.lines = append([]string(nil), o.lines...)
	}
}

// trim drops the oldest lines beyond max lines or maxBytes bytes (0: no
// bound), always keeping the newest line, cut to maxBytes if need be.
func (o *outputLines) trim(max, maxBytes int) {
	n := 0
	if max > 0 && len(o.lines) > max {
		n = len(o.lines) - max
	}
	size := o.size
	for i := 0; i < n; i++ {
		size -= len(o.lines[i]) + 1
	}
	for maxBytes > 0 && size > maxBytes && n < len(o.lines)-1 {
		size -= len(o.lines[n]) + 1
		n++
	}
	o.dropped += n
	o.lines, o.size = o.lines[n:], size
	if last := len(o.lines) - 1; maxBytes > 0 && last >= 0 && len(o.lines[last]) > maxBytes {
		l := o.lines[last]
		from := len(l) - maxBytes
		for from < len(l) && !utf8.RuneStart(l[from]) {
			from++
		}
		o.lines[last], o.size, o.cut = l[from:], len(l)-from+1, true
	}
}

// cutAfter drops the lines from the absolute index n on (those still
// kept).
func (o *outputLines) cutAfter(n int) {
	keep := max(n-o.dropped, 0)
	for _, l := range o.lines[min(keep, len(o.lines)):] {
		o.size -= len(l) + 1
	}
	o.lines = o.lines[:min(keep, len(o.lines))]
}

// since returns the kept lines from the absolute index from on (the
// first line the command printed is 0): the newest max of them within
// maxBytes (0: the bounds o keeps), how many lines from on it leaves out
// (dropped before, or cut now), whether it cut the newest line, and the
// index after the last line.
func (o *outputLines) since(from, max, maxBytes int) (lines []string, left int, cut bool, next int) {
	next = o.dropped + len(o.lines)
	start := from - o.dropped
	if start < 0 {
		left, start = -start, 0
	}
	start = min(start, len(o.lines))
	v := outputLines{lines: append([]string(nil), o.lines[start:]...)}
	for _, l := range v.lines {
		v.size += len(l) + 1
	}
	v.trim(cmp.Or(max, o.max), cmp.Or(maxBytes, o.maxBytes))
	if v.lines == nil {
		v.lines = []string{}
	}
	return v.lines, left + v.dropped, v.cut || o.cut && len(v.lines) > 0, next
}
