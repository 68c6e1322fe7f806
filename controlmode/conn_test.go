package controlmode_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// attach starts a private tmux server with one session and a control client
// attached to it. Both are gone when the test ends.
func attach(t testing.TB, opts *controlmode.Options) (*fixtures.Server, *controlmode.Conn) {
	t.Helper()
	srv := fixtures.NewServer(t)
	id := srv.NewSession(t, "main")
	var o controlmode.Options
	if opts != nil {
		o = *opts
	}
	o.Tmux, o.Socket, o.Command = srv.Bin, srv.Socket, []string{"attach-session", "-t", id}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := controlmode.Start(ctx, &o)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return srv, c
}

func cmd(name string, args ...string) controlmode.Command {
	return controlmode.NewCommand(name, args...)
}

func display(text string) controlmode.Command {
	return cmd("display-message", "-p").Text(strings.ReplaceAll(text, "#", "##"))
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestExec(t *testing.T) {
	_, c := attach(t, nil)
	ctx := testCtx(t)
	rs, err := c.Exec(ctx, display("hello"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || strings.Join(rs[0].Lines, "\n") != "hello" {
		t.Fatalf("got %q, want one reply \"hello\"", rs)
	}
	rs, err = c.Exec(ctx, cmd("list-sessions", "-F", "#{session_name}"), display("two"), cmd("set-option", "-g", "@x", "1"))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"main"}, {"two"}, nil}
	for i, r := range rs {
		if fmt.Sprint(r.Lines) != fmt.Sprint(want[i]) || r.Err != nil {
			t.Errorf("reply %d: got %q (err %v), want %q", i, r.Lines, r.Err, want[i])
		}
	}
}

func TestPipesTransport(t *testing.T) {
	srv, c := attach(t, &controlmode.Options{Pipes: true})
	ctx := testCtx(t)
	long := strings.Repeat("x", 200_000)
	rs, err := c.Exec(ctx, display("a"), cmd("set-buffer", "-b", "p").Text(long), cmd("show-buffer", "-b", "p"))
	if err != nil || rs[0].Lines[0] != "a" || strings.Join(rs[2].Lines, "") != long {
		t.Fatalf("got err %v", err)
	}
	srv.Kill(t)
	<-c.Done()
	if _, err := c.Exec(ctx, display("x")); !errors.Is(err, controlmode.ErrClosed) {
		t.Fatalf("got %v after the server died, want ErrClosed", err)
	}
}

// The default client's terminal is a pty, as a person's client is; with
// Pipes it has none.
func TestClientTerminal(t *testing.T) {
	for _, tc := range []struct {
		opts *controlmode.Options
		want string
	}{{nil, "/dev/"}, {&controlmode.Options{Pipes: true}, ""}} {
		_, c := attach(t, tc.opts)
		rs, err := c.Exec(testCtx(t), cmd("display-message", "-p", "#{client_tty}"))
		if err != nil {
			t.Fatal(err)
		}
		if got := rs[0].Lines[0]; !strings.HasPrefix(got, tc.want) || (tc.want == "") != (got == "") {
			t.Errorf("Pipes=%v: client_tty %q, want prefix %q", tc.opts != nil, got, tc.want)
		}
	}
}

func TestExecFailureDropsRestOfLine(t *testing.T) {
	_, c := attach(t, nil)
	ctx := testCtx(t)
	rs, err := c.Exec(ctx, display("a"), cmd("select-window", "-t", "nosuch"), display("c"))
	var ce *controlmode.CommandError
	if !errors.As(err, &ce) || ce.Command != "select-window" || !strings.Contains(ce.Msg, "nosuch") {
		t.Fatalf("got err %v, want select-window's CommandError", err)
	}
	if len(rs) != 3 || rs[0].Err != nil || rs[0].Lines[0] != "a" || rs[1].Err != err || !errors.Is(rs[2].Err, controlmode.ErrSkipped) {
		t.Fatalf("got replies %+v", rs)
	}
	// The connection is still in step: the next call gets its own reply.
	rs, err = c.Exec(ctx, display("after"))
	if err != nil || rs[0].Lines[0] != "after" {
		t.Fatalf("got %v %v, want \"after\"", rs, err)
	}
}

func TestExecInvalidWritesNothing(t *testing.T) {
	_, c := attach(t, nil)
	before := c.Stats()
	for _, bad := range []controlmode.Command{
		cmd("display-message", "-p", "a\x00b"),
		cmd("Bad;Name"),
		cmd("display-message").Text("x").Args("-p"),
		{},
	} {
		if _, err := c.Exec(testCtx(t), bad); !errors.Is(err, controlmode.ErrInvalidCommand) {
			t.Errorf("Exec(%q): got %v, want ErrInvalidCommand", bad.String(), err)
		}
	}
	// Notifications are left out: tmux may send one (a %client-session-changed,
	// say) at any moment after attaching, and that says nothing about writing.
	after := c.Stats()
	if after.Calls != before.Calls || after.Commands != before.Commands || after.BytesWritten != before.BytesWritten {
		t.Fatalf("stats changed from %+v to %+v: something was written", before, after)
	}
}

func TestExecConcurrentCorrelation(t *testing.T) {
	_, c := attach(t, nil)
	ctx := testCtx(t)
	const goroutines, calls = 50, 200
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			for i := range calls {
				tok := fmt.Sprintf("tok-%d-%d", g, i)
				// Every few calls, a line of two commands and a failing one,
				// to mix block counts on the wire.
				cmds := []controlmode.Command{display(tok)}
				if i%7 == 0 {
					cmds = append(cmds, display(tok+"-b"))
				}
				if i%11 == 0 {
					cmds = append(cmds, cmd("select-window", "-t", "@999999"))
				}
				rs, err := c.Exec(ctx, cmds...)
				if i%11 == 0 {
					if err == nil {
						errs <- fmt.Errorf("%s: failing command succeeded", tok)
						return
					}
				} else if err != nil {
					errs <- fmt.Errorf("%s: %v", tok, err)
					return
				}
				if got := strings.Join(rs[0].Lines, ""); got != tok {
					errs <- fmt.Errorf("got %q, want %q", got, tok)
					return
				}
				if i%7 == 0 && strings.Join(rs[1].Lines, "") != tok+"-b" {
					errs <- fmt.Errorf("second reply %q, want %q", rs[1].Lines, tok+"-b")
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if s := c.Stats(); s.Calls != goroutines*calls {
		t.Errorf("got %d calls counted, want %d", s.Calls, goroutines*calls)
	}
}

func TestExecCancelKeepsCorrelation(t *testing.T) {
	_, c := attach(t, nil)
	ctx := testCtx(t)
	var cancelled int
	for i := range 300 {
		cctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { cancel(); close(done) }()
		_, err := c.Exec(cctx, display(fmt.Sprint("c", i)))
		<-done
		if errors.Is(err, context.Canceled) {
			cancelled++
		} else if err != nil {
			t.Fatal(err)
		}
		rs, err := c.Exec(ctx, display(fmt.Sprint("k", i)))
		if err != nil || rs[0].Lines[0] != fmt.Sprint("k", i) {
			t.Fatalf("after a cancelled call: got %v %v, want k%d", rs, err, i)
		}
	}
	t.Logf("%d of 300 calls returned cancelled", cancelled)
}

func TestLongLines(t *testing.T) {
	srv, c := attach(t, nil)
	ctx := testCtx(t)

	// A 100 KB reply line: no 64 KB scanner cap on the way in.
	long := strings.Repeat("0123456789", 10_000)
	rs, err := c.Exec(ctx, display(long))
	if err != nil || len(rs[0].Lines) != 1 || rs[0].Lines[0] != long {
		t.Fatalf("100 KB reply: err %v, got %d lines", err, len(rs[0].Lines))
	}

	// A 1 MB send-keys -l line: no 4 KB canonical line limit on the way out.
	// The shell's line editor is not involved: cat just echoes bytes.
	pane := srv.Tmux(t, "list-panes", "-t", "main", "-F", "#{pane_id}")
	if _, err := c.Exec(ctx, cmd("set-option", "-g", "history-limit", "100")); err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("abcdefgh", 1<<17)
	if _, err := c.Exec(ctx, cmd("set-buffer", "-b", "big").Text(text)); err != nil {
		t.Fatal(err)
	}
	rs, err = c.Exec(ctx, cmd("display-message", "-p", "#{buffer_size}"), cmd("show-buffer", "-b", "big"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rs[1].Lines, "\n"); got != text {
		t.Fatalf("1 MB set-buffer round trip: got %d bytes back, want %d", len(got), len(text))
	}
	if _, err := c.Exec(ctx, cmd("send-keys", "-t", pane, "-l").Text(text)); err != nil {
		t.Fatalf("1 MB send-keys -l: %v", err)
	}
	// The channel still answers after the big write.
	if rs, err := c.Exec(ctx, display("still")); err != nil || rs[0].Lines[0] != "still" {
		t.Fatalf("after 1 MB: %v %v", rs, err)
	}
}

func TestExecAfterServerKilled(t *testing.T) {
	srv, c := attach(t, nil)
	srv.Kill(t)
	start := time.Now()
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("connection did not notice the server died")
	}
	_, err := c.Exec(context.Background(), display("x"))
	elapsed := time.Since(start)
	if !errors.Is(err, controlmode.ErrClosed) || !errors.Is(err, controlmode.ErrNotSent) {
		t.Fatalf("got %v, want an error wrapping ErrClosed and ErrNotSent", err)
	}
	var ee *controlmode.ExitError
	if !errors.As(c.Err(), &ee) || ee.Reason != "server exited unexpectedly" {
		t.Errorf("got Err() %v, want reason \"server exited unexpectedly\"", c.Err())
	}
	// Generous bound: catches a hang, not a slow machine.
	if elapsed > time.Second {
		t.Errorf("Exec after the server died took %v", elapsed)
	}
	t.Logf("connection ended and Exec failed %v after SIGKILL", elapsed)
}

func TestPendingCallsFailWhenServerDies(t *testing.T) {
	srv, c := attach(t, nil)
	ctx := testCtx(t)
	var wg sync.WaitGroup
	results := make(chan error, 1000)
	stop := make(chan struct{})
	for range 8 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				_, err := c.Exec(ctx, display("x"))
				if err != nil {
					results <- err
					return
				}
			}
		})
	}
	srv.Kill(t)
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("connection did not end")
	}
	close(stop)
	wg.Wait()
	close(results)
	for err := range results {
		if !errors.Is(err, controlmode.ErrClosed) {
			t.Errorf("got %v, want ErrClosed", err)
		}
	}
}

func TestStartFailsWithTmuxMessage(t *testing.T) {
	srv := fixtures.NewServer(t)
	srv.NewSession(t, "main")
	_, err := controlmode.Start(testCtx(t), &controlmode.Options{
		Tmux: srv.Bin, Socket: srv.Socket, Command: []string{"attach-session", "-t", "nosuch"},
	})
	if !errors.Is(err, controlmode.ErrClosed) || !strings.Contains(err.Error(), "nosuch") {
		t.Fatalf("got %v, want ErrClosed naming the session", err)
	}
	// No server at all.
	empty := fixtures.NewServer(t)
	_, err = controlmode.Start(testCtx(t), &controlmode.Options{Tmux: empty.Bin, Socket: empty.Socket})
	if !errors.Is(err, controlmode.ErrClosed) {
		t.Fatalf("got %v, want ErrClosed", err)
	}
	t.Logf("no server: %v", err)
}

func TestCloseLeavesNoGoroutines(t *testing.T) {
	srv := fixtures.NewServer(t)
	id := srv.NewSession(t, "main")
	before := runtime.NumGoroutine()
	for range 5 {
		c, err := controlmode.Start(testCtx(t), &controlmode.Options{Tmux: srv.Bin, Socket: srv.Socket, Command: []string{"attach-session", "-t", id}})
		if err != nil {
			t.Fatal(err)
		}
		sub := c.Subscribe(4)
		if _, err := c.Exec(testCtx(t), display("x")); err != nil {
			t.Fatal(err)
		}
		c.Close()
		c.Close() // idempotent
		if _, ok := <-drain(sub.C()); ok {
			t.Fatal("subscription channel still open after Close")
		}
		if !errors.Is(c.Err(), controlmode.ErrClosed) {
			t.Fatalf("Err after Close: %v", c.Err())
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		runtime.Gosched()
		time.Sleep(time.Millisecond) // waiting on the runtime, not on tmux: no event exists
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines after Close, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
	// Detaching left the session alive.
	if got := srv.Tmux(t, "list-sessions", "-F", "#{session_name}"); got != "main" {
		t.Fatalf("got sessions %q, want main", got)
	}
}

func drain(ch <-chan controlmode.Notification) <-chan controlmode.Notification {
	out := make(chan controlmode.Notification)
	go func() {
		for range ch {
		}
		close(out)
	}()
	return out
}

func TestNotificationsAndOutput(t *testing.T) {
	var mu sync.Mutex
	var out []byte
	got := make(chan struct{})
	srv, c := attach(t, &controlmode.Options{OnNotification: func(n controlmode.Notification) {
		if o, ok := n.(controlmode.Output); ok {
			mu.Lock()
			out = append(out, o.Data...)
			if strings.Contains(string(out), "MARK\\\\x\x01é") {
				select {
				case <-got:
				default:
					close(got)
				}
			}
			mu.Unlock()
		}
	}})
	sub := c.Subscribe(64)
	ctx := testCtx(t)
	pane := srv.Tmux(t, "list-panes", "-t", "main", "-F", "#{pane_id}")
	if _, err := c.Exec(ctx, cmd("send-keys", "-t", pane, "-l").Text(`printf 'MARK\\\\x\001\303\251\n'`), cmd("send-keys", "-t", pane, "Enter")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		mu.Lock()
		t.Fatalf("output never contained the decoded bytes; got %q", out)
	}
	if _, err := c.Exec(ctx, cmd("new-window", "-d", "-n", "w2")); err != nil {
		t.Fatal(err)
	}
	for n := range sub.C() {
		if wa, ok := n.(controlmode.WindowAdd); ok && !wa.Unlinked {
			return
		}
	}
	t.Fatal("subscription closed before %window-add arrived")
}

func TestSlowSubscriberIsToldWhatItLost(t *testing.T) {
	srv, c := attach(t, nil)
	sub := c.Subscribe(1)
	ctx := testCtx(t)
	id := srv.Tmux(t, "display-message", "-p", "-t", "main", "#{session_id}")
	for i := range 20 {
		if _, err := c.Exec(ctx, cmd("rename-session", "-t", id, fmt.Sprint("s", i))); err != nil {
			t.Fatal(err)
		}
	}
	// A final event we wait for through the model-free path: list-sessions
	// says the last rename happened; the notification follows its %end.
	srv.Tmux(t, "has-session", "-t", "s19")
	if _, err := c.Exec(ctx, display("sync")); err != nil {
		t.Fatal(err)
	}
	first := <-sub.C()
	// The count of what was lost comes with the next delivery.
	if _, err := c.Exec(ctx, cmd("rename-session", "-t", id, "last")); err != nil {
		t.Fatal(err)
	}
	second := <-sub.C()
	lost, ok := second.(controlmode.Lost)
	if !ok || lost.N == 0 {
		t.Fatalf("got %T %v then %T %v, want a notification then Lost", first, first, second, second)
	}
	t.Logf("subscriber with buffer 1 lost %d notifications", lost.N)
}

// TestCloseWhileServerStopped closes a connection whose tmux server is
// stopped (SIGSTOP): the client cannot detach, and the server holds the
// other ends of its pipes, so nothing but Close's own kill and close ends
// it. Close must return all the same.
func TestCloseWhileServerStopped(t *testing.T) {
	srv, c := attach(t, nil)
	pid := srv.PID(t)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) }) // before the server's cleanup
	closed := make(chan struct{})
	start := time.Now()
	go func() { c.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(15 * time.Second): // generous: Close waits 2 s for a detach
		t.Fatal("Close did not return while the server was stopped")
	}
	if !errors.Is(c.Err(), controlmode.ErrClosed) {
		t.Errorf("Err after Close: got %v, want ErrClosed", c.Err())
	}
	t.Logf("Close returned after %v", time.Since(start).Round(time.Millisecond))
}

// TestExecDeadlineWhileTmuxReadsNothing stops the server so that it reads
// nothing, then makes calls with short deadlines until their lines have
// filled the client's input: each returns by its own deadline, though its
// write could not finish, and once the server runs again every line is
// answered in order and the connection goes on. No liveness deadline is
// set: only the calls' own deadlines end them.
func TestExecDeadlineWhileTmuxReadsNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts *controlmode.Options
	}{{"pty", nil}, {"pipes", &controlmode.Options{Pipes: true}}} {
		t.Run(tc.name, func(t *testing.T) {
			srv, c := attach(t, tc.opts)
			pid := srv.PID(t)
			if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) }) // before the server's cleanup
			text := strings.Repeat("x", 3000)
			const own = 100 * time.Millisecond
			for i := range 60 { // 180 KB: more than a pipe or a pty holds
				ctx, cancel := context.WithTimeout(context.Background(), own)
				done := make(chan error, 1)
				go func() { _, err := c.Exec(ctx, display(text)); done <- err }()
				select {
				case err := <-done:
					if !errors.Is(err, context.DeadlineExceeded) {
						t.Fatalf("call %d: got %v, want its deadline", i, err)
					}
				case <-time.After(own + 5*time.Second): // generous: catches a call held by its write
					t.Fatalf("call %d did not return 5 s after its %v deadline", i, own)
				}
				cancel()
			}
			if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
				t.Fatal(err)
			}
			rs, err := c.Exec(testCtx(t), display("after"))
			if err != nil || len(rs) != 1 || strings.Join(rs[0].Lines, "") != "after" {
				t.Fatalf("after SIGCONT: got %q, %v; want \"after\"", rs, err)
			}
		})
	}
}
