package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/session"
)

type busyErr struct{}

func (busyErr) Error() string      { return "too many calls in flight" }
func (busyErr) ToolCode() string   { return CodeBusy }
func (busyErr) Effects() string    { return EffectsNone }
func (busyErr) Suggestion() string { return "wait\nfor it" }

type lostErr struct{}

func (lostErr) Error() string    { return "control connection closed" }
func (lostErr) ToolCode() string { return CodeConnectionLost }
func (lostErr) Retryable() bool  { return true }

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want ToolError
	}{
		{"tool error passes through", Errorf(CodeNotFound, EffectsNone, "can't find pane: %%9"),
			ToolError{Code: CodeNotFound, Message: "can't find pane: %9", Effects: EffectsNone, Suggestion: defaultSuggestion(CodeNotFound)}},
		{"wrapped tool error", fmt.Errorf("resolve: %w", NewError(CodeStaleTarget, EffectsNone, "old generation")),
			ToolError{Code: CodeStaleTarget, Message: "old generation", Effects: EffectsNone, Suggestion: defaultSuggestion(CodeStaleTarget)}},
		{"tool error without effects is possible", &ToolError{Code: CodeTmuxError, Message: "no"},
			ToolError{Code: CodeTmuxError, Message: "no", Effects: EffectsPossible}},
		{"behaviour interfaces", fmt.Errorf("send: %w", busyErr{}),
			ToolError{Code: CodeBusy, Message: "send: too many calls in flight", Effects: EffectsNone, Retryable: true, Suggestion: "wait for it"}},
		{"retryable override, effects unknown", lostErr{},
			ToolError{Code: CodeConnectionLost, Message: "control connection closed", Effects: EffectsPossible, Retryable: true, Suggestion: defaultSuggestion(CodeConnectionLost)}},
		{"cancelled", fmt.Errorf("exec: %w", context.Canceled),
			ToolError{Code: CodeCancelled, Message: "the request was cancelled", Effects: EffectsPossible}},
		{"deadline", context.DeadlineExceeded,
			ToolError{Code: CodeDeadline, Message: "the call's deadline passed", Effects: EffectsPossible}},
		{"unknown is internal", errors.New("boom"),
			ToolError{Code: CodeInternal, Message: "boom", Effects: EffectsPossible}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := classify(tc.err); *got != tc.want {
				t.Errorf("got %+v, want %+v", *got, tc.want)
			}
		})
	}
	if classify(nil) != nil {
		t.Error("classify(nil) is not nil")
	}
}

func TestNewErrorRetryable(t *testing.T) {
	for _, tc := range []struct {
		code, effects string
		want          bool
	}{
		{CodeBusy, EffectsNone, true},
		{CodeServerUnavailable, EffectsNone, true},
		{CodeConnectionLost, EffectsNone, true},
		{CodeConnectionLost, EffectsPossible, false},
		{CodeNotFound, EffectsNone, false},
		{CodeInternal, EffectsPossible, false},
	} {
		if got := NewError(tc.code, tc.effects, "m").Retryable; got != tc.want {
			t.Errorf("%s/%s: retryable %v, want %v", tc.code, tc.effects, got, tc.want)
		}
	}
}

func TestMessageCap(t *testing.T) {
	te := classify(errors.New(strings.Repeat("é", 400) + "\xff"))
	if len(te.Message) > MaxMessageBytes || !utf8.ValidString(te.Message) {
		t.Errorf("message of %d bytes, valid UTF-8 %v; want at most %d and valid", len(te.Message), utf8.ValidString(te.Message), MaxMessageBytes)
	}
	if short := capMessage("fine"); short != "fine" {
		t.Errorf("capMessage changed a short message: %q", short)
	}
}

func TestErrorResultShape(t *testing.T) {
	res := NewError(CodeOwnershipRequired, EffectsNone, "session is not owned by this application").
		WithSuggestion("use kill_session").result()
	if !res.IsError {
		t.Fatal("not an error result")
	}
	want := `{"error":{"code":"ownership_required","message":"session is not owned by this application","effects":"none","retryable":false}}`
	if got := string(res.StructuredContent.(json.RawMessage)); got != want {
		t.Errorf("structuredContent %s, want %s", got, want)
	}
	if got := textOf(res); got != want+"\nuse kill_session" {
		t.Errorf("text %q", got)
	}
}

// TestSessionCodes checks that every kind of session failure maps to a code
// of the contract, and to the code it had when session spoke in codes.
func TestSessionCodes(t *testing.T) {
	was := map[session.Kind]string{
		session.KindInvalid:    "invalid_arguments",
		session.KindNoTarget:   "target_required",
		session.KindNotFound:   "not_found",
		session.KindNotOwned:   "ownership_required",
		session.KindOwnedLimit: "owned_limit",
		session.KindRefused:    "tmux_error",
		session.KindNoServer:   "server_unavailable",
		session.KindConnLost:   "connection_lost",
		session.KindDeadline:   "deadline",
		session.KindCancelled:  "cancelled",
	}
	named := 0
	for k := session.Kind(0); k < 100; k++ {
		code := sessionCode(k)
		if strings.HasPrefix(k.String(), "Kind(") {
			if code != CodeInternal {
				t.Errorf("unknown kind %d: got %q, want %q", int(k), code, CodeInternal)
			}
			continue
		}
		named++
		if !contractCodes[code] {
			t.Errorf("kind %v: got %q, not a code of the contract", k, code)
		}
		if code != was[k] {
			t.Errorf("kind %v: got %q, want %q", k, code, was[k])
		}
	}
	if named != len(was) {
		t.Errorf("session has %d kinds, this test knows %d: add the new ones", named, len(was))
	}
}

// TestClassifySessionError checks the envelope a session error becomes:
// its kind's code, its effects and retryability, and its remedy in the
// tools' words after the message.
func TestClassifySessionError(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want ToolError
	}{
		{"no target names the arguments",
			fmt.Errorf("send: %w", &session.Error{Kind: session.KindNoTarget, Msg: "no target given: a pane, window or session is needed", Remedy: session.RemedyPane}),
			ToolError{Code: CodeTargetRequired, Message: "send: no target given: a pane, window or session is needed (name a pane_id, window_id, session_id or session_name)",
				Effects: EffectsNone, Suggestion: defaultSuggestion(CodeTargetRequired)}},
		{"refusal names the tool",
			&session.Error{Kind: session.KindRefused, Msg: "pane %1 is dead; respawn it first", Remedy: session.RemedyRespawn},
			ToolError{Code: CodeTmuxError, Message: "pane %1 is dead; respawn it first (respawn_pane)", Effects: EffectsNone}},
		{"no server before writing is retryable",
			&session.Error{Kind: session.KindNoServer, Msg: "no tmux server is running on socket s", Remedy: session.RemedyStartServer},
			ToolError{Code: CodeServerUnavailable, Message: "no tmux server is running on socket s (create_session starts one there)",
				Effects: EffectsNone, Retryable: true, Suggestion: defaultSuggestion(CodeServerUnavailable)}},
		{"no tmux binary is not retryable, and names --tmux",
			&session.Error{Kind: session.KindNoServer, Msg: `cannot run the tmux binary "nope": not found`, Remedy: session.RemedyTmuxPath},
			ToolError{Code: CodeServerUnavailable, Message: `cannot run the tmux binary "nope": not found (start tmux-mcp with --tmux PATH (or LIBTMUX_TMUX_BIN) naming a tmux binary that runs)`,
				Effects: EffectsNone}},
		{"connection lost after writing is not, and says no retry",
			&session.Error{Kind: session.KindConnLost, Msg: "ended", Written: true},
			ToolError{Code: CodeConnectionLost, Message: "ended", Effects: EffectsPossible}},
		{"no kind is internal",
			&session.Error{Msg: "odd"},
			ToolError{Code: CodeInternal, Message: "odd", Effects: EffectsNone}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := classify(tc.err); *got != tc.want {
				t.Errorf("got %+v, want %+v", *got, tc.want)
			}
		})
	}
	for _, r := range []session.Remedy{session.RemedyPane, session.RemedyWindow, session.RemedySession, session.RemedyRespawn,
		session.RemedyLeaveMode, session.RemedyInterrupt, session.RemedyWaitOrInterrupt, session.RemedyLookOrInterrupt,
		session.RemedyPaste, session.RemedyTmuxPath} {
		if remedyWords[r] == "" {
			t.Errorf("remedy %d has no words", int(r))
		}
	}
}
