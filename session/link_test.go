package session

import (
	"testing"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// TestKillsSpareTheControlClient destroys, one operation at a time, the
// session the control client sits in: by KillSession, by KillPane of its
// last pane, and by TeardownSession (what teardown on exit calls, with
// nothing around it). Each time the client must move elsewhere first and
// live on, with no reconnect: the operations keep the client alive
// themselves, whoever calls them.
func TestKillsSpareTheControlClient(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	fx.NewSession(t, "a", "cat")
	fx.NewSession(t, "b", "cat")
	fx.NewSession(t, "c", "cat")
	if _, err := s.Sessions(ctx); err != nil {
		t.Fatal(err)
	}
	before := s.ConnStats()
	spared := func(what, killed string) {
		t.Helper()
		waitFor(t, "the client to leave "+killed, func() bool {
			st := s.ConnStats()
			return st.Attached != "" && st.Attached != killed
		})
		if st := s.ConnStats(); !st.Connected || st.Dials != before.Dials || st.Pid != before.Pid {
			t.Fatalf("%s: got %+v, want the client of pid %d still connected after %d dials", what, st, before.Pid, before.Dials)
		}
		if _, err := s.Panes(ctx, PaneScope{}); err != nil {
			t.Fatalf("%s: a call after: %v", what, err)
		}
	}

	first := before.Attached
	if err := s.KillSession(ctx, first); err != nil {
		t.Fatal(err)
	}
	spared("KillSession", first)

	second := s.ConnStats().Attached
	panes, err := s.Panes(ctx, PaneScope{Session: second})
	if err != nil || len(panes) != 1 {
		t.Fatalf("panes of %s: got %v, %v; want one", second, panes, err)
	}
	if err := s.KillPane(ctx, panes[0].ID); err != nil {
		t.Fatal(err)
	}
	spared("KillPane", second)

	own, err := s.CreateSession(ctx, CreateSessionArgs{Name: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.exec(ctx, controlmode.NewCommand("switch-client", "-t", own.ID)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the client on the owned session", func() bool { return s.ConnStats().Attached == own.ID })
	if err := s.TeardownSession(ctx, own.ID, own.Generation); err != nil {
		t.Fatal(err)
	}
	spared("TeardownSession", own.ID)
}
