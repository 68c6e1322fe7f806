package crashgate

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// DefaultWait is the default [Options.Wait].
const DefaultWait = 5 * time.Second

// turnstileName is the turnstile file, in the gate's directory.
const turnstileName = ".tmux-mcp-turnstile"

// Options configure a [Gate]. Nil means defaults.
type Options struct {
	// Wait bounds each wait for a lock another process holds; past it the
	// work goes on without that lock. Zero or less means [DefaultWait].
	Wait time.Duration
}

// Gate lets one lone holder in at a time, and shared holders together
// while no lone holder is in, whether they are goroutines of this process
// or of another that locks the same directory.
//
// Within the process a sync.RWMutex orders the goroutines, and the first
// shared holder takes the directory's shared flock for all of them. A
// process whose shared holds overlap would keep that flock without a
// break (flock favours no one), so a waiting lone holder holds the
// turnstile file alone, and every shared holder passes through it first.
//
// A flock that cannot be had within [Options.Wait] is given up and the
// work goes on without it: a process stuck while holding the lock must not
// stop every other one.
type Gate struct {
	dir  string        // "" for a gate of this process only
	wait time.Duration // bounds each flock wait
	rw   sync.RWMutex  // the gate within this process; taken before mu

	mu      sync.Mutex // guards the fields below
	dirf    *os.File   // the directory; nil until opened
	turn    *os.File   // the turnstile; nil until opened
	readers int        // shared holders in this process
	dirHeld bool       // whether this process holds the directory's flock
	lone    *os.File   // the turnstile, on a descriptor of its own, while held alone
	passing int        // goroutines going through the turnstile
	closed  bool
}

// New returns a Gate on the directory dir, which it opens on first use and
// again on later uses until it can. An empty dir makes a Gate that holds
// this process only.
func New(dir string, opts *Options) *Gate {
	g := &Gate{dir: dir, wait: DefaultWait}
	if opts != nil && opts.Wait > 0 {
		g.wait = opts.Wait
	}
	return g
}

// RLock holds the gate shared with other shared holders.
func (g *Gate) RLock() {
	g.rw.RLock()
	g.mu.Lock()
	g.open()
	turn := g.turn
	g.passing++
	g.mu.Unlock()
	// Through the turnstile every time, so that a lone holder waiting in
	// another process stops this one's new holders too. Not under g.mu,
	// which the holders' RUnlock needs to let that holder in.
	passed := flock(turn, syscall.LOCK_SH, g.wait)
	g.mu.Lock()
	if g.readers == 0 {
		g.dirHeld = flock(g.dirf, syscall.LOCK_SH, g.wait)
	}
	g.readers++
	if passed {
		unflock(turn)
	}
	g.passing--
	g.release()
	g.mu.Unlock()
}

// RUnlock lets go of a shared hold.
func (g *Gate) RUnlock() {
	g.mu.Lock()
	g.readers--
	if g.readers == 0 && g.dirHeld {
		unflock(g.dirf)
		g.dirHeld = false
	}
	g.release()
	g.mu.Unlock()
	g.rw.RUnlock()
}

// Lock holds the gate alone.
func (g *Gate) Lock() {
	g.rw.Lock()
	// g.mu is held across the flocks below, which can wait twice g.wait.
	// That blocks no holder: g.rw already keeps every other goroutine out
	// of RLock, RUnlock, Lock and Unlock. Only Close waits for it.
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open()
	// A blocking flock, which the kernel wakes the moment the turnstile is
	// let go: polling for it lost every race to a process taking it alone
	// again and again.
	if g.turn != nil {
		g.lone = lockAlone(g.turn.Name(), g.wait)
	}
	g.dirHeld = flock(g.dirf, syscall.LOCK_EX, g.wait)
}

// Unlock lets go of a lone hold.
func (g *Gate) Unlock() {
	g.mu.Lock()
	if g.dirHeld {
		unflock(g.dirf)
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

// Close closes the gate's files once nothing holds them; from then on the
// gate holds this process only. It may be called more than once.
func (g *Gate) Close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	g.release()
}

// open opens the directory and the turnstile, if they are not open and the
// gate is not closed. Either may stay nil: a directory that is not there
// yet is tried again next time, and a turnstile that cannot be created (a
// directory not ours to write) leaves lone holders to take their chances.
// g.mu is held.
func (g *Gate) open() {
	if g.closed || g.dir == "" {
		return
	}
	if g.dirf == nil {
		if d, err := os.Open(g.dir); err == nil {
			g.dirf = d
		}
	}
	if g.turn == nil && g.dirf != nil {
		f, err := os.OpenFile(filepath.Join(g.dir, turnstileName), os.O_RDONLY|os.O_CREATE, 0o600)
		if err == nil {
			g.turn = f
		}
	}
}

// release closes the files of a closed gate once nothing holds them. g.mu
// is held.
func (g *Gate) release() {
	if !g.closed || g.dirHeld || g.lone != nil || g.passing > 0 {
		return
	}
	for _, f := range []**os.File{&g.dirf, &g.turn} {
		if *f != nil {
			_ = (*f).Close() // Best effort: opened for reading.
			*f = nil
		}
	}
}

// lockAlone takes an exclusive flock on a descriptor of its own for the
// file name, waiting at most wait, and returns the descriptor, or nil.
// The wait is a blocking flock, so that the kernel wakes it when the lock
// is let go; its own descriptor lets it be abandoned: a flock that comes
// after the deadline is let go at once by closing the descriptor.
func lockAlone(name string, wait time.Duration) *os.File {
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
	t := time.NewTimer(wait)
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

// flock takes how (LOCK_SH or LOCK_EX) on f, waiting at most wait, and
// reports whether it holds it. A nil f is never held.
func flock(f *os.File, how int, wait time.Duration) bool {
	if f == nil {
		return false
	}
	fd := int(f.Fd())
	deadline := time.Now().Add(wait)
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
