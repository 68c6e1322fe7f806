package session

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync/atomic"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/crashgate"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
	"golang.org/x/sync/singleflight"
)

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
	forked atomic.Uint64 // one-shot tmux processes run

	link      *link          // the control clients: the only owner of their state
	streams   panestream.Set // pane output, from every client of this Server
	listeners listeners      // subscribers to changes

	// gate keeps apart what crashes tmux when it meets in one turn of its
	// loop: a client of ours still attaching and any notification, a
	// killed session and a notification queued about it (docs/internals.md).
	// Attaches and commands that can end a session hold it alone; other
	// commands that can change tmux, and client closes, share it; reads
	// queue no notification and pass.
	gate *crashgate.Gate
}

func newServer(opts *Options, sock Socket) *Server {
	s := &Server{
		opts: opts,
		sock: sock,
		fmts: newFormats(),
		kick: make(chan struct{}, 1),
		gate: crashgate.New(gateDir(opts, sock), &crashgate.Options{Wait: opts.gateWait}),
	}
	s.link = newLink(tmuxClients{opts, sock}, s.gate, linkEvents{
		ready:       s.readyClient,
		note:        s.onClientNotification,
		owned:       s.owned.list,
		generation:  s.owned.keep,
		dropped:     s.model.reset,
		sourceEnded: s.streams.SourceEnded,
		resynced: func() {
			// A barrier, not a resync: it joins the resync in flight
			// under the same key, or returns at once.
			_, _, _ = s.group.Do("sync", func() (any, error) { return nil, nil })
		},
		send: s.send,
	}, opts.Logger, sock.String())
	s.model.reset()
	s.link.spawn(s.resyncLoop)
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
	if s.link.close() {
		s.gate.Close()
	}
	return nil
}

// send runs cmds on c, through the gate (see Server.gate), and records what
// they did for WatchEffects. Every command this Server sends goes through
// it, and its error (an *Error) is stamped with what the line did.
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
	return rs, lineError(cmds, rs, err)
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

// Generation returns the generation of the server the client is attached
// to, "" before the first connect.
func (s *Server) Generation() string { return s.link.generation() }

// Version returns the tmux version of the server, "" before the first
// connect.
func (s *Server) Version() string {
	return s.release().version
}

// release returns what the tmux release of the server does; before the
// first connect, that of the newest release. Replies are read with it;
// commands whose form depends on it are built with [Server.connectedRelease].
func (s *Server) release() release { return s.link.release() }

// connectedRelease connects if need be and returns the server's release.
func (s *Server) connectedRelease(ctx context.Context) (release, error) {
	if _, err := s.link.connect(ctx); err != nil {
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
	st := s.link.stats()
	st.Forked = s.forked.Load()
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

// onClientNotification is what every client's notification does: output to the
// streams, structure to the model (and a resync soon), both to listeners.
func (s *Server) onClientNotification(src uint64, ref *clientRef, n controlmode.Notification) {
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

// exec runs cmds as one line over the control client.
func (s *Server) exec(ctx context.Context, cmds ...controlmode.Command) ([]controlmode.Reply, error) {
	for _, c := range cmds {
		if err := c.Err(); err != nil {
			return nil, fromExec(err)
		}
	}
	for attempt := 0; ; attempt++ {
		c, err := s.link.connect(ctx)
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
				return nil, notSent(ctx.Err()) // the attempt before was never sent, or only read
			}
			continue
		}
		return rs, fromExec(err)
	}
}

// unresponsive is the error of cmds that a stuck client failed: a line
// of reads changed nothing, whether or not tmux saw it (send stamped it so).
func unresponsive(err error, cmds []controlmode.Command) error {
	var e *Error
	if errors.As(err, &e) && readOnly(cmds) {
		e.Msg = unresponsiveMsg + "the call only reads: try it again"
	}
	return err
}

// execChange is exec for commands that change the server's structure: the
// model is marked dirty whatever the outcome, once tmux may have seen them.
func (s *Server) execChange(ctx context.Context, cmds ...controlmode.Command) ([]controlmode.Reply, error) {
	rs, err := s.exec(ctx, cmds...)
	if err == nil || Written(err) {
		s.model.markDirty()
	}
	return rs, err
}

// forkTmux runs one tmux process with args and returns its output and
// what it wrote to stderr. It is the only place that forks tmux, for what
// the shared channel must not carry (blocking commands) or cannot (no
// session to attach to yet).
func (s *Server) forkTmux(ctx context.Context, args ...string) (stdout, stderr string, err error) {
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
	defer s.enter(holdFor(commandName(args)))() // as in send

	if err := cmd.Run(); err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			return "", "", noBinary(s.opts.Tmux, err) // nothing ran
		}
		if ctx.Err() != nil {
			return "", "", ranTmux(ctx, args, fromExec(ctx.Err()), true)
		}
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		if e := s.hostFailure(err, msg); e != nil {
			return "", msg, ranTmux(ctx, args, e, true) // it may have run
		}
		if strings.HasPrefix(msg, "error creating ") {
			// No server could start: the socket cannot be made where it
			// must be. 3.8 says so and fails; 3.7 and before say so and
			// exit 0, and the attach after it finds no server.
			e := &Error{Kind: KindNoServer, Msg: "cannot start a tmux server on socket " + s.sock.String() + ": " + msg, Err: errNoServer}
			return "", msg, ranTmux(ctx, args, e, false)
		}
		kind := KindRefused
		if notFoundMessage(msg) {
			kind = KindNotFound
		}
		ran := kind != KindNotFound && !noServerMessage(errors.New(msg))
		return "", msg, ranTmux(ctx, args, &Error{Kind: kind, Msg: msg, Err: err}, ran)
	}
	_ = ranTmux(ctx, args, nil, true)
	return out.String(), strings.TrimSpace(errb.String()), nil
}

// ranTmux records a tmux process run with args, which ran its command or
// not, and stamps its error err with what it did.
func ranTmux(ctx context.Context, args []string, err error, ran bool) error {
	noteRun(ctx, args, ran)
	var e *Error
	if errors.As(err, &e) {
		e.Written = runChanged(args, ran)
	}
	return err
}

// procEnv returns the environment for a process started with env (an
// [Options.Env]): nil, this process's, stays nil for os/exec to fill in.
func procEnv(env []string) []string {
	if env == nil {
		return nil
	}
	return controlmode.Unnested(env)
}
