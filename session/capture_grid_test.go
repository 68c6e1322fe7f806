package session

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/session/internal/engine"
)

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
		a, b := fmt.Sprint("a-", round), fmt.Sprint("b-", round)
		write(a+"\n"+b+"\n", b)
		lines, ok, err := engine.ReadSinceGrid(ctx, s.Engine, pane, st, r.Cursor)
		if err != nil || !ok || !slices.Equal(lines, []string{a, b}) {
			t.Fatalf("round %d, from cursor %q: got %q (%v) %v, want %s and %s from the grid", round, r.Cursor, lines, ok, err, a, b)
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
	streamCursor := engine.StreamCursor(ctx, s.Engine, pane, pos)
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
