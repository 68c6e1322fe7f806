package errs

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// Kind says what sort of failure an [Error] is, in tmux's terms. The zero
// Kind is no kind: an Error must have one.
type Kind int

const (
	// KindInvalid: the request is malformed or out of range (a bad name,
	// pattern, number or path, a NUL), or the server's release cannot do it.
	KindInvalid Kind = iota + 1
	// KindNoTarget: the operation acts on a pane, window or session and
	// none was named. [Error.Remedy] says which would do.
	KindNoTarget
	// KindNotFound: the pane, window, session, buffer or server named does
	// not exist, or a pane exited while it was waited on.
	KindNotFound
	// KindNotOwned: tearing down a session this process did not create, or
	// one of another generation, or one already torn down.
	KindNotOwned
	// KindOwnedLimit: this process already owns as many sessions as it may.
	KindOwnedLimit
	// KindRefused: tmux refused the command, answered in a way that cannot
	// be read, or the pane is in no state for it (dead, busy, in a mode).
	KindRefused
	// KindNoServer: no tmux server answers on the socket, the tmux binary
	// cannot run, the host cannot be reached, or the Server is closed.
	KindNoServer
	// KindConnLost: the control connection, or a client following a pane,
	// ended while the operation was under way.
	KindConnLost
	// KindDeadline: the operation's own timeout passed.
	KindDeadline
	// KindCancelled: the caller's context was cancelled.
	KindCancelled
)

var kindNames = [...]string{
	KindInvalid:    "invalid",
	KindNoTarget:   "no target",
	KindNotFound:   "not found",
	KindNotOwned:   "not owned",
	KindOwnedLimit: "owned limit",
	KindRefused:    "refused",
	KindNoServer:   "no server",
	KindConnLost:   "connection lost",
	KindDeadline:   "deadline",
	KindCancelled:  "cancelled",
}

// String returns the kind's name, for logs and test failures.
func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Remedy is what would let a failed operation through, in tmux's terms.
// [Error.Msg] already says it in words; a caller that offers the same
// things under its own names (tools, arguments, flags) can say it in those.
type Remedy int

const (
	// RemedyPane: name a pane, or a window or session whose active pane
	// will do.
	RemedyPane Remedy = iota + 1
	// RemedyWindow: name a window, or a session whose current window will do.
	RemedyWindow
	// RemedySession: name the session (a window index or a direction means
	// nothing without one).
	RemedySession
	// RemedyRespawn: respawn the dead pane.
	RemedyRespawn
	// RemedyLeaveMode: take the pane out of copy or view mode.
	RemedyLeaveMode
	// RemedyDriveMode: take the pane out of its mode, or send the keys
	// as meant for the mode.
	RemedyDriveMode
	// RemedyInterrupt: send C-c with no Enter after it, which discards the
	// shell's pending input or stops its program.
	RemedyInterrupt
	// RemedyWaitOrInterrupt: wait for the pane's program to finish, or
	// interrupt it.
	RemedyWaitOrInterrupt
	// RemedyLookOrInterrupt: look at what the pane shows, or interrupt it.
	RemedyLookOrInterrupt
	// RemedyPaste: paste the text into a file in the pane and run that.
	RemedyPaste
	// RemedyTmuxPath: give the path of a tmux binary that runs.
	RemedyTmuxPath
	// RemedyStartServer: start a server on the socket (a new session
	// does), for none runs there.
	RemedyStartServer
)

// Error is a failed operation: what sort of failure, and what went wrong.
type Error struct {
	Kind Kind
	Msg  string
	// Remedy, when not zero, is what would let the operation through.
	Remedy Remedy
	// Written reports whether the operation may have changed tmux: a
	// command that can change it may have run. When false, it had no
	// effect: it sent nothing, only read, or tmux refused its command for
	// a missing target (tmux resolves targets before it runs a command).
	// It is stamped where the I/O happens (session's Server.send,
	// oneShots.forkTmux, link.connect), as session.WatchEffects records
	// it, and by the operations that fail after a change of theirs
	// ([AfterChange]); never by hand elsewhere.
	Written bool
	Err     error // the cause, if any
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// Effects returns "none" when nothing was written to tmux, else "possible".
func (e *Error) Effects() string {
	if e.Written {
		return "possible"
	}
	return "none"
}

// Retryable reports whether the same call may succeed unchanged later.
func (e *Error) Retryable() bool { return Retryable(e) }

// Errorf is an Error of an operation that changed nothing: found before
// any I/O, or after reads only. An operation that fails after a change of
// its own says so with AfterChange.
func Errorf(kind Kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// AfterChange marks err, an *Error, as coming after a command of the
// operation that can change tmux was sent: its reply could not be read,
// or what the command started could not be followed to its end.
func AfterChange(err error) error {
	if e, ok := err.(*Error); ok {
		c := *e // it may be shared (a command's end, every waiter's)
		c.Written = true
		return &c
	}
	var e *Error
	if errors.As(err, &e) {
		e.Written = true
	}
	return err
}

// ErrServerExited is the cause of an operation's failure when the tmux
// server it worked on exited under it: a retry finds no server, or a new
// one without the pane it named.
var ErrServerExited = errors.New("the tmux server exited")

// ServerExited is the error of an operation on pane whose server, on
// socket sock, exited while it waited for what (no command of it was typed).
func ServerExited(sock fmt.Stringer, pane, what string) *Error {
	return &Error{Kind: KindNoServer, Msg: fmt.Sprintf("the tmux server on socket %s exited (server_exited) while %s in pane %s; nothing was typed, and pane %s is gone with it",
		sock, what, pane, pane), Remedy: RemedyStartServer, Err: ErrServerExited}
}

// Fix sets e's Remedy and returns e, so that a call site stays one line.
func Fix(e *Error, r Remedy) *Error {
	e.Remedy = r
	return e
}

// Retryable reports whether err is worth trying again unchanged: a server
// that is not there yet, or a connection lost before anything was written.
func Retryable(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch {
	case e.Kind == KindNoServer && e.Remedy == RemedyTmuxPath:
		return false // no binary: the same call fails the same way until the setting changes
	case errors.Is(e, ErrServerExited):
		return false // its panes went with it: the same call names what is gone
	case e.Kind == KindNoServer, e.Kind == KindConnLost:
		return !e.Written
	}
	return false
}

// Written reports whether the failed operation may have reached tmux.
// Errors this package did not make are assumed to have.
func Written(err error) bool {
	var e *Error
	if errors.As(err, &e) {
		return e.Written
	}
	return err != nil
}

// IsNotFound reports whether err says a target does not exist.
func IsNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == KindNotFound
}

// UnresponsiveMsg starts the message of a call failed by a stuck client.
const UnresponsiveMsg = "tmux did not answer in time (a stopped server, or a prompt or menu holding the control client), so the control client was replaced; "

// FromExec turns an error of controlmode.Conn.Exec, or a context's
// error, into an *Error of its kind; an *Error passes through. It does
// not know what was sent: Written is false, and the I/O that knows stamps
// it (see session's lineError and oneShots.forkTmux).
func FromExec(err error) error {
	var e *Error
	if err == nil || errors.As(err, &e) {
		return err
	}
	var ce *controlmode.CommandError
	switch {
	case errors.Is(err, controlmode.ErrInvalidCommand):
		return &Error{Kind: KindInvalid, Msg: err.Error(), Err: err}
	case errors.As(err, &ce):
		kind := KindRefused
		if NotFoundMessage(ce.Msg) {
			kind = KindNotFound
		}
		return &Error{Kind: kind, Msg: ce.Error(), Err: err}
	case errors.Is(err, controlmode.ErrUnresponsive):
		// Before ErrNotSent, which an unsent call of a stuck client wraps
		// too: the message says why the connection ended.
		what := "the command was sent and may still run"
		if errors.Is(err, controlmode.ErrNotSent) {
			what = "the command was not sent"
		}
		return &Error{Kind: KindConnLost, Msg: UnresponsiveMsg + what, Err: err}
	case errors.Is(err, controlmode.ErrNotSent):
		return &Error{Kind: KindConnLost, Msg: "the tmux control connection ended before the call was sent: " + err.Error(), Err: err}
	case errors.Is(err, controlmode.ErrClosed):
		return &Error{Kind: KindConnLost, Msg: "the tmux control connection ended during the call: " + err.Error(), Err: err}
	case errors.Is(err, context.Canceled):
		return &Error{Kind: KindCancelled, Msg: "cancelled", Err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Kind: KindDeadline, Msg: "the call's deadline passed", Err: err}
	}
	return err
}

// NotSent is the error of a caller's own end (ctx.Err()), or of a
// connect, that came before the call sent anything: it had no effects.
func NotSent(err error) error {
	err = FromExec(err)
	if e, ok := err.(*Error); ok {
		c := *e // a dial's error is every caller's: each gets its own
		c.Written = false
		return &c
	}
	return err
}

// NotFoundMessage reports whether tmux's message says a target is missing.
func NotFoundMessage(msg string) bool {
	for _, p := range []string{"can't find ", "no such ", "session not found", "window not found", "pane not found", "unknown buffer", "no buffer"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// NoServerMessage reports whether err is a one-shot tmux's complaint that
// no server listens on the socket, or that none can start there.
func NoServerMessage(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "no server running") || strings.Contains(msg, "error connecting to") ||
		strings.Contains(msg, "error creating ")
}

// Closed is the error of a call on a closed session layer.
func Closed() error {
	return Errorf(KindNoServer, "the session layer is closed")
}
