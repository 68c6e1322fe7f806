package session

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// stopServer stops the tmux server of fx (this test's own) with SIGSTOP
// and returns what continues it, which cleanup also calls.
func stopServer(t *testing.T, fx *fixtures.Server) (resume func()) {
	t.Helper()
	pid := fx.PID(t)
	resumed := false
	resume = func() {
		if !resumed {
			resumed = true
			_ = syscall.Kill(pid, syscall.SIGCONT) // Best effort: it may be gone.
		}
	}
	t.Cleanup(resume) // before the fixture's kill-server, which needs it running
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatalf("SIGSTOP %d: %v", pid, err)
	}
	// The signal is delivered asynchronously: wait until the kernel says
	// the process is stopped.
	deadline := time.Now().Add(10 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			t.Skipf("cannot read the server's state: %v", err)
		}
		if _, rest, ok := strings.Cut(string(stat), ") "); ok && strings.HasPrefix(rest, "T") {
			return resume
		}
		if time.Now().After(deadline) {
			t.Fatal("the tmux server did not stop")
		}
		time.Sleep(time.Millisecond) // no event says a signal arrived
	}
}

type opResult struct {
	err   error
	took  time.Duration
	ended time.Time
}

func timed(f func() error) <-chan opResult {
	ch := make(chan opResult, 1)
	go func() {
		start := time.Now()
		err := f()
		ch <- opResult{err, time.Since(start), time.Now()}
	}()
	return ch
}

// TestStuckServerFailsCallsAndHeals stops the test's own tmux server: the
// calls in flight must answer within the liveness deadline with
// connection_lost, a read as retryable, a change with effects possible; a
// call with its own deadline answers by it; once the server runs again, so
// do calls, on a new client.
func TestStuckServerFailsCallsAndHeals(t *testing.T) {
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "main")
	const deadline = time.Second
	m := NewManager(&Options{Tmux: fx.Bin, ConfigFile: "/dev/null", SocketDir: testSocketDir(), ReplyDeadline: deadline, Logger: testLogger(t)})
	t.Cleanup(func() { m.Close() })
	s := m.Server(Socket{Name: fx.Socket})
	ctx := testCtx(t)
	pane, _, err := s.Capture(ctx, PaneRef{SessionName: "main"}, CaptureArgs{})
	if err != nil {
		t.Fatalf("Capture before the stop: %v", err)
	}
	ref := PaneRef{PaneID: pane}
	before := s.ConnStats()

	resume := stopServer(t, fx)
	// Now, not before the stop: a background resync could clean it first.
	s.model.markDirty() // so that a listing resyncs through tmux
	first := time.Now()
	read := timed(func() error { _, _, err := s.Capture(ctx, ref, CaptureArgs{}); return err })
	list := timed(func() error { _, err := s.Sessions(ctx); return err })
	change := timed(func() error {
		_, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: "true", Literal: true, DriveMode: true})
		return err
	})
	// Keys not meant for a mode: before 3.4 a look at the pane's mode comes
	// first, and fails before anything is sent.
	guarded := timed(func() error {
		_, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: "true", Literal: true})
		return err
	})
	// Generous: catches a hang, not a slow machine.
	const slack = 5 * time.Second
	for name, ch := range map[string]<-chan opResult{"read": read, "list": list, "change": change, "guarded change": guarded} {
		var r opResult
		select {
		case r = <-ch:
		case <-time.After(deadline + slack):
			t.Fatalf("%s: no answer %v after the server stopped (deadline %v)", name, deadline+slack, deadline)
		}
		var e *Error
		if !errors.As(r.err, &e) || e.Kind != KindConnLost {
			t.Fatalf("%s: got %v, want connection_lost", name, r.err)
		}
		wantRetry := name == "read" || name == "list" || name == "guarded change" && !s.release().ExpandsRepeatCount()
		if e.Retryable() != wantRetry || e.Written == wantRetry {
			t.Errorf("%s: retryable %v, effects %s; want retryable %v", name, e.Retryable(), e.Effects(), wantRetry)
		}
		// The client is found stuck once its oldest reply is late: every
		// call in flight fails then, a later one less than the deadline
		// after its own start (999.86 ms was seen under load).
		if since := r.ended.Sub(first); since < deadline {
			t.Errorf("%s: failed %v after the first call began, before the deadline %v", name, since, deadline)
		}
		t.Logf("%s: %v after %v", name, e, r.took.Round(time.Millisecond))
	}

	// A call with a deadline of its own answers by it, whatever the
	// reconnect to the stopped server is doing.
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	r := <-timed(func() error { _, _, err := s.Capture(short, ref, CaptureArgs{}); return err })
	cancel()
	if r.err == nil || r.took > 2*time.Second+slack {
		t.Errorf("a call with a 2 s deadline while the server is stopped: got %v after %v", r.err, r.took)
	}

	resume()
	heal := time.Now().Add(30 * time.Second)
	for {
		_, _, err := s.Capture(ctx, ref, CaptureArgs{})
		if err == nil {
			break
		}
		if !Retryable(err) && !strings.Contains(err.Error(), "deadline") || time.Now().After(heal) {
			t.Fatalf("after SIGCONT: %v", err)
		}
		time.Sleep(20 * time.Millisecond) // an agent's retry, not a synchronisation
	}
	if after := s.ConnStats(); after.Dials <= before.Dials || after.Pid == before.Pid {
		t.Errorf("after the stall: dials %d, client pid %d; want a new client (were %d, %d)", after.Dials, after.Pid, before.Dials, before.Pid)
	}
}
