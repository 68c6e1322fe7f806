package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// The error codes of the envelope (CONTRACT §3). A failed call carries exactly one.
const (
	CodeInvalidArguments  = "invalid_arguments"  // arguments break the schema or a limit
	CodeToolDenied        = "tool_denied"        // the tool is not enabled by tier or --tool
	CodeTargetRequired    = "target_required"    // an input or destructive tool got no target
	CodeTargetDenied      = "target_denied"      // the target is this process's own pane, window, session or server, or outside the scope
	CodeNotFound          = "not_found"          // the target does not exist
	CodeAmbiguousTarget   = "ambiguous_target"   // a name matches more than one thing
	CodeStaleTarget       = "stale_target"       // the generation given is not the server's current one
	CodeOwnershipRequired = "ownership_required" // teardown of a session this process did not create
	CodeOwnedLimit        = "owned_limit"        // too many owned sessions
	CodeTmuxError         = "tmux_error"         // tmux refused the command
	CodeServerUnavailable = "server_unavailable" // no tmux server answers, or tmux is not installed
	CodeConnectionLost    = "connection_lost"    // the control connection ended mid-call
	CodeDeadline          = "deadline"           // the call's own timeout passed
	CodeCancelled         = "cancelled"          // the client cancelled the request
	CodeBusy              = "busy"               // too many calls in flight
	CodeResultLimit       = "result_limit"       // the result would exceed the response cap
	CodeInternal          = "internal"           // a bug, caught and answered
)

// Values of ToolError.Effects.
const (
	// EffectsNone means the call changed nothing in tmux: it was refused
	// before anything was written, or it sent only reads and commands tmux
	// refused for a missing target.
	EffectsNone = "none"
	// EffectsPossible means a command that can change tmux may have run.
	EffectsPossible = "possible"
)

// MaxMessageBytes caps ToolError.Message on the wire.
const MaxMessageBytes = 512

// ToolError is a failed tool call as the client sees it: the envelope
//
//	{"error": {"code": ..., "message": ..., "effects": ..., "retryable": ...}}
//
// sent as structuredContent and, with Suggestion on a line of its own, as text.
// Suggestion never appears in the structured envelope.
type ToolError struct {
	Code       string // one of the Code constants
	Message    string // what went wrong, for a person; capped at MaxMessageBytes
	Effects    string // EffectsNone or EffectsPossible
	Retryable  bool   // the same call may succeed unchanged later
	Suggestion string // optional one-line hint for the agent
}

func (e *ToolError) Error() string { return e.Code + ": " + e.Message }

// NewError returns a ToolError with the given code, effects and message.
// Retryable follows CONTRACT §3: true only for busy, server_unavailable and
// connection_lost with no effects.
func NewError(code, effects, message string) *ToolError {
	return &ToolError{
		Code:      code,
		Message:   capMessage(message),
		Effects:   effects,
		Retryable: defaultRetryable(code, effects),
	}
}

// Errorf is like NewError with a formatted message.
func Errorf(code, effects, format string, args ...any) *ToolError {
	return NewError(code, effects, fmt.Sprintf(format, args...))
}

// WithSuggestion returns a copy of e carrying the one-line hint s.
func (e *ToolError) WithSuggestion(s string) *ToolError {
	c := *e
	c.Suggestion = oneLine(s)
	return &c
}

// A *session.Error gets its code from its Kind (sessionCode) and its message
// in the tools' words (sessionMessage). The behaviour interfaces below let
// other errors say how they map onto the envelope without importing this
// package; a session error has Effects and Retryable. classify finds them with
// errors.As, so they work through %w wrapping. Each is optional:
//
//   - ToolCode decides the code. Without it (or a session Kind) an error is
//     internal, unless it is context.Canceled (cancelled) or
//     context.DeadlineExceeded (deadline).
//   - Effects reports EffectsNone when the error happened before the call
//     wrote anything to tmux. Without it, effects are "possible". A tool
//     call then settles effects from what the session layer saw the whole
//     call send (see settleEffects).
//   - Retryable overrides the default rule (busy, server_unavailable and
//     connection_lost are retryable when nothing was written).
//   - Suggestion adds a one-line hint to the text content.
type (
	// CodedError is an error that names its envelope code.
	CodedError interface {
		error
		ToolCode() string
	}
	// EffectsError is an error that knows whether tmux may have seen the call.
	EffectsError interface {
		error
		Effects() string
	}
	// RetryableError is an error that knows whether retrying unchanged can help.
	RetryableError interface {
		error
		Retryable() bool
	}
	// SuggestionError is an error that carries a hint for the agent.
	SuggestionError interface {
		error
		Suggestion() string
	}
)

// classify maps any error onto the envelope. A *ToolError anywhere in the
// chain wins; then a *session.Error's kind; then the behaviour interfaces;
// then context errors; anything else is internal with effects possible.
func classify(err error) *ToolError {
	if err == nil {
		return nil
	}
	var te *ToolError
	if errors.As(err, &te) {
		c := *te
		if c.Code == "" {
			c.Code = CodeInternal
		}
		if c.Effects != EffectsNone {
			c.Effects = EffectsPossible
		}
		c.Message = capMessage(c.Message)
		c.Suggestion = oneLine(c.Suggestion)
		if c.Suggestion == "" {
			c.Suggestion = defaultSuggestion(c.Code)
		}
		return &c
	}

	out := &ToolError{Code: CodeInternal, Effects: EffectsPossible, Message: err.Error()}
	var sess *session.Error
	var coded CodedError
	switch {
	case errors.As(err, &sess) && sessionCode(sess.Kind) != CodeInternal:
		out.Code = sessionCode(sess.Kind)
		out.Message = sessionMessage(err, sess)
	case errors.As(err, &coded) && coded.ToolCode() != "":
		out.Code = coded.ToolCode()
	case errors.Is(err, context.Canceled):
		out.Code = CodeCancelled
		out.Message = "the request was cancelled"
	case errors.Is(err, context.DeadlineExceeded):
		out.Code = CodeDeadline
		out.Message = "the call's deadline passed"
	}
	var eff EffectsError
	if errors.As(err, &eff) && eff.Effects() == EffectsNone {
		out.Effects = EffectsNone
	}
	out.Retryable = defaultRetryable(out.Code, out.Effects)
	var re RetryableError
	if errors.As(err, &re) {
		out.Retryable = re.Retryable()
	}
	var se SuggestionError
	if errors.As(err, &se) {
		out.Suggestion = oneLine(se.Suggestion())
	}
	if out.Suggestion == "" && (out.Retryable || !defaultRetryable(out.Code, EffectsNone)) {
		// "Retry shortly" only for what a retry may mend.
		out.Suggestion = defaultSuggestion(out.Code)
	}
	out.Message = capMessage(out.Message)
	return out
}

// sessionCode is the contract's code for a kind of session failure. It is
// the one place where session's kinds meet the contract's codes; a kind it
// does not know is a bug, so internal.
func sessionCode(k session.Kind) string {
	switch k {
	case session.KindInvalid:
		return CodeInvalidArguments
	case session.KindNoTarget:
		return CodeTargetRequired
	case session.KindNotFound:
		return CodeNotFound
	case session.KindNotOwned:
		return CodeOwnershipRequired
	case session.KindOwnedLimit:
		return CodeOwnedLimit
	case session.KindRefused:
		return CodeTmuxError
	case session.KindNoServer:
		return CodeServerUnavailable
	case session.KindConnLost:
		return CodeConnectionLost
	case session.KindDeadline:
		return CodeDeadline
	case session.KindCancelled:
		return CodeCancelled
	}
	return CodeInternal
}

// remedyWords names the tools, arguments and flags that carry out a
// session.Remedy, so an agent can act on the message as it reads.
var remedyWords = map[session.Remedy]string{
	session.RemedyPane:            "name a pane_id, window_id, session_id or session_name",
	session.RemedyWindow:          "name a window_id, or a session_name or session_id",
	session.RemedySession:         "name a session_name or session_id",
	session.RemedyRespawn:         "respawn_pane",
	session.RemedyLeaveMode:       "exit_copy_mode",
	session.RemedyDriveMode:       "exit_copy_mode, or drive_mode=true",
	session.RemedyInterrupt:       `send_keys keys="C-c" enter=false`,
	session.RemedyWaitOrInterrupt: `wait_for_text, or send_keys keys="C-c" enter=false`,
	session.RemedyLookOrInterrupt: `capture_pane, or send_keys keys="C-c" enter=false`,
	session.RemedyPaste:           "paste_text into cat > file",
	session.RemedyTmuxPath:        "start tmux-mcp with --tmux PATH (or LIBTMUX_TMUX_BIN) naming a tmux binary that runs",
	session.RemedyStartServer:     "create_session starts one there",
}

// sessionMessage is err's message with se's remedy, if any, named in the
// tools' words after it. err is the whole chain, whose wrapping adds context.
func sessionMessage(err error, se *session.Error) string {
	if w := remedyWords[se.Remedy]; w != "" {
		return err.Error() + " (" + w + ")"
	}
	return err.Error()
}

func defaultRetryable(code, effects string) bool {
	switch code {
	case CodeBusy, CodeServerUnavailable, CodeConnectionLost:
		return effects == EffectsNone
	}
	return false
}

func defaultSuggestion(code string) string {
	switch code {
	case CodeInvalidArguments:
		return "Check the arguments against the tool's input schema."
	case CodeToolDenied:
		return "Enable it with LIBTMUX_TOOLSETS (inspect, manage, execute, teardown), LIBTMUX_SAFETY (readonly, mutating, destructive) or --tool."
	case CodeTargetRequired:
		return "Name the target explicitly, e.g. pane_id from list_panes."
	case CodeTargetDenied:
		return "This is the pane, window, session or server this MCP server runs in; use a manual tmux command if intended."
	case CodeNotFound:
		return "Call list_sessions, list_windows or list_panes for current ids."
	case CodeAmbiguousTarget:
		return "Name the target by id ($N, @N or %N)."
	case CodeStaleTarget:
		return "The tmux server restarted; list again for current ids and generation."
	case CodeOwnershipRequired:
		return "teardown_session only removes sessions this server created; use kill_session for others."
	case CodeBusy, CodeServerUnavailable, CodeConnectionLost:
		return "Retry shortly."
	case CodeResultLimit:
		return "Ask for less, e.g. a smaller max_lines."
	}
	return ""
}

// capMessage cuts s to MaxMessageBytes on a UTF-8 boundary and makes it valid UTF-8.
func capMessage(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= MaxMessageBytes {
		return s
	}
	const ellipsis = "…"
	cut := MaxMessageBytes - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}

func oneLine(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Join(strings.Fields(s), " ")
	return capMessage(s)
}

// envelope is the wire form of a ToolError.
type envelope struct {
	Error envelopeBody `json:"error"`
}

type envelopeBody struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Effects   string `json:"effects"`
	Retryable bool   `json:"retryable"`
}

// result renders e as a tool result: isError, the envelope as
// structuredContent, and the same JSON plus the suggestion as text.
func (e *ToolError) result() *sdk.CallToolResult {
	b, err := marshalPlain(envelope{envelopeBody{e.Code, e.Message, e.Effects, e.Retryable}})
	if err != nil { // cannot happen: four plain fields
		panic("mcp: marshal error envelope: " + err.Error())
	}
	text := string(b)
	if e.Suggestion != "" {
		text += "\n" + e.Suggestion
	}
	return &sdk.CallToolResult{
		IsError:           true,
		StructuredContent: json.RawMessage(b),
		Content:           []sdk.Content{&sdk.TextContent{Text: text}},
	}
}

// marshalPlain is json.Marshal without HTML escaping: a result's text
// holds this JSON as a string, which the SDK escapes again, so an escape
// made here would reach the client as "-\\u003e" where "->" was printed.
// (The stdio transport undoes the SDK's own escaping; see internal/stdio.)
func marshalPlain(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

func invalidArguments(format string, args ...any) *ToolError {
	return Errorf(CodeInvalidArguments, EffectsNone, format, args...)
}
