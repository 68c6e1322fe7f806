package session

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// TestCaptureSinceRoundTrips counts the lines of commands a capture_since
// with a cursor sends on the main client, for a pane in its session and
// for one in a session a watcher follows: one, the look that reads the
// rows also checking where tmux has the pane, and reading them where the
// output since the cursor scrolled them to. What it returns is the line
// printed since the cursor. The guess of where the rows went takes the
// pane's size from the cursor, as tmux printed it, not from the model,
// which may be behind tmux: a model that has the pane's size wrong (a
// pane resized in a session no client of ours was attached to, before a
// resync) costs no second read.
func TestCaptureSinceRoundTrips(t *testing.T) {
	for _, where := range []string{"attached session", "watched session", "model behind on the size"} {
		t.Run(where, func(t *testing.T) {
			s, pane, tty := silentPaneIn(t, strings.Replace(where, "model behind on the size", "watched session", 1))
			ctx := testCtx(t)
			// A full screen first: each line after scrolls it, so the rows
			// the cursor marked have moved up when they are read.
			if _, err := fmt.Fprint(tty, strings.Repeat("fill\r\n", 60)+"full\r\n"); err != nil {
				t.Fatal(err)
			}
			if r, err := s.WaitForText(ctx, WaitArgs{Pane: PaneRef{PaneID: pane}, Patterns: []string{"full"}, Since: SinceScreen, Timeout: 20 * time.Second}); err != nil || r.Outcome != OutcomeMatched {
				t.Fatalf("got %+v, %v", r, err)
			}
			res, err := s.CaptureSince(ctx, SinceArgs{Pane: PaneRef{PaneID: pane}})
			if err != nil {
				t.Fatal(err)
			}
			// Until the model knows the pane in its session (a resync after
			// the watcher attached), the call asks tmux where it is first.
			session := paneSession(t, s, pane)
			waitFor(t, "the model to have the pane in its session", func() bool {
				p, ok := s.model.paneByID(pane)
				return ok && p.SessionID == session
			})
			cursor := res.Cursor
			least := controlmode.Stats{Calls: 1 << 62}
			for i := range 3 {
				line := fmt.Sprintf("line-%d", i)
				if _, err := fmt.Fprint(tty, line+"\r\n"); err != nil {
					t.Fatal(err)
				}
				if r, err := s.WaitForText(ctx, WaitArgs{Pane: PaneRef{PaneID: pane}, Patterns: []string{line}, Since: SinceScreen, Timeout: 20 * time.Second}); err != nil || r.Outcome != OutcomeMatched {
					t.Fatalf("got %+v, %v", r, err)
				}
				if where == "model behind on the size" {
					misSize(s, pane)
				}
				before := s.ConnStats().Stats
				res, err := s.CaptureSince(ctx, SinceArgs{Pane: PaneRef{PaneID: pane}, Cursor: cursor})
				after := s.ConnStats().Stats
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(res.Lines, []string{line}) {
					t.Fatalf("capture_since after %q returned %q", line, res.Lines)
				}
				cursor = res.Cursor
				least.Calls = min(least.Calls, after.Calls-before.Calls)
			}
			if least.Calls != 1 {
				t.Fatalf("a capture_since with a cursor sent %d lines, want 1", least.Calls)
			}
		})
	}
}

// misSize makes the model have pane's size wrong, as it has after tmux
// resized the pane where no client of ours saw it, until a resync.
func misSize(s *Server, pane string) {
	s.model.mu.Lock()
	defer s.model.mu.Unlock()
	for i := range s.model.panes {
		if s.model.panes[i].ID == pane {
			s.model.panes[i].Height += 7
		}
	}
}

// TestCaptureSincePaneMoved moves a pane out of the main client's session
// before the model has seen it, calls capture_since there, and reads
// forward (oldest first) what the pane printed after: the first call
// finds the pane where tmux has it and follows it there, so that the
// output between the calls is in its stream.
func TestCaptureSincePaneMoved(t *testing.T) {
	fx, s, pane, _, there := paneToMove(t)
	ctx := testCtx(t)
	fx.Tmux(t, "move-window", "-s", pane, "-t", there+":9")
	res, err := s.CaptureSince(ctx, SinceArgs{Pane: PaneRef{PaneID: pane}})
	if err != nil {
		t.Fatal(err)
	}
	// The line is typed by tmux itself, not by this process: only the
	// pane's stream, fed by a client attached to its session, holds it.
	if err := <-typeLine(fx, pane, "printf 'MO%sED\\n' V", 0); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the pane to print MOVED", func() bool {
		return strings.Contains(fx.Tmux(t, "capture-pane", "-p", "-t", pane), "\nMOVED")
	})
	res, err = s.CaptureSince(ctx, SinceArgs{Pane: PaneRef{PaneID: pane}, Cursor: res.Cursor, Oldest: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Lines, "MOVED") || res.LinesMissed {
		t.Fatalf("capture_since after the move read %q (missed %v), want MOVED among them, none missed", res.Lines, res.LinesMissed)
	}
}
