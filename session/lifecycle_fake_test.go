package session

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/fixtures/faketmux"
)

// The lifecycle tests run a Server on a fake tmux (fixtures/faketmux) inside synctest
// bubbles: no tmux is started, the reconnect delays and deadlines take no real time,
// and a goroutine the Server leaves behind fails the test when its bubble ends.

// newFakeServer returns a Server whose control clients are clients of fake. The
// Manager is closed when the test ends.
func newFakeServer(t *testing.T, fake *faketmux.Server, opts Options) *Server {
	t.Helper()
	opts.Logger = testLogger(t)
	opts.startConn = func(ctx context.Context, o *controlmode.Options) (*controlmode.Conn, error) {
		cl := fake.Dial(o.Command)
		return controlmode.Open(ctx, cl.Stdout(), cl.Stdin(), o)
	}
	m := NewManager(&opts)
	t.Cleanup(func() { m.Close() })
	// A socket in a directory of the test's own: the crash gate takes its flocks there.
	return m.Server(Socket{Path: filepath.Join(t.TempDir(), "fake")})
}

// holdOn makes the fake answer cmd by calling f, on the clients for which it returns
// true, and as tmux would on the others.
func holdOn(fake *faketmux.Server, name string, f func(cl *faketmux.Client, args []string) bool, then func(cl *faketmux.Client)) {
	fake.Handle(name, func(cl *faketmux.Client, args []string) ([]string, error) {
		if !f(cl, args) {
			return fake.Default(cl, args)
		}
		if then != nil {
			then(cl)
		}
		return nil, faketmux.ErrHold
	})
}

// sent reports how many lines cl read that hold text.
func sent(cl *faketmux.Client, text string) int {
	n := 0
	for _, l := range cl.Lines() {
		if strings.Contains(l, text) {
			n++
		}
	}
	return n
}

func wantDials(t *testing.T, s *Server, fake *faketmux.Server, n int) {
	t.Helper()
	st := s.ConnStats()
	if st.Dials != uint64(n) || !st.Connected || st.Pid != 0 || len(fake.Dialed()) != n {
		t.Fatalf("got %+v and %d clients dialed; want %d dials, connected, no process", st, len(fake.Dialed()), n)
	}
}

func TestFakeReconnectAfterExit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := faketmux.New()
		id, _, _ := fake.NewSession("main")
		s := newFakeServer(t, fake, Options{})
		ctx := t.Context()
		before, err := s.Sessions(ctx)
		if err != nil || len(before) != 1 || before[0].ID != id {
			t.Fatalf("got %+v, %v; want session %s", before, err, id)
		}
		wantDials(t, s, fake, 1)
		if got := s.ConnStats().Attached; got != id {
			t.Fatalf("attached to %q, want %s", got, id)
		}

		// A new server behind the same socket says nothing; only a new client's
		// queries can tell.
		fake.Restart()
		first := fake.Dialed()[0]
		first.Exit("")
		synctest.Wait()
		wantDials(t, s, fake, 2)
		second := fake.Dialed()[1]
		if sent(second, "list-sessions") != 1 {
			t.Fatalf("the new client was sent %q, want one resync", second.Lines())
		}
		after, err := s.Sessions(ctx)
		if err != nil || len(after) != 1 || after[0].ID != id {
			t.Fatalf("got %+v, %v; want session %s", after, err, id)
		}
		if after[0].Generation == before[0].Generation || after[0].Generation != s.Generation() {
			t.Fatalf("generation %q after the reconnect, was %q, server says %q: want the new client's", after[0].Generation, before[0].Generation, s.Generation())
		}
		if sent(second, "list-sessions") != 1 {
			t.Fatalf("Sessions after the reconnect asked again: %q", second.Lines())
		}
	})
}

// TestFakeServerLost: after "%exit server exited unexpectedly" the Server does not probe
// for a new server at once, and the next call connects and reads the new server instead
// of answering from the old picture.
func TestFakeServerLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := faketmux.New()
		fake.NewSession("main")
		s := newFakeServer(t, fake, Options{})
		ctx := t.Context()
		if _, err := s.Sessions(ctx); err != nil {
			t.Fatal(err)
		}
		fake.Dialed()[0].Exit("server exited unexpectedly")
		synctest.Wait()
		if st := s.ConnStats(); st.Connected || st.Dials != 1 || len(fake.Dialed()) != 1 {
			t.Fatalf("got %+v, %d clients dialed; want no client until the next call", st, len(fake.Dialed()))
		}
		fake.Restart()
		added, _, _ := fake.NewSession("added") // no client to tell
		got, err := s.Sessions(ctx)
		if err != nil || len(got) != 2 || got[1].ID != added {
			t.Fatalf("got %+v, %v; want the new server's two sessions", got, err)
		}
		wantDials(t, s, fake, 2)
	})
}

func TestFakeClientEndsMidCall(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cmd   controlmode.Command
		first string // the command on the wire
	}{
		{"a read is sent again", controlmode.NewCommand("display-message", "-p", "dies"), "display-message -p dies"},
		{"a change fails", controlmode.NewCommand("rename-window", "-t", "main:0", "dies"), "rename-window -t main:0 dies"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fake := faketmux.New()
				fake.NewSession("main")
				var firstClient *faketmux.Client
				holdOn(fake, tc.cmd.Name(), func(cl *faketmux.Client, args []string) bool {
					return cl == firstClient && slices.Contains(args, "dies")
				}, func(cl *faketmux.Client) { cl.Exit("") })
				s := newFakeServer(t, fake, Options{})
				ctx := t.Context()
				if _, err := s.Sessions(ctx); err != nil {
					t.Fatal(err)
				}
				firstClient = fake.Dialed()[0]

				rs, err := s.exec(ctx, tc.cmd)
				synctest.Wait()
				wantDials(t, s, fake, 2)
				second := fake.Dialed()[1]
				if n := sent(firstClient, tc.first); n != 1 {
					t.Fatalf("the first client read %q, want the line once", firstClient.Lines())
				}
				if readOnly([]controlmode.Command{tc.cmd}) {
					if err != nil || len(rs) != 1 || !slices.Equal(rs[0].Lines, []string{"dies"}) {
						t.Fatalf("got %v, %v; want the reply from the next client", rs, err)
					}
					if sent(second, tc.first) != 1 {
						t.Fatalf("the next client read %q, want the line once", second.Lines())
					}
					return
				}
				var e *Error
				if !errors.As(err, &e) || e.Kind != KindConnLost || !e.Written || Retryable(err) || errors.Is(err, controlmode.ErrNotSent) {
					t.Fatalf("got %#v, want connection_lost, written, not to be retried as it is", err)
				}
				if sent(second, tc.first) != 0 {
					t.Fatalf("a change tmux may have run was sent again: %q", second.Lines())
				}
			})
		})
	}
}

func TestFakeWatchersShared(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := faketmux.New()
		other, _, pane := fake.NewSession("other")
		main, _, _ := fake.NewSession("main") // the newest: the main client attaches to it
		s := newFakeServer(t, fake, Options{})
		ctx := t.Context()
		changes := make(chan Change, 64)
		defer s.Subscribe(func(c Change) {
			select {
			case changes <- c:
			default:
			}
		})()

		release1, err := s.FollowPane(ctx, pane)
		if err != nil {
			t.Fatal(err)
		}
		release2, err := s.FollowPane(ctx, pane)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.ConnStats().Attached; got != main {
			t.Fatalf("main client attached to %q, want %s", got, main)
		}
		var watchers []*faketmux.Client
		for _, cl := range fake.Dialed() {
			if cl.Session() == other {
				watchers = append(watchers, cl)
			}
		}
		if len(watchers) != 1 || !slices.Contains(watchers[0].Command(), other) || len(fake.Clients()) != 2 {
			t.Fatalf("got %d watchers of %s among %d live clients, want one shared watcher beside the main client", len(watchers), other, len(fake.Clients()))
		}
		w := watchers[0]

		// The pane's output comes only through the watcher.
		w.Notify("%output " + pane + " hello")
		synctest.Wait()
		seen := false
		for len(changes) > 0 {
			if c := <-changes; c.Pane == pane {
				seen = true
			}
		}
		if !seen {
			t.Fatal("the watcher's output did not reach the subscriber")
		}

		release1()
		time.Sleep(2 * WatcherIdle)
		synctest.Wait()
		if w.Ended() {
			t.Fatal("the watcher closed while a follower still held it")
		}
		release2()
		time.Sleep(WatcherIdle - time.Second)
		synctest.Wait()
		if w.Ended() {
			t.Fatal("the watcher closed before it was idle for WatcherIdle")
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if !w.Ended() || !w.Detached() || len(fake.Clients()) != 1 {
			t.Fatalf("ended %v, detached %v, %d live clients: want the idle watcher detached, the main client left", w.Ended(), w.Detached(), len(fake.Clients()))
		}
	})
}

func TestFakeCloseLeavesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := faketmux.New()
		_, _, pane := fake.NewSession("other")
		fake.NewSession("main")
		s := newFakeServer(t, fake, Options{})
		ctx := t.Context()
		if _, err := s.FollowPane(ctx, pane); err != nil {
			t.Fatal(err)
		}
		if len(fake.Clients()) != 2 {
			t.Fatalf("got %d clients, want the main client and a watcher", len(fake.Clients()))
		}
		s.Close()
		for _, cl := range fake.Dialed() {
			if !cl.Ended() || !cl.Detached() {
				t.Errorf("client %q: ended %v, detached %v; want each detached by Close", cl.Command(), cl.Ended(), cl.Detached())
			}
		}
		if _, err := s.Sessions(ctx); err == nil || len(fake.Dialed()) != 2 {
			t.Fatalf("Sessions after Close: %v, %d clients dialed; want an error and no new client", err, len(fake.Dialed()))
		}
		// Leaving the bubble with a goroutine of the Server still blocked fails the test.
	})
}

func TestFakeCloseDuringDial(t *testing.T) {
	t.Run("attach completes", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fake := faketmux.New()
			fake.NewSession("main")
			attach := make(chan struct{})
			fake.Handle("attach-session", func(cl *faketmux.Client, args []string) ([]string, error) {
				<-attach
				return fake.Default(cl, args)
			})
			s := newFakeServer(t, fake, Options{})
			errc := make(chan error, 1)
			go func() {
				_, err := s.Sessions(t.Context())
				errc <- err
			}()
			synctest.Wait() // the dial waits for the attach
			closed := make(chan struct{})
			go func() {
				s.Close()
				close(closed)
			}()
			synctest.Wait()
			close(attach)
			<-closed
			if err := <-errc; err == nil {
				t.Error("Sessions succeeded on a Server closed during its dial")
			}
			cl := fake.Dialed()[0]
			if !cl.Ended() || !cl.Detached() {
				t.Fatalf("the client that attached after Close: ended %v, detached %v; want it detached", cl.Ended(), cl.Detached())
			}
		})
	})
	t.Run("attach never answered", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fake := faketmux.New()
			fake.NewSession("main")
			fake.Handle("attach-session", func(*faketmux.Client, []string) ([]string, error) { return nil, faketmux.ErrHold })
			s := newFakeServer(t, fake, Options{})
			go func() { _, _ = s.Sessions(t.Context()) }()
			synctest.Wait()
			start := time.Now()
			s.Close()
			if waited := time.Since(start); waited > connectTimeout+5*time.Second {
				t.Fatalf("Close took %v, want it bounded by the connect timeout %v", waited, connectTimeout)
			}
			if cl := fake.Dialed()[0]; !cl.Ended() {
				t.Fatal("the client that never attached was left running")
			}
		})
	})
}

func TestFakeUnresponsive(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cmd     controlmode.Command
		written bool
	}{
		{"read", controlmode.NewCommand("display-message", "-p", "stuck"), false},
		{"change", controlmode.NewCommand("rename-window", "-t", "main:0", "stuck"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fake := faketmux.New()
				fake.NewSession("main")
				holdOn(fake, tc.cmd.Name(), func(_ *faketmux.Client, args []string) bool { return slices.Contains(args, "stuck") }, nil)
				const deadline = 3 * time.Second
				s := newFakeServer(t, fake, Options{ReplyDeadline: deadline})
				ctx := t.Context()
				if _, err := s.Sessions(ctx); err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				_, err := s.exec(ctx, tc.cmd)
				waited := time.Since(start)
				var e *Error
				if !errors.As(err, &e) || e.Kind != KindConnLost || !errors.Is(err, controlmode.ErrUnresponsive) || e.Written != tc.written {
					t.Fatalf("got %#v, want connection_lost wrapping ErrUnresponsive, written %v", err, tc.written)
				}
				if waited < deadline || waited >= 2*deadline {
					t.Fatalf("the call failed after %v, want the reply deadline, %v", waited, deadline)
				}
				synctest.Wait()
				wantDials(t, s, fake, 2)
				if !fake.Dialed()[0].Ended() {
					t.Fatal("the stuck client was left running")
				}
				if sent(fake.Dialed()[1], tc.cmd.String()) != 0 {
					t.Fatal("the stuck call was sent again on the next client")
				}
				if _, err := s.exec(ctx, controlmode.NewCommand("display-message", "-p", "ok")); err != nil {
					t.Fatalf("the next call on the new client: %v", err)
				}
			})
		})
	}
}

// TestFakeAttachedIsTheCurrentClients: a %session-changed from a main
// client that is not the current one (still attaching, or ended) leaves the
// current client's session alone, and a client installed later starts with
// the session it reported itself. Before, any main client's notification
// moved it, so leave could switch the wrong client, or none.
func TestFakeAttachedIsTheCurrentClients(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := faketmux.New()
		a, _, _ := fake.NewSession("a")
		b, _, _ := fake.NewSession("b")
		s := newFakeServer(t, fake, Options{})
		ctx := t.Context()
		if _, err := s.Sessions(ctx); err != nil {
			t.Fatal(err)
		}
		first := s.ConnStats().Attached
		if first != a && first != b {
			t.Fatalf("attached to %q, want %s or %s", first, a, b)
		}
		other := a
		if first == a {
			other = b
		}
		// A second client reporting as main clients do, never installed.
		ref, err := s.link.startClient(ctx, other, s.link.onMainNotification)
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := s.ConnStats().Attached; got != first {
			t.Fatalf("another client's attach moved the current one to %q, want %q", got, first)
		}
		if got := ref.session(); got != other {
			t.Errorf("the other client's own session is %q, want %q", got, other)
		}
		s.link.closeClient(ref.conn())

		// The current client ends; the next one is installed with its own.
		cur := fake.Clients()
		for _, cl := range cur {
			if cl.Session() == first && !cl.Ended() {
				cl.Exit("detached")
			}
		}
		synctest.Wait()
		if _, err := s.Sessions(ctx); err != nil {
			t.Fatal(err)
		}
		st := s.ConnStats()
		if !st.Connected || st.Attached == "" {
			t.Fatalf("after the reconnect: %+v, want connected and attached", st)
		}
		dialed := fake.Dialed()
		if newest := dialed[len(dialed)-1]; newest.Ended() || st.Attached != newest.Session() {
			t.Errorf("attached %q; the client installed last is on %q (ended %v)", st.Attached, newest.Session(), newest.Ended())
		}
	})
}

// TestFakeResyncOutlivesACancelledCaller shares one resync between two
// callers and cancels the first while tmux holds the resync up: the second
// still gets the model from that same resync, and the first answers its own
// cancellation, with nothing written. The resync used to run on the first
// caller's context, so the second failed with the first's cancellation.
// synctest.Wait tells when both callers are waiting: no goroutine count.
func TestFakeResyncOutlivesACancelledCaller(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := faketmux.New()
		fake.NewSession("main")
		s := newFakeServer(t, fake, Options{})
		ctx := t.Context()
		if _, err := s.Sessions(ctx); err != nil {
			t.Fatal(err)
		}
		cl := fake.Dialed()[0]
		before := sent(cl, "list-sessions")
		held, release := make(chan struct{}, 1), make(chan struct{})
		held <- struct{}{} // the next list-sessions waits for release
		fake.Handle("list-sessions", func(cl *faketmux.Client, args []string) ([]string, error) {
			select {
			case <-held:
				<-release
			default:
			}
			return fake.Default(cl, args)
		})
		s.model.markDirty()

		ctxA, cancelA := context.WithCancel(ctx)
		defer cancelA()
		errA, errB := make(chan error, 1), make(chan error, 1)
		go func() { errA <- s.sync(ctxA) }()
		synctest.Wait() // the first caller started the resync, which tmux holds up
		go func() { errB <- s.sync(ctx) }()
		synctest.Wait() // the second waits on it too
		cancelA()
		var e *Error
		if err := <-errA; !errors.As(err, &e) || e.Kind != KindCancelled || e.Written {
			t.Errorf("the cancelled caller: got %v, want cancelled with nothing written", err)
		}
		close(release)
		if err := <-errB; err != nil {
			t.Errorf("the other caller: got %v, want the resync's success", err)
		}
		if need, _ := s.model.needsSync(); need {
			t.Error("the model is still dirty")
		}
		if n := sent(cl, "list-sessions") - before; n != 1 || len(fake.Dialed()) != 1 {
			t.Errorf("%d resyncs on %d clients, want one shared resync on the first client", n, len(fake.Dialed()))
		}
	})
}
