package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/engine"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
)

// The pane-following engine is internal/engine's: a Server embeds one,
// so its exported methods (the waits, RunCommand, PressKeys, CaptureSince,
// ...) are the Server's, and is the host through which alone it reaches
// tmux (engineHost). The words both speak, re-declared here, are in
// engine_words.go.

// engineHost is a Server as its engine's host (engine.Host).
type engineHost struct{ *Server }

var _ engine.Host = engineHost{}

func (h engineHost) Exec(ctx context.Context, cmds ...controlmode.Command) ([]controlmode.Reply, error) {
	return h.exec(ctx, cmds...)
}

func (h engineHost) WatchPane(ctx context.Context, pane string) (*panestream.Stream, func(), error) {
	return h.watchPane(ctx, pane)
}

func (h engineHost) WatchPaneIn(pane, sessionID string) (*panestream.Stream, func(), error) {
	return h.watchPaneIn(pane, sessionID)
}

func (h engineHost) WatchPaneFed(pane string) (*panestream.Stream, func(), string, bool) {
	return h.watchPaneFed(pane)
}

func (h engineHost) Release() engine.Release { return h.release() }

func (h engineHost) ConnectedRelease(ctx context.Context) (engine.Release, error) {
	return h.connectedRelease(ctx)
}

// PaneForeground is [Server.Foreground] of the pane with id pane.
func (h engineHost) PaneForeground(ctx context.Context, pane string) Foreground {
	rs, err := h.exec(ctx, controlmode.NewCommand("display-message", "-p", "-t", pane, "#{pane_id} #{pane_pid} #{pane_tty}"))
	if err != nil {
		return Foreground{}
	}
	f := strings.Fields(strings.Join(rs[0].Lines, ""))
	if len(f) != 3 || f[0] != pane {
		return Foreground{}
	}
	return h.Foreground(ctx, f[1], f[2])
}

func (h engineHost) Socket() fmt.Stringer { return h.sock }

func (h engineHost) SyncStream(ctx context.Context, st *panestream.Stream) error {
	return h.syncStream(ctx, st)
}

func (h engineHost) Fed(pane string) bool { return h.fed(pane) }

func (h engineHost) PaneWidth(pane string) int { return h.paneWidth(pane) }

func (h engineHost) NoteInput(ends map[string]int64, pane, text string, enter bool, mark panestream.GridMark, label string) {
	h.noteInputAs(inputStart{ends: ends}, pane, text, enter, mark, label)
}

// TypeLine is the line typed and its Enter, guarded against copy mode as
// a typed command line is (guardFor, sendKeysCommand), and the reading of
// the guard's refusal (refusedInMode).
func (h engineHost) TypeLine(ctx context.Context, pane, line string) ([]controlmode.Command, func(context.Context, error) (bool, error), error) {
	guard, err := h.keys.guardFor(ctx, false)
	if err != nil {
		return nil, nil, err
	}
	typeLine, refused := sendKeysCommand(pane, true, []string{line}, guard)
	enter, r := sendKeysCommand(pane, false, []string{"Enter"}, guard)
	refused = refused.join(r)
	return []controlmode.Command{typeLine, enter}, func(ctx context.Context, err error) (bool, error) {
		return h.keys.refusedInMode(ctx, err, pane, refused)
	}, nil
}

func (h engineHost) ExecChange(ctx context.Context, cmds ...controlmode.Command) ([]controlmode.Reply, error) {
	return h.execChange(ctx, cmds...)
}

func (h engineHost) Subscribe(f func(structure bool, pane string)) (cancel func()) {
	return h.Server.Subscribe(func(c Change) { f(c.Structure, c.Pane) })
}

// WaitFor is tmux's wait-for on channel, in a one-shot tmux: it blocks
// the client that runs it, so it never goes on the shared channel.
func (h engineHost) WaitFor(ctx context.Context, channel string) error {
	_, _, err := h.shots.forkTmux(ctx, "wait-for", "--", channel)
	return err
}

// WatchPaneProcess watches the exit of a pane's program, pid on tty,
// when its server runs on this machine and the process there is the
// pane's (its standard input is the pane's terminal).
func (h engineHost) WatchPaneProcess(pid, tty string) (<-chan struct{}, func(), bool) {
	n, err := strconv.Atoi(pid)
	if h.opts.Host != nil || err != nil || tty == "" {
		return nil, nil, false
	}
	ch, stop, ok := watchExit(n)
	if !ok {
		return nil, nil, false
	}
	// Gone already, the pidfd says so; else it must be the pane's.
	if in, err := os.Readlink("/proc/" + pid + "/fd/0"); !errors.Is(err, os.ErrNotExist) && (err != nil || in != tty) {
		stop()
		return nil, nil, false
	}
	return ch, stop, true
}

func (h engineHost) PaneTarget(ref PaneRef) (string, error) { return paneTarget(ref) }

func (h engineHost) PaneInfoCommand(target string) controlmode.Command {
	return h.paneInfoCommand(target)
}

func (h engineHost) PaneInfoOf(r controlmode.Reply, target string) (Pane, error) {
	return h.paneInfoOf(r, target)
}

func (h engineHost) Stream(pane string) (*panestream.Stream, bool) { return h.streams.Lookup(pane) }

func (h engineHost) Feeds(sessionID string) bool { return h.link.feeds(sessionID) }
