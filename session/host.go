package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/foreground"
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

// localHost runs tmux on this machine.
type localHost struct{}

var _ Host = localHost{}

func (localHost) String() string { return "this machine" }

func (localHost) command(_ context.Context, tmux string, args []string, _ commandKind) ([]string, error) {
	return append([]string{tmux}, args...), nil
}

// lockDir is the socket's directory: the crash gate locks beside it.
func (localHost) lockDir(file string) string {
	if file == "" {
		return ""
	}
	return filepath.Dir(file)
}

func (localHost) prepareOneShot(*exec.Cmd, bool) (func(), error) { return func() {}, nil }

func (localHost) failure(error, string) error { return nil }

// listening asks the socket itself (see [Socket.listening]).
func (localHost) listening(_ context.Context, o *Options, sock Socket, _ func(context.Context, ...string) (string, string, error)) bool {
	return sock.listening(o.SocketDir)
}

// spawnArgs: "~" is Options.HomeDir, a relative path is this process's.
func (localHost) spawnArgs(_ context.Context, o *Options, a SpawnArgs) ([]string, error) {
	return a.args(o.HomeDir)
}

// closeClient closes c: on this machine Conn.Close is bounded, it kills
// its tmux if tmux does not leave.
func (localHost) closeClient(c *controlmode.Conn, _ *slog.Logger) { c.Close() }

func (localHost) superviseClient(*controlmode.Conn, func(func()) bool, *slog.Logger) {}

// path makes p absolute and checks it can be an output file (pipe-pane's):
// its directory exists, and p is a regular file or nothing yet. A pipe
// into a device, a FIFO, a socket or a directory is refused before tmux is
// asked, so that nothing is truncated or opened but a file.
func (localHost) path(_ context.Context, _ *Options, p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if st, err := os.Stat(filepath.Dir(abs)); err != nil || !st.IsDir() {
		return "", fmt.Errorf("%q: its directory %s does not exist", p, filepath.Dir(abs))
	}
	switch st, err := os.Stat(abs); {
	case err == nil && !st.Mode().IsRegular():
		return "", fmt.Errorf("%q is not a regular file (%s)", p, st.Mode().Type())
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return "", err
	}
	return abs, nil
}

func (localHost) probeServers(ctx context.Context, m *Manager, dir string, extra []string) []ServerStatus {
	return m.probeLocal(ctx, dir, extra)
}

// preflight checks, on this machine, that tmux can be run and a server
// listens on the socket.
func (localHost) preflight(o *Options, sock Socket) error {
	if _, err := exec.LookPath(o.Tmux); err != nil {
		return noBinary(o.Tmux, err)
	}
	if sock.File(o.SocketDir) == "" {
		return &Error{Kind: KindNoServer, Msg: "cannot find socket " + sock.String() + ": no socket directory was configured (session.Options.SocketDir)"}
	}
	if !sock.listening(o.SocketDir) {
		return &Error{Kind: KindNoServer, Msg: "no tmux server is running on socket " + sock.String(), Remedy: RemedyStartServer, Err: errNoServer}
	}
	return nil
}

func (localHost) controlArgv(context.Context, *Options, Socket, []string) ([]string, error) {
	return nil, nil
}

// foreground reads /proc in this process on Linux, and runs the script
// elsewhere.
func (localHost) foreground(ctx context.Context, o *Options, pid, tty string) (string, error) {
	if foreground.ProcReadable() {
		return foreground.ReadProc(pid), nil // "": the process is gone
	}
	return runForegroundScript(ctx, o, append([]string{"sh"}, foreground.Args(pid, tty)...))
}

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

func (localHost) Close() error { return nil }

// host returns the Host the Server's tmux runs on.
func (s *Server) host() Host { return hostOf(s.opts) }

// serverListening reports whether a tmux server answers on the socket
// (see Host.listening).
func (o *oneShots) serverListening(ctx context.Context) bool {
	return o.host().listening(ctx, o.opts, o.sock, o.forkTmux)
}

// tmuxCommand is exec.CommandContext for tmux with args, on the Server's
// host. The caller calls cleanup once the command has ended. A blocking
// command on another host is given an input that stays open until then:
// its end is what stops the command there (see sshHost.command).
func (o *oneShots) tmuxCommand(ctx context.Context, blocking bool, args ...string) (cmd *exec.Cmd, cleanup func(), err error) {
	kind := oneShot
	if blocking {
		kind = blockingShot
	}
	argv, err := o.host().command(ctx, o.opts.Tmux, args, kind)
	if err != nil {
		return nil, nil, err
	}
	cmd = exec.CommandContext(ctx, argv[0], argv[1:]...)
	cleanup, err = o.host().prepareOneShot(cmd, blocking)
	if err != nil {
		return nil, nil, err
	}
	return cmd, cleanup, nil
}
