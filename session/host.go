package session

import (
	"context"
	"log/slog"
	"os/exec"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// Host is where the tmux servers of a [Manager] run, and so how tmux is run
// there: on this machine ([Options.Host] nil), or on another one through
// ssh ([NewSSH]). Everything that starts a tmux process (the control
// client, its watchers, every one-shot) gets its command line from the
// Host, so no operation assumes that a socket is on this machine.
//
// The methods are unexported: the two kinds of host are this package's.
// A Host is safe for concurrent use.
type Host interface {
	// String names the host in messages: "this machine", "ssh build-box".
	String() string
	// command returns the argv that runs tmux with args on the host,
	// making the host reachable first (for ssh, the shared connection).
	// kind says how the command must end when its local process does.
	command(ctx context.Context, tmux string, args []string, kind commandKind) ([]string, error)
	// lockDir returns the directory that the crash gate of the server
	// whose socket is file ("" if unknown) locks in, with the other
	// processes on this machine; "" when there is none to share (the gate
	// then holds this process only).
	lockDir(file string) string
	// prepareOneShot readies cmd, a one-shot tmux or shell on the host,
	// and returns what to call once it has ended. A blocking one is given
	// what stops it there when its local process ends.
	prepareOneShot(cmd *exec.Cmd, blocking bool) (cleanup func(), err error)
	// failure returns the error of a one-shot that failed with err and
	// stderr msg on the way to the host rather than in tmux, else nil.
	failure(err error, msg string) error
	// listening reports whether a tmux server answers on sock; fork runs
	// a one-shot tmux, for a host whose sockets this process cannot see.
	listening(ctx context.Context, o *Options, sock Socket, fork func(ctx context.Context, args ...string) (string, string, error)) bool
	// spawnArgs is [SpawnArgs.args] with the start directory one of the
	// host's.
	spawnArgs(ctx context.Context, o *Options, a SpawnArgs) ([]string, error)
	// closeClient closes control client c, bounded as the host needs.
	closeClient(c *controlmode.Conn, log *slog.Logger)
	// superviseClient watches what the host runs for control client c,
	// on a goroutine that spawn starts, where the host needs it.
	superviseClient(c *controlmode.Conn, spawn func(func()) bool, log *slog.Logger)
	// path returns the host's form of an output file's path given by the
	// caller, made absolute on the host, once the host says it can be one
	// (see localHost.path).
	path(ctx context.Context, o *Options, p string) (string, error)
	// probeServers is [Manager.ProbeServers] on the host.
	probeServers(ctx context.Context, m *Manager, dir string, extra []string) []ServerStatus
	// preflight checks what can be checked before a control client of
	// the server on sock starts.
	preflight(o *Options, sock Socket) error
	// controlArgv returns the command line of a control client of the
	// server on sock running cmd, for controlmode.Options.Argv; nil lets
	// controlmode build it from the socket flags.
	controlArgv(ctx context.Context, o *Options, sock Socket, cmd []string) ([]string, error)
	// foreground returns the report of what the foreground program of the
	// pane whose process is pid and whose terminal is tty is doing (see
	// internal/foreground).
	foreground(ctx context.Context, o *Options, pid, tty string) (string, error)
	// Close ends what the host keeps open (the ssh connection). Servers
	// of a closed host cannot connect again.
	Close() error
}

// commandKind is what a command run on a host is, which decides what on
// another host ends it once its local process has gone.
type commandKind int

const (
	// oneShot runs and ends by itself.
	oneShot commandKind = iota
	// blockingShot may wait for as long as it likes (wait-for).
	blockingShot
	// controlClient is a tmux -C client, reading commands from its input.
	controlClient
)

// hostOf returns the Host of o: this machine when o names none.
func hostOf(o *Options) Host {
	if o.Host == nil {
		return localHost{}
	}
	return o.Host
}

// gateDir returns the directory the crash gate of the server on sock locks
// in (see Host.lockDir).
func gateDir(o *Options, sock Socket) string {
	return hostOf(o).lockDir(sock.File(o.SocketDir))
}

// host returns the Host the Server's tmux runs on.
func (s *Server) host() Host { return hostOf(s.opts) }
