package session

import (
	"context"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

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
	probe := &oneShots{opts: &m.opts, sock: sock, gate: crashgate.New("", nil)} // list-sessions takes no hold
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
