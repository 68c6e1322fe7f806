package session

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/crashgate"
	"golang.org/x/sync/errgroup"
)

// Bounds of list_servers' probes: a UNIX connect proves a listener, then
// one one-shot list-sessions reads the session count and version.
const (
	probeDialTimeout = 100 * time.Millisecond
	probeTimeout     = 2 * time.Second
	probeParallel    = 8
)

// ServerStatus describes one tmux server as get_server_info and
// list_servers report it.
type ServerStatus struct {
	Socket     Socket // the socket asked about
	SocketPath string // the socket file; "" when not known
	Alive      bool   // a server answers on the socket
	Sessions   int    // number of sessions
	Version    string // the server's tmux version; "" when not known
}

// Status reports on the server. It never starts one: a socket nobody
// listens on is a server that is not alive, which is not an error. When
// the control client is not up yet, a one-shot list-sessions asks first,
// because attaching to an empty socket would start a server. The session
// count is read fresh, not from the model, so that it counts a session
// another client made a moment ago.
func (s *Server) Status(ctx context.Context) (ServerStatus, error) {
	st := ServerStatus{Socket: s.sock, SocketPath: s.sock.Path}
	if !s.link.live() {
		if _, _, err := s.forkTmux(ctx, "-N", "list-sessions", "-F", "#{session_id}"); noServerMessage(err) {
			return st, nil
		}
	}
	switch err := s.sync(ctx); {
	case errors.Is(err, errNoServer):
		return st, nil
	case errors.Is(err, errNoSessions):
		// A server kept alive with exit-empty off: there, but with nothing
		// a control client could attach to.
		st.Alive = true
		return st, nil
	case err != nil:
		return st, err
	}
	rs, err := s.exec(ctx,
		controlmode.NewCommand("display-message", "-p", textField("socket_path")),
		controlmode.NewCommand("list-sessions", "-F", "#{session_id}"))
	if err != nil {
		return st, err
	}
	if len(rs[0].Lines) == 1 && rs[0].Lines[0] != "" {
		st.SocketPath = s.release().decodeText(rs[0].Lines[0])
	}
	st.Alive, st.Sessions, st.Version = true, len(rs[1].Lines), s.Version()
	return st, nil
}

// noServerMessage reports whether err is a one-shot tmux's complaint that
// no server listens on the socket, or that none can start there.
func noServerMessage(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "no server running") || strings.Contains(msg, "error connecting to") ||
		strings.Contains(msg, "error creating ")
}

// KillServer kills the tmux server and every session on it. Over the
// control client it then waits for the client to end, so that the next
// call finds no server rather than a connection in its last moments;
// without one it runs a one-shot kill-server (attaching first would start
// a server on an empty socket). A socket with no server is [KindNotFound].
func (s *Server) KillServer(ctx context.Context) error {
	if !s.link.live() {
		_, _, err := s.forkTmux(ctx, "-N", "kill-server")
		if noServerMessage(err) {
			return errorf(KindNotFound, "no tmux server is running on socket %s", s.sock)
		}
		s.model.markDirty()
		return err
	}
	c, err := s.link.connect(ctx)
	if err != nil {
		return err
	}
	_, err = s.send(ctx, c, controlmode.NewCommand("kill-server"))
	s.model.markDirty()
	// The reply comes before the client's %exit; a connection that ended
	// first still means the server is going.
	if err != nil && !errors.Is(err, controlmode.ErrClosed) {
		return fromExec(err)
	}
	s.link.waitEnded(ctx, c)
	return nil
}

// ProbeServers reports the live tmux servers whose sockets are in dir (as
// socket names, the way tmux -L finds them) or at one of the extra paths,
// in that order, without starting, attaching to or killing any. A socket
// counts only when something accepts a UNIX connect on it: a directory of
// stale sockets costs a failed connect each, not a fork. A live server is
// then asked for its session count and version by one one-shot
// list-sessions, or from the model when this Manager is already connected
// to it. On a remote [Options.Host] dir is ignored: one one-shot shell
// probes the host's own socket directory and the extra paths there.
func (m *Manager) ProbeServers(ctx context.Context, dir string, extra []string) []ServerStatus {
	return hostOf(&m.opts).probeServers(ctx, m, dir, extra)
}

// probeLocal is ProbeServers on this machine.
func (m *Manager) probeLocal(ctx context.Context, dir string, extra []string) []ServerStatus {
	type candidate struct {
		sock Socket
		path string
	}
	var cands []candidate
	seen := make(map[string]bool)
	if dir != "" {
		entries, _ := os.ReadDir(dir) // Best effort: no directory, no servers.
		for _, e := range entries {
			if e.Type()&fs.ModeSocket == 0 {
				continue
			}
			p := filepath.Join(dir, e.Name())
			seen[p] = true
			cands = append(cands, candidate{Socket{Name: e.Name()}, p})
		}
	}
	for _, p := range extra {
		if p == "" {
			continue
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		if st, err := os.Stat(p); err != nil || st.Mode()&fs.ModeSocket == 0 {
			continue
		}
		cands = append(cands, candidate{Socket{Path: p}, p})
	}

	out := make([]*ServerStatus, len(cands))
	var g errgroup.Group
	g.SetLimit(probeParallel)
	for i, c := range cands {
		g.Go(func() error {
			if st, ok := m.probe(ctx, c.sock, c.path); ok {
				out[i] = &st
			}
			return nil
		})
	}
	_ = g.Wait() // the probes report through out, never an error
	var live []ServerStatus
	for _, st := range out {
		if st != nil {
			live = append(live, *st)
		}
	}
	return live
}

// probe reports on the server listening at path, addressed as sock. It
// reports false when nothing listens there.
func (m *Manager) probe(ctx context.Context, sock Socket, path string) (ServerStatus, bool) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	d := net.Dialer{Timeout: probeDialTimeout}
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return ServerStatus{}, false
	}
	_ = conn.Close() // Best effort: it only proved that someone listens.

	st := ServerStatus{Socket: sock, SocketPath: path, Alive: true}
	m.mu.Lock()
	srv := m.servers[sock]
	m.mu.Unlock()
	if srv != nil && srv.link.live() {
		if got, err := srv.Status(ctx); err == nil && got.Alive {
			got.Socket, got.SocketPath = sock, path
			return got, true
		}
	}
	// Not connected to it: ask once, without attaching. list-sessions
	// never starts a server.
	probe := &Server{opts: &m.opts, sock: sock, gate: crashgate.New("", nil)} // list-sessions takes no hold
	out, _, err := probe.forkTmux(ctx, "-N", "list-sessions", "-F", "#{version}")
	if err != nil {
		if noServerMessage(err) {
			return ServerStatus{}, false // it went away since the connect
		}
		// A server of an incompatible tmux, or one with no sessions: it
		// lives, but says no more.
		return st, true
	}
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		if st.Version == "" {
			st.Version = line
		}
		st.Sessions++
	}
	return st, true
}
