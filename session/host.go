package session

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

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
	// remote reports whether the host is another machine, whose sockets
	// and files this process cannot see. Only this file and ssh.go ask:
	// everywhere else the host does the work itself.
	remote() bool
	// closeClient closes control client c, bounded as the host needs.
	closeClient(c *controlmode.Conn, log *slog.Logger)
	// superviseClient watches what the host runs for control client c,
	// on a goroutine that spawn starts, where the host needs it.
	superviseClient(c *controlmode.Conn, spawn func(func()) bool, log *slog.Logger)
	// path returns the host's form of a path given by the caller: on this
	// machine made absolute, on another left as given (this process cannot
	// resolve it).
	path(p string) (string, error)
	// probeServers is [Manager.ProbeServers] on the host.
	probeServers(ctx context.Context, m *Manager, dir string, extra []string) []ServerStatus
	// preflight checks what can be checked before a control client of
	// the server on sock starts.
	preflight(o *Options, sock Socket) error
	// controlArgv returns the command line of a control client of the
	// server on sock running cmd, for controlmode.Options.Argv; nil lets
	// controlmode build it from the socket flags.
	controlArgv(ctx context.Context, o *Options, sock Socket, cmd []string) ([]string, error)
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

func (localHost) remote() bool { return false }

// closeClient closes c: on this machine Conn.Close is bounded, it kills
// its tmux if tmux does not leave.
func (localHost) closeClient(c *controlmode.Conn, _ *slog.Logger) { c.Close() }

func (localHost) superviseClient(*controlmode.Conn, func(func()) bool, *slog.Logger) {}

func (localHost) path(p string) (string, error) { return filepath.Abs(p) }

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
		return &Error{Kind: KindNoServer, Msg: "no tmux server is running on socket " + sock.String(), Err: errNoServer}
	}
	return nil
}

func (localHost) controlArgv(context.Context, *Options, Socket, []string) ([]string, error) {
	return nil, nil
}

// hostOf returns the Host of o: this machine when o names none.
func hostOf(o *Options) Host {
	if o.Host == nil {
		return localHost{}
	}
	return o.Host
}

// gateDir returns the directory the crash gate of the server on sock locks
// in: its socket's, on this machine. Remotely, or with no socket directory
// known, there is no directory of ours to lock: the gate holds this
// process only.
func gateDir(o *Options, sock Socket) string {
	file := sock.File(o.SocketDir)
	if file == "" || hostOf(o).remote() {
		return ""
	}
	return filepath.Dir(file)
}

func (localHost) Close() error { return nil }

// host returns the Host the Server's tmux runs on.
func (s *Server) host() Host { return hostOf(s.opts) }

// hostFailure is the error for a one-shot that failed on the way to the
// host rather than in tmux: ssh exits with status 255 when it cannot reach
// the host or loses the connection. The command may have run: the caller
// stamps what that means.
func (o *oneShots) hostFailure(err error, msg string) error {
	var xe *exec.ExitError
	if !o.host().remote() || !errors.As(err, &xe) || xe.ExitCode() != 255 {
		return nil
	}
	return &Error{Kind: KindConnLost, Msg: o.host().String() + ": " + msg, Err: err}
}

// serverListening reports whether a tmux server answers on the socket. On
// this machine it asks the socket itself (see [Socket.listening]); on
// another, a one-shot list-sessions, which never starts a server, asks.
func (o *oneShots) serverListening(ctx context.Context) bool {
	if !o.host().remote() {
		return o.sock.listening(o.opts.SocketDir)
	}
	_, _, err := o.forkTmux(ctx, "-N", "list-sessions", "-F", "#{session_id}")
	return !noServerMessage(err)
}

// spawnArgs is SpawnArgs.args on the host. On another host the
// start directory is one of that host's: a one-shot shell there expands
// it ("~" is its user's home, a relative path is taken from there),
// makes it absolute and checks that it is a directory.
func (o *oneShots) spawnArgs(ctx context.Context, a SpawnArgs) ([]string, error) {
	if a.StartDirectory == "" || !o.host().remote() {
		return a.args(o.opts.HomeDir)
	}
	dir := a.StartDirectory
	switch {
	case dir == "~":
		dir = "."
	case strings.HasPrefix(dir, "~/"):
		dir = "./" + dir[2:]
	}
	argv, err := o.host().command(ctx, "sh", []string{"-c", `cd && cd -- "$1" && pwd`, "sh", dir}, oneShot)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = procEnv(o.opts.Env)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	abs := strings.TrimSuffix(string(out), "\n")
	if err != nil || !strings.HasPrefix(abs, "/") || strings.Contains(abs, "\n") {
		if e := o.hostFailure(err, strings.TrimSpace(stderr.String())); e != nil {
			return nil, e
		}
		return nil, errorf(KindInvalid, "start directory %q is not an existing directory on %s", a.StartDirectory, o.host())
	}
	a.StartDirectory = ""
	rest, err := a.args(o.opts.HomeDir)
	if err != nil {
		return nil, err
	}
	// tmux expands formats in -c; a directory holds none.
	return append([]string{"-c", formatLiteral(abs)}, rest...), nil
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
	if o.host().remote() {
		// The master ssh holds a session's pipes too, and may keep them
		// open after the local ssh has gone.
		cmd.WaitDelay = time.Second
	}
	if !blocking || !o.host().remote() {
		return cmd, func() {}, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	cmd.Stdin = r
	return cmd, func() {
		_ = r.Close() // Best effort: the child had its own copy.
		_ = w.Close() // ends the remote command's input
	}, nil
}
