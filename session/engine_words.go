package session

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/session/internal/engine"
)

// The words the engine and a Server's callers speak: the engine's
// arguments and answers (internal/engine), re-declared under this
// package's names.

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
