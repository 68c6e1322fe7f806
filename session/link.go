package session

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/modekeys"
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

// link is a Server's connection to its tmux server: the main control
// client, the watchers attached to other sessions, and every step of their
// lives. It is the only writer of its fields; the rest of the Server asks
// it for the current client.
//
// The main client's life: [link.connect] starts one [link.dial] when no
// client is live, and every caller shares that attempt. dial runs
// [link.start], installs the client and starts [link.reconnectAfterEnd],
// which waits for the client to end, forgets it and connects again.
// Operations that may end the client's session go through [link.leave]
// and [link.settle], so that the client moves away first or is known to be
// gone after. [link.close] ends it all.
type link struct {
	s      *Server        // what the clients serve: the gate, the model, the streams
	stop   chan struct{}  // closed by close
	wg     sync.WaitGroup // what spawn, connect, dial and feed start; close waits for it
	dials  atomic.Uint64  // successful connects, for tests and the README's figures
	srcSeq atomic.Uint64  // numbers the control clients, as sources of output

	mu       sync.Mutex          // guards the fields below
	conn     *controlmode.Conn   // the main client; nil before it connects and once it is dropped
	src      uint64              // conn's source number
	gen      string              // generation of the server conn is attached to
	rel      release             // what that server's tmux release does
	keys     *modekeys.Table     // keys whose copy-mode binding would hold conn; nil where none can
	attached string              // session id the client is attached to
	dialing  chan struct{}       // non-nil while a connect is under way; closed when it ends
	dialErr  error               // the outcome of the last connect
	closed   bool                // set by close; no goroutine is started after it
	watchers map[string]*watcher // extra clients attached to other sessions, by session id
}

func newLink(s *Server) *link {
	return &link{s: s, stop: make(chan struct{})}
}

// errLinkClosed is the error of a call on a closed Server.
func errLinkClosed() error {
	return errorf(KindNoServer, false, "the session layer is closed")
}

// spawn runs f on a goroutine that close waits for. Once the link is
// closed it runs nothing and reports false.
func (l *link) spawn(f func()) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return false
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		f()
	}()
	return true
}

// close ends every client and every goroutine of the link, and reports
// whether this call closed it. Every goroutine is started under mu while
// closed is false, so the Wait below sees all of them; a dial still under
// way closes its own client when it finds the link closed.
func (l *link) close() bool {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return false
	}
	l.closed = true
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

// closeClient detaches c when no client of ours is attaching: tmux tells
// every control client that one detached (see Server.gate).
func (l *link) closeClient(c *controlmode.Conn) {
	l.s.gate.RLock()
	defer l.s.gate.RUnlock()
	l.s.closeConn(c)
}

// current returns the main client if it is live, else nil.
func (l *link) current() *controlmode.Conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil || l.conn.Err() != nil {
		return nil
	}
	return l.conn
}

// live reports whether the main client is up.
func (l *link) live() bool { return l.current() != nil }

// installed reports whether a main client is installed, live or ended but
// not yet dropped.
func (l *link) installed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.conn != nil
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
func (l *link) release() release {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.rel.version == "" {
		return releaseOf("")
	}
	return l.rel
}

// stats returns the main client's part of ConnStats.
func (l *link) stats() ConnStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := ConnStats{Attached: l.attached, Dials: l.dials.Load()}
	if l.conn != nil && l.conn.Err() == nil {
		st.Connected, st.Pid, st.Stats = true, l.conn.Pid(), l.conn.Stats()
	}
	return st
}

// connect returns the live main client, starting one if needed. Callers
// share one attempt; a caller's ctx bounds only its own wait.
func (l *link) connect(ctx context.Context) (*controlmode.Conn, error) {
	for {
		l.mu.Lock()
		if l.closed {
			l.mu.Unlock()
			return nil, errLinkClosed()
		}
		if l.conn != nil && l.conn.Err() == nil {
			c := l.conn
			l.mu.Unlock()
			return c, nil
		}
		if l.dialing == nil {
			l.dialing = make(chan struct{})
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
		if c != nil || err != nil {
			return c, err
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
	ref, gen, version, keys, err := l.start(ctx)
	var c *controlmode.Conn
	if ref != nil {
		c = ref.conn()
	}
	var orphan *controlmode.Conn // a client made for a link closed meanwhile
	l.mu.Lock()
	switch {
	case err != nil:
	case l.closed:
		orphan, err = c, errLinkClosed()
	default:
		if gen != l.gen {
			l.s.owned.keep(gen)
		}
		// The client's fields change together: whoever reads conn reads
		// its source number, generation and release with it.
		l.conn, l.src, l.gen, l.rel, l.keys = c, ref.src, gen, releaseOf(version), keys
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
// there is one, else to the one tmux picks, and returns it with the
// server's generation and its version.
func (l *link) start(ctx context.Context) (ref *clientRef, gen, version string, keys *modekeys.Table, err error) {
	s := l.s
	targets := s.owned.list(l.generation())
	if err := s.preflight(); err != nil {
		return nil, "", "", nil, err
	}
	for _, t := range append(targets, "") {
		ref, err = l.startClient(ctx, t, l.onMainNotification)
		if err == nil {
			break
		}
	}
	if err != nil {
		return nil, "", "", nil, s.startError(err)
	}
	c := ref.conn()
	s.holdPrompt(ctx, c) // before any call can send keys: see modes.go
	// The generation, the version and the whole model in one round trip.
	_, epoch := s.model.needsSync()
	cmds := append([]controlmode.Command{
		controlmode.NewCommand("display-message", "-p", "#{pid}:#{start_time}"),
		controlmode.NewCommand("display-message", "-p", "#{version}"),
	}, s.fmts.listCommands()...)
	rs, err := s.send(ctx, c, cmds...)
	if err != nil || len(rs[0].Lines) != 1 || len(rs[1].Lines) != 1 {
		l.closeClient(c)
		if err == nil {
			err = errors.New("unexpected reply to the generation query")
		}
		return nil, "", "", nil, &Error{Kind: KindNoServer, Msg: "reading the tmux server's state: " + err.Error(), Err: err}
	}
	gen, version = rs[0].Lines[0], rs[1].Lines[0]
	rel := releaseOf(version)
	s.installSync(epoch, gen, rel, rs[2:])
	if rel.bindsPanePrompts() {
		keys = s.readModeKeys(ctx, c)
	}
	return ref, gen, version, keys, nil
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
	// Attaching holds the gate alone: see Server.gate.
	argv, err := l.s.controlArgv(ctx, cmd)
	if err != nil {
		return nil, err
	}
	l.s.gate.Lock()
	defer l.s.gate.Unlock()
	c, err := l.startConn(ctx, argv, cmd, func(n controlmode.Notification) { handle(src, ref, n) })
	if err != nil {
		return nil, err
	}
	l.s.watchSSHClient(c)
	ref.setConn(c)
	return ref, nil
}

// startConn starts one control client running cmd: a tmux process, or
// the fake a test supplies (Options.startConn). It is the only place that
// starts one.
func (l *link) startConn(ctx context.Context, argv, cmd []string, onNote func(controlmode.Notification)) (*controlmode.Conn, error) {
	o := l.s.opts
	co := &controlmode.Options{
		Argv:           argv,
		Env:            o.Env,
		Tmux:           o.Tmux,
		Socket:         l.s.sock.Name,
		SocketPath:     l.s.sock.Path,
		Command:        cmd,
		OnNotification: onNote,
		NoStartServer:  true,
		Logger:         o.Logger,
		Pipes:          o.Pipes,
		ReplyTimeout:   o.ReplyDeadline,
	}
	if o.startConn != nil {
		return o.startConn(ctx, co)
	}
	return controlmode.Start(ctx, co)
}

// onMainNotification handles the main clients' notifications. It runs on
// the client's reader goroutine. Each client keeps its own session: one
// that is still attaching, or one that has ended, must not move the
// current client's; dial installs a new client with its own.
func (l *link) onMainNotification(src uint64, ref *clientRef, n controlmode.Notification) {
	if sc, ok := n.(controlmode.SessionChanged); ok {
		ref.setSession(sc.Session)
		l.mu.Lock()
		if l.conn != nil && l.src == src {
			l.attached = sc.Session
		}
		l.mu.Unlock()
	}
	l.s.onClientNotification(src, ref, n)
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
	l.s.opts.Logger.Info("tmux control client ended", "socket", l.s.sock.String(), "err", c.Err())
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
	l.s.streams.SourceEnded(src)
}

// dropIfCurrent drops main client c, which has ended, if it is still the
// current one, and with it the model that client kept current.
func (l *link) dropIfCurrent(c *controlmode.Conn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c != nil && l.conn == c {
		l.conn = nil
		l.attached = ""
		l.s.model.reset()
	}
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
		l.s.opts.Logger.Debug("reconnect failed", "socket", l.s.sock.String(), "err", err)
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
	// A barrier, not a resync: it joins the resync in flight under the
	// same key, or returns at once.
	_, _, _ = l.s.group.Do("sync", func() (any, error) { return nil, nil })
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
	rs, err := l.s.send(ctx, c, controlmode.NewCommand("display-message", "-p", "#{client_session}"))
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
	attached, c := l.attached, l.conn
	l.mu.Unlock()
	if attached == "" || attached != id || c == nil || c.Err() != nil {
		return
	}
	s := l.s
	s.model.markDirty() // a fresh list: another client's new session will do
	sessions, err := s.Sessions(ctx)
	if err != nil {
		return
	}
	owned := s.owned.list(l.generation())
	other := ""
	for _, x := range sessions {
		if x.ID != id && (other == "" || slices.Contains(owned, x.ID)) {
			other = x.ID
		}
	}
	if other == "" {
		return
	}
	_, _ = s.send(ctx, c, controlmode.NewCommand("switch-client", "-t", other)) // Best effort, see above.
}

// leaveIfLast is leave for an operation that removes window id or pane id
// from its session (kill-window, kill-pane, move-window to another
// session): the session ends with its last one. Only an id (@N, %N) is
// recognised; for anything else settle catches a client that ends.
func (l *link) leaveIfLast(ctx context.Context, id string) {
	l.mu.Lock()
	attached := l.attached
	l.mu.Unlock()
	if attached == "" {
		return
	}
	list := controlmode.NewCommand("list-windows", "-t", attached, "-F", "#{window_id}")
	if isPaneID(id) {
		list = controlmode.NewCommand("list-panes", "-s", "-t", attached, "-F", "#{pane_id}")
	}
	rs, err := l.s.exec(ctx, list)
	if err == nil && len(rs[0].Lines) == 1 && rs[0].Lines[0] == id {
		l.leave(ctx, attached)
	}
}
