package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// Codes an [Error] carries. They are the error codes of the MCP contract,
// so the MCP layer can pass them through; this package does not depend on it.
const (
	CodeInvalidArguments  = "invalid_arguments"
	CodeTargetRequired    = "target_required"
	CodeTargetDenied      = "target_denied"
	CodeNotFound          = "not_found"
	CodeAmbiguousTarget   = "ambiguous_target"
	CodeStaleTarget       = "stale_target"
	CodeOwnershipRequired = "ownership_required"
	CodeOwnedLimit        = "owned_limit"
	CodeTmuxError         = "tmux_error"
	CodeServerUnavailable = "server_unavailable"
	CodeConnectionLost    = "connection_lost"
	CodeDeadline          = "deadline"
	CodeCancelled         = "cancelled"
	CodeResultLimit       = "result_limit"
)

// Error is a failed operation: what went wrong, in the contract's terms.
type Error struct {
	Code string // one of the Code constants
	Msg  string
	// Written reports whether a command may have reached tmux. When false,
	// nothing was sent: the operation had no effect.
	Written bool
	Err     error // the cause, if any
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// ToolCode returns the contract's error code.
func (e *Error) ToolCode() string { return e.Code }

// Effects returns "none" when nothing was written to tmux, else "possible".
func (e *Error) Effects() string {
	if e.Written {
		return "possible"
	}
	return "none"
}

// Retryable reports whether the same call may succeed unchanged later.
func (e *Error) Retryable() bool { return Retryable(e) }

func errorf(code string, written bool, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Written: written}
}

// Retryable reports whether err is worth trying again unchanged: a server
// that is not there yet, or a connection lost before anything was written.
func Retryable(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code {
	case CodeServerUnavailable, CodeConnectionLost:
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
	return errors.As(err, &e) && e.Code == CodeNotFound
}

// unresponsiveMsg starts the message of a call failed by a stuck client.
const unresponsiveMsg = "tmux did not answer in time (a stopped server, or a prompt or menu holding the control client), so the control client was replaced; "

// fromExec turns an error of controlmode.Conn.Exec into an *Error.
func fromExec(err error) error {
	if err == nil {
		return nil
	}
	var ce *controlmode.CommandError
	switch {
	case errors.Is(err, controlmode.ErrInvalidCommand):
		return &Error{Code: CodeInvalidArguments, Msg: err.Error(), Err: err}
	case errors.As(err, &ce):
		code := CodeTmuxError
		if notFoundMessage(ce.Msg) {
			code = CodeNotFound
		}
		return &Error{Code: code, Msg: ce.Error(), Written: true, Err: err}
	case errors.Is(err, controlmode.ErrUnresponsive):
		// Before ErrNotSent, which an unsent call of a stuck client wraps
		// too: the message says why the connection ended.
		sent := !errors.Is(err, controlmode.ErrNotSent)
		what := "the command was sent and may still run"
		if !sent {
			what = "the command was not sent"
		}
		return &Error{Code: CodeConnectionLost, Msg: unresponsiveMsg + what, Written: sent, Err: err}
	case errors.Is(err, controlmode.ErrNotSent):
		return &Error{Code: CodeConnectionLost, Msg: "the tmux control connection ended before the call was sent: " + err.Error(), Err: err}
	case errors.Is(err, controlmode.ErrClosed):
		return &Error{Code: CodeConnectionLost, Msg: "the tmux control connection ended during the call: " + err.Error(), Written: true, Err: err}
	case errors.Is(err, context.Canceled):
		return &Error{Code: CodeCancelled, Msg: "cancelled", Written: true, Err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: CodeDeadline, Msg: "the call's deadline passed", Written: true, Err: err}
	}
	return err
}

// notFoundMessage reports whether tmux's message says a target is missing.
func notFoundMessage(msg string) bool {
	for _, p := range []string{"can't find ", "no such ", "session not found", "window not found", "pane not found", "unknown buffer", "no buffer"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}
