package session

import (
	"context"
	"errors"
	"os"
	"os/exec"
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
	// and files this process cannot see.
	remote() bool
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

func (localHost) Close() error { return nil }

// host returns the Host the Server's tmux runs on.
func (s *Server) host() Host {
	if s.opts.Host == nil {
		return localHost{}
	}
	return s.opts.Host
}

// tmuxCommand is exec.CommandContext for tmux with args, on the Server's
// host. The caller calls cleanup once the command has ended. A blocking
// command on another host is given an input that stays open until then:
// its end is what stops the command there (see sshHost.command).
func (s *Server) tmuxCommand(ctx context.Context, blocking bool, args ...string) (cmd *exec.Cmd, cleanup func(), err error) {
	kind := oneShot
	if blocking {
		kind = blockingShot
	}
	argv, err := s.host().command(ctx, s.opts.Tmux, args, kind)
	if err != nil {
		return nil, nil, err
	}
	cmd = exec.CommandContext(ctx, argv[0], argv[1:]...)
	if s.host().remote() {
		// The master ssh holds a session's pipes too, and may keep them
		// open after the local ssh has gone.
		cmd.WaitDelay = time.Second
	}
	if !blocking || !s.host().remote() {
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

// preflight checks what can be checked before a control client starts: on
// this machine, that tmux can be run and a server listens on the socket.
// On another host, starting the client is the check.
func (s *Server) preflight() error {
	if s.host().remote() || s.opts.startConn != nil {
		return nil
	}
	if _, err := exec.LookPath(s.opts.Tmux); err != nil {
		return s.noBinary(err)
	}
	if s.SocketFile() == "" {
		return &Error{Kind: KindNoServer, Msg: "cannot find socket " + s.sock.String() + ": no socket directory was configured (session.Options.SocketDir)"}
	}
	if !s.sock.listening(s.opts.SocketDir) {
		return &Error{Kind: KindNoServer, Msg: "no tmux server is running on socket " + s.sock.String(), Err: errNoServer}
	}
	return nil
}

// hostFailure is the error for a one-shot that failed on the way to the
// host rather than in tmux: ssh exits with status 255 when it cannot reach
// the host or loses the connection. The command may have run.
func (s *Server) hostFailure(err error, msg string) error {
	var xe *exec.ExitError
	if !s.host().remote() || !errors.As(err, &xe) || xe.ExitCode() != 255 {
		return nil
	}
	return &Error{Kind: KindConnLost, Msg: s.host().String() + ": " + msg, Written: true, Err: err}
}

// serverListening reports whether a tmux server answers on the socket. On
// this machine it asks the socket itself (see [Socket.listening]); on
// another, a one-shot list-sessions, which never starts a server, asks.
func (s *Server) serverListening(ctx context.Context) bool {
	if !s.host().remote() {
		return s.sock.listening(s.opts.SocketDir)
	}
	_, _, err := s.forkTmux(ctx, "-N", "list-sessions", "-F", "#{session_id}")
	return !noServerMessage(err)
}

// controlArgv returns the command line of a control client running cmd,
// for controlmode.Options.Argv: nil on this machine, where controlmode
// builds it from the socket flags.
func (s *Server) controlArgv(ctx context.Context, cmd []string) ([]string, error) {
	if !s.host().remote() {
		return nil, nil
	}
	args := append([]string{"-u"}, s.sock.args()...)
	args = append(args, "-N", "-C")
	return s.host().command(ctx, s.opts.Tmux, append(args, cmd...), controlClient)
}

// spawnArgs is SpawnArgs.args on the Server's host. On another host the
// start directory is one of that host's: a one-shot shell there expands
// it ("~" is its user's home, a relative path is taken from there),
// makes it absolute and checks that it is a directory.
func (s *Server) spawnArgs(ctx context.Context, a SpawnArgs) ([]string, error) {
	if a.StartDirectory == "" || !s.host().remote() {
		return a.args(s.opts.HomeDir)
	}
	dir := a.StartDirectory
	switch {
	case dir == "~":
		dir = "."
	case strings.HasPrefix(dir, "~/"):
		dir = "./" + dir[2:]
	}
	argv, err := s.host().command(ctx, "sh", []string{"-c", `cd && cd -- "$1" && pwd`, "sh", dir}, oneShot)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = procEnv(s.opts.Env)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	abs := strings.TrimSuffix(string(out), "\n")
	if err != nil || !strings.HasPrefix(abs, "/") || strings.Contains(abs, "\n") {
		if e := s.hostFailure(err, strings.TrimSpace(stderr.String())); e != nil {
			return nil, e
		}
		return nil, errorf(KindInvalid, false, "start directory %q is not an existing directory on %s", a.StartDirectory, s.host())
	}
	a.StartDirectory = ""
	rest, err := a.args(s.opts.HomeDir)
	if err != nil {
		return nil, err
	}
	// tmux expands formats in -c; a directory holds none.
	return append([]string{"-c", formatLiteral(abs)}, rest...), nil
}

// sshCloseWait bounds how long closing a control client over ssh may take
// before the host's connection is ended under it.
const sshCloseWait = 5 * time.Second

// closeConn closes c. On this machine Conn.Close is bounded: it kills its
// tmux if tmux does not leave. Over ssh the process it kills is the local
// ssh, which handed the client's terminal and output pipe to the master
// ssh; a master that keeps the session's descriptors open then keeps
// Close waiting for the end of the output for ever. Past sshCloseWait the
// host ends its connection (every session on it; the others reconnect),
// which closes them.
func (s *Server) closeConn(c *controlmode.Conn) {
	h, ok := s.host().(*sshHost)
	if !ok {
		c.Close()
		return
	}
	done := make(chan struct{})
	go func() {
		c.Close()
		close(done)
	}()
	t := time.NewTimer(sshCloseWait)
	defer t.Stop()
	select {
	case <-done:
		return
	case <-t.C:
	}
	s.opts.Logger.Warn("a control client over ssh did not close; ending the connection", "host", h.String())
	h.abort()
	<-done
}

// watchSSHClient ends the host's connection when the local ssh of control
// client c exits and c lives on. The master ssh holds the session's
// descriptors, the client's stderr pipe among them: when that ssh was
// killed, the master closed the output but kept stderr open, and the
// Conn, waiting for its process's stderr to end, neither worked nor ended
// (now and then; the README has how often). Ending the connection ends
// every session on it; the Server reconnects.
func (s *Server) watchSSHClient(c *controlmode.Conn) {
	h, ok := s.host().(*sshHost)
	if !ok || c.Pid() == 0 {
		return
	}
	// On the link's wait group, so that Close returns only once this has:
	// closing the link ends c, and with it its ssh.
	s.link.spawn(func() {
		if !waitExited(c.Pid()) {
			return
		}
		// The usual end: the client's output ends as the process does.
		t := time.NewTimer(time.Second)
		defer t.Stop()
		select {
		case <-c.Done():
			return
		case <-t.C:
		}
		s.opts.Logger.Warn("the ssh of a control client exited, and the client did not end; ending the connection", "host", h.String())
		h.abort()
	})
}
