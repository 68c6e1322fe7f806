package session

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/session/internal/crashgate"
)

// TestAttachesWaitForOwnCommands attaches and closes control clients while
// another goroutine creates and kills sessions through the same Server.
// Without the gate tmux 3.3a dies at about the first attach: the
// %sessions-changed each new-session sends reaches the attaching client
// before tmux has made its control state.
func TestAttachesWaitForOwnCommands(t *testing.T) {
	fx, s := newTestServer(t)
	base := fx.NewSession(t, "base", "cat")
	attachDuringChurn(t, fx, base, s, s, func(i int) []controlmode.Command {
		name := fmt.Sprint("churn", i)
		return []controlmode.Command{
			controlmode.NewCommand("new-session", "-d", "-s", name, "cat"),
			controlmode.NewCommand("kill-session", "-t", "="+name),
		}
	})
}

// TestAttachesWaitForOtherProcesses is TestAttachesWaitForOwnCommands with
// the churn and the attaches in two Managers, which share no memory: as
// two tmux-mcp processes on one tmux server would be. The churn renames a
// session, which tmux tells every control client.
func TestAttachesWaitForOtherProcesses(t *testing.T) {
	fx, churner := newTestServer(t)
	base := fx.NewSession(t, "base", "cat")
	m := NewManager(&Options{Tmux: fx.Bin, ConfigFile: "/dev/null", SocketDir: testSocketDir(), Logger: testLogger(t)})
	t.Cleanup(func() { m.Close() })
	attacher := m.Server(Socket{Name: fx.Socket})
	attachDuringChurn(t, fx, base, churner, attacher, func(int) []controlmode.Command {
		return []controlmode.Command{
			controlmode.NewCommand("rename-session", "-t", "=base", "churn"),
			controlmode.NewCommand("rename-session", "-t", "=churn", "base"),
		}
	})
}

// attachDuringChurn has churner run the lines churn makes, one after
// another, while attacher attaches 40 control clients to session base and
// closes them; it fails the test if anything fails or tmux dies.
func attachDuringChurn(t *testing.T, fx *fixtures.Server, base string, churner, attacher *Server, churn func(i int) []controlmode.Command) {
	t.Helper()
	ctx := testCtx(t)
	for _, s := range []*Server{churner, attacher} {
		if _, err := s.Sessions(ctx); err != nil { // the main clients attach
			t.Fatal(err)
		}
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
			if _, err := churner.execChange(ctx, churn(i)...); err != nil {
				churned <- fmt.Errorf("churn %d: %w", i, err)
				return
			}
		}
	}()
	for i := range 40 {
		ref, err := attacher.link.startClient(ctx, base, func(uint64, *clientRef, controlmode.Notification) {})
		if err != nil {
			close(stop)
			t.Fatalf("attach %d: %v (tmux server died: %v)", i, err, fx.Died())
		}
		attacher.link.closeClient(ref.conn())
	}
	close(stop)
	if err := <-churned; err != nil {
		t.Fatalf("%v (tmux server died: %v)", err, fx.Died())
	}
	if fx.Died() {
		t.Fatal("the tmux server died")
	}
}

// TestGateGivesUpOnAStuckHolder holds the gate alone from outside, as a
// process stuck in an attach would, and checks that a command still runs
// once the gate's wait has passed, instead of hanging.
func TestGateGivesUpOnAStuckHolder(t *testing.T) {
	const gateWait = 50 * time.Millisecond
	fx := fixtures.NewServer(t)
	m := NewManager(&Options{Tmux: fx.Bin, ConfigFile: "/dev/null", SocketDir: testSocketDir(), Logger: testLogger(t), gateWait: gateWait})
	t.Cleanup(func() { m.Close() })
	s := m.Server(Socket{Name: fx.Socket})
	ctx := testCtx(t)
	fx.NewSession(t, "a", "cat")
	if _, err := s.Sessions(ctx); err != nil {
		t.Fatal(err)
	}
	stuck := crashgate.New(filepath.Dir(s.SocketFile()), nil)
	defer stuck.Close()
	stuck.Lock()
	defer stuck.Unlock()

	start := time.Now()
	if _, err := s.exec(ctx, controlmode.NewCommand("set-option", "-g", "@gate", "1")); err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(start); waited < 2*gateWait {
		t.Errorf("the command ran after %v, while the turnstile and the directory were locked: the gate does not look at both", waited)
	}
}

// TestReadsPassAnAttach holds the gate as an attach does: a read goes
// through at once, a command that changes tmux waits until the attach is
// over.
func TestReadsPassAnAttach(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	fx.NewSession(t, "a", "cat")
	if _, err := s.Sessions(ctx); err != nil {
		t.Fatal(err)
	}
	s.gate.Lock()
	locked := true
	defer func() {
		if locked {
			s.gate.Unlock()
		}
	}()
	read := make(chan error, 1)
	go func() {
		_, err := s.exec(ctx, controlmode.NewCommand("display-message", "-p", "x"))
		read <- err
	}()
	select {
	case err := <-read:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second): // only catches a hang
		t.Fatal("a read waited for the attach")
	}
	wrote := make(chan error, 1)
	go func() {
		_, err := s.exec(ctx, controlmode.NewCommand("rename-session", "-t", "=a", "b"))
		wrote <- err
	}()
	select {
	case err := <-wrote:
		t.Fatalf("rename-session ran during an attach (err %v)", err)
	case <-time.After(200 * time.Millisecond): // an observation window, not a synchronisation
	}
	s.gate.Unlock()
	locked = false
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	if got := fx.Tmux(t, "display-message", "-p", "-t", "=b:", "#{session_name}"); got != "b" {
		t.Fatalf("session name %q after the attach, want b", got)
	}
}

// TestKillWaitsForOwnWrites kills sessions while another goroutine
// switches their current window at the same moment. tmux 3.3a crashes
// when a kill-session runs in the same turn of its loop as a select-window
// on that session: the deferred %session-window-changed then reads the
// destroyed session's window (tmux issue 5243). A kill must run alone.
func TestKillWaitsForOwnWrites(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	fx.NewSession(t, "base", "cat")
	if _, err := s.Sessions(ctx); err != nil {
		t.Fatal(err)
	}
	for round := range 150 {
		name := fmt.Sprint("k", round)
		fx.NewSession(t, name, "cat")
		fx.Tmux(t, "new-window", "-d", "-t", "="+name+":", "cat")
		start := make(chan struct{})
		var selects sync.WaitGroup
		for w := range 3 {
			selects.Go(func() {
				<-start
				// May fail if the kill came first; the point is the race.
				_, _ = s.exec(ctx, controlmode.NewCommand("select-window", "-t", fmt.Sprintf("=%s:%d", name, w%2)))
			})
		}
		close(start)
		_, err := s.execChange(ctx, controlmode.NewCommand("kill-session", "-t", "="+name))
		selects.Wait()
		if err != nil || fx.Died() {
			t.Fatalf("round %d: kill-session: %v (tmux server died: %v)", round, err, fx.Died())
		}
	}
}
