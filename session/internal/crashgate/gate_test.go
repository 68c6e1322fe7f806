package crashgate

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// long is a wait no test reaches, so that a holder that should wait never
// gives up inside the test instead.
const long = time.Minute

// watchdog bounds waits that only catch a hang; window is how long a
// holder is watched to see that it does not get in.
const (
	watchdog = 20 * time.Second
	window   = 100 * time.Millisecond
)

// pairs are two handles on one gate, as one process's goroutines or two
// processes would hold it.
var pairs = []struct {
	name string
	make func(t *testing.T) (a, b *Gate)
}{
	{"one gate", func(t *testing.T) (a, b *Gate) {
		g := newGate(t, t.TempDir(), long)
		return g, g
	}},
	{"two gates on one directory", func(t *testing.T) (a, b *Gate) {
		dir := t.TempDir()
		return newGate(t, dir, long), newGate(t, dir, long)
	}},
	{"no directory", func(t *testing.T) (a, b *Gate) {
		g := newGate(t, "", long)
		return g, g
	}},
}

func newGate(t *testing.T, dir string, wait time.Duration) *Gate {
	t.Helper()
	g := New(dir, &Options{Wait: wait})
	t.Cleanup(g.Close)
	return g
}

// holds reports whether g holds its directory's flock, and whether it
// holds the turnstile alone.
func holds(g *Gate) (dir, lone bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.dirHeld, g.lone != nil
}

// opened reports whether g has a file open.
func opened(g *Gate) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.dirf != nil || g.turn != nil
}

// async runs f on a goroutine and returns a channel closed when it returns.
func async(f func()) <-chan struct{} {
	done := make(chan struct{})
	go func() { f(); close(done) }()
	return done
}

func await(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(watchdog): // only catches a hang
		t.Fatalf("%s: still waiting after %v", what, watchdog)
	}
}

func notYet(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
		t.Fatalf("%s got in while the gate was held", what)
	case <-time.After(window): // an observation window, not a synchronisation
	}
}

func TestSharedHoldersRunTogether(t *testing.T) {
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			a, b := p.make(t)
			a.RLock()
			await(t, async(b.RLock), "a second shared holder")
			if dir, _ := holds(b); dir != (b.dir != "") {
				t.Errorf("the second shared holder holds the directory: got %v, want %v", dir, b.dir != "")
			}
			b.RUnlock()
			a.RUnlock()
		})
	}
}

func TestLoneHolderExcludes(t *testing.T) {
	type hold struct {
		name        string
		take, leave func(*Gate)
	}
	lone := hold{"lone holder", (*Gate).Lock, (*Gate).Unlock}
	shared := hold{"shared holder", (*Gate).RLock, (*Gate).RUnlock}
	for _, c := range []struct{ first, then hold }{{lone, shared}, {lone, lone}, {shared, lone}} {
		for _, p := range pairs {
			t.Run(c.first.name+" then "+c.then.name+"/"+p.name, func(t *testing.T) {
				a, b := p.make(t)
				c.first.take(a)
				in := async(func() { c.then.take(b) })
				notYet(t, in, c.then.name)
				c.first.leave(a)
				await(t, in, c.then.name)
				dir, alone := holds(b)
				if want := b.dir != ""; dir != want || c.then.name == lone.name && alone != want {
					t.Errorf("after the wait the %s holds the directory %v and the turnstile %v, want %v", c.then.name, dir, alone, want)
				}
				if b.dir == "" && opened(b) {
					t.Error("a gate with no directory opened files")
				}
				c.then.leave(b)
			})
		}
	}
}

func TestAcrossProcesses(t *testing.T) {
	t.Run("their lone hold keeps our shared holder out", func(t *testing.T) {
		dir := t.TempDir()
		h := startHelper(t, "lock", dir)
		awaitLine(t, h, "held true")
		g := newGate(t, dir, long)
		in := async(g.RLock)
		notYet(t, in, "our shared holder")
		h.release(t)
		await(t, in, "our shared holder")
		if dir, _ := holds(g); !dir {
			t.Error("our shared holder got in without the directory's flock")
		}
		g.RUnlock()
	})
	t.Run("their shared hold lets our shared holder in", func(t *testing.T) {
		dir := t.TempDir()
		h := startHelper(t, "rlock", dir)
		awaitLine(t, h, "held true")
		g := newGate(t, dir, long)
		await(t, async(g.RLock), "our shared holder")
		if dir, _ := holds(g); !dir {
			t.Error("our shared holder got in without the directory's flock")
		}
		g.RUnlock()
	})
	t.Run("their shared hold keeps our lone holder out", func(t *testing.T) {
		dir := t.TempDir()
		h := startHelper(t, "rlock", dir)
		awaitLine(t, h, "held true")
		g := newGate(t, dir, long)
		in := async(g.Lock)
		notYet(t, in, "our lone holder")
		h.release(t)
		await(t, in, "our lone holder")
		if dir, alone := holds(g); !dir || !alone {
			t.Errorf("our lone holder holds the directory %v and the turnstile %v, want both", dir, alone)
		}
		g.Unlock()
	})
	t.Run("our lone hold keeps their shared holder out", func(t *testing.T) {
		dir := t.TempDir()
		g := newGate(t, dir, long)
		g.Lock()
		h := startHelper(t, "rlock", dir)
		select {
		case line := <-h.lines:
			g.Unlock()
			t.Fatalf("their shared holder said %q while ours held the gate alone", line)
		case <-time.After(window): // an observation window, not a synchronisation
		}
		g.Unlock()
		awaitLine(t, h, "held true")
	})
}

// awaitLine waits for the helper to say want.
func awaitLine(t *testing.T, h *helperProc, want string) {
	t.Helper()
	select {
	case got := <-h.lines:
		if got != want {
			t.Fatalf("the helper said %q, want %q", got, want)
		}
	case <-time.After(watchdog): // only catches a hang
		t.Fatalf("the helper did not say %q", want)
	}
}

// TestTurnstileLetsALoneHolderIn has goroutines hold the gate shared
// without a break (their holds overlap, as concurrent commands do) while
// a lone holder asks for it, on the same gate or on a second one on the
// same directory, another process as far as flock can tell. Through the
// second, only the turnstile gets it in: flock alone would leave it
// waiting until it gave up.
func TestTurnstileLetsALoneHolderIn(t *testing.T) {
	for _, same := range []bool{true, false} {
		t.Run(map[bool]string{true: "one gate", false: "two gates"}[same], func(t *testing.T) {
			loneWhileBusy(t, 2, same, func(busy *Gate) {
				busy.RLock()
				time.Sleep(200 * time.Microsecond) // a command in flight, not a synchronisation
				busy.RUnlock()
			})
		})
	}
}

// TestLoneHoldersTakeTurns has one gate taken alone over and over, as a
// process killing session after session would, while a second gate on the
// same directory asks for it alone too. Polling for the turnstile lost
// every race to the process that had just let it go.
func TestLoneHoldersTakeTurns(t *testing.T) {
	loneWhileBusy(t, 1, false, func(busy *Gate) {
		busy.Lock()
		time.Sleep(100 * time.Microsecond) // a kill in flight, not a synchronisation
		busy.Unlock()
	})
}

// loneWhileBusy runs hold over and over on n goroutines against one gate,
// and has a lone holder (on that gate if same, else on a second gate on
// the same directory) take the gate five times; each must be had before
// the gate's wait gives it up.
func loneWhileBusy(t *testing.T, n int, same bool, hold func(busy *Gate)) {
	t.Helper()
	dir := t.TempDir()
	busy := newGate(t, dir, 3*time.Second)
	lone := busy
	if !same {
		lone = newGate(t, dir, 3*time.Second)
	}

	stop, started := make(chan struct{}), make(chan struct{}, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			hold(busy)
			started <- struct{}{}
			for {
				select {
				case <-stop:
					return
				default:
				}
				hold(busy)
			}
		})
	}
	defer func() { close(stop); wg.Wait() }()
	for range n {
		<-started
	}

	for i := range 5 {
		start := time.Now()
		lone.Lock()
		dir, alone := holds(lone)
		waited := time.Since(start)
		lone.Unlock()
		if !dir || !alone {
			t.Fatalf("lock %d: directory held %v, turnstile held %v after %v: gave up waiting", i, dir, alone, waited)
		}
	}
}

// TestLoneWaitIsAbandoned holds the turnstile from outside past the gate's
// wait: the lone holder goes on without it, and its abandoned wait, once
// it gets the lock, lets it go at once instead of keeping everyone else
// out.
func TestLoneWaitIsAbandoned(t *testing.T) {
	dir := t.TempDir()
	g := newGate(t, dir, 50*time.Millisecond)
	g.RLock() // creates the turnstile
	//lint:ignore SA2001 the lock is taken for what taking it does, not to guard anything
	g.RUnlock()
	name := filepath.Join(dir, turnstileName)
	stuck := holdFlock(t, name)

	g.Lock()
	if _, alone := holds(g); alone {
		t.Fatal("held the turnstile alone while another descriptor held it")
	}
	g.Unlock()
	if err := syscall.Flock(int(stuck.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	// The abandoned wait now gets the lock and must let it go.
	probe, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer probe.Close()
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Flock(int(probe.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the abandoned wait kept the turnstile")
		}
		time.Sleep(time.Millisecond) // the wait's goroutine is ours to poll; no event reaches the test
	}
}

// TestGivesUpOnAStuckHolder holds both locks from outside: a holder of
// either kind goes on once the gate's wait has passed on each, without
// them.
func TestGivesUpOnAStuckHolder(t *testing.T) {
	for _, kind := range []string{"lone", "shared"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			g := newGate(t, dir, 50*time.Millisecond)
			g.RLock() // creates the turnstile
			//lint:ignore SA2001 the lock is taken for what taking it does, not to guard anything
			g.RUnlock()
			holdFlock(t, dir)
			holdFlock(t, filepath.Join(dir, turnstileName))
			start := time.Now()
			take, leave := g.Lock, g.Unlock
			if kind == "shared" {
				take, leave = g.RLock, g.RUnlock
			}
			await(t, async(take), "a holder against a stuck one")
			waited := time.Since(start)
			dirHeld, alone := holds(g)
			leave()
			if dirHeld || alone {
				t.Errorf("holds the directory %v and the turnstile %v while another descriptor holds them", dirHeld, alone)
			}
			if waited < 2*g.wait {
				t.Errorf("got in after %v, before waiting %v on each lock", waited, g.wait)
			}
		})
	}
}

// TestCloseReleases closes a gate that a shared holder is in: its files
// stay open, and the directory locked, until that holder leaves; then
// they are closed, and the gate holds this process only.
func TestCloseReleases(t *testing.T) {
	dir := t.TempDir()
	g := newGate(t, dir, long)
	other := newGate(t, dir, 50*time.Millisecond)
	g.RLock()
	g.Close()
	other.Lock()
	dirHeld, _ := holds(other)
	other.Unlock()
	if dirHeld {
		t.Fatal("Close let go of the directory while a shared holder was in")
	}
	g.RUnlock()
	if opened(g) {
		t.Fatal("the last holder left a closed gate's files open")
	}

	other.Lock()
	if dirHeld, alone := holds(other); !dirHeld || !alone {
		t.Errorf("after Close another gate holds the directory %v and the turnstile %v, want both", dirHeld, alone)
	}
	await(t, async(g.Lock), "a closed gate's lone holder")
	if opened(g) {
		t.Error("a closed gate opened its files again")
	}
	g.Unlock()
	other.Unlock()
	g.Close() // a second Close does nothing
}

// TestDirectoryOpenedLater starts with a directory that does not exist:
// the gate holds this process only until it does.
func TestDirectoryOpenedLater(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "later")
	g := newGate(t, dir, long)
	g.Lock()
	dirHeld, alone := holds(g)
	g.Unlock()
	if dirHeld || alone {
		t.Fatalf("with no directory: holds the directory %v and the turnstile %v", dirHeld, alone)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	g.Lock()
	dirHeld, alone = holds(g)
	g.Unlock()
	if !dirHeld || !alone {
		t.Errorf("once the directory exists: holds the directory %v and the turnstile %v, want both", dirHeld, alone)
	}
}

// TestNoTurnstile has a directory where the turnstile cannot be created:
// lone holders do without it, and the directory's flock still keeps
// another gate's holders out.
func TestNoTurnstile(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, dir string)
	}{
		{"a link to nowhere", func(t *testing.T, dir string) {
			if err := os.Symlink(filepath.Join(dir, "missing", "turnstile"), filepath.Join(dir, turnstileName)); err != nil {
				t.Fatal(err)
			}
		}},
		{"a read-only directory", func(t *testing.T, dir string) {
			if os.Geteuid() == 0 {
				t.Skip("root writes to read-only directories")
			}
			if err := os.Chmod(dir, 0o500); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.Chmod(dir, 0o700) }) // Best effort: for TempDir's cleanup.
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.setup(t, dir)
			g, other := newGate(t, dir, long), newGate(t, dir, long)
			g.Lock()
			if dirHeld, alone := holds(g); !dirHeld || alone {
				t.Errorf("holds the directory %v and the turnstile %v, want the directory only", dirHeld, alone)
			}
			in := async(other.RLock)
			notYet(t, in, "another gate's shared holder")
			g.Unlock()
			await(t, in, "another gate's shared holder")
			other.RUnlock()
		})
	}
}

// holdFlock takes an exclusive flock on a descriptor of its own for the
// file name, as another process would, until the test ends.
func holdFlock(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	return f
}
