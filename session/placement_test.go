package session

import (
	"slices"
	"strings"
	"testing"
)

// TestPlacement: Placement answers from the model without a tmux call
// while nothing changed, lists a pane once per session its window is
// linked into, and with fresh finds a pane the model was never told of.
func TestPlacement(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	fx.NewSession(t, "a", "sh", "-c", "exec cat >/dev/null")
	fx.NewSession(t, "b", "sh", "-c", "exec cat >/dev/null")
	if _, err := s.Sessions(ctx); err != nil {
		t.Fatal(err)
	}
	pl, err := s.Placement(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Sessions) != 2 || pl.Generation == "" || pl.Generation != s.Generation() {
		t.Fatalf("got %+v, want two sessions and the generation", pl)
	}
	before := s.ConnStats().Stats.Calls
	if _, err := s.Placement(ctx, false); err != nil {
		t.Fatal(err)
	}
	if after := s.ConnStats().Stats.Calls; after != before {
		t.Errorf("a current model cost %d tmux calls", after-before)
	}
	// A window of a linked into b, and a pane split off in it with -d:
	// tmux tells a control client of neither of the split.
	win := strings.TrimSpace(fx.Tmux(t, "display-message", "-p", "-t", "a:", "#{window_id}"))
	fx.Tmux(t, "link-window", "-d", "-s", win, "-t", "b:5")
	pane := strings.TrimSpace(fx.Tmux(t, "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", win, "sh", "-c", "exec cat >/dev/null"))
	pl, err = s.Placement(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	var in []string
	for _, p := range pl.Panes {
		if p.ID == pane {
			in = append(in, p.SessionName)
		}
	}
	slices.Sort(in)
	if !slices.Equal(in, []string{"a", "b"}) {
		t.Errorf("pane %s: got rows in sessions %q, want a and b", pane, in)
	}
	now, err := s.SessionsOf(ctx, []string{pane, win, "%99999"})
	if err != nil {
		t.Fatal(err)
	}
	if len(now[pane]) != 2 || len(now[win]) != 2 || len(now["%99999"]) != 0 {
		t.Errorf("SessionsOf: got %q, want the pane and the window in two sessions, no entry for %%99999", now)
	}
	if _, err := s.SessionsOf(ctx, []string{"a:0"}); err == nil {
		t.Error("SessionsOf accepted a target that is no id")
	}
	since, err := s.CaptureSince(ctx, SinceArgs{Pane: PaneRef{PaneID: pane}})
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := CursorPane(since.Cursor); !ok || p != pane {
		t.Errorf("CursorPane(%q): got %q, %v; want %s", since.Cursor, p, ok, pane)
	}
	if _, ok := CursorPane("nonsense"); ok {
		t.Error("CursorPane accepted nonsense")
	}
}
