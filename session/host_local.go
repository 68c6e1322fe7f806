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

func (localHost) Close() error { return nil }
