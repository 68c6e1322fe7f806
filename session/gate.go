package session

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// crashGate keeps apart what crashes tmux (3.3a; releases before fixes
// upstream in 2026) when it meets in one turn of the server's loop:
//
//   - A control client of ours that is still identifying, and any
//     notification tmux writes to every control client (see
//     Server.startClient).
//   - A command that destroys a session, and a command that queued a
//     notification about that session which tmux sends only later in the
//     turn: select-window's %session-window-changed then reads the
//     destroyed session's current window (tmux issue 5243).
//
// Attaches and commands that can destroy a session hold the gate alone;
// every other command that can change tmux, and every client close,
// shares it. A command's turn is over by the time its reply is read, so
// one that waited for the shared holders meets none of their
// notifications. Reads queue no notification and need no gate.
//
// The gate spans processes: two tmux-mcp servers on one tmux server (two
// agents, say) would otherwise crash it as surely as two goroutines. Across
// processes it is two flock(2) locks: the socket's directory (the gate
// proper), and a turnstile file beside the sockets that a lone holder
// holds alone while it waits, and that every shared holder passes through
// first. Without the turnstile a process sending command after command
// would hold the directory without a break long enough for a lone holder
// elsewhere to get in (flock favours no one). Lone holders wait for the
// turnstile in a blocking flock, on a descriptor of their own so that a
// wait past gateWait can be abandoned. Within the process a
// sync.RWMutex orders the goroutines, and the first shared holder takes
// the shared flock for all of them. Sockets in one directory share the
// gate.
//
// A flock that cannot be had within gateWait is given up and the work goes
// on without it: a process stuck while holding the lock must not stop
// every other one.
type crashGate struct {
	file   string       // the socket file; "" when unknown: the gate then holds this process only
	remote bool         // the socket is on another host: the gate holds this process only
	rw     sync.RWMutex // the gate within this process

	mu        sync.Mutex // guards the fields below
	dir, turn *os.File   // the socket's directory and the turnstile; nil until opened
	readers   int        // shared holders in this process
	dirHeld   bool       // whether this process holds the directory's flock
	lone      *os.File   // the turnstile, on a descriptor of its own, while held alone
	passing   int        // goroutines going through the turnstile
	closed    bool
}

// turnstileName is the turnstile file, in the socket's directory.
const turnstileName = ".tmux-mcp-turnstile"

// gateWait bounds the wait for another process's hold on the gate: an
// attach takes a few milliseconds, a command less.
var gateWait = 5 * time.Second

func (g *crashGate) rlock() {
	g.rw.RLock()
	g.mu.Lock()
	g.open()
	turn := g.turn
	g.passing++
	g.mu.Unlock()
	// Through the turnstile every time, so that a lone holder waiting in
	// another process stops this one's new commands too. Not under g.mu,
	// which the holders' runlock needs to let that holder in.
	passed := flock(turn, syscall.LOCK_SH)
	g.mu.Lock()
	if g.readers == 0 {
		g.dirHeld = flock(g.dir, syscall.LOCK_SH)
	}
	g.readers++
	if passed {
		unflock(turn)
	}
	g.passing--
	g.release()
	g.mu.Unlock()
}

func (g *crashGate) runlock() {
	g.mu.Lock()
	g.readers--
	if g.readers == 0 && g.dirHeld {
		unflock(g.dir)
		g.dirHeld = false
	}
	g.release()
	g.mu.Unlock()
	g.rw.RUnlock()
}

func (g *crashGate) lock() {
	g.rw.Lock()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open()
	// A blocking flock, which the kernel wakes the moment the turnstile is
	// let go: polling for it lost every race to a process taking it alone
	// again and again.
	if g.turn != nil {
		g.lone = lockAlone(g.turn.Name())
	}
	g.dirHeld = flock(g.dir, syscall.LOCK_EX)
}

func (g *crashGate) unlock() {
	g.mu.Lock()
	if g.dirHeld {
		unflock(g.dir)
		g.dirHeld = false
	}
	if g.lone != nil {
		_ = g.lone.Close() // releases its flock
		g.lone = nil
	}
	g.release()
	g.mu.Unlock()
	g.rw.Unlock()
}

// lockAlone takes an exclusive flock on a descriptor of its own for the
// file name, waiting at most gateWait, and returns the descriptor, or nil.
// The wait is a blocking flock, so that the kernel wakes it when the lock
// is let go; its own descriptor lets it be abandoned: a flock that comes
// after the deadline is let go at once by closing the descriptor.
func lockAlone(name string) *os.File {
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	fd := int(f.Fd())
	if syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB) == nil {
		return f
	}
	got := make(chan error, 1)
	go func() {
		for {
			err := syscall.Flock(fd, syscall.LOCK_EX)
			if err != syscall.EINTR {
				got <- err
				return
			}
		}
	}()
	t := time.NewTimer(gateWait)
	defer t.Stop()
	select {
	case err := <-got:
		if err == nil {
			return f
		}
	case <-t.C:
		go func() { <-got; _ = f.Close() }() // Best effort: opened for reading.
		return nil
	}
	_ = f.Close() // Best effort: opened for reading.
	return nil
}

// open opens the directory and the turnstile, if they are not open and the
// gate is not closed. Either may stay nil: with no directory there is no
// server to attach to, and a turnstile that cannot be created (a directory
// not ours to write) leaves attaches to take their chances. g.mu is held.
func (g *crashGate) open() {
	if g.closed || g.remote || g.file == "" {
		return
	}
	name := filepath.Dir(g.file)
	if g.dir == nil {
		if d, err := os.Open(name); err == nil {
			g.dir = d
		}
	}
	if g.turn == nil && g.dir != nil {
		f, err := os.OpenFile(filepath.Join(name, turnstileName), os.O_RDONLY|os.O_CREATE, 0o600)
		if err == nil {
			g.turn = f
		}
	}
}

// release closes the files of a closed gate once nothing holds them. g.mu
// is held.
func (g *crashGate) release() {
	if !g.closed || g.dirHeld || g.lone != nil || g.passing > 0 {
		return
	}
	for _, f := range []**os.File{&g.dir, &g.turn} {
		if *f != nil {
			_ = (*f).Close() // Best effort: opened for reading.
			*f = nil
		}
	}
}

// close closes the gate's files once nothing holds them; from then on the
// gate holds this process only.
func (g *crashGate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	g.release()
}

// flock takes how (LOCK_SH or LOCK_EX) on f, waiting at most gateWait, and
// reports whether it holds it. A nil f is never held.
func flock(f *os.File, how int) bool {
	if f == nil {
		return false
	}
	fd := int(f.Fd())
	deadline := time.Now().Add(gateWait)
	for pause := 20 * time.Microsecond; ; pause = min(2*pause, time.Millisecond) {
		err := syscall.Flock(fd, how|syscall.LOCK_NB)
		if err == nil {
			return true
		}
		if err != syscall.EWOULDBLOCK && err != syscall.EINTR || time.Now().After(deadline) {
			return false
		}
		// A blocking flock has no timeout and cannot be called off.
		time.Sleep(pause)
	}
}

func unflock(f *os.File) {
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) // cannot fail on an open file
}
