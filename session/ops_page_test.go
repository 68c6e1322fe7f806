package session

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// TestPanesPage checks that every page PanesPage reads is the same slice of
// what Panes reads, for the whole server, one session and a filter, with
// the number of panes in scope; ids such as %1 and %10 are told apart.
func TestPanesPage(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	a := fx.NewSession(t, "a", "cat")
	for range 11 { // 12 panes in a: %0..%11, so %1 and %10, %11 exist
		fx.Tmux(t, "new-window", "-d", "-t", a, "cat")
	}
	fx.NewSession(t, "b", "cat")
	fx.Tmux(t, "split-window", "-d", "-t", "b", "cat")

	for _, scope := range []PaneScope{{}, {Session: a}, {Filter: "#{==:#{session_name},b}"}} {
		all, err := s.Panes(ctx, scope)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]int{"": 14, a: 12}[scope.Session]; scope.Filter != "" && len(all) != 2 || scope.Filter == "" && len(all) != want {
			t.Fatalf("Panes(%+v): %d panes", scope, len(all))
		}
		for _, tc := range [][2]int{{0, 1}, {1, 1}, {0, 5}, {5, 5}, {10, 5}, {0, 100}, {13, 1}, {14, 3}, {99, 2}} {
			t.Run(fmt.Sprintf("%+v/offset=%d,limit=%d", scope, tc[0], tc[1]), func(t *testing.T) {
				page, total, err := s.PanesPage(ctx, scope, tc[0], tc[1])
				if err != nil {
					t.Fatal(err)
				}
				start := min(tc[0], len(all))
				want := all[start:min(start+tc[1], len(all))]
				if total != len(all) || len(page) != len(want) || (len(want) > 0 && !reflect.DeepEqual(settled(page), settled(want))) {
					t.Errorf("got %d panes of %d: %v; want %d of %d: %v", len(page), total, ids(page), len(want), len(all), ids(want))
				}
			})
		}
	}
}

// settled returns panes without the fields their programs change as they
// start (automatic-rename, the title, the cursor): two reads of a page of
// live panes must agree on the rest.
func settled(ps []Pane) []Pane {
	out := slices.Clone(ps)
	for i := range out {
		out[i].CurrentCommand, out[i].CurrentPath, out[i].Title, out[i].WindowName = "", "", "", ""
		out[i].CursorX, out[i].CursorY = 0, 0
	}
	return out
}

func ids(ps []Pane) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.ID)
	}
	return out
}

// TestSmallServerPageIsOneRoundTrip: when every pane fits in the first
// page, the page is one list-panes, as an unpaged listing was; the ids
// first would double what list_panes costs on the servers most agents use.
func TestSmallServerPageIsOneRoundTrip(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	fx.NewSession(t, "a", "cat")
	fx.NewSession(t, "b", "cat")
	if _, err := s.Sessions(ctx); err != nil { // connected, model synced
		t.Fatal(err)
	}
	before := s.ConnStats().Commands
	ps, total, err := s.PanesPage(ctx, PaneScope{}, 0, 100)
	if err != nil || len(ps) != 2 || total != 2 {
		t.Fatalf("PanesPage: %d panes, total %d, %v; want 2, 2", len(ps), total, err)
	}
	if n := s.ConnStats().Commands - before; n != 1 {
		t.Errorf("PanesPage sent %d commands, want 1", n)
	}
	// A page smaller than the server still reads ids first, then the page.
	before = s.ConnStats().Commands
	ps, total, err = s.PanesPage(ctx, PaneScope{}, 0, 1)
	if err != nil || len(ps) != 1 || total != 2 {
		t.Fatalf("PanesPage limit 1: %d panes, total %d, %v; want 1, 2", len(ps), total, err)
	}
	if n := s.ConnStats().Commands - before; n != 2 {
		t.Errorf("PanesPage limit 1 sent %d commands, want 2", n)
	}
}
