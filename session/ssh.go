package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/internal/piddir"
	"github.com/tmux-mcp/tmux-mcp/session/internal/foreground"
	"github.com/tmux-mcp/tmux-mcp/session/internal/shellrun"
)

// SSHOptions configure [NewSSH].
type SSHOptions struct {
	// Args are ssh's options followed by the destination, last, as ssh
	// itself takes them: {"-p", "2222", "me@build-box"}. The user's
	// ~/.ssh/config, agent and jump hosts apply as they do to ssh.
	Args []string
	// Binary is the OpenSSH client. Empty means "ssh" on PATH.
	Binary string
	// ConnectTimeout bounds connecting and authenticating. Zero means 10 s.
	ConnectTimeout time.Duration
	// Persist is how long the shared connection outlives its last session,
	// so that a process that dies without closing the host leaves nothing
	// behind for longer. Zero means 30 s.
	Persist time.Duration
	// Env is the environment of the ssh processes the host starts itself
	// (the shared connection and its control commands), less TMUX and
	// TMUX_PANE. Nil means this process's, as os/exec takes it.
	Env []string
}

// sshDefaults are options that Args may override: ssh takes the first value
// it is given for an option, and these come after Args. A connection gone
// silent is noticed after ServerAliveInterval*ServerAliveCountMax seconds
// (15) at most.
var sshDefaults = []string{
	"-o", "ServerAliveInterval=5",
	"-o", "ServerAliveCountMax=3",
	"-o", "LogLevel=ERROR",
}

// sshHost runs tmux on another machine through one OpenSSH connection. A
// master ssh, started on first use and again whenever it is found gone,
// holds the connection (OpenSSH connection multiplexing, on a control
// socket in a private directory); every tmux process (the control client,
// its watchers, each one-shot) is a session multiplexed over it: no
// handshake but the master's.
type sshHost struct {
	bin      string
	opts     []string // the caller's ssh options
	dest     string
	dir      string   // private directory of the control socket
	ctlPath  string   // the control socket
	env      []string // SSHOptions.Env
	timeout  time.Duration
	persist  time.Duration
	starting chan struct{}      // capacity 1: held while a master starts
	probing  chan struct{}      // capacity 1: held by the call that uses prober
	prober   *foreground.Prober // nil until used

	mu      sync.Mutex // guards closed
	closed  bool
	masters atomic.Uint64 // masters started: handshakes made
}

var _ Host = (*sshHost)(nil)

// NewSSH returns a Host that runs tmux on the machine that ssh reaches with
// opts.Args. It connects on first use; Close ends the connection. It
// refuses Args without a destination, and an ssh that cannot be found.
func NewSSH(opts *SSHOptions) (Host, error) {
	var o SSHOptions
	if opts != nil {
		o = *opts
	}
	if len(o.Args) == 0 || o.Args[len(o.Args)-1] == "" || strings.HasPrefix(o.Args[len(o.Args)-1], "-") {
		return nil, errors.New("ssh: the destination must come last, after any ssh options")
	}
	if o.Binary == "" {
		o.Binary = "ssh"
	}
	bin, err := exec.LookPath(o.Binary)
	if err != nil {
		return nil, errors.New("cannot run the ssh client " + strconv.Quote(o.Binary) + ": " + err.Error())
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = 10 * time.Second
	}
	if o.Persist <= 0 {
		o.Persist = 30 * time.Second
	}
	dir, err := piddir.Make(sshDirPrefix)
	if err != nil {
		return nil, err
	}
	// Beside it, the directories of ssh Hosts whose process was killed.
	piddir.Sweep(dir, sshDirPrefix)
	n := len(o.Args) - 1
	return &sshHost{
		bin:      bin,
		opts:     append([]string(nil), o.Args[:n]...),
		dest:     o.Args[n],
		dir:      dir,
		ctlPath:  filepath.Join(dir, "ctl"),
		env:      o.Env,
		timeout:  o.ConnectTimeout,
		persist:  o.Persist,
		starting: make(chan struct{}, 1),
		probing:  make(chan struct{}, 1),
	}, nil
}

func (h *sshHost) String() string { return "ssh " + h.dest }

// lockDir is "": the socket is on that host, and no process of this
// machine other than this one shares its gate.
func (h *sshHost) lockDir(string) string { return "" }

// prepareOneShot: the master ssh holds a session's pipes too, and may keep
// them open after the local ssh has gone, so the wait for them is bounded.
// A blocking command is given an input that stays open until cleanup: its
// end is what stops the command there (see sshHost.command).
func (h *sshHost) prepareOneShot(cmd *exec.Cmd, blocking bool) (func(), error) {
	cmd.WaitDelay = time.Second
	if !blocking {
		return func() {}, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdin = r
	return func() {
		_ = r.Close() // Best effort: the child had its own copy.
		_ = w.Close() // ends the remote command's input
	}, nil
}

// failure: ssh exits with status 255 when it cannot reach the host or
// loses the connection. The command may have run: the caller stamps what
// that means.
func (h *sshHost) failure(err error, msg string) error {
	var xe *exec.ExitError
	if !errors.As(err, &xe) || xe.ExitCode() != 255 {
		return nil
	}
	return &Error{Kind: KindConnLost, Msg: h.String() + ": " + msg, Err: err}
}

// listening asks with a one-shot list-sessions, which never starts a
// server: the socket is on that host.
func (h *sshHost) listening(ctx context.Context, _ *Options, _ Socket, fork func(context.Context, ...string) (string, string, error)) bool {
	_, _, err := fork(ctx, "-N", "list-sessions", "-F", "#{session_id}")
	return !noServerMessage(err)
}

// spawnArgs: the start directory is one of that host's: a one-shot shell
// there expands it ("~" is its user's home, a relative path is taken from
// there), makes it absolute and checks that it is a directory.
func (h *sshHost) spawnArgs(ctx context.Context, o *Options, a SpawnArgs) ([]string, error) {
	if a.StartDirectory == "" {
		return a.args(o.HomeDir)
	}
	dir := a.StartDirectory
	switch {
	case dir == "~":
		dir = "."
	case strings.HasPrefix(dir, "~/"):
		dir = "./" + dir[2:]
	}
	abs, _, err := h.absPath(ctx, o, `cd && cd -- "$1" && pwd`, dir)
	if err != nil {
		return nil, err
	}
	if abs == "" {
		return nil, errorf(KindInvalid, "start directory %q is not an existing directory on %s", a.StartDirectory, h)
	}
	a.StartDirectory = ""
	rest, err := a.args(o.HomeDir)
	if err != nil {
		return nil, err
	}
	// tmux expands formats in -c; a directory holds none.
	return append([]string{"-c", formatLiteral(abs)}, rest...), nil
}

// outputPathScript prints $1 made absolute (a relative path is taken
// from the user's home, as a start directory is) once it can be an
// output file: its directory exists, and it is a regular file or nothing
// yet. Otherwise it says why on stderr and exits 3.
const outputPathScript = `cd || exit 1
case $1 in /*) p=$1 ;; *) p=$(pwd)/$1 ;; esac
d=$(dirname -- "$p")
[ -d "$d" ] || { echo "its directory $d does not exist" >&2; exit 3; }
if [ -e "$p" ] && [ ! -f "$p" ]; then echo "it is not a regular file" >&2; exit 3; fi
printf '%s\n' "$p"`

// path checks p on that host, as localHost.path does here, with a
// one-shot shell there: a pipe into a device, a FIFO or a directory of
// that host is refused before tmux is asked.
func (h *sshHost) path(ctx context.Context, o *Options, p string) (string, error) {
	abs, why, err := h.absPath(ctx, o, outputPathScript, p)
	if err != nil {
		return "", err
	}
	if abs == "" {
		return "", fmt.Errorf("%q on %s%s", p, h, why)
	}
	return abs, nil
}

// absPath runs script with arg in a one-shot shell on the host and
// returns the absolute path it printed, or "" and why not (what it said
// on stderr, after ": "); err is a lost connection or the end of ctx.
func (h *sshHost) absPath(ctx context.Context, o *Options, script, arg string) (abs, why string, err error) {
	argv, err := h.command(ctx, "sh", []string{"-c", script, "sh", arg}, oneShot)
	if err != nil {
		return "", "", err
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = procEnv(o.Env)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cleanup, err := h.prepareOneShot(cmd, false) // the wait for the pipes is bounded
	if err != nil {
		return "", "", err
	}
	defer cleanup()
	out, err := cmd.Output()
	abs = strings.TrimSuffix(string(out), "\n")
	if err == nil && strings.HasPrefix(abs, "/") && !strings.Contains(abs, "\n") {
		return abs, "", nil
	}
	if ctx.Err() != nil {
		return "", "", fromExec(ctx.Err()) // the call's deadline, not the path
	}
	said := strings.TrimSpace(stderr.String())
	if e := h.failure(err, said); e != nil {
		return "", "", e
	}
	if said != "" {
		why = ": " + said
	}
	return "", why, nil
}

func (h *sshHost) probeServers(ctx context.Context, m *Manager, _ string, extra []string) []ServerStatus {
	return m.probeRemote(ctx, extra) // dir is this machine's; the host's own is probed
}

// preflight checks nothing: starting the client is the check.
func (h *sshHost) preflight(*Options, Socket) error { return nil }

// controlArgv runs the control client through the host's connection.
func (h *sshHost) controlArgv(ctx context.Context, o *Options, sock Socket, cmd []string) ([]string, error) {
	args := append([]string{"-u"}, sock.args()...)
	args = append(args, "-N", "-C")
	return h.command(ctx, o.Tmux, append(args, cmd...), controlClient)
}

// sshCloseWait bounds how long closing a control client over ssh may take
// before the host's connection is ended under it.
const sshCloseWait = 5 * time.Second

// closeClient closes c. Over ssh the process Conn.Close kills is the
// local ssh, which handed the client's terminal and output pipe to the
// master ssh; a master that keeps the session's descriptors open then
// keeps Close waiting for the end of the output for ever. Past
// sshCloseWait the host ends its connection (every session on it; the
// others reconnect), which closes them.
func (h *sshHost) closeClient(c *controlmode.Conn, log *slog.Logger) {
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
	log.Warn("a control client over ssh did not close; ending the connection", "host", h.String())
	h.abort()
	<-done
}

// superviseClient ends the host's connection when the local ssh of
// control client c exits and c lives on. The master ssh holds the
// session's descriptors, the client's stderr pipe among them: when that
// ssh was killed, the master closed the output but kept stderr open, and
// the Conn, waiting for its process's stderr to end, neither worked nor
// ended (now and then; the README has how often). Ending the connection
// ends every session on it; the Server reconnects. spawn runs the watch on
// the link's wait group, so that Close returns only once it has: closing
// the link ends c, and with it its ssh.
func (h *sshHost) superviseClient(c *controlmode.Conn, spawn func(func()) bool, log *slog.Logger) {
	if c.Pid() == 0 {
		return
	}
	spawn(func() {
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
		log.Warn("the ssh of a control client exited, and the client did not end; ending the connection", "host", h.String())
		h.abort()
	})
}

// argv returns ssh's command line with extra options of ours, the
// caller's options, the defaults, the destination and the remote command
// (none when remote is "").
func (h *sshHost) argv(extra []string, remote string) []string {
	argv := []string{h.bin, "-S", h.ctlPath, "-o", "BatchMode=yes", "-T", "-e", "none"}
	argv = append(argv, extra...)
	argv = append(argv, h.opts...)
	argv = append(argv, sshDefaults...)
	argv = append(argv, "-o", "ConnectTimeout="+strconv.Itoa(int(h.timeout.Seconds()+0.5)))
	argv = append(argv, "--", h.dest)
	if remote != "" {
		argv = append(argv, remote)
	}
	return argv
}

func (h *sshHost) command(ctx context.Context, tmux string, args []string, kind commandKind) ([]string, error) {
	if err := h.ensure(ctx); err != nil {
		return nil, err
	}
	words := append([]string{tmux}, args...)
	remote := "exec " + shellJoin(words)
	switch kind {
	case blockingShot:
		// Killing the local ssh closes the session's channel, but sshd
		// leaves a process without a terminal running: a wait-for would
		// wait on the remote host forever. This shell kills it when its
		// input ends, which the channel's end makes happen.
		remote = "exec sh -c " + shellrun.Quote(hangupScript) + " sh " + shellJoin(words)
	case controlClient:
		remote = "exec sh -c " + shellrun.Quote(clientGuardScript) + " sh " + shellJoin(words)
	}
	return h.argv(muxOnly, remote), nil
}

// muxOnly makes an ssh a session on the master's connection or nothing:
// should the master be gone, ssh would connect by itself, through the
// proxy command, which fails at once instead. The next start finds the
// master gone and starts one: connections are made only there.
var muxOnly = []string{"-o", "ControlMaster=no", "-o", "ProxyCommand=false"}

// hangupScript runs "$@" until it ends or the shell's input does, then
// exits with its status. Asynchronous commands get /dev/null as input, so
// the reader takes it from descriptor 3.
const hangupScript = `exec 3<&0; "$@" </dev/null & p=$!; (read x <&3; kill $p 2>/dev/null) & q=$!; wait $p; s=$?; kill $q 2>/dev/null; exit $s`

// clientGuardScript runs a control client "$@" whose input is copied from
// the shell's, and sends it SIGTERM when that input ends. The end of its
// input alone may not end a client: a tmux server keeps a control client
// whose output it could not write (the channel closed under it) until that
// output is written, which is never (TestSSHSIGKILLLeavesNoClient, the
// flooding case). SIGTERM ends the client whatever the server is doing, as
// controlmode's parent-death signal does on this machine. The copy goes
// through a fifo, removed as soon as both ends are open, because the
// copier must know the client's pid; cat writes what it reads at once.
const clientGuardScript = `d=$(mktemp -d "${TMPDIR:-/tmp}/tmux-mcp.XXXXXX") && mkfifo "$d/in" || { rm -rf "$d"; echo "tmux-mcp: cannot make a fifo for the control client's input" >&2; exit 125; }
exec 3<&0
"$@" <"$d/in" & p=$!
{ exec 4>"$d/in"; rm -rf "$d"; cat >&4; exec 4>&-; kill $p; } <&3 >/dev/null 2>&1 & q=$!
exec 3<&-
wait $p; s=$?
kill $q 2>/dev/null
rm -rf "$d"
exit $s`

// ensure starts the master unless one answers on the control socket. One
// caller starts it; the others wait for that.
func (h *sshHost) ensure(ctx context.Context) error {
	select {
	case h.starting <- struct{}{}:
	case <-ctx.Done():
		return fromExec(ctx.Err())
	}
	defer func() { <-h.starting }()
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return errorf(KindNoServer, "the ssh connection to %s is closed", h.dest)
	}
	if h.masterUp() {
		return nil
	}
	// A master that was killed leaves its socket, on which a new one
	// would refuse to listen.
	_ = os.Remove(h.ctlPath) // Best effort: usually not there.
	sctx, cancel := context.WithTimeout(ctx, h.timeout+5*time.Second)
	defer cancel()
	// With ControlPersist, ssh goes to the background once the connection
	// is authenticated and the control socket listens: its exit is the
	// sign that the master is up, and its status and stderr say why not.
	argv := h.argv([]string{"-M", "-N", "-o", "ControlPersist=" + strconv.Itoa(int(h.persist.Seconds()+0.5))}, "")
	cmd := exec.CommandContext(sctx, argv[0], argv[1:]...)
	cmd.Env = procEnv(h.env)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
			if sctx.Err() != nil {
				msg = "no answer within " + h.timeout.String()
			}
		}
		return &Error{Kind: KindNoServer, Msg: "ssh " + h.dest + ": " + msg, Err: err}
	}
	h.masters.Add(1)
	return nil
}

// masterUp reports whether a master listens on the control socket.
func (h *sshHost) masterUp() bool {
	c, err := net.DialTimeout("unix", h.ctlPath, time.Second)
	if err != nil {
		return false
	}
	_ = c.Close() // Best effort: only the connect mattered.
	return true
}

// masterPid returns the master's process id, 0 when none runs.
func (h *sshHost) masterPid() int {
	out, err := h.control("check")
	if err != nil {
		return 0
	}
	_, rest, ok := strings.Cut(out, "pid=")
	if !ok {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimRight(rest, ")\r\n "))
	return pid
}

// control sends the master a control command (ssh -O) and returns what
// ssh said.
func (h *sshHost) control(op string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.bin, "-S", h.ctlPath, "-O", op, "--", h.dest)
	cmd.Env = procEnv(h.env)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Close ends the connection, and with it every session on it, and removes
// the control socket's directory. The tmux clients on the remote host see
// their input end and exit.
func (h *sshHost) Close() error {
	h.starting <- struct{}{} // no master starts from here on
	defer func() { <-h.starting }()
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	h.closed = true
	h.mu.Unlock()
	h.stopProber()
	if h.masterUp() {
		_, _ = h.control("exit") // Best effort: the master may be ending.
	}
	return os.RemoveAll(h.dir)
}

// shellJoin quotes words for the remote user's shell, which reads the
// command ssh sends as one string.
func shellJoin(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellrun.Quote(w)
	}
	return strings.Join(q, " ")
}

// abort ends the master's connection, and with it every session on it,
// without closing the host: the next start makes a new one.
func (h *sshHost) abort() {
	if pid := h.masterPid(); pid > 0 {
		_ = syscall.Kill(pid, syscall.SIGTERM) // Best effort: it may be ending.
		return
	}
	_, _ = h.control("exit") // Best effort.
}

// sshDirPrefix starts the name of the directory an ssh Host keeps its
// control socket in (removed by Close; made by internal/piddir): its
// process id follows, so that a later process can remove the directory of
// one that was killed, which runs no Close.
const sshDirPrefix = "tmux-mcp-ssh-"
