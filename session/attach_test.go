package session

import (
	"fmt"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// TestAttachesWaitForOwnCommands attaches and closes control clients while
// another goroutine creates and kills sessions through the same Server.
// Without the attach gate tmux 3.3a dies at about the first attach: the
// %sessions-changed each new-session sends reaches the attaching client
// before tmux has made its control state.
func TestAttachesWaitForOwnCommands(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	base := fx.NewSession(t, "base", "cat")
	if _, err := s.Sessions(ctx); err != nil { // the main client attaches
		t.Fatal(err)
	}
	stop, churned := make(chan struct{}), make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				churned <- nil
				return
			default:
			}
			name := fmt.Sprint("churn", i)
			if _, err := s.change(ctx,
				controlmode.NewCommand("new-session", "-d", "-s", name, "cat"),
				controlmode.NewCommand("kill-session", "-t", "="+name)); err != nil {
				churned <- fmt.Errorf("churn %d: %w", i, err)
				return
			}
		}
	}()
	for i := range 40 {
		ref, err := s.startClient(ctx, base, func(uint64, *clientRef, controlmode.Notification) {})
		if err != nil {
			close(stop)
			t.Fatalf("attach %d: %v (tmux server died: %v)", i, err, fx.Died())
		}
		s.closeClient(ref.conn())
	}
	close(stop)
	if err := <-churned; err != nil {
		t.Fatalf("%v (tmux server died: %v)", err, fx.Died())
	}
	if fx.Died() {
		t.Fatal("the tmux server died")
	}
}
