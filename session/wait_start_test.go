package session

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// TestWaitStartRoundTrips counts what a wait for text costs to start on a
// pane whose session a client of ours delivers already (the main client's
// session, or one a watcher is attached to since an earlier wait): one
// line of commands on the main client, which reads the pane's session
// with its screen. The wait matches at its start, so the line is all it
// sends. The least of three waits is taken, as a resync of the model may
// share the client.
func TestWaitStartRoundTrips(t *testing.T) {
	for _, where := range []string{"attached session", "watched session"} {
		t.Run(where, func(t *testing.T) {
			s, pane, tty := silentPaneIn(t, where)
			ctx := testCtx(t)
			if _, err := fmt.Fprint(tty, "ready\r\n"); err != nil {
				t.Fatal(err)
			}
			wait := func() {
				t.Helper()
				r, err := s.WaitForText(ctx, WaitArgs{Pane: PaneRef{PaneID: pane}, Patterns: []string{"ready"}, Since: SinceScreen, Timeout: 20 * time.Second})
				if err != nil || r.Outcome != OutcomeMatched {
					t.Fatalf("got %+v, %v", r, err)
				}
			}
			wait() // the model knows the pane, a watcher is attached
			if _, err := s.exec(ctx, controlmode.NewCommand("display-message", "-p", "x")); err != nil {
				t.Fatal(err)
			}
			least := leastOfThree(s, wait)
			if least.Calls != 1 || least.Commands != 2 {
				t.Fatalf("a wait started with %d lines of %d commands, want 1 line of 2", least.Calls, least.Commands)
			}
		})
	}
}

// TestQuietWaitStartRoundTrips counts what a wait for quiet
// (wait_for_content_change) costs to start on a pane whose session a
// client of ours delivers already: one line, which reads the pane's
// session before the stream is followed, and nothing while it waits.
func TestQuietWaitStartRoundTrips(t *testing.T) {
	for _, where := range []string{"attached session", "watched session"} {
		t.Run(where, func(t *testing.T) {
			s, pane, tty := silentPaneIn(t, where)
			ctx := testCtx(t)
			if _, err := fmt.Fprint(tty, "ready\r\n"); err != nil {
				t.Fatal(err)
			}
			wait := func() {
				t.Helper()
				r, err := s.WaitQuiet(ctx, QuietArgs{Pane: PaneRef{PaneID: pane}, Quiet: 20 * time.Millisecond, Timeout: 20 * time.Second})
				if err != nil || !r.Quiet {
					t.Fatalf("got %+v, %v", r, err)
				}
			}
			wait() // the model knows the pane, a watcher is attached
			least := leastOfThree(s, wait)
			if least.Calls != 1 || least.Commands != 1 {
				t.Fatalf("a quiet wait cost %d lines of %d commands, want 1 line of 1", least.Calls, least.Commands)
			}
		})
	}
}

// leastOfThree runs wait three times and returns the fewest lines (and
// their commands) one run sent on the main client: a resync of the model
// may share the client during a run.
func leastOfThree(s *Server, wait func()) controlmode.Stats {
	least := controlmode.Stats{Calls: 1 << 62}
	for range 3 {
		before := s.ConnStats().Stats
		wait()
		after := s.ConnStats().Stats
		if c := after.Calls - before.Calls; c < least.Calls {
			least = controlmode.Stats{Calls: c, Commands: after.Commands - before.Commands}
		}
	}
	return least
}

// silentPaneIn makes two sessions running cat and returns the pane of
// the one that is where says: in the main client's session ("attached
// session") or not ("watched session"), and its terminal.
func silentPaneIn(t *testing.T, where string) (*Server, string, *os.File) {
	t.Helper()
	fx, s := newTestServer(t)
	pane, tty := silentPane(t, fx, s, "a")
	other, otherTTY := silentPane(t, fx, s, "b")
	if (s.ConnStats().Attached == paneSession(t, s, pane)) != (where == "attached session") {
		pane, tty = other, otherTTY
	}
	if attached := s.ConnStats().Attached == paneSession(t, s, pane); attached != (where == "attached session") {
		t.Fatalf("pane %s in the main client's session: %v", pane, attached)
	}
	return s, pane, tty
}

// TestWaitForTextWhilePaneMoves moves a pane out of the main client's
// session while a wait follows it, then has it print what the wait waits
// for: the wait follows the pane where it went, once the model has seen
// the move, and matches.
func TestWaitForTextWhilePaneMoves(t *testing.T) {
	fx, s, pane, _, there := paneToMove(t)
	ctx := testCtx(t)
	thereID := strings.TrimSpace(fx.Tmux(t, "display-message", "-p", "-t", there, "#{session_id}"))
	st := s.streams.Get(pane)
	following := st.Following()
	type answer struct {
		r   WaitResult
		err error
	}
	answers := make(chan answer, 1)
	go func() {
		r, err := s.WaitForText(ctx, WaitArgs{Pane: PaneRef{PaneID: pane}, Patterns: []string{"MOVED-W"}, Timeout: 30 * time.Second})
		answers <- answer{r, err}
	}()
	<-following
	fx.Tmux(t, "move-window", "-s", pane, "-t", there+":9")
	waitFor(t, "the wait to follow the pane where it went", func() bool {
		at, ok := s.link.sessionOfSource(st.Source())
		return ok && at == thereID
	})
	if err := <-typeLine(fx, pane, "printf 'MO%sED-W\\n' V", 0); err != nil {
		t.Fatal(err)
	}
	a := <-answers
	if a.err != nil || a.r.Outcome != OutcomeMatched {
		t.Fatalf("got %+v, %v; want MOVED-W matched", a.r, a.err)
	}
}

// paneToMove makes two sessions and a pane, at its prompt, in window 9 of
// the one the main client is attached to (here); there is the other.
func paneToMove(t *testing.T) (fx *fixtures.Server, s *Server, pane, here, there string) {
	t.Helper()
	fx, s = newTestServer(t)
	ctx := testCtx(t)
	fx.NewSession(t, "a")
	fx.NewSession(t, "b")
	if _, err := s.Sessions(ctx); err != nil {
		t.Fatal(err)
	}
	here, there = "a", "b"
	if sess, _ := s.Session(ctx, "b"); s.ConnStats().Attached == sess.ID {
		here, there = "b", "a"
	}
	fx.Tmux(t, "new-window", "-d", "-t", here+":9")
	pane = strings.TrimSpace(fx.Tmux(t, "display-message", "-p", "-t", here+":9", "#{pane_id}"))
	waitPrompt(t, s, pane)
	return fx, s, pane, here, there
}

// paneSession returns the id of the session the model puts pane in.
func paneSession(t *testing.T, s *Server, pane string) string {
	t.Helper()
	p, err := s.Pane(testCtx(t), pane)
	if err != nil {
		t.Fatal(err)
	}
	return p.SessionID
}

// TestWaitForTextPaneMoved moves a pane between the main client's session
// and another, and back, and waits for a line it prints after each move:
// the wait follows the pane where tmux has it now, whether the model has
// seen the move yet (caught up) or not (at once).
func TestWaitForTextPaneMoved(t *testing.T) {
	for _, when := range []string{"at once", "caught up"} {
		t.Run(when, func(t *testing.T) {
			fx, s, pane, here, there := paneToMove(t)
			ctx := testCtx(t)
			for i, to := range []string{there, here, there, here} {
				fx.Tmux(t, "move-window", "-s", pane, "-t", to+":9")
				if when == "caught up" {
					id := strings.TrimSpace(fx.Tmux(t, "display-message", "-p", "-t", to, "#{session_id}"))
					waitFor(t, "the model to see the move", func() bool {
						_, _ = s.Panes(ctx, PaneScope{})
						p, ok := s.model.paneByID(pane)
						return ok && p.SessionID == id
					})
				}
				sent := typeLine(fx, pane, fmt.Sprintf("printf 'MO%%sED-%d\\n' V", i), 0)
				r, err := s.WaitForText(ctx, WaitArgs{Pane: PaneRef{PaneID: pane}, Patterns: []string{fmt.Sprintf("MOVED-%d", i)}, Timeout: 20 * time.Second})
				if err := <-sent; err != nil {
					t.Fatal(err)
				}
				if err != nil || r.Outcome != OutcomeMatched {
					t.Fatalf("after move %d, to session %s: got %+v, %v", i, to, r, err)
				}
			}
		})
	}
}
