package session

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
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

// TestReadSinceFullHistory: with tmux's history full (it drops a tenth of
// its limit at a time), a few lines after a cursor still read from the grid,
// their rows found through the drop; many lines do not (the count of drops
// is not known), and CaptureSince then reads them from the stream.
func TestReadSinceFullHistory(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	fx.NewSession(t, "base")
	fx.Tmux(t, "set-option", "-g", "history-limit", "50")
	pane, tty := silentPane(t, fx, s, "h")
	r, err := s.CaptureSince(ctx, SinceArgs{Pane: PaneRef{PaneID: pane}})
	if err != nil {
		t.Fatal(err)
	}
	st := s.streams.Get(pane)
	// write writes text to the pane and waits until its last line is out.
	write := func(text, last string) {
		t.Helper()
		pos, _ := st.Position()
		if _, err := fmt.Fprint(tty, text); err != nil {
			t.Fatal(err)
		}
		for !bytes.Contains(st.Read(pos).Data, []byte(last+"\r\n")) {
			if err := st.Wait(ctx, st.Read(pos).Next); err != nil {
				t.Fatal(err)
			}
		}
	}
	var fill strings.Builder
	for i := range 200 {
		fmt.Fprintf(&fill, "fill-%d\n", i)
	}
	write(fill.String(), "fill-199")
	if r, err = s.CaptureSince(ctx, SinceArgs{Cursor: r.Cursor}); err != nil || !slices.Contains(r.Lines, "fill-199") || r.LinesMissed {
		t.Fatalf("200 lines past a history of 50: got %d lines, %v", len(r.Lines), err)
	}
	for round := range 12 {
		_, _, offset, from, err := parseCursor(r.Cursor, "")
		if err != nil || !from.known {
			t.Fatalf("cursor %q: %+v %v", r.Cursor, from, err)
		}
		a, b := fmt.Sprint("a-", round), fmt.Sprint("b-", round)
		write(a+"\n"+b+"\n", b)
		g, err := s.readSince(ctx, pane, st, offset, from)
		if err != nil || !g.ok || !slices.Equal(g.lines, []string{a, b}) {
			t.Fatalf("round %d, from %+v: got %+v %v, want %s and %s from the grid", round, from, g, err, a, b)
		}
		if r, err = s.CaptureSince(ctx, SinceArgs{Cursor: r.Cursor}); err != nil || !slices.Equal(r.Lines, []string{a, b}) {
			t.Fatalf("round %d: got %q %v", round, r.Lines, err)
		}
	}
}

// TestCaptureSinceFullScreen: a full-screen program's capture_since is its
// screen as drawn (text placed by cursor moves where it shows), for a
// cursor with a grid mark and for one of the stream (run_command's);
// once the program leaves the alternate screen, the next call reads the
// lines after it, none of what it drew there, before or after the last
// call.
func TestCaptureSinceFullScreen(t *testing.T) {
	s, pane := shellSession(t, "sh")
	ctx := testCtx(t)
	ref := PaneRef{PaneID: pane}
	first, err := s.CaptureSince(ctx, SinceArgs{Pane: ref})
	if err != nil {
		t.Fatal(err)
	}
	// A cursor of the stream alone, as run_command's output_cursor is.
	pos, _ := s.streams.Get(pane).Position()
	streamCursor := s.sinceCursor(ctx, pane, pos)
	// The words are split and placed by cursor moves: the bytes never
	// hold "FULL SCREEN" nor the second row's indent.
	draw := `printf '\033[?1049h\033[H\033[2JFULL\033[1;6HSCREEN\033[5;3Hsecond row'; read x; printf '\033[3;1HLATER-%s\033[?1049l'; echo after-%s`
	if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: fmt.Sprintf(draw, "DRAWN", "full"), Enter: true}); err != nil {
		t.Fatal(err)
	}
	if w, err := s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"second row"}, Timeout: 20 * time.Second}); err != nil || !w.Found {
		t.Fatalf("the program never drew: %+v %v", w, err)
	}
	for _, cursor := range []string{first.Cursor, streamCursor} {
		r, err := s.CaptureSince(ctx, SinceArgs{Cursor: cursor})
		if err != nil || !r.AlternateScreen || r.LinesMissed || len(r.Lines) != 5 || r.Lines[0] != "FULL SCREEN" || r.Lines[4] != "  second row" {
			t.Fatalf("cursor %.20s: got %+v %v, want the screen as drawn", cursor, r, err)
		}
		first = r
	}
	if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: "", Enter: true}); err != nil {
		t.Fatal(err)
	}
	if w, err := s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"after-full"}, Timeout: 20 * time.Second}); err != nil || !w.Found {
		t.Fatalf("the program never ended: %+v %v", w, err)
	}
	r, err := s.CaptureSince(ctx, SinceArgs{Cursor: first.Cursor})
	text := strings.Join(r.Lines, "\n")
	if err != nil || r.AlternateScreen || !strings.Contains(text, "after-full") || strings.Contains(text, "SCREEN") || strings.Contains(text, "second row") || strings.Contains(text, "LATER-DRAWN") {
		t.Fatalf("after the program: got %+v %v", r, err)
	}
}
