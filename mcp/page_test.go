package mcp

import (
	"fmt"
	"slices"
	"testing"
)

func TestPaged(t *testing.T) {
	rows := []int{10, 11, 12, 13, 14}
	for _, tc := range []struct {
		limit, offset int
		want          []int
		next          int // -1: none
	}{
		{0, 0, rows, -1},
		{100, 0, rows, -1},
		{5, 0, rows, -1},
		{2, 0, []int{10, 11}, 2},
		{2, 2, []int{12, 13}, 4},
		{2, 4, []int{14}, -1},
		{0, 3, []int{13, 14}, -1},
		{2, 5, []int{}, -1},
		{2, 99, []int{}, -1},
	} {
		t.Run(fmt.Sprintf("limit=%d,offset=%d", tc.limit, tc.offset), func(t *testing.T) {
			got := paged(rows, Paging{Limit: tc.limit, Offset: tc.offset}, same)
			if !slices.Equal(got.Result, tc.want) || got.Result == nil || got.Total != len(rows) {
				t.Errorf("got %v total %d, want %v total %d", got.Result, got.Total, tc.want, len(rows))
			}
			switch {
			case tc.next < 0 && got.NextOffset != nil:
				t.Errorf("next_offset %d, want none", *got.NextOffset)
			case tc.next >= 0 && (got.NextOffset == nil || *got.NextOffset != tc.next):
				t.Errorf("next_offset %v, want %d", got.NextOffset, tc.next)
			}
		})
	}
}

// TestListingsPageByDefault checks that a listing called with no paging
// arguments gets a page of 100 rows from the start.
func TestListingsPageByDefault(t *testing.T) {
	var (
		sessions ListSessionsIn
		windows  ListWindowsIn
		panes    ListPanesIn
	)
	for _, tc := range []struct {
		tool   string
		in     any
		paging *Paging
	}{
		{"list_sessions", &sessions, &sessions.Paging},
		{"list_windows", &windows, &windows.Paging},
		{"list_panes", &panes, &panes.Paging},
	} {
		if _, te := lookupTool(tc.tool).spec().decode([]byte(`{}`), tc.in); te != nil {
			t.Fatalf("%s: %v", tc.tool, te)
		}
		if *tc.paging != (Paging{Limit: 100}) {
			t.Errorf("%s: paging %+v, want limit 100, offset 0", tc.tool, *tc.paging)
		}
	}
}

// TestListingsPageThroughTmux pages through the listings of a real tmux
// server: every page holds at most limit rows in tmux's order, says the
// total and the next offset, and following next_offset from offset 0
// yields every row once, the same rows as one unlimited call; filters
// apply before paging.
func TestListingsPageThroughTmux(t *testing.T) {
	env := newTmuxEnv(t, protocolVersions[0], nil)
	a := env.fx.NewSession(t, "a")
	for range 4 {
		env.fx.Tmux(t, "new-window", "-d", "-t", a)
	}
	env.fx.NewSession(t, "b")
	env.fx.NewSession(t, "c")

	type row struct {
		PaneID    string `json:"pane_id"`
		WindowID  string `json:"window_id"`
		SessionID string `json:"session_id"`
	}
	key := func(r row) string { return r.SessionID + r.WindowID + r.PaneID }
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		total int
	}{
		{"list_panes", nil, 7},
		{"list_panes", map[string]any{"filters": map[string]any{"session_name": "a"}}, 5},
		{"list_windows", nil, 7},
		{"list_windows", map[string]any{"session_id": a}, 5},
		{"list_sessions", nil, 3},
	} {
		t.Run(fmt.Sprintf("%s%v", tc.tool, tc.args), func(t *testing.T) {
			with := func(extra map[string]any) map[string]any {
				m := map[string]any{}
				for k, v := range tc.args {
					m[k] = v
				}
				for k, v := range extra {
					m[k] = v
				}
				return m
			}
			var whole List[row]
			env.ok(t, tc.tool, with(map[string]any{"limit": 0}), &whole)
			if len(whole.Result) != tc.total || whole.Total != tc.total || whole.NextOffset != nil {
				t.Fatalf("limit 0: %d rows, total %d, next_offset %v; want %d, %d, none",
					len(whole.Result), whole.Total, whole.NextOffset, tc.total, tc.total)
			}
			var def List[row]
			env.ok(t, tc.tool, tc.args, &def) // the default page of 100 holds them all
			if !slices.Equal(def.Result, whole.Result) || def.Total != tc.total || def.NextOffset != nil {
				t.Fatalf("default page: %+v, want all %d rows and no next_offset", def, tc.total)
			}

			var paged []row
			offset, pages := 0, 0
			for {
				var page List[row]
				env.ok(t, tc.tool, with(map[string]any{"limit": 2, "offset": offset}), &page)
				pages++
				if page.Total != tc.total || len(page.Result) > 2 || len(page.Result) == 0 {
					t.Fatalf("offset %d: %d rows, total %d; want 1..2 rows, total %d", offset, len(page.Result), page.Total, tc.total)
				}
				paged = append(paged, page.Result...)
				if page.NextOffset == nil {
					break
				}
				if *page.NextOffset != offset+2 || pages > tc.total {
					t.Fatalf("offset %d: next_offset %d, want %d", offset, *page.NextOffset, offset+2)
				}
				offset = *page.NextOffset
			}
			if !slices.EqualFunc(paged, whole.Result, func(x, y row) bool { return key(x) == key(y) }) {
				t.Errorf("pages joined: %v, want %v", paged, whole.Result)
			}
			if want := (tc.total + 1) / 2; pages != want {
				t.Errorf("%d pages of 2, want %d", pages, want)
			}

			var past List[row]
			env.ok(t, tc.tool, with(map[string]any{"offset": tc.total + 5}), &past)
			if len(past.Result) != 0 || past.Total != tc.total || past.NextOffset != nil {
				t.Errorf("offset past the end: %+v, want no rows, total %d, no next_offset", past, tc.total)
			}
		})
	}
}
