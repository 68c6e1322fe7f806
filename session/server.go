package session

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/crashgate"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
	"golang.org/x/sync/singleflight"
)

// connectTimeout bounds one attempt to start the control client.
const connectTimeout = 10 * time.Second

// gateWait bounds the gate's wait for another process's hold; zero is
// crashgate's default. Tests shorten it.
var gateWait time.Duration

// reconnectDelays are the pauses between attempts to reconnect after the
// control client ended by itself; after the last, the next call retries.
var reconnectDelays = []time.Duration{0, 10 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second}

// Server is one tmux server, reached through one control-mode client that
// it starts on first use and restarts when it ends.
type Server struct {
	opts   *Options
	sock   Socket
	fmts   formats
	model  model
	owned  owned
	group  singleflight.Group
	kick   chan struct{} // wakes the resync loop; capacity 1
	stop   chan struct{} // closed by Close
	wg     sync.WaitGroup
	dials  atomic.Uint64 // successful connects, for tests and the README's figures
	forked atomic.Uint64 // one-shot tmux processes run
	srcSeq atomic.Uint64 // numbers the control clients, as sources of output

	streams   panestream.Set // pane output, from every client of this Server
	listeners listeners      // subscribers to changes

	// gate keeps apart what crashes tmux when it meets in one turn of its
	// loop: a client of ours still attaching and any notification, a
	// killed session and a notification queued about it (docs/internals.md).
	// Attaches and commands that can end a session hold it alone; other
	// commands that can change tmux, and client closes, share it; reads
	// queue no notification and pass.
	gate *crashgate.Gate

	mu       sync.Mutex // guards the fields below
	conn     *controlmode.Conn
	gen      string        // generation of the server conn is attached to
	rel      release       // what that server's tmux release does
	attached string        // session id the client is attached to
	dialing  chan struct{} // non-nil while a connect is under way; closed when it ends
	dialErr  error         // the outcome of the last connect
	closed   bool
	watchers map[string]*watcher // extra clients attached to other sessions, by session id
	mainSrc  uint64              // source number of conn
}

func newServer(opts *Options, sock Socket) *Server {
	// Remotely, or with no socket directory known, there is no directory
	// of ours to lock: the gate holds this process only.
	var gateDir string
	if file := sock.File(opts.SocketDir); file != "" && (opts.Host == nil || !opts.Host.remote()) {
		gateDir = filepath.Dir(file)
	}
	s := &Server{
		opts: opts,
		sock: sock,
		fmts: newFormats(),
		kick: make(chan struct{}, 1),
		stop: make(chan struct{}),
		gate: crashgate.New(gateDir, &crashgate.Options{Wait: gateWait}),
	}
	s.model.reset()
	s.wg.Add(1)
	go s.resyncLoop()
	return s
}

// Socket returns the socket this Server talks to.
func (s *Server) Socket() Socket { return s.sock }

// SocketFile returns the path of the server's socket on this machine (see
// [Socket.File]): "" for a named socket when [Options.SocketDir] is unset.
func (s *Server) SocketFile() string { return s.sock.File(s.opts.SocketDir) }

// Close ends the control client and every goroutine of the Server. Sessions
// are left as they are.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.stop)
	dialing := s.dialing
	s.mu.Unlock()
	if dialing != nil {
		<-dialing
	}
	s.mu.Lock()
	c := s.conn
	s.conn = nil
	s.mu.Unlock()
	if c != nil {
		s.closeClient(c)
	}
	s.wg.Wait()
	s.gate.Close()
	return nil
}

// send runs cmds on c, through the gate (see Server.gate), and records what
// they did for WatchEffects. Every command this Server sends goes through
// it.
func (s *Server) send(ctx context.Context, c *controlmode.Conn, cmds ...controlmode.Command) ([]controlmode.Reply, error) {
	h := noHold
	for _, cmd := range cmds {
		h = max(h, holdFor(cmd.Name()))
	}
	leave := s.enter(h)
	rs, err := c.Exec(ctx, cmds...)
	leave()
	noteExec(ctx, cmds, rs, err)
	s.release().normalize(cmds, rs)
	return rs, err
}

// gateHold is how a command takes the gate; a line takes it as its most
// demanding command does.
type gateHold int

const (
	noHold     gateHold = iota // a read: tmux notifies no one
	sharedHold                 // a command that can change tmux
	loneHold                   // a command that can end a session
)

func holdFor(name string) gateHold {
	switch {
	case destroysSessions[name]:
		return loneHold
	case readOnlyCommands[name]:
		return noHold
	}
	return sharedHold
}

// enter takes the gate as h says and returns what lets it go.
func (s *Server) enter(h gateHold) (leave func()) {
	switch h {
	case loneHold:
		s.gate.Lock()
		return s.gate.Unlock
	case sharedHold:
		s.gate.RLock()
		return s.gate.RUnlock
	}
	return func() {}
}

// destroysSessions names the commands that can end a session: by name, or
// by taking its last window or pane away (break-pane of a window's only
// pane moves the window out).
var destroysSessions = map[string]bool{
	"kill-session": true, "kill-server": true, "kill-window": true, "kill-pane": true,
	"unlink-window": true, "move-window": true, "join-pane": true, "move-pane": true,
	"break-pane": true,
}

// closeClient detaches c when no client of ours is attaching: tmux tells
// every control client that one detached (see startClient).
func (s *Server) closeClient(c *controlmode.Conn) {
	s.gate.RLock()
	defer s.gate.RUnlock()
	s.closeConn(c)
}

// Generation returns the generation of the server the client is attached
// to, "" before the first connect.
func (s *Server) Generation() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// Version returns the tmux version of the server, "" before the first
// connect.
func (s *Server) Version() string {
	return s.release().version
}

// release returns what the tmux release of the server does; before the
// first connect, that of the newest release. Replies are read with it;
// commands whose form depends on it are built with [Server.connectedRelease].
func (s *Server) release() release {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rel.version == "" {
		return releaseOf("")
	}
	return s.rel
}

// connectedRelease connects if need be and returns the server's release.
func (s *Server) connectedRelease(ctx context.Context) (release, error) {
	if _, err := s.connect(ctx); err != nil {
		return release{}, err
	}
	return s.release(), nil
}

// ConnStats describes the control client, for tests and diagnostics.
type ConnStats struct {
	Connected bool
	Pid       int    // the control client's process id
	Attached  string // the session it is attached to
	Dials     uint64 // successful connects so far
	Forked    uint64 // one-shot tmux processes run so far
	controlmode.Stats
}

// ConnStats returns the control client's state.
func (s *Server) ConnStats() ConnStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := ConnStats{Attached: s.attached, Dials: s.dials.Load(), Forked: s.forked.Load()}
	if s.conn != nil && s.conn.Err() == nil {
		st.Connected, st.Pid, st.Stats = true, s.conn.Pid(), s.conn.Stats()
	}
	return st
}

// errNoServer and errNoSessions are the two ways a server can have nothing
// to attach to. Reads answer them with empty results.
var (
	errNoServer   = errors.New("no tmux server is running on this socket")
	errNoSessions = errors.New("the tmux server has no sessions")
)

// noServer reports whether err says there is nothing to attach to.
func noServer(err error) bool {
	return errors.Is(err, errNoServer) || errors.Is(err, errNoSessions)
}

// connect returns the live control client, starting one if needed. Callers
// share one attempt; a caller's ctx bounds only its own wait.
func (s *Server) connect(ctx context.Context) (*controlmode.Conn, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errorf(KindNoServer, false, "the session layer is closed")
	}
	if s.conn != nil && s.conn.Err() == nil {
		c := s.conn
		s.mu.Unlock()
		return c, nil
	}
	if s.dialing == nil {
		s.dialing = make(chan struct{})
		go s.dial(s.dialing)
	}
	dialing := s.dialing
	s.mu.Unlock()

	select {
	case <-dialing:
	case <-ctx.Done():
		return nil, fromExec(ctx.Err())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		return s.conn, nil
	}
	return nil, s.dialErr
}

// dial starts a control client and reads the server's generation and
// state in one round trip. It closes done when it is finished.
func (s *Server) dial(done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	c, src, gen, version, err := s.start(ctx)
	s.mu.Lock()
	if err == nil && s.closed {
		s.mu.Unlock()
		s.closeClient(c)
		s.mu.Lock()
		err = errorf(KindNoServer, false, "the session layer is closed")
	}
	defer func() {
		s.dialing = nil
		s.mu.Unlock()
		close(done)
	}()
	s.dialErr = err
	if err != nil {
		return
	}
	if gen != s.gen {
		s.owned.keep(gen)
	}
	// The connection's fields change together, under mu: whoever reads
	// conn reads its source number, generation and release with it.
	s.conn, s.mainSrc, s.gen, s.rel = c, src, gen, releaseOf(version)
	s.dials.Add(1)
	s.wg.Add(1)
	go s.watch(c, src)
}

// start runs the control client, attached to a session this process owns
// if there is one, else to the one tmux picks, and returns it with its
// source number, the server's generation and its version.
func (s *Server) start(ctx context.Context) (c *controlmode.Conn, src uint64, gen, version string, err error) {
	s.mu.Lock()
	targets := s.owned.list(s.gen)
	s.mu.Unlock()
	if err := s.preflight(); err != nil {
		return nil, 0, "", "", err
	}
	var ref *clientRef
	for _, t := range append(targets, "") {
		ref, err = s.startClient(ctx, t, s.onNotification)
		if err == nil {
			break
		}
	}
	if err != nil {
		return nil, 0, "", "", s.startError(err)
	}
	c = ref.conn()
	s.holdPrompt(ctx, c) // before any call can send keys: see modes.go
	// The generation, the version and the whole model in one round trip.
	_, epoch := s.model.needsSync()
	cmds := append([]controlmode.Command{
		controlmode.NewCommand("display-message", "-p", "#{pid}:#{start_time}"),
		controlmode.NewCommand("display-message", "-p", "#{version}"),
	}, s.fmts.listCommands()...)
	rs, err := s.send(ctx, c, cmds...)
	if err != nil || len(rs[0].Lines) != 1 || len(rs[1].Lines) != 1 {
		s.closeClient(c)
		if err == nil {
			err = errors.New("unexpected reply to the generation query")
		}
		return nil, 0, "", "", &Error{Kind: KindNoServer, Msg: "reading the tmux server's state: " + err.Error(), Err: err}
	}
	gen = rs[0].Lines[0]
	s.installSync(epoch, gen, releaseOf(rs[1].Lines[0]), rs[2:])
	return c, ref.src, gen, rs[1].Lines[0], nil
}

// pauseAfter is the pause-after flag of every client: tmux discards a
// pane's queued output for a client that is this many seconds behind,
// instead of letting its memory grow or dropping the client at 300 s.
const pauseAfter = "pause-after=5"

// startClient starts a control client attached to session target ("" for
// tmux's choice). Its notifications go to handle with the client's source
// number; a %pause is answered by resuming the pane on the same client.
func (s *Server) startClient(ctx context.Context, target string, handle func(src uint64, conn *clientRef, n controlmode.Notification)) (*clientRef, error) {
	cmd := []string{"attach-session", "-f", pauseAfter}
	if target != "" {
		cmd = append(cmd, "-t", target)
	}
	src := s.srcSeq.Add(1)
	ref := &clientRef{}
	// Attaching holds the gate alone: see Server.gate.
	argv, err := s.controlArgv(ctx, cmd)
	if err != nil {
		return nil, err
	}
	s.gate.Lock()
	defer s.gate.Unlock()
	c, err := s.openClient(ctx, &controlmode.Options{
		Argv:           argv,
		Tmux:           s.opts.Tmux,
		Socket:         s.sock.Name,
		SocketPath:     s.sock.Path,
		Command:        cmd,
		OnNotification: func(n controlmode.Notification) { handle(src, ref, n) },
		NoStartServer:  true,
		Logger:         s.opts.Logger,
		Pipes:          s.opts.Pipes,
		ReplyTimeout:   s.opts.ReplyDeadline,
		Env:            s.opts.Env,
	})
	if err != nil {
		return nil, err
	}
	s.watchSSHClient(c)
	ref.setConn(c, src)
	return ref, nil
}

// startError explains why the control client could not start.
func (s *Server) startError(err error) error {
	var ee *exec.Error
	var e *Error
	msg := err.Error()
	switch {
	case errors.As(err, &e):
		return e // the host's own answer: ssh could not connect
	case errors.As(err, &ee) || strings.Contains(msg, "executable file not found"):
		return s.noBinary(err)
	case strings.Contains(msg, "no server running") || strings.Contains(msg, "error connecting to") ||
		strings.Contains(msg, "server exited unexpectedly") || strings.Contains(msg, "lost server"):
		// The last two: a server was there and went away while the client
		// attached (after kill-server, say). It is gone all the same.
		return &Error{Kind: KindNoServer, Msg: "no tmux server is running on socket " + s.sock.String(), Err: errNoServer}
	case strings.Contains(msg, "no sessions"):
		return &Error{Kind: KindNoServer, Msg: "the tmux server on socket " + s.sock.String() + " has no sessions", Err: errNoSessions}
	}
	return &Error{Kind: KindNoServer, Msg: "cannot attach to the tmux server on socket " + s.sock.String() + ": " + msg, Err: err}
}

// watch waits for the control client to end, forgets it and reconnects.
func (s *Server) watch(c *controlmode.Conn, src uint64) {
	defer s.wg.Done()
	select {
	case <-c.Done():
	case <-s.stop:
		return
	}
	s.opts.Logger.Info("tmux control client ended", "socket", s.sock.String(), "err", c.Err())
	s.forget(c, src)
	var ee *controlmode.ExitError
	if errors.As(c.Err(), &ee) && ee.Reason == "server exited unexpectedly" {
		// The server is gone. Probing for a new one now could attach to a
		// server still starting and, seeing no session, make it exit: the
		// next call connects instead.
		return
	}
	s.reconnect()
}

// forget drops client c, whose source number is src, once it has ended.
// By then a new client may be connected: only c's own streams are ended,
// never the new one's (the source number is c's, not the current one).
func (s *Server) forget(c *controlmode.Conn, src uint64) {
	s.mu.Lock()
	if s.conn == c {
		s.conn = nil
		s.attached = ""
		s.model.reset()
	}
	s.mu.Unlock()
	s.streams.SourceEnded(src)
}

// reconnect tries to connect again with growing pauses, and gives up when
// the server is gone or the attempts run out: the next call tries again.
func (s *Server) reconnect() {
	for _, d := range reconnectDelays {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-s.stop:
			t.Stop()
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
		_, err := s.connect(ctx)
		cancel()
		if err == nil || noServer(err) {
			return
		}
		s.opts.Logger.Debug("reconnect failed", "socket", s.sock.String(), "err", err)
	}
}

// onNotification handles the main client's notifications. It runs on
// that client's reader goroutine.
func (s *Server) onNotification(src uint64, ref *clientRef, n controlmode.Notification) {
	if sc, ok := n.(controlmode.SessionChanged); ok {
		s.mu.Lock()
		s.attached = sc.Session
		s.mu.Unlock()
	}
	s.onNotice(src, ref, n)
}

// onNotice is what every client's notification does: output to the
// streams, structure to the model (and a resync soon), both to listeners.
func (s *Server) onNotice(src uint64, ref *clientRef, n controlmode.Notification) {
	s.onOutput(src, ref, n)
	structural := s.model.apply(n)
	s.notifyChange(n, structural)
	if structural {
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
}

// resyncLoop resyncs the model in the background soon after structural
// notifications, so that reads find it clean.
func (s *Server) resyncLoop() {
	defer s.wg.Done()
	for {
		select {
		case <-s.kick:
		case <-s.stop:
			return
		}
		t := time.NewTimer(s.opts.ResyncDelay)
		select {
		case <-t.C:
		case <-s.stop:
			t.Stop()
			return
		}
		s.mu.Lock()
		live := s.conn != nil
		s.mu.Unlock()
		if !live {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
		if err := s.sync(ctx); err != nil {
			s.opts.Logger.Debug("background resync failed", "socket", s.sock.String(), "err", err)
		}
		cancel()
	}
}

// sync brings the model up to date if it is dirty, in one round trip.
// Concurrent callers share a resync, which runs detached from each of
// them; each waits for it on its own context.
func (s *Server) sync(ctx context.Context) error {
	for range 3 {
		if need, _ := s.model.needsSync(); !need {
			return nil
		}
		flight := s.group.DoChan("sync", func() (any, error) {
			// Detached from every caller: callers share this resync, and
			// one caller's cancellation must not fail the others. The
			// liveness deadline bounds a stuck client; this, the rest.
			ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
			defer cancel()
			need, epoch := s.model.needsSync()
			if !need {
				return nil, nil
			}
			c, err := s.connect(ctx)
			if err != nil {
				return nil, err
			}
			rs, err := s.send(ctx, c, s.fmts.listCommands()...)
			if err != nil {
				return nil, fromExec(err)
			}
			s.installSync(epoch, s.Generation(), s.release(), rs)
			return nil, nil
		})
		var err error
		select {
		case r := <-flight:
			err = r.Err
		case <-ctx.Done():
			// This caller's own end: the resync goes on for the others,
			// and it only reads, so this call changed nothing.
			err := fromExec(ctx.Err())
			if e, ok := err.(*Error); ok {
				e.Written = false
			}
			return err
		}
		var e *Error
		if errors.As(err, &e) && e.Kind == KindConnLost && !errors.Is(err, controlmode.ErrUnresponsive) {
			// A resync only reads: if the client ended under it (its
			// session killed, say), read again on the next one.
			continue
		}
		if errors.Is(err, controlmode.ErrUnresponsive) {
			return unresponsive(err, s.fmts.listCommands()) // it only read
		}
		if err != nil {
			return err
		}
		// A resync already under way when this call came may predate the
		// change this call must see: go round until one covers it.
	}
	// Still changing after three: answer with the newest picture rather
	// than chase a server in constant churn.
	return nil
}

// installSync parses the replies to listCommands into the model.
func (s *Server) installSync(epoch uint64, gen string, rel release, rs []controlmode.Reply) {
	sessions, _ := s.fmts.sessions.Parse(rel.decodeText, rs[0].Lines)
	windows, _ := s.fmts.windows.Parse(rel.decodeText, rs[1].Lines)
	panes, _ := s.fmts.panes.Parse(rel.decodeText, rs[2].Lines)
	for i := range sessions {
		sessions[i].Generation = gen
	}
	live := make(map[string]bool, len(panes))
	for _, p := range panes {
		live[p.ID] = true
	}
	s.model.replace(epoch, sessions, windows, panes) // the model owns the slices from here
	s.streams.Retain(live)
}

// exec runs cmds as one line over the control client.
func (s *Server) exec(ctx context.Context, cmds ...controlmode.Command) ([]controlmode.Reply, error) {
	for _, c := range cmds {
		if err := c.Err(); err != nil {
			return nil, fromExec(err)
		}
	}
	for attempt := 0; ; attempt++ {
		c, err := s.connect(ctx)
		if err != nil {
			return nil, err
		}
		rs, err := s.send(ctx, c, cmds...)
		if errors.Is(err, controlmode.ErrUnresponsive) {
			// Not sent again: the next client would meet the same stuck
			// tmux, and the caller can tell better when to try again.
			return rs, unresponsive(err, cmds)
		}
		if (errors.Is(err, controlmode.ErrNotSent) || errors.Is(err, controlmode.ErrClosed) && readOnly(cmds)) && attempt < 2 {
			// The client was ending (its session killed, it was detached)
			// and tmux never saw these commands, or saw only reads: send
			// them again on the next client.
			select {
			case <-c.Done():
			case <-ctx.Done():
				return nil, fromExec(ctx.Err())
			}
			continue
		}
		return rs, fromExec(err)
	}
}

// unresponsive is the error of cmds that a stuck client failed: a line
// of reads changed nothing, whether or not tmux saw it.
func unresponsive(err error, cmds []controlmode.Command) error {
	e := fromExec(err).(*Error)
	if readOnly(cmds) {
		e.Written = false
		e.Msg = unresponsiveMsg + "the call only reads: try it again"
	}
	return e
}

// readOnlyCommands change nothing in tmux, so a line of them may be sent
// again when the client ends before it is answered.
var readOnlyCommands = map[string]bool{
	"list-sessions": true, "list-windows": true, "list-panes": true, "list-clients": true,
	"list-buffers": true, "capture-pane": true, "display-message": true, "has-session": true,
	"show-options": true, "show-environment": true, "show-hooks": true, "show-buffer": true,
}

func readOnly(cmds []controlmode.Command) bool {
	for _, c := range cmds {
		if !readOnlyCommands[c.Name()] {
			return false
		}
	}
	return true
}

// change is exec for commands that change the server's structure: the
// model is marked dirty whatever the outcome, once tmux may have seen them.
func (s *Server) change(ctx context.Context, cmds ...controlmode.Command) ([]controlmode.Reply, error) {
	rs, err := s.exec(ctx, cmds...)
	if err == nil || Written(err) {
		s.model.markDirty()
	}
	return rs, err
}

// oneShot runs one tmux process with args and returns its output. It is
// the only place that forks tmux, for what the shared channel must not
// carry (blocking commands) or cannot (no session to attach to yet).
func (s *Server) oneShot(ctx context.Context, args ...string) (string, error) {
	out, _, err := s.run(ctx, args...)
	return out, err
}

// run is oneShot that also returns what tmux wrote to stderr.
func (s *Server) run(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	argv := s.sock.args()
	if s.opts.ConfigFile != "" {
		argv = append(argv, "-f", s.opts.ConfigFile)
	}
	cmd, cleanup, err := s.tmuxCommand(ctx, blocking(args), append(argv, args...)...)
	if err != nil {
		return "", "", err
	}
	defer cleanup()
	cmd.Env = procEnv(s.opts.Env)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	s.forked.Add(1)
	// As in send, but for wait-for, which may block for as long as it
	// likes and queues no notification.
	if name := commandName(args); name != "wait-for" {
		defer s.enter(holdFor(name))()
	}
	if err := cmd.Run(); err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			return "", "", s.noBinary(err)
		}
		if ctx.Err() != nil {
			noteRun(ctx, args, true)
			return "", "", fromExec(ctx.Err())
		}
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		noteRun(ctx, args, !notFoundMessage(msg) && !noServerMessage(errors.New(msg)))
		if e := s.hostFailure(err, msg); e != nil {
			return "", msg, e
		}
		kind := KindRefused
		if notFoundMessage(msg) {
			kind = KindNotFound
		}
		return "", msg, &Error{Kind: kind, Msg: msg, Written: true, Err: err}
	}
	noteRun(ctx, args, true)
	return out.String(), strings.TrimSpace(errb.String()), nil
}

// noBinary is the error for a tmux binary that cannot be run.
func (s *Server) noBinary(err error) error {
	return &Error{Kind: KindNoServer, Msg: "cannot run the tmux binary " + strconv.Quote(s.opts.Tmux) + ": " + err.Error(), Remedy: RemedyTmuxPath, Err: err}
}

// procEnv returns the environment for a process started with env (an
// [Options.Env]): nil, this process's, stays nil for os/exec to fill in.
func procEnv(env []string) []string {
	if env == nil {
		return nil
	}
	return controlmode.Unnested(env)
}

// Leave moves the control client to another session when it is attached
// to session id, so that destroying id leaves the client connected instead
// of ending it. An ended client would have to reconnect, and every new
// control client is a risk: tmux 3.3a can crash when another client
// creates a session while a control client is still identifying itself.
// It prefers a session this process owns. It does nothing when the client
// is elsewhere, or when id is the only session (the server ends with it).
// A failure is not reported: the client then ends and reconnects, as it
// would have anyway.
func (s *Server) Leave(ctx context.Context, id string) {
	s.mu.Lock()
	attached, c := s.attached, s.conn
	s.mu.Unlock()
	if attached == "" || attached != id || c == nil || c.Err() != nil {
		return
	}
	s.model.markDirty() // a fresh list: another client's new session will do
	sessions, err := s.Sessions(ctx)
	if err != nil {
		return
	}
	owned := s.owned.list(s.Generation())
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

// leaveIfLast is Leave for an operation that removes window id from its
// session (kill-window, move-window to another session): the session ends
// with its last window.
func (s *Server) leaveIfLast(ctx context.Context, window string) {
	s.mu.Lock()
	attached := s.attached
	s.mu.Unlock()
	if attached == "" {
		return
	}
	rs, err := s.exec(ctx, controlmode.NewCommand("list-windows", "-t", attached, "-F", "#{window_id}"))
	if err == nil && len(rs[0].Lines) == 1 && rs[0].Lines[0] == window {
		s.Leave(ctx, attached)
	}
}
