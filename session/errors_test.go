package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

func TestKindString(t *testing.T) {
	seen := map[string]Kind{}
	for k := KindInvalid; k <= KindCancelled; k++ {
		name := k.String()
		if name == "" || strings.HasPrefix(name, "Kind(") {
			t.Errorf("kind %d has no name: got %q", int(k), name)
		}
		if prev, ok := seen[name]; ok {
			t.Errorf("kinds %d and %d share the name %q", int(prev), int(k), name)
		}
		seen[name] = k
	}
	for _, k := range []Kind{0, KindCancelled + 1} {
		if got, want := k.String(), fmt.Sprintf("Kind(%d)", int(k)); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

// TestFromExec checks the kind, Written and the predicates of each failure
// of Conn.Exec, which decide what a caller may do next.
func TestFromExec(t *testing.T) {
	for _, tc := range []struct {
		name      string
		err       error
		kind      Kind
		written   bool
		retryable bool
	}{
		{"invalid command", fmt.Errorf("x: %w", controlmode.ErrInvalidCommand), KindInvalid, false, false},
		{"missing target", &controlmode.CommandError{Command: "kill-pane", Msg: "can't find pane: %99"}, KindNotFound, true, false},
		{"refused", &controlmode.CommandError{Command: "new-session", Msg: "duplicate session: a"}, KindRefused, true, false},
		{"not sent", fmt.Errorf("x: %w", controlmode.ErrNotSent), KindConnLost, false, true},
		{"closed", controlmode.ErrClosed, KindConnLost, true, false},
		{"unresponsive, sent", controlmode.ErrUnresponsive, KindConnLost, true, false},
		{"unresponsive, not sent", fmt.Errorf("%w: %w", controlmode.ErrUnresponsive, controlmode.ErrNotSent), KindConnLost, false, true},
		{"cancelled", context.Canceled, KindCancelled, true, false},
		{"deadline", context.DeadlineExceeded, KindDeadline, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := fromExec(tc.err)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %T %v, want *Error", err, err)
			}
			if e.Kind != tc.kind || e.Written != tc.written {
				t.Errorf("got kind %v, written %v; want %v, %v", e.Kind, e.Written, tc.kind, tc.written)
			}
			if Retryable(err) != tc.retryable || Written(err) != tc.written || IsNotFound(err) != (tc.kind == KindNotFound) {
				t.Errorf("got retryable %v, written %v, not found %v; want %v, %v, %v",
					Retryable(err), Written(err), IsNotFound(err), tc.retryable, tc.written, tc.kind == KindNotFound)
			}
			if got, want := e.Effects(), map[bool]string{true: "possible", false: "none"}[tc.written]; got != want {
				t.Errorf("effects %q, want %q", got, want)
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("%v does not wrap %v", err, tc.err)
			}
		})
	}
	if Written(errors.New("foreign")) != true || Retryable(errors.New("foreign")) {
		t.Error("a foreign error must count as written and not retryable")
	}
}

// TestNoTargetRemedies checks that an operation given no target fails
// before any I/O, says in tmux's words what it needed, and names it as a
// Remedy, so a caller can name its own arguments.
func TestNoTargetRemedies(t *testing.T) {
	s := new(Server) // never connected: each call must fail before it needs tmux
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		call   func() error
		remedy Remedy
		words  string
	}{
		{"send keys", func() error { _, err := s.SendKeys(ctx, PaneRef{}, SendKeysArgs{Keys: "x"}); return err }, RemedyPane, "a pane, window or session is needed"},
		{"run", func() error { _, err := s.RunCommand(ctx, RunArgs{Command: "true"}); return err }, RemedyPane, "a pane, window or session is needed"},
		{"kill pane", func() error { return s.KillPane(ctx, "") }, RemedyPane, "needs a pane"},
		{"respawn", func() error { _, err := s.RespawnPane(ctx, "", RespawnArgs{}); return err }, RemedyPane, "needs a pane"},
		{"window", func() error { _, err := s.windowTarget(ctx, WindowRef{}); return err }, RemedyWindow, "a window or session is needed"},
		{"window index", func() error { _, err := s.windowTarget(ctx, WindowRef{WindowIndex: "2"}); return err }, RemedySession, "window index 2 needs a session"},
		{"direction", func() error { _, err := s.SelectWindow(ctx, WindowRef{}, "next"); return err }, RemedySession, "direction next needs a session"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e *Error
			if err := tc.call(); !errors.As(err, &e) {
				t.Fatalf("got %v, want *Error", err)
			}
			if e.Kind != KindNoTarget || e.Written || e.Remedy != tc.remedy || !strings.Contains(e.Msg, tc.words) {
				t.Errorf("got %+v, want kind %v, not written, remedy %d, a message with %q", *e, KindNoTarget, tc.remedy, tc.words)
			}
		})
	}
}
