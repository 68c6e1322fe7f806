package session

import (
	"context"
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
			if err := call(ctx); !isCode(err, CodeTargetRequired) {
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
			if !tc.ok && !isCode(err, CodeInvalidArguments) {
				t.Fatalf("got %v, want invalid_arguments", err)
			}
		})
	}
}
