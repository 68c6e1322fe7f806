package controlmode

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// Options configure [Start] and [Open]. The zero value attaches to the most recently
// used session of the default tmux server, with the "tmux" found on PATH.
type Options struct {
	// Tmux is the tmux binary. Empty means "tmux" looked up on PATH.
	Tmux string
	// Socket is the server's socket name (tmux -L). Empty means the default.
	Socket string
	// SocketPath is the server's socket path (tmux -S); it wins over Socket.
	SocketPath string
	// Command is the client's start-up command and its arguments, such as
	// {"attach-session", "-t", "$3"}. It must attach the client to a
	// session. Nil means {"attach-session"}.
	Command []string
	// Argv, when set, is the whole command that runs the control client
	// (for example behind ssh), replacing Tmux, Socket, SocketPath and
	// Command. It must run a single-C client: `tmux ... -C ...`.
	Argv []string
	// Env is the client's environment. Nil means this process's. TMUX and
	// TMUX_PANE are always removed (see [Unnested]), or tmux would refuse
	// to nest.
	Env []string
	// OnNotification, if set, is called on the reader goroutine for every
	// notification, in order. It must not block: the reader is what keeps
	// the tmux server from stalling.
	OnNotification func(Notification)
	// Logger receives reports of unknown and stray lines. Nil discards.
	Logger *slog.Logger
	// NoStartServer passes -N: the client never starts a server, even for
	// a command that would (attach-session starts one to say "no
	// sessions", and that server, exiting at once, can take down a server
	// another client is starting on the same socket).
	NoStartServer bool
	// Pipes runs the client with no terminal at all: commands go in on a
	// pipe as replies come out on one. By default the client's terminal,
	// its stdin and controlling tty, is a raw pseudo-terminal, so it shows
	// a tty name in list-clients as a person's client does and is hung up
	// if this process dies; its replies still come out on a pipe, because
	// tmux's output through the pty's line discipline costs much of a
	// round trip (docs/internals.md has the figures).
	Pipes bool
	// ReplyTimeout is the liveness deadline: how long the oldest call
	// waiting for its reply may wait, counted from when it became the
	// oldest (it was queued with none before it, or the reply before it
	// came). When it passes, the client is taken to be stuck (tmux stopped,
	// or its queue for this client held by a prompt that nobody answers):
	// the Conn kills it and ends, and every waiting call fails with an
	// error wrapping [ErrUnresponsive] and [ErrClosed]. Zero means no
	// deadline.
	ReplyTimeout time.Duration
}

// Reply is one command's answer.
type Reply struct {
	// Lines is the command's output, one element per line, without line
	// terminators. Bytes are as tmux sent them and may be invalid UTF-8.
	Lines []string
	// Err is nil, a *[CommandError] when tmux answered %error, or
	// [ErrSkipped] when tmux dropped the command after an earlier failure
	// on the same line.
	Err error
}

// Stats counts a connection's traffic since it started.
type Stats struct {
	Calls         uint64 // Exec calls whose line was queued for writing
	Commands      uint64 // commands in those lines
	BytesWritten  uint64 // bytes written to the client, start-up excluded
	Notifications uint64 // notifications decoded
}

// call is one Exec line waiting for its replies. The reader goroutine fills
// replies and err and then closes done, once.
type call struct {
	cmds    []Command
	start   uint64 // offset of its line in the bytes queued for writing
	replies []Reply
	err     error
	done    chan struct{}
}

// Conn is one tmux control-mode client. Its methods are safe for concurrent
// use. Its protocol, for each call:
//
//  1. Exec checks every command, then, under mu, appends a call to the
//     queue and its line to the write buffer: queue order is wire order.
//  2. The writer goroutine writes whatever is buffered in one write, so
//     concurrent calls share a system call.
//  3. The reader goroutine parses tmux's output; each flags-1 reply block
//     goes to the call at the head of the queue, which is popped and
//     released once it has a block for every command or its first %error.
//  4. When the client ends, every queued call is released with the error;
//     a call whose line was never written gets one wrapping [ErrNotSent].
//  5. With [Options.ReplyTimeout], a head of the queue left unanswered
//     that long ends the client (step 4), so no call waits for a stuck
//     tmux for ever.
type Conn struct {
	opts    Options
	proc    *exec.Cmd
	r       io.ReadCloser  // the client's output: a pipe
	w       io.WriteCloser // the client's input: the pty master, or a pipe
	stderr  *limitedBuffer // the client's stderr, for error reports
	logger  *slog.Logger
	wg      sync.WaitGroup // reader and writer goroutines
	started chan struct{}  // closed by the reader once the client is attached

	mu      sync.Mutex // guards the fields below
	queue   []*call    // calls written or to be written, oldest first; popped by the reader
	wbuf    []byte     // bytes waiting for the writer
	closing bool       // no new calls are accepted
	writing bool       // a goroutine is writing; it also writes what is added meanwhile
	wake    chan struct{}
	queued  uint64        // bytes ever appended to wbuf
	taken   uint64        // bytes ever taken from wbuf to be written: a call starting past it was never written
	since   time.Time     // when the head of the queue became the head
	alarm   *time.Timer   // fires the liveness check (see Options.ReplyTimeout); nil until first armed
	armed   bool          // alarm is set to fire
	stuck   time.Duration // non-zero once the liveness deadline passed: how long the head had waited

	subsMu sync.RWMutex // guards subs; the reader holds it for reading while it sends
	subs   map[*Subscription]struct{}

	// Owned by the reader goroutine.
	parser     parser
	exitReason string
	exitSeen   bool
	startMsg   string // the start-up block's error, if it failed

	closeOnce sync.Once
	done      chan struct{} // closed when the connection has ended
	err       error         // why it ended; set before done is closed

	calls, commands, written, notes atomic.Uint64
}

// Start runs a control-mode client on a new pseudo-terminal and returns
// once it is attached to a session. If the client cannot attach (no server,
// no such session) Start returns an error wrapping [ErrClosed] whose text
// carries tmux's message. The context bounds only the start.
func Start(ctx context.Context, opts *Options) (*Conn, error) {
	c := newConn(opts)
	if err := c.spawn(); err != nil {
		return nil, err
	}
	return c.attach(ctx)
}

// Open is like [Start] for a control client that something else runs: r
// is the client's output and w its input, such as the two ends of a
// transport of the caller's or a test's scripted tmux. Open waits, as
// Start does, until the client is attached to a session. The options
// that say how to run tmux (Tmux, Socket, SocketPath, Command, Argv, Env,
// NoStartServer, Pipes) are ignored.
//
// The Conn owns r and w: it closes both when it ends, so the peer sees the
// end of its input, and Close closes them if the peer has not left within
// Close's bound after the detach line. With no process, [Conn.Pid] is 0
// and nothing is killed: ending the stream is all the Conn can do.
func Open(ctx context.Context, r io.ReadCloser, w io.WriteCloser, opts *Options) (*Conn, error) {
	c := newConn(opts)
	c.r, c.w = r, w
	return c.attach(ctx)
}

// attach runs the reader and writer on c.r and c.w and waits for the
// client to attach.
func (c *Conn) attach(ctx context.Context) (*Conn, error) {
	c.run()
	select {
	case <-c.started:
		return c, nil
	case <-c.done:
		c.wg.Wait()
		return nil, c.err
	case <-ctx.Done():
		c.Close()
		return nil, ctx.Err()
	}
}

func newConn(opts *Options) *Conn {
	c := &Conn{
		stderr:  &limitedBuffer{max: 4096},
		started: make(chan struct{}),
		wake:    make(chan struct{}, 1),
		subs:    make(map[*Subscription]struct{}),
		done:    make(chan struct{}),
	}
	if opts != nil {
		c.opts = *opts
	}
	c.logger = c.opts.Logger
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// run starts the reader and writer on c.r and c.w.
func (c *Conn) run() {
	c.wg.Add(2)
	go c.readLoop()
	go c.writeLoop()
}

// kill ends the client process, if there is one.
func (c *Conn) kill() {
	if c.proc != nil {
		_ = c.proc.Process.Kill() // Best effort: it may have just exited.
	}
}

func (c *Conn) argv() []string {
	if len(c.opts.Argv) > 0 {
		return c.opts.Argv
	}
	bin := c.opts.Tmux
	if bin == "" {
		bin = "tmux"
	}
	argv := []string{bin, "-u"}
	switch {
	case c.opts.SocketPath != "":
		argv = append(argv, "-S", c.opts.SocketPath)
	case c.opts.Socket != "":
		argv = append(argv, "-L", c.opts.Socket)
	}
	if c.opts.NoStartServer {
		argv = append(argv, "-N")
	}
	argv = append(argv, "-C")
	if c.opts.Command == nil {
		return append(argv, "attach-session")
	}
	return append(argv, c.opts.Command...)
}

func (c *Conn) spawn() error {
	argv := c.argv()
	cmd := exec.Command(argv[0], argv[1:]...)
	env := c.opts.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = Unnested(env)
	cmd.Stderr = c.stderr
	// Wait returns this long after the client exits even when another
	// process still holds its stderr (an ssh master, which keeps the
	// descriptors of its sessions), instead of waiting for that to close.
	cmd.WaitDelay = time.Second
	var theirs []*os.File // the child's ends, closed here once it has them
	var err error
	if c.opts.Pipes {
		theirs, err = c.openPipes(cmd)
	} else {
		theirs, err = c.openPTY(cmd)
	}
	if err != nil {
		return err
	}
	dieWithUs(cmd)
	err = cmd.Start()
	for _, f := range theirs {
		_ = f.Close() // the child holds its own copies
	}
	if err != nil {
		_ = c.r.Close() // Best effort.
		_ = c.w.Close() // Best effort.
		return &ExitError{Detail: err.Error()}
	}
	c.proc = cmd
	return nil
}

func (c *Conn) openPipes(cmd *exec.Cmd) ([]*os.File, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		_ = inR.Close() // Best effort.
		_ = inW.Close() // Best effort.
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	c.r, c.w = outR, inW
	return []*os.File{inR, outW}, nil
}

func (c *Conn) openPTY(cmd *exec.Cmd) (_ []*os.File, err error) {
	master, slave, err := pty.Open()
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = slave.Close()  // Best effort.
			_ = master.Close() // Best effort.
		}
	}()
	if err = makeRaw(slave.Fd()); err != nil {
		return nil, err
	}
	// pty.Open leaves the master in blocking mode; a non-blocking copy goes
	// through Go's poller, so Close interrupts a pending Read or Write. The
	// copy is close-on-exec, as every descriptor of ours must be: a child
	// that inherited it (each later client, a forked tmux, the server one
	// of them starts) would keep this client's terminal open, and the
	// client would never be hung up when this process dies.
	fd, err := dupCloseOnExec(int(master.Fd()))
	if err != nil {
		return nil, err
	}
	if err = syscall.SetNonblock(fd, true); err != nil {
		_ = syscall.Close(fd) // Best effort.
		return nil, err
	}
	tty := os.NewFile(uintptr(fd), "ptmx")
	_ = master.Close() // the copy stays open
	outR, outW, err := os.Pipe()
	if err != nil {
		_ = tty.Close() // Best effort.
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = slave, outW
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	c.r, c.w = outR, tty
	return []*os.File{slave, outW}, nil
}

// Exec sends cmds as one line and returns one [Reply] for each, in order.
// The error is nil when every command succeeded; otherwise it is the first
// failing command's *[CommandError], the context's error, or an error
// wrapping [ErrClosed] when the connection ended first. Invalid commands are
// refused with an error wrapping [ErrInvalidCommand] before anything is
// written. See the package documentation on cancellation.
func (c *Conn) Exec(ctx context.Context, cmds ...Command) ([]Reply, error) {
	if len(cmds) == 0 {
		return nil, invalidf("no command")
	}
	n := 0
	for _, cmd := range cmds {
		if err := cmd.Err(); err != nil {
			return nil, err
		}
		n += len(cmd.text) + 3
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cl := &call{cmds: cmds, replies: make([]Reply, 0, len(cmds)), done: make(chan struct{})}

	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return nil, c.closedErr()
	}
	c.queue = append(c.queue, cl)
	if len(c.queue) == 1 {
		c.since = time.Now()
		c.arm(c.opts.ReplyTimeout)
	}
	start := len(c.wbuf)
	cl.start = c.queued
	c.wbuf = append(c.wbuf, cmds[0].text...)
	for _, cmd := range cmds[1:] {
		c.wbuf = append(c.wbuf, " ; "...)
		c.wbuf = append(c.wbuf, cmd.text...)
	}
	c.wbuf = append(c.wbuf, '\n')
	size := uint64(len(c.wbuf) - start)
	c.queued += size
	c.written.Add(size)
	c.mu.Unlock()
	c.calls.Add(1)
	c.commands.Add(uint64(len(cmds)))
	c.flush()

	select {
	case <-cl.done:
	case <-ctx.Done():
		select {
		case <-cl.done:
		default:
			return nil, ctx.Err()
		}
	}
	if cl.err != nil {
		return nil, cl.err
	}
	for _, r := range cl.replies {
		if r.Err != nil {
			return cl.replies, r.Err
		}
	}
	return cl.replies, nil
}

func (c *Conn) closedErr() error {
	select {
	case <-c.done:
		return notSent{c.err}
	default:
		return notSent{&ExitError{Detail: "closing"}}
	}
}

// Done returns a channel that is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns nil while the connection is up and, once [Conn.Done] is
// closed, the error that ended it, which wraps [ErrClosed].
func (c *Conn) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// Pid returns the process id of the tmux client, or 0 for a Conn made by
// [Open], which has no process of its own.
func (c *Conn) Pid() int {
	if c.proc == nil {
		return 0
	}
	return c.proc.Process.Pid
}

// Stats returns the connection's traffic counters.
func (c *Conn) Stats() Stats {
	return Stats{
		Calls:         c.calls.Load(),
		Commands:      c.commands.Load(),
		BytesWritten:  c.written.Load(),
		Notifications: c.notes.Load(),
	}
}

// Close detaches the client and returns once it has exited and every
// goroutine of the connection has stopped. Calls still waiting get an error
// wrapping [ErrClosed]. Close is idempotent and safe from any goroutine.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		wasClosing := c.closing
		c.closing = true
		if !wasClosing {
			// An empty line detaches a control client once the lines
			// before it have been answered.
			c.wbuf = append(c.wbuf, '\n')
		}
		c.mu.Unlock()
		select {
		case c.wake <- struct{}{}:
		default:
		}
		t := time.NewTimer(2 * time.Second)
		select {
		case <-c.done:
		case <-t.C:
			// The client did not leave: end the process we started. A
			// stopped server holds the other ends of its pipes, so the
			// stream may not end with it: close our ends too, which ends
			// the reader and any writer.
			c.kill()
			_ = c.r.Close() // Best effort: the reader finishes either way.
			_ = c.w.Close() // Best effort.
		}
		t.Stop()
		c.wg.Wait()
	})
	return nil
}

// inlineWriteMax is the most a caller of Exec writes itself. Larger lines
// go to the writer goroutine, so a cancelled caller is never held by a slow
// write.
const inlineWriteMax = 16 << 10

// inlineWriteWait bounds a caller's own write, where the client's input
// can take a deadline (a pipe or our pty; both are): a write that cannot
// finish in that time (tmux is not reading and the pipe is full) is handed
// on to the writer goroutine, and the caller goes back to waiting on its
// context.
const inlineWriteWait = 20 * time.Millisecond

// writeDeadliner is what the client's input offers to bound a write
// (*os.File does).
type writeDeadliner interface{ SetWriteDeadline(time.Time) error }

// flush writes what is buffered. A small write is done by the calling
// goroutine, which saves a hand-off on every sequential call; while it
// writes, other callers only append, and it writes what they added before
// it stops. Larger writes go to the writer goroutine.
func (c *Conn) flush() {
	c.mu.Lock()
	if c.writing || len(c.wbuf) == 0 {
		c.mu.Unlock()
		return
	}
	if len(c.wbuf) > inlineWriteMax {
		c.mu.Unlock()
		select {
		case c.wake <- struct{}{}:
		default:
		}
		return
	}
	c.writing = true
	buf := c.take()
	c.mu.Unlock()
	c.writeAll(buf, true)
}

// take returns what is buffered for writing and empties the buffer. c.mu
// is held.
func (c *Conn) take() []byte {
	buf := c.wbuf
	c.wbuf = nil
	c.taken += uint64(len(buf))
	return buf
}

// writeAll writes buf and then whatever was buffered meanwhile, and clears
// c.writing. The caller has set c.writing. An inline write (by a caller of
// Exec) that tmux does not take within inlineWriteWait is handed on to the
// writer goroutine.
func (c *Conn) writeAll(buf []byte, inline bool) {
	dl, _ := c.w.(writeDeadliner)
	for {
		if inline && dl != nil {
			_ = dl.SetWriteDeadline(time.Now().Add(inlineWriteWait)) // a pollable file: cannot fail
		}
		n, err := c.w.Write(buf)
		if inline && errors.Is(err, os.ErrDeadlineExceeded) {
			c.mu.Lock()
			// What was not written goes back to the front of the buffer,
			// to be taken again.
			rest := append(buf[n:len(buf):len(buf)], c.wbuf...)
			c.taken -= uint64(len(buf) - n)
			c.wbuf = rest
			c.writing = false
			c.mu.Unlock()
			select {
			case c.wake <- struct{}{}:
			default:
			}
			return
		}
		if err != nil {
			// The reader sees the end of the stream and reports it; kill
			// the client in case it is alive but not reading. What is
			// still buffered will never be written: its calls are told
			// they were not sent when the connection ends.
			c.kill()
			c.mu.Lock()
			c.writing = false
			c.wbuf = c.wbuf[:0]
			c.mu.Unlock()
			return
		}
		c.mu.Lock()
		if len(c.wbuf) == 0 {
			c.writing = false
			c.wbuf = buf[:0]
			c.mu.Unlock()
			return
		}
		next := c.take()
		c.wbuf = buf[:0]
		buf = next
		c.mu.Unlock()
	}
}

func (c *Conn) writeLoop() {
	defer c.wg.Done()
	for {
		select {
		case <-c.wake:
		case <-c.done:
			return
		}
		c.mu.Lock()
		if c.writing || len(c.wbuf) == 0 {
			c.mu.Unlock()
			continue
		}
		c.writing = true
		buf := c.take()
		c.mu.Unlock()
		if dl, ok := c.w.(writeDeadliner); ok {
			_ = dl.SetWriteDeadline(time.Time{}) // this one waits as long as it takes
		}
		c.writeAll(buf, false)
	}
}

func (c *Conn) readLoop() {
	defer c.wg.Done()
	r := bufio.NewReaderSize(c.r, 64<<10)
	var long []byte
	var readErr error
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, line...)
			continue
		}
		if err != nil {
			readErr = err
			break
		}
		line = line[:len(line)-1]
		if long != nil {
			line = append(long, line...)
			long = nil
		}
		c.handle(c.parser.line(line))
	}
	c.finish(readErr)
}

func (c *Conn) handle(ev event) {
	switch ev.kind {
	case evReply:
		c.deliver(ev.lines, ev.failed)
	case evNote:
		c.notify(ev.note)
	}
}

// deliver gives a reply block to the call at the head of the queue.
func (c *Conn) deliver(lines []string, failed bool) {
	c.mu.Lock()
	if len(c.queue) == 0 {
		c.mu.Unlock()
		c.notify(Unknown{Line: strings.Join(lines, "\n"), Err: ProtocolError("reply block with no call waiting")})
		return
	}
	cl := c.queue[0]
	r := Reply{Lines: lines}
	if failed {
		r.Err = &CommandError{Command: cl.cmds[len(cl.replies)].name, Msg: strings.Join(lines, "\n")}
	}
	cl.replies = append(cl.replies, r)
	complete := failed || len(cl.replies) == len(cl.cmds)
	if complete {
		c.queue[0] = nil
		c.queue = c.queue[1:]
		// The next call's reply is due from now: calls pipelined behind
		// a slow one are not late for having waited for it.
		c.since = time.Now()
	}
	c.mu.Unlock()
	if complete {
		for len(cl.replies) < len(cl.cmds) {
			cl.replies = append(cl.replies, Reply{Err: ErrSkipped})
		}
		close(cl.done)
	}
}

func (c *Conn) notify(n Notification) {
	c.notes.Add(1)
	switch n := n.(type) {
	case SessionChanged:
		select {
		case <-c.started:
		default:
			close(c.started)
		}
	case HookOutput:
		select {
		case <-c.started:
		default:
			if n.Error {
				c.startMsg = strings.Join(n.Lines, "; ")
			}
		}
	case Exit:
		c.exitSeen, c.exitReason = true, n.Reason
	case Unknown:
		c.logger.Debug("controlmode: unknown line", "line", n.Line, "err", n.Err)
	case Stray:
		c.logger.Debug("controlmode: stray line", "line", n.Line)
	}
	if f := c.opts.OnNotification; f != nil {
		f(n)
	}
	c.subsMu.RLock()
	for s := range c.subs {
		s.send(n)
	}
	c.subsMu.RUnlock()
}

// finish ends the connection after the reader has seen the end of the
// stream: it reaps the client, fails every waiting call, and closes done.
func (c *Conn) finish(readErr error) {
	c.mu.Lock()
	c.closing = true
	pending := c.queue
	c.queue = nil
	taken, stuck := c.taken, c.stuck
	c.wbuf = nil // never written now: the calls in it are told so
	if c.alarm != nil {
		c.alarm.Stop()
	}
	c.mu.Unlock()

	var waitErr error
	if c.proc != nil {
		waited := make(chan error, 1)
		go func() { waited <- c.proc.Wait() }()
		t := time.NewTimer(2 * time.Second)
		select {
		case waitErr = <-waited:
		case <-t.C:
			c.kill() // our own client, stuck
			waitErr = <-waited
		}
		t.Stop()
	}
	_ = c.r.Close() // Best effort: the client is gone.
	_ = c.w.Close() // Best effort.

	e := &ExitError{Reason: c.exitReason, Unresponsive: stuck > 0}
	var details []string
	if stuck > 0 {
		details = append(details, "no reply from tmux in "+stuck.Round(time.Millisecond).String()+": the client was ended")
	}
	if c.startMsg != "" {
		details = append(details, c.startMsg)
	}
	if s := strings.TrimSpace(c.stderr.String()); s != "" {
		details = append(details, s)
	}
	if !c.exitSeen && stuck == 0 {
		if readErr != nil && !errors.Is(readErr, io.EOF) && !errors.Is(readErr, syscall.EIO) {
			details = append(details, readErr.Error())
		} else {
			details = append(details, "end of stream without %exit")
		}
		if waitErr != nil {
			details = append(details, waitErr.Error())
		}
	}
	e.Detail = strings.Join(details, "; ")
	c.err = e
	for _, cl := range pending {
		cl.err = e
		if cl.start >= taken {
			cl.err = notSent{e} // its line never left this process
		}
		close(cl.done)
	}
	c.subsMu.Lock()
	for s := range c.subs {
		delete(c.subs, s)
		close(s.ch)
	}
	c.subsMu.Unlock()
	close(c.done)
}

// arm sets the liveness alarm to fire in d, if it is not set and d is
// positive. c.mu is held.
func (c *Conn) arm(d time.Duration) {
	if d <= 0 || c.armed {
		return
	}
	c.armed = true
	if c.alarm == nil {
		c.alarm = time.AfterFunc(d, c.checkLiveness)
		return
	}
	c.alarm.Reset(d)
}

// checkLiveness runs when the alarm fires: it sets the alarm again for
// the head of the queue, or ends the connection if the head's reply is
// overdue. One alarm serves every call: it is set when a call finds the
// queue empty and goes off at most once per ReplyTimeout while calls wait.
func (c *Conn) checkLiveness() {
	d := c.opts.ReplyTimeout
	c.mu.Lock()
	c.armed = false
	if c.stuck > 0 || len(c.queue) == 0 {
		c.mu.Unlock()
		return
	}
	waited := time.Since(c.since)
	if waited < d {
		c.arm(d - waited)
		c.mu.Unlock()
		return
	}
	c.stuck = waited
	c.closing = true
	c.wbuf = nil // never written: the calls in it are told so
	c.mu.Unlock()
	c.logger.Warn("controlmode: no reply from tmux within the deadline; ending the client", "waited", waited, "deadline", d)
	// The tmux server holds the other ends of the client's pipes, so
	// ending the client alone may not end the stream (a stopped server
	// reads and writes nothing): closing our ends wakes the reader and
	// any writer now.
	c.kill()
	_ = c.r.Close() // the reader sees the end and finishes
	_ = c.w.Close() // a writer blocked on a full pipe returns
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
