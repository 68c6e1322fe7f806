package session

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/session/internal/engine"
	"github.com/tmux-mcp/tmux-mcp/session/internal/release"
)

// exitPane opens a window running command (a shell line) and returns its
// pane id.
func exitPane(t *testing.T, fx *fixtures.Server, session, command string) string {
	t.Helper()
	return fx.Tmux(t, "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", session+":", command)
}

// waitAsync runs WaitPaneExit in the background, and returns once its hook
// is in place.
func waitAsync(t *testing.T, fx *fixtures.Server, s *Server, ctx context.Context, pane string, timeout time.Duration) <-chan PaneExit {
	t.Helper()
	ch := make(chan PaneExit, 1)
	go func() {
		e, err := s.WaitPaneExit(ctx, pane, timeout)
		if err != nil {
			t.Errorf("WaitPaneExit: %v", err)
		}
		ch <- e
	}()
	fixtures.WaitFor(t, 10*time.Second, "the wait's hook", func() bool {
		out, _ := fx.TryTmux("show-hooks", "-p", "-t", pane)
		return strings.Contains(out, "tmux-mcp-exit-")
	})
	return ch
}

// paneSettings returns the pane's own remain-on-exit and its hooks.
func paneSettings(t *testing.T, fx *fixtures.Server, pane string) (remain, hooks string) {
	t.Helper()
	remain, _ = fx.TryTmux("show-options", "-p", "-q", "-v", "-t", pane, "remain-on-exit")
	hooks, _ = fx.TryTmux("show-hooks", "-p", "-t", pane)
	return remain, hooks
}

// TestWaitPaneExit: the exit status of a pane's program, or the signal
// that killed it, is answered when it dies, through remain-on-exit held
// for the wait; the pane's own setting comes back, and a dead pane is
// closed only when that setting would not have kept it.
func TestWaitPaneExit(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	id := fx.NewSession(t, "exits")
	if !fx.AtLeast(t, 3, 3) {
		pane := exitPane(t, fx, id, "exec sleep 600")
		_, err := s.WaitPaneExit(ctx, pane, time.Minute)
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindRefused || !strings.Contains(e.Msg, "crash") {
			t.Fatalf("tmux 3.2: %v; want refused, as holding remain-on-exit can crash it", err)
		}
		if remain, hooks := paneSettings(t, fx, pane); remain != "" || hooks != "" {
			t.Fatalf("refused, yet remain-on-exit is %q and hooks %q", remain, hooks)
		}
		return
	}

	t.Run("status", func(t *testing.T) {
		pane := exitPane(t, fx, id, "read x; exit 3")
		ch := waitAsync(t, fx, s, ctx, pane, time.Minute)
		fx.Tmux(t, "send-keys", "-t", pane, "go", "Enter")
		e := <-ch
		if !e.Exited || !hasStatus(t, fx, e, 3) || e.Signaled || !e.Removed || e.TimedOut || e.Closed {
			t.Fatalf("exit 3: %+v", e)
		}
		if _, err := fx.TryTmux("display-message", "-p", "-t", pane, "#{pane_id}"); err == nil {
			if out := fx.Tmux(t, "list-panes", "-a", "-F", "#{pane_id}"); strings.Contains(out, pane) {
				t.Fatalf("the dead pane %s was kept; panes: %s", pane, out)
			}
		}
	})

	t.Run("signal", func(t *testing.T) {
		pane := exitPane(t, fx, id, "exec sleep 600")
		ch := waitAsync(t, fx, s, ctx, pane, time.Minute)
		pid, err := strconv.Atoi(fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_pid}"))
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		e := <-ch
		if !e.Exited || e.HasStatus || !e.Removed {
			t.Fatalf("kill -TERM: %+v", e)
		}
		if !e.Signaled && lostStatus(t, fx, e) {
			return
		}
		if e.Signal != "TERM" && e.Signal != "15" { // a number where libc has no signal names
			t.Fatalf("signal %q, want TERM", e.Signal)
		}
	})

	t.Run("kept by the pane's own setting", func(t *testing.T) {
		pane := exitPane(t, fx, id, "read x; exit 0")
		fx.Tmux(t, "set-option", "-p", "-t", pane, "remain-on-exit", "on")
		ch := waitAsync(t, fx, s, ctx, pane, time.Minute)
		fx.Tmux(t, "send-keys", "-t", pane, "go", "Enter")
		e := <-ch
		if !e.Exited || !hasStatus(t, fx, e, 0) || e.Removed {
			t.Fatalf("exit 0 under the pane's own remain-on-exit: %+v", e)
		}
		if dead := fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_dead}"); dead != "1" {
			t.Fatalf("pane_dead %q: the pane's own setting kept it, it must stay", dead)
		}
		if remain, hooks := paneSettings(t, fx, pane); remain != "on" || strings.Contains(hooks, "tmux-mcp") {
			t.Fatalf("after the wait: remain-on-exit %q, hooks %q", remain, hooks)
		}
		// Dead already: answered at once, left as it is.
		e, err := s.WaitPaneExit(ctx, pane, time.Minute)
		if err != nil || !e.Exited || !hasStatus(t, fx, e, 0) || e.Removed {
			t.Fatalf("a pane already dead: %+v, %v", e, err)
		}
	})

	t.Run("timeout restores", func(t *testing.T) {
		for _, own := range []string{"", "failed", "off"} {
			pane := exitPane(t, fx, id, "exec sleep 600")
			if own != "" {
				fx.Tmux(t, "set-option", "-p", "-t", pane, "remain-on-exit", own)
			}
			e, err := s.WaitPaneExit(ctx, pane, 200*time.Millisecond)
			if err != nil || !e.TimedOut || e.Exited {
				t.Fatalf("own %q: %+v, %v; want timed out", own, e, err)
			}
			if remain, hooks := paneSettings(t, fx, pane); remain != own || strings.Contains(hooks, "tmux-mcp") {
				t.Fatalf("own %q: after the wait remain-on-exit is %q, hooks %q", own, remain, hooks)
			}
		}
	})

	t.Run("cancelled restores", func(t *testing.T) {
		pane := exitPane(t, fx, id, "exec sleep 600")
		cctx, cancel := context.WithCancel(ctx)
		ch := waitAsync(t, fx, s, cctx, pane, time.Minute)
		cancel()
		e := <-ch
		if e.Exited || e.Removed {
			t.Fatalf("cancelled: %+v", e)
		}
		if remain, hooks := paneSettings(t, fx, pane); remain != "" || strings.Contains(hooks, "tmux-mcp") {
			t.Fatalf("after a cancelled wait: remain-on-exit %q, hooks %q", remain, hooks)
		}
	})

	t.Run("killed pane", func(t *testing.T) {
		pane := exitPane(t, fx, id, "exec sleep 600")
		ch := waitAsync(t, fx, s, ctx, pane, time.Minute)
		fx.Tmux(t, "kill-pane", "-t", pane)
		if e := <-ch; !e.Closed || e.Exited {
			t.Fatalf("kill-pane: %+v", e)
		}
	})

	t.Run("missing pane", func(t *testing.T) {
		if _, err := s.WaitPaneExit(ctx, "%9999", time.Second); !IsNotFound(err) {
			t.Fatalf("a missing pane: %v; want not found", err)
		}
	})
}

// hasStatus reports whether e carries exit status n, or, on tmux 3.3,
// which now and then never learns a dead pane's status, none.
func hasStatus(t *testing.T, fx *fixtures.Server, e PaneExit, n int) bool {
	t.Helper()
	return e.HasStatus && e.Status == n || lostStatus(t, fx, e)
}

// lostStatus reports whether e is a death whose status tmux 3.3 lost.
func lostStatus(t *testing.T, fx *fixtures.Server, e PaneExit) bool {
	t.Helper()
	if !e.HasStatus && !e.Signaled && fx.AtLeast(t, 3, 3) && !fx.AtLeast(t, 3, 4) {
		if !strings.Contains(e.Unreported, "did not report it") {
			t.Errorf("tmux 3.3 lost the status of %s, and the answer does not say so: %+v", e.PaneID, e)
		}
		t.Logf("tmux 3.3 lost the status of %s: %s", e.PaneID, e.Unreported)
		return true
	}
	if e.Unreported != "" {
		t.Errorf("%s: Unreported %q, want none", e.PaneID, e.Unreported)
	}
	return false
}

// TestUnreported: an exit with neither status nor signal says why. On 3.3a,
// which now and then never reaps a held pane's program (TestWaitPaneExit
// meets it), the release did not report it; on another release, tmux said
// dead and nothing more. An exit with either, or no exit, says nothing.
func TestUnreported(t *testing.T) {
	lost := PaneExit{Exited: true}
	if got := engine.Unreported(release.Of("3.3a"), lost); !strings.Contains(got, "tmux 3.3a did not report it") {
		t.Errorf("3.3a: %q", got)
	}
	if got := engine.Unreported(release.Of("3.5a"), lost); !strings.Contains(got, "tmux 3.5a reported the pane dead with neither") {
		t.Errorf("3.5a: %q", got)
	}
	for _, e := range []PaneExit{{Exited: true, HasStatus: true}, {Exited: true, Signaled: true}, {TimedOut: true}, {Closed: true}} {
		if got := engine.Unreported(release.Of("3.3a"), e); got != "" {
			t.Errorf("%+v: %q, want nothing", e, got)
		}
	}
}
