package session

import (
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Options configure a [Manager]. The zero value uses the "tmux" on PATH and
// the servers' own configuration.
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
	// Logger receives connection events. Nil discards.
	Logger *slog.Logger
	// Host is where the tmux servers run, and Tmux, ConfigFile and the
	// sockets name things there. Nil means this machine; see [NewSSH].
	// The caller closes it after the Manager.
	Host Host
}

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
// itself, or the name in ${TMUX_TMPDIR:-/tmp}/tmux-UID/.
func (s Socket) File() string {
	if s.Path != "" {
		return s.Path
	}
	dir := os.Getenv("TMUX_TMPDIR")
	if dir == "" {
		dir = "/tmp"
	}
	name := s.Name
	if name == "" {
		name = "default"
	}
	return filepath.Join(dir, "tmux-"+strconv.Itoa(os.Getuid()), name)
}

// listening reports whether a server accepts connections on the socket.
// It asks the socket itself: running a tmux client to find out would start
// a server (attach-session starts one to report "no sessions"), and that
// server, exiting at once, can take down a server another client is
// starting on the same socket.
func (s Socket) listening() bool {
	c, err := net.DialTimeout("unix", s.File(), time.Second)
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
	if m.opts.Logger == nil {
		m.opts.Logger = slog.New(slog.DiscardHandler)
	}
	return m
}

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
