package session

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// TestFloatingPanes (tmux 3.8): floating and modal panes are panes like any
// other to the tools. They are listed with their place and size, keys reach
// a tiled pane under a modal one, and the layout string of a window with
// floating panes (which holds them between < and >) is one select-layout
// itself refuses, so select_layout refuses it before sending anything.
func TestFloatingPanes(t *testing.T) {
	fx, s := newTestServer(t)
	if !fx.AtLeast(t, 3, 8) {
		t.Skip("floating panes are new in tmux 3.8")
	}
	ctx := testCtx(t)
	id := fx.NewSession(t, "float", "-x", "100", "-y", "30")
	tiled := fx.Tmux(t, "display-message", "-p", "-t", id, "#{pane_id}")
	floating := fx.Tmux(t, "new-pane", "-d", "-P", "-F", "#{pane_id}", "-t", tiled)
	modal := fx.Tmux(t, "new-pane", "-d", "-O", "-P", "-F", "#{pane_id}", "-t", tiled)

	panes, err := s.Panes(ctx, PaneScope{Session: id})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Pane{}
	for _, p := range panes {
		got[p.ID] = p
	}
	for _, want := range []string{tiled, floating, modal} {
		row := strings.Fields(fx.Tmux(t, "display-message", "-p", "-t", want, "#{pane_width} #{pane_height} #{pane_left} #{pane_top}"))
		p, ok := got[want]
		if !ok {
			t.Errorf("pane %s not listed; listed %v", want, panes)
			continue
		}
		if strings.Join(row, " ") != strings.Join([]string{strconv.Itoa(p.Width), strconv.Itoa(p.Height), strconv.Itoa(p.Left), strconv.Itoa(p.Top)}, " ") {
			t.Errorf("pane %s: listed %dx%d at %d,%d; tmux says %v", want, p.Width, p.Height, p.Left, p.Top, row)
		}
	}

	if _, err := s.SendKeys(ctx, PaneRef{PaneID: tiled}, SendKeysArgs{Keys: "echo under-$((6*7))", Enter: true}); err != nil {
		t.Fatalf("send_keys under a modal pane: %v", err)
	}
	fixtures.WaitFor(t, 10*time.Second, "the tiled pane's output", func() bool {
		return strings.Contains(fx.Tmux(t, "capture-pane", "-p", "-t", tiled), "under-42")
	})

	layout := fx.Tmux(t, "display-message", "-p", "-t", id, "#{window_layout}")
	if !strings.Contains(layout, "<") {
		t.Fatalf("window_layout %q: no floating panes in it", layout)
	}
	if _, err := fx.TryTmux("select-layout", "-t", id, layout); err == nil {
		t.Fatalf("tmux took its own floating layout %q; select_layout may pass it on", layout)
	}
	forked := s.ConnStats().Forked
	_, err = s.SelectLayout(ctx, WindowRef{SessionID: id}, layout)
	if e, ok := err.(*Error); !ok || e.Kind != KindInvalid || e.Written {
		t.Errorf("select_layout %q: got %v, want invalid with nothing written", layout, err)
	}
	if s.ConnStats().Forked != forked {
		t.Errorf("forked a tmux")
	}
}

// TestQuietKnowsLastOutput (tmux 3.8): a quiet wait on a pane no client of
// ours followed yet counts from when tmux last saw it print, so a pane that
// has been quiet long enough answers at once instead of after quiet more.
func TestQuietKnowsLastOutput(t *testing.T) {
	fx, s := newTestServer(t)
	if !fx.AtLeast(t, 3, 8) {
		t.Skip("pane_last_output_time is new in tmux 3.8")
	}
	ctx := testCtx(t)
	fx.NewSession(t, "quiet", "sh", "-c", "echo printed; exec sleep 100")
	pane := fx.Tmux(t, "display-message", "-p", "-t", "quiet", "#{pane_id}")
	fixtures.WaitFor(t, 20*time.Second, "tmux to see the pane print", func() bool {
		return fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_last_output_time}") != ""
	})
	// The quiet under test is time itself: 4 s with nothing printed.
	time.Sleep(4100 * time.Millisecond)
	r, err := s.WaitQuiet(ctx, QuietArgs{Pane: PaneRef{PaneID: pane}, Quiet: 3 * time.Second, Timeout: 20 * time.Second})
	if err != nil || !r.Quiet || r.Changed {
		t.Fatalf("got %+v %v, want quiet", r, err)
	}
	if r.Elapsed >= 2*time.Second {
		t.Errorf("quiet after %v: the wait counted its 3 s from its start, not from the pane's last output", r.Elapsed)
	}
}
