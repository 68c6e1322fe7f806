package engine

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/errs"
)

// Keys for a shell that has not drawn its first prompt.
//
// A shell reading heavy start-up files (pyenv, nvm, conda) draws nothing
// for seconds. Text typed meanwhile is echoed twice: by the terminal,
// which is in canonical mode with echo until the line editor starts, and
// again by the line editor after the prompt, when it reads the line. A
// wait would have to tell both echoes from the program's output. So text
// for such a shell is held until it has drawn its prompt, and the caller
// is told how long it waited: one echo, where the line editor draws it.
//
// A shell is taken to be starting when its pane has drawn nothing (the
// screen blank, no history, the cursor on column 0), tmux names its
// program a shell (or "tmux", a pane just made), the pane was not started
// on a script (sh -c '...'), and its foreground program is not blocked
// reading the terminal: a script's `read` with no prompt, or a shell
// whose prompt is empty, gets its keys at once. Where
// the kernel cannot tell what the program does, a blank pane whose
// cursor is at its top left counts as starting.

// firstPromptHold bounds how long text waits for a starting shell's first
// prompt; past it nothing is sent.
const firstPromptHold = 30 * time.Second

// holdLook spaces the looks at a starting shell that print nothing: its
// foreground program may begin reading the terminal without drawing
// (no event says so).
const holdLook = 100 * time.Millisecond

// startLook is what one round trip tells about a pane that may hold a
// starting shell.
type startLook struct {
	program         string
	dead, alt, mode bool
	cursorX         int
	cursorY         int
	hist            int
	pid, tty        string
	script          bool // tmux started the pane with a shell's -c
}

// lookAtStart reads what lookStarting needs of pane.
func (e *Engine) lookAtStart(ctx context.Context, pane string) (startLook, error) {
	rs, err := e.host.Exec(ctx, controlmode.NewCommand("display-message", "-p", "-t", pane,
		"#{pane_id}\t#{pane_current_command}\t#{pane_dead}\t#{alternate_on}\t#{pane_in_mode}\t#{cursor_x}\t#{cursor_y}\t#{history_size}\t#{pane_pid}\t#{pane_tty}\t#{pane_start_command}"))
	if err != nil {
		return startLook{}, err
	}
	f := strings.Split(strings.Join(rs[0].Lines, ""), "\t")
	if len(f) < 11 || f[0] != pane {
		return startLook{}, errs.Errorf(errs.KindNotFound, "can't find pane: %s", pane)
	}
	start := strings.Join(f[10:], "\t")
	l := startLook{program: startingProgram(strings.TrimPrefix(f[1], "-"), start), dead: f[2] == "1", alt: f[3] == "1", mode: f[4] == "1", pid: f[8], tty: f[9]}
	l.cursorX, _ = strconv.Atoi(f[5])
	l.cursorY, _ = strconv.Atoi(f[6])
	l.hist, _ = strconv.Atoi(f[7])
	l.script = runsScript(start, l.program)
	return l, nil
}

// startingProgram is the program a pane runs, as far as a look can tell:
// tmux names a pane just made "tmux" until its command has started, and a
// pane made with a command (not the default shell) will run that command,
// so the command's first word names it. Keys for `sh -c 'cat; read x'`
// or for vi, sent the moment the pane was made, are not held for a
// prompt that will never come.
func startingProgram(program, start string) string {
	args := strings.Fields(start)
	if program != "tmux" || len(args) == 0 {
		return program
	}
	return strings.TrimPrefix(filepath.Base(strings.Trim(args[0], `"'`)), "-")
}

// runsScript reports whether a pane's start command runs a shell on a
// script given with -c (sh -c '...'; a cluster such as -lc or -ec too),
// and that shell, program, still runs (it did not exec another): it never
// draws a prompt, and a line typed for it is typeahead for whatever reads
// the terminal. A command without -c (bash --rcfile x, zsh, fish -C ...)
// or none (the default shell) starts a shell that will prompt.
func runsScript(start, program string) bool {
	args := strings.Fields(start)
	if len(args) == 0 || strings.TrimPrefix(filepath.Base(strings.Trim(args[0], `"'`)), "-") != program {
		return false
	}
	for _, a := range args[1:] {
		a = strings.Trim(a, `"'`)
		if a == "--command" || strings.HasPrefix(a, "--command=") {
			return true
		}
		if len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a[1:], 'c') {
			return true
		}
	}
	return false
}

// starting reports whether pane holds a shell that has not drawn its
// first prompt yet (see above). It costs one round trip for a pane at a
// prompt, two and a look at the kernel for a blank one.
// It also returns what it saw.
func (e *Engine) starting(ctx context.Context, pane string) (bool, startLook, error) {
	l, err := e.lookAtStart(ctx, pane)
	if err != nil {
		return false, l, err
	}
	if l.dead || l.alt || l.mode || l.script || l.cursorX != 0 || l.hist != 0 || !shells[l.program] && l.program != "tmux" {
		return false, l, nil
	}
	rs, err := e.host.Exec(ctx, CaptureCommand(CaptureArgs{}, pane))
	if err != nil {
		return false, l, err
	}
	if !blank(rs[0].Lines) {
		return false, l, nil
	}
	fg := e.host.Foreground(ctx, l.pid, l.tty)
	if fg.Known {
		return !fg.Reading, l, nil
	}
	return l.cursorY == 0, l, nil
}

// Held is what [Engine.HoldForFirstPrompt] found.
type Held struct {
	PaneID string
	// For is how long text was held for the shell's first prompt; 0 when
	// the shell was not starting.
	For time.Duration
	// AtShell reports that the pane's program is a shell, at its line
	// editor as far as tmux tells (not on the alternate screen, not in a
	// mode): a text and an Enter typed in one burst reach it in order.
	AtShell bool
}

// HoldForFirstPrompt waits, before text is typed into the pane ref names,
// until its shell has drawn its first prompt, if it has not (see above).
// It returns the pane's id, how long it waited (0 when the shell was not
// starting) and whether a shell holds the pane. A shell that has drawn
// nothing by firstPromptHold (or by ctx's end) is [errs.KindDeadline]: nothing
// was sent. A pane that cannot be looked at is that failure, nothing sent.
func (e *Engine) HoldForFirstPrompt(ctx context.Context, ref PaneRef) (Held, error) {
	pane, err := e.host.ResolvePane(ctx, ref)
	if err != nil {
		return Held{}, err
	}
	atShell := func(l startLook) bool { return shells[l.program] && !l.script && !l.alt && !l.mode && !l.dead }
	st, l, err := e.starting(ctx, pane)
	switch {
	case err != nil:
		// Nothing was sent: a tmux that does not answer the look (a
		// stopped server) is answered now, not by a send that waits again.
		return Held{PaneID: pane}, err
	case !st:
		return Held{PaneID: pane, AtShell: atShell(l)}, nil
	}
	begin := time.Now()
	if l := e.log; l != nil {
		l.Info("holding text for a shell that has drawn no prompt yet", "pane", pane)
	}
	f, err := e.followPane(ctx, pane)
	if err != nil {
		return Held{PaneID: pane}, nil
	}
	defer f.stop()
	hctx, cancel := context.WithTimeout(ctx, firstPromptHold)
	defer cancel()
	tick := time.NewTicker(holdLook)
	defer tick.Stop()
	for {
		// Look after the position was taken: a prompt drawn in between
		// is not waited for in vain.
		st, l, err := e.starting(hctx, pane)
		if hctx.Err() == nil && (err != nil || !st) {
			return Held{PaneID: pane, For: time.Since(begin), AtShell: err == nil && atShell(l)}, nil
		}
		if _, err := f.wait(hctx, tick.C); err != nil || hctx.Err() != nil {
			if ctx.Err() != nil {
				return Held{PaneID: pane, For: time.Since(begin)}, errs.FromExec(ctx.Err())
			}
			return Held{PaneID: pane, For: time.Since(begin)}, errs.Fix(errs.Errorf(errs.KindDeadline, "the shell in pane %s has drawn no prompt in %s (still reading its start-up files?); nothing was sent. "+
				"Wait for its prompt, then send again", pane, time.Since(begin).Round(time.Second)), errs.RemedyLookOrInterrupt)

		}
		f.skip()
	}
}
