package session

import (
	"testing"

	"github.com/tmux-mcp/tmux-mcp/session/internal/release"
)

func TestReleaseAtLeast(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{"3.3a", false}, {"3.4", false}, {"3.5", true}, {"3.5a", true}, {"3.10", true}, {"4.0", true},
		{"2.9a", false}, {"next-3.6", true}, {"next-3.4", false}, {"master", true}, {"", true},
	} {
		if got := release.Of(tc.v).AtLeast(3, 5); got != tc.want {
			t.Errorf("release.Of(%q).AtLeast(3, 5): got %v, want %v", tc.v, got, tc.want)
		}
	}
}

func TestSelectLayoutRefusesNamesThatCrashTmux(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	id := fx.NewSession(t, "s")
	forked := s.ConnStats().Forked
	bads := []string{"tiledx", "main-horizontal-", "even", "", "1234"}
	if !fx.AtLeast(t, 3, 5) {
		bads = append(bads, "main-vertical-mirrored") // from tmux 3.5 on, a layout
	}
	for _, bad := range bads {
		_, err := s.SelectLayout(ctx, WindowRef{SessionID: id}, bad)
		if e, ok := err.(*Error); !ok || e.Kind != KindInvalid || e.Written {
			t.Errorf("layout %q: got %v, want invalid_arguments with nothing written", bad, err)
		}
	}
	good := []string{"tiled"}
	if fx.AtLeast(t, 3, 5) {
		good = append(good, "main-vertical-mirrored", "main-horizontal-mirrored")
	}
	for _, layout := range good {
		w, err := s.SelectLayout(ctx, WindowRef{SessionID: id}, layout)
		if err != nil || w.SessionID != id {
			t.Fatalf("%s: got %+v, %v", layout, w, err)
		}
	}
	if _, err := fx.TryTmux("has-session", "-t", id); err != nil {
		t.Fatalf("the server died: %v", err)
	}
	if s.ConnStats().Forked != forked {
		t.Errorf("forked a tmux")
	}
}
