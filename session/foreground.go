package session

import (
	"context"
	"os/exec"
	"time"

	"github.com/tmux-mcp/tmux-mcp/session/internal/foreground"
)

// What the kernel tells of a pane's foreground program is
// internal/foreground's reading; here is only how it is read on the
// Server's host (Host.foreground): /proc in this process, a script, or
// the prober of an ssh host (foreground_ssh.go).

// foregroundTimeout bounds one look at a pane's foreground program.
const foregroundTimeout = 3 * time.Second

// Foreground reports what the foreground program of the pane whose
// process is pid and whose terminal is tty is doing, as far as the kernel
// tells. It never fails: what cannot be read is not Known.
func (s *Server) Foreground(ctx context.Context, pid, tty string) Foreground {
	if !foreground.Valid(pid, tty) {
		return Foreground{}
	}
	ctx, cancel := context.WithTimeout(ctx, foregroundTimeout)
	defer cancel()
	report, err := s.host().foreground(ctx, s.opts, pid, tty)
	if err != nil {
		if l := s.opts.Logger; l != nil {
			l.Debug("cannot read the foreground program", "pane_pid", pid, "err", err)
		}
		return Foreground{}
	}
	return foreground.Read(report, tty)
}

// runForegroundScript runs argv, a sh with foreground.Args, and returns
// what it printed.
func runForegroundScript(ctx context.Context, o *Options, argv []string) (string, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = procEnv(o.Env)
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	return string(out), err
}
