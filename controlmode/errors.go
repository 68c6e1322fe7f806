package controlmode

import (
	"errors"
	"fmt"
)

// ErrClosed is wrapped by every error that reports the end of a connection.
// Test for it with errors.Is.
var ErrClosed = errors.New("controlmode: connection closed")

// ErrSkipped is the error of a command that tmux never ran because an
// earlier command on the same line failed: tmux drops the rest of a line
// after the first failure.
var ErrSkipped = errors.New("controlmode: not run: an earlier command on the same line failed")

// ErrNotSent is wrapped, with an error wrapping [ErrClosed], by what Exec
// returns when the connection was ending before the call's line was
// queued: tmux never saw it, so it is safe to send again elsewhere.
var ErrNotSent = errors.New("controlmode: not sent")

// notSent wraps the error that ended a connection for a call that was
// refused before it was queued.
type notSent struct{ err error }

func (e notSent) Error() string   { return "not sent: " + e.err.Error() }
func (e notSent) Unwrap() []error { return []error{ErrNotSent, e.err} }

// ErrInvalidCommand is wrapped by errors about commands that cannot be put
// on the wire (a NUL byte in an argument, an invalid command name). Nothing is
// written when Exec returns it.
var ErrInvalidCommand = errors.New("controlmode: invalid command")

// CommandError is what tmux said when it answered a command with %error.
type CommandError struct {
	Command string // the command's name, such as "kill-pane"
	Msg     string // tmux's own message, such as "can't find pane: %99"
}

func (e *CommandError) Error() string {
	if e.Command == "" {
		return e.Msg
	}
	return e.Command + ": " + e.Msg
}

// ErrUnresponsive is wrapped, with [ErrClosed], by the error of a
// connection that ended because tmux left a call unanswered past
// [Options.ReplyTimeout]. The calls that were written may still run if tmux
// comes back; the ones that were not (they wrap [ErrNotSent]) will not.
var ErrUnresponsive = errors.New("controlmode: tmux stopped answering")

// ExitError reports that the control client ended. It wraps [ErrClosed],
// and [ErrUnresponsive] when Unresponsive is set.
type ExitError struct {
	// Reason is the text tmux printed after %exit ("server exited
	// unexpectedly", "too far behind"), empty for a detach, a killed
	// session or kill-server.
	Reason string
	// Detail is what else is known: the start-up command's error, the
	// client's stderr, or the local cause such as "closed".
	Detail string
	// Unresponsive reports that the Conn ended the client itself because
	// tmux did not answer in time (see [Options.ReplyTimeout]).
	Unresponsive bool
}

func (e *ExitError) Error() string {
	msg := "tmux control client exited"
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg
}

func (e *ExitError) Unwrap() []error {
	if e.Unresponsive {
		return []error{ErrClosed, ErrUnresponsive}
	}
	return []error{ErrClosed}
}

// ProtocolError reports a line tmux sent that breaks the protocol as this
// package understands it. Such lines are reported, never fatal.
type ProtocolError string

func (p ProtocolError) Error() string { return "controlmode: protocol error: " + string(p) }

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidCommand}, args...)...)
}
