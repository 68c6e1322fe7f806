package session

import (
	"errors"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/errs"
)

// The error every operation returns is internal/errs', which the pane
// engine shares; these are its names in this package, and its docs.

// Kind says what sort of failure an [Error] is, in tmux's terms. The zero
// Kind is no kind: an Error must have one.
type Kind = errs.Kind

// The kinds of [Error].
const (
	// KindInvalid: the request is malformed or out of range (a bad name,
	// pattern, number or path, a NUL), or the server's release cannot do it.
	KindInvalid = errs.KindInvalid
	// KindNoTarget: the operation acts on a pane, window or session and
	// none was named. [Error.Remedy] says which would do.
	KindNoTarget = errs.KindNoTarget
	// KindNotFound: the pane, window, session, buffer or server named does
	// not exist, or a pane exited while it was waited on.
	KindNotFound = errs.KindNotFound
	// KindNotOwned: tearing down a session this process did not create, or
	// one of another generation, or one already torn down.
	KindNotOwned = errs.KindNotOwned
	// KindOwnedLimit: this process already owns as many sessions as it may.
	KindOwnedLimit = errs.KindOwnedLimit
	// KindRefused: tmux refused the command, answered in a way that cannot
	// be read, or the pane is in no state for it (dead, busy, in a mode).
	KindRefused = errs.KindRefused
	// KindNoServer: no tmux server answers on the socket, the tmux binary
	// cannot run, the host cannot be reached, or the Server is closed.
	KindNoServer = errs.KindNoServer
	// KindConnLost: the control connection, or a client following a pane,
	// ended while the operation was under way.
	KindConnLost = errs.KindConnLost
	// KindDeadline: the operation's own timeout passed.
	KindDeadline = errs.KindDeadline
	// KindCancelled: the caller's context was cancelled.
	KindCancelled = errs.KindCancelled
)

// Remedy is what would let a failed operation through, in tmux's terms.
// [Error.Msg] already says it in words; a caller that offers the same
// things under its own names (tools, arguments, flags) can say it in those.
type Remedy = errs.Remedy

// The remedies of [Error].
const (
	// RemedyPane: name a pane, or a window or session whose active pane
	// will do.
	RemedyPane = errs.RemedyPane
	// RemedyWindow: name a window, or a session whose current window will do.
	RemedyWindow = errs.RemedyWindow
	// RemedySession: name the session (a window index or a direction means
	// nothing without one).
	RemedySession = errs.RemedySession
	// RemedyRespawn: respawn the dead pane.
	RemedyRespawn = errs.RemedyRespawn
	// RemedyLeaveMode: take the pane out of copy or view mode.
	RemedyLeaveMode = errs.RemedyLeaveMode
	// RemedyDriveMode: take the pane out of its mode, or send the keys
	// as meant for the mode.
	RemedyDriveMode = errs.RemedyDriveMode
	// RemedyInterrupt: send C-c with no Enter after it, which discards the
	// shell's pending input or stops its program.
	RemedyInterrupt = errs.RemedyInterrupt
	// RemedyWaitOrInterrupt: wait for the pane's program to finish, or
	// interrupt it.
	RemedyWaitOrInterrupt = errs.RemedyWaitOrInterrupt
	// RemedyLookOrInterrupt: look at what the pane shows, or interrupt it.
	RemedyLookOrInterrupt = errs.RemedyLookOrInterrupt
	// RemedyPaste: paste the text into a file in the pane and run that.
	RemedyPaste = errs.RemedyPaste
	// RemedyTmuxPath: give the path of a tmux binary that runs.
	RemedyTmuxPath = errs.RemedyTmuxPath
	// RemedyStartServer: start a server on the socket (a new session
	// does), for none runs there.
	RemedyStartServer = errs.RemedyStartServer
)

// Error is a failed operation: what sort of failure ([Error.Kind]), what
// went wrong, what would let it through ([Error.Remedy]), and whether it
// may have changed tmux ([Error.Written]).
type Error = errs.Error

// Retryable reports whether err is worth trying again unchanged: a server
// that is not there yet, or a connection lost before anything was written.
func Retryable(err error) bool { return errs.Retryable(err) }

// Written reports whether the failed operation may have reached tmux.
// Errors this package did not make are assumed to have.
func Written(err error) bool { return errs.Written(err) }

// IsNotFound reports whether err says a target does not exist.
func IsNotFound(err error) bool { return errs.IsNotFound(err) }

// errorf is an Error of an operation that changed nothing (errs.Errorf).
func errorf(kind Kind, format string, args ...any) *Error {
	return errs.Errorf(kind, format, args...)
}

// The rest of internal/errs, under the names this package's files use.
var (
	afterChange     = errs.AfterChange
	fromExec        = errs.FromExec
	notSent         = errs.NotSent
	notFoundMessage = errs.NotFoundMessage
	noServerMessage = errs.NoServerMessage
	fix             = errs.Fix
)

// unresponsiveMsg starts the message of a call failed by a stuck client.
const unresponsiveMsg = errs.UnresponsiveMsg

// lineError is the error of line cmds that Conn.Exec answered with rs and
// err, stamped with what the line did: Written when a command of it that
// can change tmux may have run (see lineEffects).
func lineError(cmds []controlmode.Command, rs []controlmode.Reply, err error) error {
	if err == nil {
		return nil
	}
	err = errs.FromExec(err)
	var e *Error
	if errors.As(err, &e) {
		_, e.Written = lineEffects(cmds, rs, err)
	}
	return err
}
