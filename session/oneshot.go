package session

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync/atomic"

	"github.com/tmux-mcp/tmux-mcp/session/internal/crashgate"
)

// oneShots runs one-shot tmux processes for the server on sock, on the
// host of opts: for what the shared channel must not carry (blocking
// commands) or cannot (no session to attach to yet). Its forkTmux is the
// only fork of tmux; the gate is the Server's (a Manager's probe, which
// changes nothing, has one of its own).
type oneShots struct {
	opts   *Options
	sock   Socket
	gate   *crashgate.Gate
	forked atomic.Uint64 // one-shot tmux processes run
}

func (o *oneShots) host() Host { return hostOf(o.opts) }

// forkTmux runs one tmux process with args and returns its output and
// what it wrote to stderr, its error stamped with what it did.
func (o *oneShots) forkTmux(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	argv := o.sock.args()
	if o.opts.ConfigFile != "" {
		argv = append(argv, "-f", o.opts.ConfigFile)
	}
	cmd, cleanup, err := o.tmuxCommand(ctx, blocking(args), append(argv, args...)...)
	if err != nil {
		return "", "", err
	}
	defer cleanup()
	cmd.Env = procEnv(o.opts.Env)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	o.forked.Add(1)
	defer enter(o.gate, holdFor(commandName(args)))() // as in Server.send

	if err := cmd.Run(); err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			return "", "", noBinary(o.opts.Tmux, err) // nothing ran
		}
		if ctx.Err() != nil {
			return "", "", ranTmux(ctx, args, fromExec(ctx.Err()), true)
		}
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		if e := o.host().failure(err, msg); e != nil {
			return "", msg, ranTmux(ctx, args, e, true) // it may have run
		}
		if strings.HasPrefix(msg, "error creating ") {
			// No server could start: the socket cannot be made where it
			// must be. 3.8 says so and fails; 3.7 and before say so and
			// exit 0, and the attach after it finds no server.
			e := &Error{Kind: KindNoServer, Msg: "cannot start a tmux server on socket " + o.sock.String() + ": " + msg, Err: errNoServer}
			return "", msg, ranTmux(ctx, args, e, false)
		}
		kind := KindRefused
		if notFoundMessage(msg) {
			kind = KindNotFound
		}
		ran := kind != KindNotFound && !noServerMessage(errors.New(msg))
		return "", msg, ranTmux(ctx, args, &Error{Kind: kind, Msg: msg, Err: err}, ran)
	}
	_ = ranTmux(ctx, args, nil, true)
	return out.String(), strings.TrimSpace(errb.String()), nil
}

// ranTmux records a tmux process run with args, which ran its command or
// not, and stamps its error err with what it did.
func ranTmux(ctx context.Context, args []string, err error, ran bool) error {
	noteRun(ctx, args, ran)
	var e *Error
	if errors.As(err, &e) {
		e.Written = runChanged(args, ran)
	}
	return err
}

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
