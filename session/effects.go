package session

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// callEffects is what the commands run under one context did: whether any was
// sent to tmux, and whether any that can change tmux may have run.
type callEffects struct{ sent, changed atomic.Bool }

type callEffectsKey struct{}

// WatchEffects returns a context under which every Server records what the
// commands it runs for that context did, and a function that reports
// whether any command was sent to tmux and whether any that can change tmux
// may have run. A read (a list, a lookup, a capture) changes nothing, and
// neither does a command tmux refused because its target does not exist:
// tmux resolves targets before it runs a command, and stops the rest of
// the line at the first failure.
//
// A caller that reports effects for a whole request, which may be several
// operations, needs this; an [Error] knows only its own.
func WatchEffects(ctx context.Context) (context.Context, func() (sent, changed bool)) {
	c := new(callEffects)
	return context.WithValue(ctx, callEffectsKey{}, c), func() (bool, bool) {
		return c.sent.Load(), c.changed.Load()
	}
}

// noteExec records one line of cmds that Conn.Exec answered with rs and err.
func noteExec(ctx context.Context, cmds []controlmode.Command, rs []controlmode.Reply, err error) {
	c, _ := ctx.Value(callEffectsKey{}).(*callEffects)
	if c == nil {
		return
	}
	sent, changed := lineEffects(cmds, rs, err)
	if sent {
		c.sent.Store(true)
	}
	if changed {
		c.changed.Store(true)
	}
}

// lineEffects says what line cmds, which Conn.Exec answered with rs and
// err, did: whether it reached tmux, and whether a command of it that can
// change tmux may have run. tmux stops a line at its first failure, and
// refuses a command for a missing target, or its -N repeat count, before
// the command does anything.
func lineEffects(cmds []controlmode.Command, rs []controlmode.Reply, err error) (sent, changed bool) {
	if errors.Is(err, controlmode.ErrNotSent) || errors.Is(err, controlmode.ErrInvalidCommand) {
		return false, false
	}
	ran := cmds // every command may have run, unless tmux said which failed
	var ce *controlmode.CommandError
	if errors.As(err, &ce) {
		for i, r := range rs {
			if r.Err != nil {
				ran = cmds[:i]
				if !notFoundMessage(ce.Msg) && !refusedRepeatCount(ce.Msg) {
					ran = cmds[:i+1]
				}
				break
			}
		}
	}
	return true, !readOnly(ran)
}

// noteRun records one tmux process run with args; ran is false when tmux
// refused its command for a missing target or server.
func noteRun(ctx context.Context, args []string, ran bool) {
	c, _ := ctx.Value(callEffectsKey{}).(*callEffects)
	if c == nil {
		return
	}
	c.sent.Store(true)
	if runChanged(args, ran) {
		c.changed.Store(true)
	}
}

// runChanged reports whether a tmux process run with args may have changed
// tmux: it ran its command (see noteRun) and that command can change it.
func runChanged(args []string, ran bool) bool {
	return ran && !commands[commandName(args)].reads
}

// commandName returns the command of a tmux argument list: its first
// argument that is not a flag.
func commandName(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// refusedRepeatCount reports whether a command failed on its -N repeat
// count, which tmux checks before the command does anything: so the guard
// of keys refused in copy mode (modes.go) fails.
func refusedRepeatCount(msg string) bool { return strings.Contains(msg, "repeat count") }
