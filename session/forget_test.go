package session

import (
	"testing"
)

// TestEndedClientSparesTheNewOnesStreams is the race of a client that ends
// while a new one has already connected: the old client's watch used to read
// the current source number, so it ended the new client's pane streams and
// their waiters failed with a spurious connection_lost. forget ends only the
// streams of the client that ended.
func TestEndedClientSparesTheNewOnesStreams(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	fx.NewSession(t, "a", "cat")
	pane := paneOf(t, s, "a")
	st, release, err := s.watchPane(ctx, pane)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	s.mu.Lock()
	current, src := s.conn, s.mainSrc
	s.mu.Unlock()
	if current == nil || src == 0 {
		t.Fatal("not connected")
	}

	// A client of this Server that ended before the current one connected:
	// not the current conn, and a source number before the current one's.
	s.forget(nil, src-1)

	st.mu.Lock()
	lost, source := st.connLost, st.source
	st.mu.Unlock()
	if lost || source != src {
		t.Errorf("the current client's stream: lost %v, source %d; want not lost, source %d", lost, source, src)
	}
	s.mu.Lock()
	still := s.conn == current
	s.mu.Unlock()
	if !still {
		t.Error("forgetting an old client dropped the current one")
	}
	if _, err := s.Panes(ctx, PaneScope{}); err != nil {
		t.Errorf("a call after: %v", err)
	}
}
