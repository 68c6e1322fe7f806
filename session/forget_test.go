package session

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
)

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
