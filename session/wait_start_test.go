package session

import (
	"fmt"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
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
			fx, s := newTestServer(t)
			ctx := testCtx(t)
			pane, tty := silentPane(t, fx, s, "a")
			other, otherTTY := silentPane(t, fx, s, "b")
			if (s.ConnStats().Attached == paneSession(t, s, pane)) != (where == "attached session") {
				pane, tty = other, otherTTY
			}
			attached := s.ConnStats().Attached == paneSession(t, s, pane)
			if attached != (where == "attached session") {
				t.Fatalf("pane %s in the main client's session: %v", pane, attached)
			}
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
			least := controlmode.Stats{Calls: 1 << 62}
			for range 3 {
				before := s.ConnStats().Stats
				wait()
				after := s.ConnStats().Stats
				if c := after.Calls - before.Calls; c < least.Calls {
					least = controlmode.Stats{Calls: c, Commands: after.Commands - before.Commands}
				}
			}
			if least.Calls != 1 || least.Commands != 2 {
				t.Fatalf("a wait started with %d lines of %d commands, want 1 line of 2", least.Calls, least.Commands)
			}
		})
	}
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
