package engine

import (
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
)

func TestGridAtRowNow(t *testing.T) {
	m := gridAt{known: true, row: 150, hist: 120, limit: 200, width: 80}
	for _, c := range []struct {
		name        string
		hist, width int
		scrolls     int64
		want        int
		ok          bool
	}{
		{"nothing moved", 120, 80, 0, 150, true},
		{"scrolled, history not full", 170, 80, 500, 150, true},
		{"resized", 120, 100, 0, 0, false},
		{"history full, few scrolls", 190, 80, 75, 150, true},
		{"history full, drops unknown", 185, 80, 85, 0, false},
		{"history full, drops unknown", 190, 80, 200, 0, false},
		{"history full, scrolls unknown", 190, 80, -1, 0, false},
		{"cleared", 10, 80, 5, 0, false},
		{"the row dropped", 181, 80, 1000, 0, false},
	} {
		got, ok := m.rowNow(c.hist, 200, c.width, func() int64 { return c.scrolls })
		if ok != c.ok || ok && got != c.want {
			t.Errorf("%s: got %d %v, want %d %v", c.name, got, ok, c.want, c.ok)
		}
	}
	// One drop, certain: 6 scrolls from 195 rows of history can only have
	// reached 181 through one drop of 20.
	full := gridAt{known: true, row: 150, hist: 195, limit: 200, width: 80}
	if got, ok := full.rowNow(181, 200, 80, func() int64 { return 6 }); !ok || got != 130 {
		t.Errorf("one drop: got %d %v, want 130 true", got, ok)
	}
	// The same, the mark itself dropped.
	full.row = 5
	if _, ok := full.rowNow(181, 200, 80, func() int64 { return 6 }); ok {
		t.Error("a row tmux dropped was taken as still there")
	}
}

func TestScrollBound(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"", 1},
		{"a\nb\n", 3},
		{"\x1b[5S", 6},
		{"\x1b[2J", 25},
		{"\x1bD\x1bE\x1bM", 3},
		{"\x1b[3J", -1},
		{"x\x1bc", -1},
	} {
		if got := scrollBound([]byte(c.in), 80, 24); got != c.want {
			t.Errorf("scrollBound(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

// TestScrolledSince guesses how far output scrolled a screen of 24 rows
// of 80 from a mark on its row 10 (30 rows of history before it).
func TestScrolledSince(t *testing.T) {
	m := gridAt{known: true, row: 40, hist: 30, limit: 2000, width: 80, height: 24}
	for _, c := range []struct {
		name string
		r    panestream.Read
		want int
	}{
		{"a few lines, room below", panestream.Read{Data: []byte("a\r\nb\r\n")}, 0},
		{"down to the last row", panestream.Read{Data: []byte(strings.Repeat("x\r\n", 13))}, 0},
		{"past the last row", panestream.Read{Data: []byte(strings.Repeat("x\r\n", 20))}, 7},
		{"a line that wraps", panestream.Read{Data: []byte(strings.Repeat("x\r\n", 13) + strings.Repeat("y", 100) + "\r\n")}, 2},
		{"output lost", panestream.Read{Data: []byte(strings.Repeat("x\r\n", 20)), Missed: 5}, 0},
		{"a cursor move it cannot follow", panestream.Read{Data: []byte(strings.Repeat("x\r\n", 20) + "\x1b[5;1H")}, 0},
	} {
		if got := scrolledSince(c.r, m); got != c.want {
			t.Errorf("%s: got %d, want %d", c.name, got, c.want)
		}
	}
	// The mark's own size says where the screen ended: a pane 30 rows
	// high has 19 below the mark, and a line of 50 wraps to two rows at 40
	// columns (one at 80).
	taller := m
	taller.height = 30
	if got := scrolledSince(panestream.Read{Data: []byte(strings.Repeat("x\r\n", 20))}, taller); got != 1 {
		t.Errorf("30 rows high: got %d, want 1", got)
	}
	narrow := m
	narrow.width = 40
	if got := scrolledSince(panestream.Read{Data: []byte(strings.Repeat("x\r\n", 13) + strings.Repeat("y", 50) + "\r\n")}, narrow); got != 2 {
		t.Errorf("40 columns wide: got %d, want 2", got)
	}
	if got := scrolledSince(panestream.Read{Data: []byte(strings.Repeat("x\r\n", 20))}, gridAt{known: true, row: 40, hist: 30, width: 80}); got != 0 {
		t.Errorf("a mark without a height: got %d, want 0", got)
	}
}
