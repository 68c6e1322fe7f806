package session

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/crashgate"
	"github.com/tmux-mcp/tmux-mcp/session/internal/errs"
	"github.com/tmux-mcp/tmux-mcp/session/internal/modekeys"
	"github.com/tmux-mcp/tmux-mcp/session/internal/release"
	"golang.org/x/sync/singleflight"
)

// connectTimeout bounds one attempt to start the control client.
const connectTimeout = 10 * time.Second

// settleTimeout bounds how long an operation waits for the control client
// to end after it destroyed the client's own session or server. tmux sends
// %exit right after the replies of the line, so this is only a backstop.
const settleTimeout = 5 * time.Second

// reconnectDelays are the pauses between attempts to reconnect after the
// control client ended by itself; after the last, the next call retries.
var reconnectDelays = []time.Duration{0, 10 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second}

// linkStatus is where the main client of a link is in its life.
type linkStatus int

const (
	// linkIdle: no client, before the first connect or once the last one
	// was dropped.
	linkIdle linkStatus = iota
	// linkDialing: a connect is under way; dialing is closed when it ends.
	linkDialing
	// linkLive: a client is installed. It may have ended by now, which
	// its Err tells, until its supervisor (or a caller) drops it.
	linkLive
	// linkClosed: close ran; nothing starts from here on.
	linkClosed
)

// linkEvents is what a link tells, and asks of, the Server it serves.
// Every field is set.
type linkEvents struct {
	// ready prepares main client c, just started, and reads what the link
	// records of its server (installing the model from the same round
	// trip).
	ready func(ctx context.Context, c *controlmode.Conn) (serverInfo, error)
	// note handles a notification of client src (the main client's or a
	// watcher's), on that client's reader goroutine.
	note func(src uint64, ref *clientRef, n controlmode.Notification)
	// owned returns the sessions of generation gen that this process
	// owns: the main client attaches to one of them first.
	owned func(gen string) []string
	// generation says that a client of a new generation was installed.
	// It runs under the link's mu.
	generation func(gen string)
	// dropped says that the main client was dropped: its model is stale.
	// It runs under the link's mu.
	dropped func()
	// sourceEnded says that client src ended: the streams it fed end.
	sourceEnded func(src uint64)
	// resynced returns once no resync that could be using a dropped
	// client is under way.
	resynced func()
	// send runs cmds on client c, as every command of the Server runs
	// (through the gate, with its effects recorded).
	send func(ctx context.Context, c *controlmode.Conn, cmds ...controlmode.Command) ([]controlmode.Reply, error)
}

// serverInfo is what a link records of the server a new main client
// reached.
type serverInfo struct {
	gen     string          // the server's generation
	version string          // its tmux version
	keys    *modekeys.Table // keys whose copy-mode binding would hold the client; nil where none can
}

// link is a Server's connection to its tmux server: the main control
// client, the watchers attached to other sessions, and every step of their
// lives. It is the only writer of its fields; the rest of the Server asks
// it for the current client. It is built from what it needs: a way to
// start clients, the gate, and the events it tells the Server.
//
// The main client's life: [link.connect] starts one [link.dial] when no
// client is live, and every caller shares that attempt. dial runs
// [link.start], installs the client and starts [link.reconnectAfterEnd],
// which waits for the client to end, forgets it and connects again.
// Operations that may end the client's session go through [link.leave]
// and [link.settle], so that the client moves away first or is known to be
// gone after. [link.close] ends it all.
type link struct {
	clients clientStarter
	gate    *crashgate.Gate // attaches hold it alone, closes share it
	ev      linkEvents
	log     *slog.Logger
	name    string        // the socket, in logs
	idle    time.Duration // how long a watcher with no reader stays

	stop   chan struct{}      // closed by close
	wg     sync.WaitGroup     // every goroutine the link starts; close waits for it
	group  singleflight.Group // watchers being started, by session id
	dials  atomic.Uint64      // successful connects, for tests and docs/performance.md's figures
	srcSeq atomic.Uint64      // numbers the control clients, as sources of output

	mu       sync.Mutex          // guards the fields below
	status   linkStatus          // written only by connect, dial, dropIfCurrent and close
	conn     *controlmode.Conn   // the main client while status is linkLive, else nil
	src      uint64              // conn's source number
	gen      string              // generation of the server conn is attached to
	rel      release.Facts       // what that server's tmux release does
	keys     *modekeys.Table     // keys whose copy-mode binding would hold conn; nil where none can
	attached string              // session id the client is attached to
	dialing  chan struct{}       // while status is linkDialing; closed when the dial ends
	dialErr  error               // the outcome of the last connect
	watchers map[string]*watcher // extra clients attached to other sessions, by session id
}

func newLink(clients clientStarter, gate *crashgate.Gate, ev linkEvents, log *slog.Logger, name string) *link {
	return &link{clients: clients, gate: gate, ev: ev, log: log, name: name, idle: WatcherIdle, stop: make(chan struct{})}
}

// errLinkClosed is the error of a call on a closed Server.
func errLinkClosed() error { return errs.Closed() }

// spawn runs f on a goroutine that close waits for. Once the link is
// closed it runs nothing and reports false.
func (l *link) spawn(f func()) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.status == linkClosed {
		return false
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		f()
	}()
	return true
}

// stopped is closed once the link is.
func (l *link) stopped() <-chan struct{} { return l.stop }

// close ends every client and every goroutine of the link, and reports
// whether this call closed it. Every goroutine is started under mu while
// the link is not closed, so the Wait below sees all of them; a dial still
// under way closes its own client when it finds the link closed.
func (l *link) close() bool {
	l.mu.Lock()
	if l.status == linkClosed {
		l.mu.Unlock()
		return false
	}
	l.status = linkClosed
	close(l.stop)
	c := l.conn
	l.conn = nil
	l.mu.Unlock()
	if c != nil {
		l.closeClient(c)
	}
	l.wg.Wait()
	return true
}

// closeClient closes c when no client of ours is attaching: tmux tells
// every control client that one detached (see Server.gate).
func (l *link) closeClient(c *controlmode.Conn) {
	l.gate.RLock()
	defer l.gate.RUnlock()
	l.clients.close(c)
}

// currentLocked returns the main client if it is live, else nil. l.mu is
// held.
func (l *link) currentLocked() *controlmode.Conn {
	if l.status != linkLive || l.conn.Err() != nil {
		return nil
	}
	return l.conn
}

// current returns the main client if it is live, else nil.
func (l *link) current() *controlmode.Conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.currentLocked()
}

// live reports whether the main client is up.
func (l *link) live() bool { return l.current() != nil }

// installed reports whether a main client is installed, live or ended but
// not yet dropped.
func (l *link) installed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.status == linkLive
}

// generation returns the generation of the server the main client is
// attached to, "" before the first connect.
func (l *link) generation() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.gen
}

// modeKeys returns the keys whose copy-mode binding would hold the main
// client, as read when it attached.
func (l *link) modeKeys() *modekeys.Table {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.keys
}

// release returns what the tmux release of the server does; before the
// first connect, that of the newest release.
func (l *link) release() release.Facts {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.rel.Version() == "" {
		return release.Of("")
	}
	return l.rel
}

// stats returns the main client's part of ConnStats.
func (l *link) stats() ConnStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := ConnStats{Attached: l.attached, Dials: l.dials.Load()}
	if c := l.currentLocked(); c != nil {
		st.Connected, st.Pid, st.Stats = true, c.Pid(), c.Stats()
	}
	return st
}

// connect returns the live main client, starting one if needed. Callers
// share one attempt; a caller's ctx bounds only its own wait.
func (l *link) connect(ctx context.Context) (*controlmode.Conn, error) {
	for {
		l.mu.Lock()
		switch l.status {
		case linkClosed:
			l.mu.Unlock()
			return nil, errLinkClosed()
		case linkLive:
			if c := l.currentLocked(); c != nil {
				l.mu.Unlock()
				return c, nil
			}
			// Ended, and its supervisor has not dropped it yet: it will
			// find it gone. Its panes' streams learn it now, before a new
			// client's output comes: until then they take no other
			// client's output, and would drop what the new one delivers.
			src := l.src
			l.dropLocked()
			l.mu.Unlock()
			l.ev.sourceEnded(src)
			continue
		}
		if l.status != linkDialing {
			l.status, l.dialing = linkDialing, make(chan struct{})
			l.wg.Add(1)
			go l.dial(l.dialing)
		}
		dialing := l.dialing
		l.mu.Unlock()

		select {
		case <-dialing:
		case <-ctx.Done():
			return nil, notSent(ctx.Err()) // nothing is sent before the client is up
		}
		l.mu.Lock()
		c, err := l.conn, l.dialErr
		l.mu.Unlock()
		if err != nil {
			return nil, notSent(err) // whatever the dial sent, the caller's call sent nothing
		}
		if c != nil {
			return c, nil
		}
		// The client that attempt made was dropped before this caller
		// looked: it ended, or the link closed. Look again.
	}
}

// dial starts a main client and reads the server's generation and state in
// one round trip. It closes done when it is finished.
func (l *link) dial(done chan struct{}) {
	defer l.wg.Done()
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	ref, info, err := l.start(ctx)
	var orphan *controlmode.Conn // a client made for a link closed meanwhile
	l.mu.Lock()
	switch {
	case l.status == linkClosed:
		if ref != nil {
			orphan = ref.conn()
		}
		err = errLinkClosed()
	case err != nil:
		l.status = linkIdle
	default:
		if info.gen != l.gen {
			l.ev.generation(info.gen)
		}
		// The client's fields change together: whoever reads conn reads
		// its source number, generation and release with it.
		c := ref.conn()
		l.status = linkLive
		l.conn, l.src, l.gen, l.rel, l.keys = c, ref.src, info.gen, release.Of(info.version), info.keys
		l.attached = ref.session()
		l.dials.Add(1)
		l.wg.Add(1)
		go l.reconnectAfterEnd(c, ref.src)
	}
	l.dialErr, l.dialing = err, nil
	l.mu.Unlock()
	close(done)
	if orphan != nil {
		l.closeClient(orphan)
	}
}

// start runs the main client, attached to a session this process owns if
// there is one, else to the one tmux picks, and returns it with what it
// read of the server.
func (l *link) start(ctx context.Context) (*clientRef, serverInfo, error) {
	var ref *clientRef
	var err error
	for _, t := range append(l.ev.owned(l.generation()), "") {
		ref, err = l.startClient(ctx, t, l.onMainNotification)
		if err == nil {
			break
		}
	}
	if err != nil {
		return nil, serverInfo{}, err
	}
	info, err := l.ev.ready(ctx, ref.conn())
	if err != nil {
		l.closeClient(ref.conn())
		return nil, serverInfo{}, err
	}
	return ref, info, nil
}

// pauseAfter is the pause-after flag of every client: tmux discards a
// pane's queued output for a client that is this many seconds behind,
// instead of letting its memory grow or dropping the client at 300 s.
const pauseAfter = "pause-after=5"

// startClient starts a control client attached to session target ("" for
// tmux's choice). Its notifications go to handle with the client's source
// number; a %pause is answered by resuming the pane on the same client.
func (l *link) startClient(ctx context.Context, target string, handle func(src uint64, conn *clientRef, n controlmode.Notification)) (*clientRef, error) {
	cmd := []string{"attach-session", "-f", pauseAfter}
	if target != "" {
		cmd = append(cmd, "-t", target)
	}
	src := l.srcSeq.Add(1)
	ref := &clientRef{src: src} // src is fixed from here: read without the lock
	argv, err := l.clients.prepare(ctx, cmd)
	if err != nil {
		return nil, err
	}
	// Attaching holds the gate alone: see Server.gate.
	l.gate.Lock()
	defer l.gate.Unlock()
	c, err := l.clients.start(ctx, argv, cmd, func(n controlmode.Notification) { handle(src, ref, n) })
	if err != nil {
		return nil, err
	}
	l.clients.supervise(c, l.spawn)
	ref.setConn(c)
	return ref, nil
}

// onMainNotification handles the main clients' notifications. It runs on
// the client's reader goroutine. Each client keeps its own session: one
// that is still attaching, or one that has ended, must not move the
// current client's; dial installs a new client with its own.
func (l *link) onMainNotification(src uint64, ref *clientRef, n controlmode.Notification) {
	if sc, ok := n.(controlmode.SessionChanged); ok {
		ref.setSession(sc.Session)
		l.mu.Lock()
		if l.status == linkLive && l.src == src {
			l.attached = sc.Session
		}
		l.mu.Unlock()
	}
	l.ev.note(src, ref, n)
}

// reconnectAfterEnd waits for main client c, whose source number is src,
// to end, forgets it and connects again.
func (l *link) reconnectAfterEnd(c *controlmode.Conn, src uint64) {
	defer l.wg.Done()
	select {
	case <-c.Done():
	case <-l.stop:
		return
	}
	l.log.Info("tmux control client ended", "socket", l.name, "err", c.Err())
	l.ended(c, src)
	var ee *controlmode.ExitError
	if errors.As(c.Err(), &ee) && ee.Reason == "server exited unexpectedly" {
		// The server is gone. Probing for a new one now could attach to a
		// server still starting and, seeing no session, make it exit: the
		// next call connects instead.
		return
	}
	l.reconnect()
}

// ended forgets main client c, whose source number is src, once it has
// ended. By then a new client may be current: only c's own streams are
// ended, never the new one's (the source number is c's, not the current
// one).
func (l *link) ended(c *controlmode.Conn, src uint64) {
	l.dropIfCurrent(c)
	l.ev.sourceEnded(src)
}

// dropIfCurrent drops main client c, which has ended, if it is still the
// current one, and with it the model that client kept current.
func (l *link) dropIfCurrent(c *controlmode.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c != nil && l.status == linkLive && l.conn == c {
		l.dropLocked()
	}
}

// dropLocked drops the installed main client. l.mu is held.
func (l *link) dropLocked() {
	l.status, l.conn, l.attached = linkIdle, nil, ""
	l.ev.dropped()
}

// reconnect tries to connect again with growing pauses, and gives up when
// the server is gone or the attempts run out: the next call tries again.
func (l *link) reconnect() {
	for _, d := range reconnectDelays {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-l.stop:
			t.Stop()
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
		_, err := l.connect(ctx)
		cancel()
		if err == nil || noServer(err) {
			return
		}
		l.log.Debug("reconnect failed", "socket", l.name, "err", err)
	}
}

// waitEnded waits until c has ended, ctx is done or settleTimeout passed.
// An ended c is dropped at once, as its reconnectAfterEnd drops it a
// moment later, and a background resync that was still using it is waited
// out: until then, the next call could be handed the dead client, or share
// that resync's failure, and answer [KindConnLost].
func (l *link) waitEnded(ctx context.Context, c *controlmode.Conn) {
	t := time.NewTimer(settleTimeout)
	defer t.Stop()
	select {
	case <-c.Done():
	case <-ctx.Done():
	case <-t.C:
	}
	if c.Err() == nil {
		return
	}
	l.dropIfCurrent(c)
	l.ev.resynced()
}

// settle returns once the main client has either survived or ended after
// a command that may have destroyed the session it is attached to. tmux
// answers the whole line before it ends such a client, so without this a
// call made right after could be sent to a client that is about to exit
// and fail with [KindConnLost]. It costs one round trip.
func (l *link) settle(ctx context.Context) {
	c := l.current()
	if c == nil {
		return
	}
	// A client whose session was destroyed has none left: it is exiting.
	rs, err := l.ev.send(ctx, c, controlmode.NewCommand("display-message", "-p", "#{client_session}"))
	if err == nil && len(rs[0].Lines) == 1 && rs[0].Lines[0] != "" {
		return
	}
	l.waitEnded(ctx, c)
}

// leave moves the main client to another session when it is attached to
// session id, so that destroying id leaves the client connected instead of
// ending it. An ended client would have to reconnect, and every new control
// client is a risk: tmux 3.3a can crash when another client creates a
// session while a control client is still identifying itself. It prefers a
// session this process owns. It does nothing when the client is elsewhere,
// or when id is the only session (the server ends with it). A failure is
// not reported: the client then ends and reconnects, as it would have
// anyway.
func (l *link) leave(ctx context.Context, id string) {
	l.mu.Lock()
	attached, c, gen := l.attached, l.currentLocked(), l.gen
	l.mu.Unlock()
	if attached == "" || attached != id || c == nil {
		return
	}
	// A fresh list, on the client itself: another client's new session
	// will do.
	rs, err := l.ev.send(ctx, c, controlmode.NewCommand("list-sessions", "-F", "#{session_id}"))
	if err != nil {
		return
	}
	owned := l.ev.owned(gen)
	other := ""
	for _, x := range rs[0].Lines {
		if x != id && (other == "" || slices.Contains(owned, x)) {
			other = x
		}
	}
	if other == "" {
		return
	}
	_, _ = l.ev.send(ctx, c, controlmode.NewCommand("switch-client", "-t", other)) // Best effort, see above.
}

// leaveIfLast is leave for an operation that removes window id or pane id
// from its session (kill-window, kill-pane, move-window to another
// session): the session ends with its last one. Only an id (@N, %N) is
// recognised; for anything else settle catches a client that ends.
func (l *link) leaveIfLast(ctx context.Context, id string) {
	l.mu.Lock()
	attached, c := l.attached, l.currentLocked()
	l.mu.Unlock()
	if attached == "" || c == nil {
		return
	}
	list := controlmode.NewCommand("list-windows", "-t", attached, "-F", "#{window_id}")
	if isPaneID(id) {
		list = controlmode.NewCommand("list-panes", "-s", "-t", attached, "-F", "#{pane_id}")
	}
	rs, err := l.ev.send(ctx, c, list)
	if err == nil && len(rs[0].Lines) == 1 && rs[0].Lines[0] == id {
		l.leave(ctx, attached)
	}
}
