package session

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// TestEndedClientSparesTheNewOnesStreams is the race of a client that ends
// while a new one has already connected: the old client's supervisor used
// to read the current source number, so it ended the new client's pane
// streams and their waiters failed with a spurious connection_lost. What
// the supervisor does for an ended client (link.ended) ends only that
// client's streams, and drops only that client.
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
	s.link.mu.Lock()
	current, src := s.link.conn, s.link.src
	s.link.mu.Unlock()
	if current == nil || src == 0 {
		t.Fatal("not connected")
	}

	// Another client of this Server, ended, whose supervisor runs only now
	// that the current one is connected, and a stream it was delivering.
	old, err := s.link.startClient(ctx, "", func(uint64, *clientRef, controlmode.Notification) {})
	if err != nil {
		t.Fatal(err)
	}
	s.link.closeClient(old.conn())
	<-old.conn().Done()
	fx.NewSession(t, "b", "cat")
	oldSt := s.streams.Get(paneOf(t, s, "b"))
	oldSt.Adopt(old.src)
	s.link.ended(old.conn(), old.src)

	lost, source := st.Read(0).ConnLost, st.Source()
	if lost || source != src {
		t.Errorf("the current client's stream: lost %v, source %d; want not lost, source %d", lost, source, src)
	}
	if !oldSt.Read(0).ConnLost {
		t.Error("the ended client's own stream was not marked lost")
	}
	s.link.mu.Lock()
	still := s.link.conn == current
	s.link.mu.Unlock()
	if !still {
		t.Error("forgetting an old client dropped the current one")
	}
	if _, err := s.Panes(ctx, PaneScope{}); err != nil {
		t.Errorf("a call after: %v", err)
	}
}

// TestResyncOutlivesACancelledCaller shares one resync between two callers
// and cancels the first while tmux holds it up: the second still gets the
// model, and the first answers its own cancellation, with nothing written.
// The resync used to run on the first caller's context, so the second
// failed with the first's cancellation.
func TestResyncOutlivesACancelledCaller(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	fx.NewSession(t, "a", "cat")
	if _, err := s.Sessions(ctx); err != nil {
		t.Fatal(err)
	}
	resume := stopServer(t, fx)
	s.model.markDirty() // after the stop: a background resync could clean it first

	ctxA, cancelA := context.WithCancel(ctx)
	defer cancelA()
	errA, errB := make(chan error, 1), make(chan error, 1)
	go func() { errA <- s.sync(ctxA) }()
	go func() { errB <- s.sync(ctx) }()
	// Both callers are in sync once two goroutines' stacks hold it; tmux,
	// stopped, cannot answer the resync meanwhile.
	waitFor(t, "both callers waiting on the resync", func() bool {
		buf := make([]byte, 1<<20)
		return strings.Count(string(buf[:runtime.Stack(buf, true)]), "session.(*Server).sync(") >= 2
	})
	cancelA()
	err := <-errA
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindCancelled || e.Written {
		t.Errorf("the cancelled caller: got %v, want cancelled with nothing written", err)
	}
	resume()
	if err := <-errB; err != nil {
		t.Errorf("the other caller: got %v, want the resync's success", err)
	}
	if need, _ := s.model.needsSync(); need {
		t.Error("the model is still dirty")
	}
}
