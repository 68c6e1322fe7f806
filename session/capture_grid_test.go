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
	// It reports false when the stream says output after the write's start
	// was lost instead (tmux paused the pane for a client 5 s behind, or
	// the client ended: seen once on a loaded machine), which the test
	// cannot read through: the caller starts again from a fresh cursor.
	write := func(text, last string) bool {
		t.Helper()
		pos, _ := st.Position()
		if _, err := fmt.Fprint(tty, text); err != nil {
			t.Fatal(err)
		}
		for {
			rd := st.Read(pos)
			switch {
			case bytes.Contains(rd.Data, []byte(last+"\r\n")):
				return true
			case rd.Paused || rd.ConnLost || rd.Missed > 0:
				t.Logf("output after %s was lost (paused %v, client ended %v, %d bytes missed): again", last, rd.Paused, rd.ConnLost, rd.Missed)
				return false
			}
			if err := st.Wait(ctx, rd.Next); err != nil {
				t.Fatalf("waiting for %s: %v; the stream holds %q", last, err, rd.Data)
			}
		}
	}
	// fresh is a cursor at the pane's end now.
	fresh := func() SinceResult {
		t.Helper()
		r, err := s.CaptureSince(ctx, SinceArgs{Pane: PaneRef{PaneID: pane}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	var fill strings.Builder
	for i := range 200 {
		fmt.Fprintf(&fill, "fill-%d\n", i)
	}
	for try := 0; !write(fill.String(), "fill-199"); try++ {
		if try == 3 {
			t.Fatal("the stream lost output on every try")
		}
		r = fresh()
	}
	if r, err = s.CaptureSince(ctx, SinceArgs{Cursor: r.Cursor}); err != nil || !slices.Contains(r.Lines, "fill-199") || r.LinesMissed {
		t.Fatalf("200 lines past a history of 50: got %d lines, %v", len(r.Lines), err)
	}
	for round, tries := 0, 0; round < 12; round++ {
		a, b := fmt.Sprint("a-", round), fmt.Sprint("b-", round)
		if !write(a+"\n"+b+"\n", b) {
			if tries++; tries == 3 {
				t.Fatal("the stream lost output three times")
			}
			r, round = fresh(), round-1
			continue
		}
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
