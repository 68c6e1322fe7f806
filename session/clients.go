package session

import (
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// clientStarter is a link's way to start and end the control clients of
// one tmux server: [tmuxClients] for a real one, on its host; a fake in the
// link's own tests. Errors it returns are explained in tmux's terms.
type clientStarter interface {
	// prepare checks what can be checked before a client running cmd
	// starts and returns its command line; it runs outside the gate.
	prepare(ctx context.Context, cmd []string) (argv []string, err error)
	// start starts a client running cmd (with argv from prepare), whose
	// notifications go to onNote; the link holds the gate alone meanwhile.
	start(ctx context.Context, argv, cmd []string, onNote func(controlmode.Notification)) (*controlmode.Conn, error)
	// close ends c, bounded as the host needs.
	close(c *controlmode.Conn)
	// supervise watches, where the host needs it, what runs c, on a
	// goroutine that spawn starts.
	supervise(c *controlmode.Conn, spawn func(func()) bool)
}

// tmuxClients starts the control clients of the server on sock, on the
// host of opts: tmux processes, or the fake a test supplies
// (Options.startConn).
type tmuxClients struct {
	opts *Options
	sock Socket
}

var _ clientStarter = tmuxClients{}

func (t tmuxClients) host() Host { return hostOf(t.opts) }

func (t tmuxClients) prepare(ctx context.Context, cmd []string) ([]string, error) {
	if t.opts.startConn == nil {
		if err := t.host().preflight(t.opts, t.sock); err != nil {
			return nil, err
		}
	}
	argv, err := t.host().controlArgv(ctx, t.opts, t.sock, cmd)
	if err != nil {
		return nil, t.startError(err)
	}
	return argv, nil
}

// start is the only place that starts a control client.
func (t tmuxClients) start(ctx context.Context, argv, cmd []string, onNote func(controlmode.Notification)) (*controlmode.Conn, error) {
	o := t.opts
	co := &controlmode.Options{
		Argv:           argv,
		Env:            o.Env,
		Tmux:           o.Tmux,
		Socket:         t.sock.Name,
		SocketPath:     t.sock.Path,
		Command:        cmd,
		OnNotification: onNote,
		NoStartServer:  true,
		Logger:         o.Logger,
		Pipes:          o.Pipes,
		ReplyTimeout:   o.ReplyDeadline,
	}
	start := controlmode.Start
	if o.startConn != nil {
		start = o.startConn
	}
	c, err := start(ctx, co)
	if err != nil {
		return nil, t.startError(err)
	}
	return c, nil
}

func (t tmuxClients) close(c *controlmode.Conn) { t.host().closeClient(c, t.opts.Logger) }

func (t tmuxClients) supervise(c *controlmode.Conn, spawn func(func()) bool) {
	t.host().superviseClient(c, spawn, t.opts.Logger)
}

// startError explains why a control client could not start.
func (t tmuxClients) startError(err error) error {
	var ee *exec.Error
	var e *Error
	msg := err.Error()
	switch {
	case errors.As(err, &e):
		return e // the host's own answer: ssh could not connect
	case errors.As(err, &ee) || strings.Contains(msg, "executable file not found"):
		return noBinary(t.opts.Tmux, err)
	case strings.Contains(msg, "no server running") || strings.Contains(msg, "error connecting to") ||
		strings.Contains(msg, "server exited unexpectedly") || strings.Contains(msg, "lost server"):
		// The last two: a server was there and went away while the client
		// attached (after kill-server, say). It is gone all the same.
		return &Error{Kind: KindNoServer, Msg: "no tmux server is running on socket " + t.sock.String(), Remedy: RemedyStartServer, Err: errNoServer}
	case strings.Contains(msg, "no sessions"):
		return &Error{Kind: KindNoServer, Msg: "the tmux server on socket " + t.sock.String() + " has no sessions", Err: errNoSessions}
	}
	return &Error{Kind: KindNoServer, Msg: "cannot attach to the tmux server on socket " + t.sock.String() + ": " + msg, Err: err}
}

// noBinary is the error for a tmux binary that cannot be run.
func noBinary(tmux string, err error) error {
	return &Error{Kind: KindNoServer, Msg: "cannot run the tmux binary " + strconv.Quote(tmux) + ": " + err.Error(), Remedy: RemedyTmuxPath, Err: err}
}

// clientRef lets a notification handler, which exists before its client
// does, reach that client.
type clientRef struct {
	src uint64 // the client's source number, set before the ref is shared

	mu       sync.Mutex // guards the fields below
	c        *controlmode.Conn
	attached string // the session the client last said it is attached to
}

func (r *clientRef) setSession(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.attached = id
}

func (r *clientRef) session() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.attached
}

func (r *clientRef) setConn(c *controlmode.Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.c = c
}

func (r *clientRef) conn() *controlmode.Conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.c
}
