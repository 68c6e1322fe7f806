package session

import (
	"context"
	"errors"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/crashgate"
	"github.com/tmux-mcp/tmux-mcp/session/internal/engine"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
	"github.com/tmux-mcp/tmux-mcp/session/internal/recording"
	"golang.org/x/sync/singleflight"
)

// Server is one tmux server, reached through one control-mode client that
// it starts on first use and restarts when it ends.
type Server struct {
	opts  *Options
	sock  Socket
	fmts  formats
	model model
	owned owned
	group singleflight.Group
	kick  chan struct{} // wakes the resync loop; capacity 1

	link      *link          // the control clients: the only owner of their state
	shots     *oneShots      // the one-shot tmux processes
	streams   panestream.Set // pane output, from every client of this Server
	listeners listeners      // subscribers to changes
	keys      keyGuards      // what send-keys must refuse (modes.go)

	// gate keeps apart what crashes tmux when it meets in one turn of its
	// loop: a client of ours still attaching and any notification, a
	// killed session and a notification queued about it (docs/internals.md).
	// Attaches and commands that can end a session hold it alone; other
	// commands that can change tmux, and client closes, share it; reads
	// queue no notification and pass.
	gate *crashgate.Gate

	// The pane-following engine (internal/engine): the waits,
	// run_command and its follower, key presses, capture_since and the
	// grid reads. It reaches tmux only through this Server, as its host
	// (engineHost).
	*engine.Engine

	// The recordings of panes (internal/recording), which reach tmux
	// only through this Server, as their host (recordingHost).
	*recording.Recordings
}

func newServer(opts *Options, sock Socket) *Server {
	s := &Server{
		opts: opts,
		sock: sock,
		fmts: newFormats(),
		kick: make(chan struct{}, 1),
		gate: crashgate.New(gateDir(opts, sock), &crashgate.Options{Wait: opts.gateWait}),
	}
	s.Engine = engine.New(engineHost{s}, opts.Logger)
	s.keys = keyGuards{host: serverGuards{s}, log: opts.Logger, sock: sock.String()}
	s.Recordings = recording.New(recordingHost{engineHost{s}}, opts.Logger)
	s.shots = &oneShots{opts: opts, sock: sock, gate: s.gate}
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
	s.Engine.Close() // before the link: a follower may be asking tmux
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
	leave := enter(s.gate, h)
	rs, err := c.Exec(ctx, cmds...)
	leave()
	noteExec(ctx, cmds, rs, err)
	s.release().Normalize(cmds, rs)
	return rs, lineError(cmds, rs, err)
}

// enter takes gate g as h says and returns what lets it go.
func enter(g *crashgate.Gate, h gateHold) (leave func()) {
	switch h {
	case loneHold:
		g.Lock()
		return g.Unlock
	case sharedHold:
		g.RLock()
		return g.RUnlock
	}
	return func() {}
}

// Generation returns the generation of the server the client is attached
// to, "" before the first connect.
func (s *Server) Generation() string { return s.link.generation() }

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
	st.Forked = s.shots.forked.Load()
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

// procEnv returns the environment for a process started with env (an
// [Options.Env]): nil, this process's, stays nil for os/exec to fill in.
func procEnv(env []string) []string {
	if env == nil {
		return nil
	}
	return controlmode.Unnested(env)
}
