package session

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestZeroRefIsTargetRequired proves session picks no default pane or
// window: with a session there to fall back on, every read still answers
// a zero ref target_required. The default is the caller's policy.
func TestZeroRefIsTargetRequired(t *testing.T) {
	fx, s := newTestServer(t)
	fx.NewSession(t, "main")
	ctx := testCtx(t)
	for name, call := range map[string]func(context.Context) error{
		"ResolvePane": func(ctx context.Context) error { _, err := s.ResolvePane(ctx, PaneRef{}); return err },
		"Capture":     func(ctx context.Context) error { _, _, err := s.Capture(ctx, PaneRef{}, CaptureArgs{}); return err },
		"Snapshot":    func(ctx context.Context) error { _, err := s.Snapshot(ctx, PaneRef{}); return err },
		"PaneAt":      func(ctx context.Context) error { _, err := s.PaneAt(ctx, PaneRef{}); return err },
		"DisplayMessage": func(ctx context.Context) error {
			_, _, err := s.DisplayMessage(ctx, PaneRef{}, "#{pane_id}")
			return err
		},
		"Window":      func(ctx context.Context) error { _, err := s.Window(ctx, WindowRef{}); return err },
		"WindowPanes": func(ctx context.Context) error { _, err := s.WindowPanes(ctx, WindowRef{WindowIndex: "0"}); return err },
		"WaitForText": func(ctx context.Context) error {
			_, err := s.WaitForText(ctx, WaitArgs{Patterns: []string{"x"}, Timeout: time.Millisecond})
			return err
		},
		"WaitQuiet": func(ctx context.Context) error {
			_, err := s.WaitQuiet(ctx, QuietArgs{Timeout: time.Millisecond})
			return err
		},
		"CaptureSince": func(ctx context.Context) error { _, err := s.CaptureSince(ctx, SinceArgs{}); return err },
	} {
		t.Run(name, func(t *testing.T) {
			if err := call(ctx); !isKind(err, KindNoTarget) {
				t.Fatalf("got %v, want target_required", err)
			}
		})
	}
}

func TestWaitArgsCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    WaitArgs
		ok   bool
	}{
		{"plain text", WaitArgs{Patterns: []string{"("}}, true},
		{"good regex", WaitArgs{Patterns: []string{"^ok$"}, Regex: true}, true},
		{"bad regex", WaitArgs{Patterns: []string{"("}, Regex: true}, false},
		{"bad stop", WaitArgs{Patterns: []string{"ok"}, Stop: []string{"[a-"}, Regex: true}, false},
		{"bad since", WaitArgs{Since: "later"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.a.Check()
			if tc.ok && err != nil {
				t.Fatalf("got %v, want nil", err)
			}
			if !tc.ok && !isKind(err, KindInvalid) {
				t.Fatalf("got %v, want invalid_arguments", err)
			}
		})
	}
}

// TestTargetStrings pins the tmux target each ref or scope becomes: a
// session name is exact ("=" never lets tmux match a prefix) and, where -t
// is a pane or window, ends in ":" so tmux reads it as a session.
func TestTargetStrings(t *testing.T) {
	for _, tc := range []struct {
		name, got, want string
	}{
		{"pane id wins", refTarget(PaneRef{PaneID: "%3", WindowID: "@1", SessionName: "a"}), "%3"},
		{"window id", refTarget(PaneRef{WindowID: "@1", SessionID: "$2"}), "@1"},
		{"session id", refTarget(PaneRef{SessionID: "$2", SessionName: "a"}), "$2"},
		{"session name", refTarget(PaneRef{SessionName: "a"}), "=a:"},
		{"nothing", refTarget(PaneRef{}), ""},
		{"scope session name", scopeTarget(ScopeSession, "a"), "=a:"},
		{"scope session id", scopeTarget(ScopeSession, "$2"), "$2"},
		{"scope window", scopeTarget(ScopeWindow, "@1"), "@1"},
		{"env by id", strings.Join(envTarget("$2", "a"), " "), "-t $2"},
		{"env by name", strings.Join(envTarget("", "a"), " "), "-t =a"},
		{"env global", strings.Join(envTarget("", ""), " "), "-g"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Fatalf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
	for id, want := range map[string]bool{"%0": true, "%12": true, "%": false, "%1a": false, "@1": false, "1": false} {
		if got := isPaneID(id); got != want {
			t.Errorf("isPaneID(%q): got %v, want %v", id, got, want)
		}
	}
}
