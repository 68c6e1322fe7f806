package session

import (
	"context"
	"log/slog"
	"net"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// Options configure a [Manager]. The zero value uses the "tmux" on PATH and
// the servers' own configuration, but knows no socket directory: on this
// machine, set SocketDir (cmd sets it, Env and HomeDir from the process).
type Options struct {
	// Tmux is the tmux binary. Empty means "tmux" looked up on PATH.
	Tmux string
	// ConfigFile, when set, is passed as -f to every tmux this package
	// runs; tmux reads it only when that invocation starts the server.
	// Tests use "/dev/null".
	ConfigFile string
	// Pipes runs the control client on pipes instead of a pty (see
	// controlmode.Options.Pipes).
	Pipes bool
	// ResyncDelay is how long a structural notification waits for others
	// before the model is resynced in the background. Zero means 2 ms.
	ResyncDelay time.Duration
	// ReplyDeadline is the liveness deadline of every control client: when
	// tmux leaves the oldest call waiting that long for its reply (a
	// stopped server, or a prompt or menu holding the client), the client
	// is ended and replaced, and the calls in flight fail with
	// [KindConnLost] (see controlmode.Options.ReplyTimeout). Zero means
	// [DefaultReplyDeadline]; a negative value means no deadline.
	ReplyDeadline time.Duration
	// Logger receives connection events. Nil discards.
	Logger *slog.Logger
	// Host is where the tmux servers run, and Tmux, ConfigFile and the
	// sockets name things there. Nil means this machine; see [NewSSH].
	// The caller closes it after the Manager.
	Host Host

	// startConn, when set, starts every control client in place of
	// controlmode.Start, and the preflight checks nothing of this machine:
	// starting the client is the check, as on another host. Only this
	// package's tests set it, to run a Server on a fake tmux.
	startConn func(ctx context.Context, o *controlmode.Options) (*controlmode.Conn, error)
	// gateWait bounds the crash gate's wait for another process's hold;
	// zero is crashgate's default. Only this package's tests set it.
	gateWait time.Duration
	// SocketDir is the directory on this machine of the sockets a [Socket]
	// names by Name (tmux -L), tmux's tmux-UID directory, as [SocketDir]
	// finds it; the crash gate's lock lives there too. This package reads
	// no environment, so the caller says: cmd from TMUX_TMPDIR. Empty
	// means unknown, and a call on a named socket then fails with
	// [KindNoServer] rather than guess a directory tmux may not use.
	SocketDir string
	// Env is the environment of every process this package starts (control
	// clients, one-shot tmux, shells run for a remote host), less TMUX and
	// TMUX_PANE (see controlmode.Unnested). Nil means this process's
	// environment as it is, which os/exec passes on whole (controlmode
	// still drops those two for control clients); cmd sets Env.
	Env []string
	// HomeDir is the directory a start directory of "~" or "~/..." means
	// on this machine. Empty makes such a start directory
	// [KindInvalid].
	HomeDir string
}

// DefaultReplyDeadline is the default [Options.ReplyDeadline]: about a
// hundred times what a 1 MB capture-pane took on a loaded machine (70-140
// ms at a load average of 10 on 2 cores), so a slow reply never trips it.
const DefaultReplyDeadline = 10 * time.Second

// Socket names a tmux server: by socket name (tmux -L) or by path (tmux
// -S), which wins. The zero Socket is the default server.
type Socket struct {
	Name string
	Path string
}

func (s Socket) String() string {
	switch {
	case s.Path != "":
		return s.Path
	case s.Name != "":
		return s.Name
	}
	return "default"
}

// File returns the path of the socket file, as tmux computes it: the path
// itself, or the name in dir, the directory of named sockets (see
// [SocketDir]). It is "" for a named socket when dir is unknown ("").
func (s Socket) File(dir string) string {
	if s.Path != "" {
		return s.Path
	}
	if dir == "" {
		return ""
	}
	name := s.Name
	if name == "" {
		name = "default"
	}
	return filepath.Join(dir, name)
}

// SocketDir returns the directory of the sockets that tmux (3.2 and later)
// names by -L for user uid, as tmux finds it: tmux-UID in tmuxTmpdir (the
// value of TMUX_TMPDIR, "" when unset) if that resolves, else in /tmp,
// with symbolic links resolved, as tmux's realpath(3) does. That matters
// on macOS, where /tmp is a link to /private/tmp and tmux's own
// socket_path and $TMUX say /private/tmp/...; $TMPDIR (macOS's per-user
// directory) plays no part, in tmux or here.
func SocketDir(tmuxTmpdir string, uid int) string {
	base := "/tmp"
	for _, dir := range []string{tmuxTmpdir, "/tmp"} {
		if dir == "" {
			continue
		}
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			if abs, err := filepath.Abs(real); err == nil {
				base = abs
				break
			}
		}
	}
	return filepath.Join(base, "tmux-"+strconv.Itoa(uid))
}

// listening reports whether a server accepts connections on the socket.
// It asks the socket itself: running a tmux client to find out would start
// a server (attach-session starts one to report "no sessions"), and that
// server, exiting at once, can take down a server another client is
// starting on the same socket.
func (s Socket) listening(dir string) bool {
	file := s.File(dir)
	if file == "" {
		return false
	}
	c, err := net.DialTimeout("unix", file, time.Second)
	if err != nil {
		return false
	}
	_ = c.Close() // Best effort: only the connect mattered.
	return true
}

// args returns the tmux flags that select the socket.
func (s Socket) args() []string {
	switch {
	case s.Path != "":
		return []string{"-S", s.Path}
	case s.Name != "":
		return []string{"-L", s.Name}
	}
	return nil
}

// Manager hands out one [Server] per socket, shared by all callers. It is
// independent of any MCP client or transport.
type Manager struct {
	opts Options

	mu      sync.Mutex
	servers map[Socket]*Server
	closed  bool
}

// NewManager returns a Manager. It starts nothing until a Server is used.
func NewManager(opts *Options) *Manager {
	m := &Manager{servers: make(map[Socket]*Server)}
	if opts != nil {
		m.opts = *opts
	}
	if m.opts.Tmux == "" {
		m.opts.Tmux = "tmux"
	}
	if m.opts.ResyncDelay == 0 {
		m.opts.ResyncDelay = 2 * time.Millisecond
	}
	switch {
	case m.opts.ReplyDeadline == 0:
		m.opts.ReplyDeadline = DefaultReplyDeadline
	case m.opts.ReplyDeadline < 0:
		m.opts.ReplyDeadline = 0 // controlmode: no deadline
	}
	if m.opts.Logger == nil {
		m.opts.Logger = slog.New(slog.DiscardHandler)
	}
	return m
}

// SocketDir returns [Options.SocketDir]: where the servers of named
// sockets listen on this machine.
func (m *Manager) SocketDir() string { return m.opts.SocketDir }

// Server returns the Server for sock, creating it on first use. It does no
// I/O: the Server connects when an operation needs it.
func (m *Manager) Server(sock Socket) *Server {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.servers[sock]
	if !ok {
		s = newServer(&m.opts, sock)
		if m.closed {
			s.Close()
		}
		m.servers[sock] = s
	}
	return s
}

// Servers returns the Servers used so far.
func (m *Manager) Servers() []*Server {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Server, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s)
	}
	return out
}

// Close closes every Server. Sessions are left as they are.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	servers := make([]*Server, 0, len(m.servers))
	for _, s := range m.servers {
		servers = append(servers, s)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range servers {
		wg.Go(func() { s.Close() })
	}
	wg.Wait()
	return nil
}
