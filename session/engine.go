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
// tmux (engineHost). The words both speak are the engine's, re-declared
// here.

// PaneRef names a pane: by pane id, else the active pane of the window or
// session named. The zero PaneRef names no pane.
type PaneRef = engine.PaneRef

// SendKeysArgs are the arguments of [Server.SendKeys].
type SendKeysArgs = engine.SendKeysArgs

// CaptureArgs select what a capture reads.
type CaptureArgs = engine.CaptureArgs

// Foreground is what the kernel tells of a pane's foreground program.
type Foreground = engine.Foreground

// WithOwner returns ctx carrying the identity on whose behalf the calls
// made with it act: the sessions [Server.CreateSession] creates are owned
// by it, and [Server.Owns] and [Server.TeardownSession] answer for it
// alone. The empty identity, a context without one, is the process itself
// (one MCP client over stdio). Over HTTP each bearer token is an identity.
func WithOwner(ctx context.Context, owner string) context.Context {
	return engine.WithOwner(ctx, owner)
}

// OwnerOf returns the identity WithOwner put in ctx, or "".
func OwnerOf(ctx context.Context) string { return engine.OwnerOf(ctx) }

// isPaneID reports whether t is a tmux pane id (%N).
func isPaneID(t string) bool { return engine.IsPaneID(t) }

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

// The arguments and answers of the engine's operations.

// SinceArgs are the arguments of [Server.CaptureSince].
type SinceArgs = engine.SinceArgs

// SinceResult is what [Server.CaptureSince] returns.
type SinceResult = engine.SinceResult

// Held is what [Server.HoldForFirstPrompt] found.
type Held = engine.Held

// CommandMarks is what tmux recorded of a pane's shell from the OSC 133
// marks the shell printed (from 3.8: see release.Facts.RecordsCommandMarks).
type CommandMarks = engine.CommandMarks

// Pressed is what became of the keys of [Server.PressKeys].
type Pressed = engine.Pressed

// RunArgs are the arguments of [Server.RunCommand].
type RunArgs = engine.RunArgs

// RunResult is the outcome of [Server.RunCommand].
type RunResult = engine.RunResult

// CommandWaitArgs are the arguments of [Server.WaitForCommand].
type CommandWaitArgs = engine.CommandWaitArgs

// RunEnd says how a command ended.
type RunEnd = engine.RunEnd

// WaitArgs are the arguments of [Server.WaitForText].
type WaitArgs = engine.WaitArgs

// WaitResult is the outcome of a wait.
type WaitResult = engine.WaitResult

// QuietArgs are the arguments of [Server.WaitQuiet].
type QuietArgs = engine.QuietArgs

// QuietResult is the outcome of [Server.WaitQuiet].
type QuietResult = engine.QuietResult

// How a command ended ([RunResult.End]).
const (
	EndExited       = engine.EndExited
	EndShellExited  = engine.EndShellExited
	EndPaneClosed   = engine.EndPaneClosed
	EndRespawned    = engine.EndRespawned
	EndServerExited = engine.EndServerExited
	EndUnknown      = engine.EndUnknown
)

// Wait outcomes, as libtmux-mcp names them.
const (
	OutcomeMatched   = engine.OutcomeMatched
	OutcomeAnyOutput = engine.OutcomeAnyOutput
	OutcomeStopped   = engine.OutcomeStopped
	OutcomeAltScreen = engine.OutcomeAltScreen
	OutcomeTimeout   = engine.OutcomeTimeout
)

// What a wait for text matches against ([WaitArgs.Since]).
const (
	SinceInput  = engine.SinceInput
	SinceStart  = engine.SinceStart
	SinceScreen = engine.SinceScreen
)

// Where a match was found ([WaitResult.MatchedIn]).
const (
	InOutput = engine.InOutput
	InScreen = engine.InScreen
)

// PaneExit is the outcome of [Server.WaitPaneExit].
type PaneExit = engine.PaneExit

// CursorPane returns the pane a capture_since cursor reads, and false when
// c is not a cursor.
func CursorPane(c string) (string, bool) { return engine.CursorPane(c) }

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

// AgentState is what a pane is doing: idle, working, blocked, done or
// unknown (see agentstate).
type AgentState = engine.AgentState

// StateWaitArgs are the arguments of [Server.WaitForState].
type StateWaitArgs = engine.StateWaitArgs

// PaneStateResult is one pane's state at the end of a wait.
type PaneStateResult = engine.PaneStateResult

// StateWaitResult is the outcome of [Server.WaitForState].
type StateWaitResult = engine.StateWaitResult

// AgentStates are the states, as tools name them.
func AgentStates() []string { return engine.AgentStates() }

// CheckStates reports an unknown state name in until ([KindInvalid]).
func CheckStates(until []string) error { return engine.CheckStates(until) }
