package session

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/fixtures/faketmux"
	"github.com/tmux-mcp/tmux-mcp/session/internal/crashgate"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
)

// The link's own tests build a link from fakes, as rueidis tests its mux
// with mock wires: its clients are clients of a fake tmux
// (fixtures/faketmux) and its events are recorded, with no Server, model or
// tmux. They run in synctest bubbles, where a goroutine the link leaves
// behind fails the test.

// fakeClients starts the clients of a link on a fake tmux.
type fakeClients struct {
	fake *faketmux.Server

	mu      sync.Mutex
	fail    error         // when set, start fails with it
	started int           // clients started
	hold    chan struct{} // when set, the next close waits for it to close
}

func (f *fakeClients) prepare(context.Context, []string) ([]string, error) { return nil, nil }

func (f *fakeClients) start(ctx context.Context, _, cmd []string, onNote func(controlmode.Notification)) (*controlmode.Conn, error) {
	f.mu.Lock()
	err := f.fail
	if err == nil {
		f.started++
	}
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	cl := f.fake.Dial(cmd)
	return controlmode.Open(ctx, cl.Stdout(), cl.Stdin(), &controlmode.Options{Command: cmd, OnNotification: onNote})
}

func (f *fakeClients) close(c *controlmode.Conn) {
	f.mu.Lock()
	hold := f.hold
	f.hold = nil
	f.mu.Unlock()
	if hold != nil {
		<-hold
	}
	c.Close()
}

func (f *fakeClients) supervise(*controlmode.Conn, func(func()) bool) {}

func (f *fakeClients) startedCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.started
}

// fakeEvents records what a link tells its Server; the ended clients' streams
// are a real panestream.Set.
type fakeEvents struct {
	streams panestream.Set

	mu      sync.Mutex
	ended   []uint64 // sources ended, in order
	dropped int
}

func (e *fakeEvents) events() linkEvents {
	return linkEvents{
		ready: func(ctx context.Context, c *controlmode.Conn) (serverInfo, error) {
			rs, err := c.Exec(ctx, controlmode.NewCommand("display-message", "-p", "#{version}"))
			if err != nil {
				return serverInfo{}, err
			}
			return serverInfo{gen: "1", version: rs[0].Lines[0]}, nil
		},
		note:       func(uint64, *clientRef, controlmode.Notification) {},
		owned:      func(string) []string { return nil },
		generation: func(string) {},
		dropped: func() {
			e.mu.Lock()
			e.dropped++
			e.mu.Unlock()
		},
		sourceEnded: func(src uint64) {
			e.mu.Lock()
			e.ended = append(e.ended, src)
			e.mu.Unlock()
			e.streams.SourceEnded(src)
		},
		resynced: func() {},
		send: func(ctx context.Context, c *controlmode.Conn, cmds ...controlmode.Command) ([]controlmode.Reply, error) {
			return c.Exec(ctx, cmds...)
		},
	}
}

func (e *fakeEvents) endedSources() []uint64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.ended)
}

// newFakeLink returns a link on fake, closed when the test ends.
func newFakeLink(t *testing.T, fake *faketmux.Server) (*link, *fakeClients, *fakeEvents) {
	t.Helper()
	clients, ev := &fakeClients{fake: fake}, &fakeEvents{}
	gate := crashgate.New("", nil)
	l := newLink(clients, gate, ev.events(), slog.New(slog.DiscardHandler), "fake")
	t.Cleanup(func() {
		l.close()
		gate.Close()
	})
	return l, clients, ev
}

func TestLinkSharesOneDial(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := faketmux.New()
		fake.NewSession("main")
		l, clients, _ := newFakeLink(t, fake)
		conns := make(chan *controlmode.Conn, 5)
		for range cap(conns) {
			go func() {
				c, err := l.connect(t.Context())
				if err != nil {
					t.Error(err)
				}
				conns <- c
			}()
		}
		first := <-conns
		for range cap(conns) - 1 {
			if c := <-conns; c != first {
				t.Fatal("callers got different clients")
			}
		}
		if n := clients.startedCount(); n != 1 || l.dials.Load() != 1 {
			t.Fatalf("got %d clients started, %d dials; want one each", n, l.dials.Load())
		}
	})
}

func TestLinkReconnectsAfterEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := faketmux.New()
		fake.NewSession("main")
		l, clients, ev := newFakeLink(t, fake)
		first, err := l.connect(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		src := l.src
		fake.Dialed()[0].Exit("")
		synctest.Wait()
		if n := clients.startedCount(); n != 2 || !l.live() || l.current() == first {
			t.Fatalf("got %d clients started, live %v; want a second client, live", n, l.live())
		}
		if got := ev.endedSources(); !slices.Equal(got, []uint64{src}) {
			t.Fatalf("sources ended: got %v, want [%d]", got, src)
		}
	})
}

// TestLinkServerLostWaitsForTheNextCall: after "server exited unexpectedly"
// the supervisor does not dial (a server still starting could be made to
// exit); the next call does.
func TestLinkServerLostWaitsForTheNextCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := faketmux.New()
		fake.NewSession("main")
		l, clients, _ := newFakeLink(t, fake)
		if _, err := l.connect(t.Context()); err != nil {
			t.Fatal(err)
		}
		fake.Dialed()[0].Exit("server exited unexpectedly")
		synctest.Wait()
		if n := clients.startedCount(); n != 1 || l.installed() {
			t.Fatalf("got %d clients started, installed %v; want none more, none installed", n, l.installed())
		}
		fake.Restart()
		fake.NewSession("again")
		if _, err := l.connect(t.Context()); err != nil || clients.startedCount() != 2 {
			t.Fatalf("the next call: %v, %d clients started; want a second", err, clients.startedCount())
		}
	})
}

// TestLinkDialFailureIsEveryCallersAndNotKept: a failed dial answers every
// caller that shared it, leaves the link idle, and the next call dials anew.
func TestLinkDialFailureIsEveryCallersAndNotKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := faketmux.New()
		fake.NewSession("main")
		l, clients, _ := newFakeLink(t, fake)
		refused := &Error{Kind: KindNoServer, Msg: "no server"}
		clients.fail = refused
		var e *Error
		if _, err := l.connect(t.Context()); !errors.As(err, &e) || e.Kind != refused.Kind || e.Msg != refused.Msg || e.Written {
			t.Fatalf("got %v, want the start's error, not written", err)
		}
		if l.status != linkIdle || l.installed() {
			t.Fatalf("status %v after a failed dial, want idle", l.status)
		}
		clients.mu.Lock()
		clients.fail = nil
		clients.mu.Unlock()
		if _, err := l.connect(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
}

// TestLinkEndedClientSparesTheNewOne is the race of a client that ends while
// a new one is already current: its supervisor (reconnectAfterEnd) used to
// read the current client's source number, and so ended the new client's
// pane streams, whose readers failed with a spurious lost connection. Here
// the supervisor of an old client runs once the new one is installed: it
// must end only the old client's streams, leave the new client current, and
// dial nothing.
func TestLinkEndedClientSparesTheNewOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fake := faketmux.New()
		fake.NewSession("main")
		l, clients, ev := newFakeLink(t, fake)
		ctx := t.Context()
		old, err := l.startClient(ctx, "", l.onMainNotification)
		if err != nil {
			t.Fatal(err)
		}
		current, err := l.connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		newSt, oldSt := ev.streams.Get("%1"), ev.streams.Get("%2")
		newSt.Adopt(l.src)
		oldSt.Adopt(old.src)

		l.closeClient(old.conn())
		l.wg.Add(1)
		l.reconnectAfterEnd(old.conn(), old.src)

		if got := ev.endedSources(); !slices.Equal(got, []uint64{old.src}) {
			t.Errorf("sources ended: got %v, want only the old client's [%d]", got, old.src)
		}
		if newSt.Read(0).ConnLost {
			t.Error("the current client's stream was marked lost")
		}
		if !oldSt.Read(0).ConnLost {
			t.Error("the ended client's own stream was not marked lost")
		}
		if l.current() != current || clients.startedCount() != 2 {
			t.Errorf("after: current changed %v, %d clients started; want the same client, no new one", l.current() != current, clients.startedCount())
		}
	})
}

// newWatchingLink returns a link with one watcher, on session other of its
// fake tmux, and the release of its reader.
func newWatchingLink(t *testing.T) (l *link, clients *fakeClients, other string, release func()) {
	t.Helper()
	fake := faketmux.New()
	fake.NewSession("main")
	other, _, _ = fake.NewSession("other")
	l, clients, _ = newFakeLink(t, fake)
	_, release, err := l.feed(other)
	if err != nil {
		t.Fatal(err)
	}
	if l.watcherCount() != 1 {
		t.Fatalf("got %d watchers, want 1", l.watcherCount())
	}
	return l, clients, other, release
}

// TestLinkCloseWaitsForAnIdleWatchersClose: an idle watcher is closed on the
// link's wait group, so Close returns only after that close has. It used to
// run on a timer of its own, which Close did not wait for.
func TestLinkCloseWaitsForAnIdleWatchersClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, clients, _, release := newWatchingLink(t)
		held := make(chan struct{})
		clients.mu.Lock()
		clients.hold = held // the idle close waits for the test
		clients.mu.Unlock()
		release()
		time.Sleep(l.idle + time.Second)
		synctest.Wait()
		if l.watcherCount() != 0 {
			t.Fatalf("got %d watchers after the idle time, want 0", l.watcherCount())
		}

		closed := make(chan struct{})
		go func() {
			l.close()
			close(closed)
		}()
		synctest.Wait()
		select {
		case <-closed:
			t.Fatal("close returned while the idle watcher's close was still running")
		default:
		}
		close(held)
		<-closed
	})
}

// TestLinkWatcherTakenAgainStaysOpen: a reader that comes back within the
// idle time keeps the watcher; once the last reader has been gone that long,
// it is closed.
func TestLinkWatcherTakenAgainStaysOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, clients, other, release := newWatchingLink(t)
		release()
		time.Sleep(l.idle / 2)
		_, release, err := l.feed(other)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(l.idle)
		synctest.Wait()
		if l.watcherCount() != 1 || clients.startedCount() != 1 {
			t.Fatalf("got %d watchers, %d clients started; want the first, still open", l.watcherCount(), clients.startedCount())
		}
		release()
		time.Sleep(l.idle + time.Second)
		synctest.Wait()
		if l.watcherCount() != 0 {
			t.Fatalf("got %d watchers, want 0 once idle", l.watcherCount())
		}
	})
}
