package engine

import (
	"context"
	"strconv"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/foreground"
)

// The words the engine and package session share, which session
// re-declares: the refs of panes, the arguments of a key press and of a
// capture, a pane's foreground program, and the owner a call acts for.

// PaneRef names a pane: by pane id, else the
// active pane of the window or session named. The zero PaneRef names no
// pane.
type PaneRef struct {
	PaneID      string
	WindowID    string
	SessionID   string
	SessionName string
}

// IsZero reports whether ref names nothing.
func (ref PaneRef) IsZero() bool { return ref == PaneRef{} }

// SendKeysArgs are the arguments of package session's Server.SendKeys.
type SendKeysArgs struct {
	Keys string
	// KeyList, if not nil, is sent instead of Keys: each item one argument
	// of send-keys, a key name such as Escape if it is one, else text.
	KeyList []string
	// Enter presses Enter after the keys, as a key of its own.
	Enter bool
	// Literal sends Keys (or every item of KeyList) as text (send-keys
	// -l). Otherwise Keys is one argument: a key name such as C-c if it is
	// one, else text.
	Literal bool
	// SuppressHistory prefixes a space, which shells configured with
	// HISTCONTROL=ignorespace leave out of their history.
	SuppressHistory bool
	// DriveMode sends the keys also when the pane is in a mode (copy mode,
	// choose-tree), where they drive the mode; without it, keys for a pane
	// in a mode are refused and nothing is sent.
	DriveMode bool
}

// Foreground is what the kernel tells of a pane's foreground program.
type Foreground = foreground.State

// ownerKey is the context key of the caller's owner identity.
type ownerKey struct{}

// WithOwner returns ctx carrying the identity on whose behalf the calls
// made with it act: the sessions package session's Server.CreateSession
// creates are owned by it, and its Owns and TeardownSession answer for it
// alone. The empty identity, a context without one, is the process itself
// (one MCP client over stdio). Over HTTP each bearer token is an identity.
func WithOwner(ctx context.Context, owner string) context.Context {
	if owner == "" && ctx.Value(ownerKey{}) == nil {
		return ctx
	}
	return context.WithValue(ctx, ownerKey{}, owner)
}

// OwnerOf returns the identity WithOwner put in ctx, or "".
func OwnerOf(ctx context.Context) string {
	o, _ := ctx.Value(ownerKey{}).(string)
	return o
}

// CaptureArgs select what a capture reads.
type CaptureArgs struct {
	// Start and End are capture-pane's -S and -E: 0 is the first visible
	// line, negative numbers reach into history. nil means the screen's
	// first and last line.
	Start, End *int
	// Join joins wrapped lines (-J).
	Join bool
}

// CaptureCommand is the capture-pane command that reads target as a says.
func CaptureCommand(a CaptureArgs, target string) controlmode.Command {
	args := []string{"-p", "-t", target}
	if a.Start != nil {
		args = append(args, "-S", strconv.Itoa(*a.Start))
	}
	if a.End != nil {
		args = append(args, "-E", strconv.Itoa(*a.End))
	}
	if a.Join {
		args = append(args, "-J")
	}
	return controlmode.NewCommand("capture-pane", args...)
}

// IsPaneID reports whether t is a tmux pane id (%N).
func IsPaneID(t string) bool {
	if len(t) < 2 || t[0] != '%' {
		return false
	}
	for i := 1; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}

// Pane is one pane. The command, path, title and cursor fields change
// without notifications; operations read them fresh.
type Pane struct {
	ID             string // "%1"
	Index          string
	Width, Height  int
	TTY            string
	CurrentCommand string
	CurrentPath    string
	PID            string
	Title          string
	Active         bool
	WindowID       string
	WindowIndex    string
	WindowName     string
	SessionID      string
	SessionName    string
	Left, Top      int
	Right, Bottom  int
	AtLeft         bool
	AtRight        bool
	AtTop          bool
	AtBottom       bool
	Dead           bool
	DeadStatus     string // the dead pane's exit status, "" when unknown
	Alternate      bool   // a full-screen program's screen is shown
	InMode         bool
	CursorX        int
	CursorY        int
}

// PaneSnapshot is a pane's screen and state, read at one moment.
type PaneSnapshot struct {
	Pane
	Lines          []string // the visible screen, trailing empty lines dropped
	AlternateOn    bool     // the alternate screen is active
	Mode           string   // "copy-mode", "view-mode" ...; "" when in no mode
	ScrollPosition *int     // lines scrolled back in copy mode; nil when not scrolled in a mode
	HistorySize    int      // lines in the pane's history
	CursorHidden   bool     // the pane's program hid the cursor
}
