package session

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestTurnstileLetsALoneHolderIn has one gate's goroutines hold it shared
// without a break (their holds overlap, as concurrent commands do) while a
// second gate on the same directory, another process as far as flock can
// tell, asks for it alone. The turnstile must get it in; flock alone would
// leave it waiting until it gave up.
func TestTurnstileLetsALoneHolderIn(t *testing.T) {
	loneWhileBusy(t, 2, func(busy *crashGate) {
		busy.rlock()
		time.Sleep(200 * time.Microsecond) // a command in flight, not a synchronisation
		busy.runlock()
	})
}

// TestLoneHoldersTakeTurns has one gate taken alone over and over, as a
// process killing session after session would, while a second gate on the
// same directory asks for it alone too. Polling for the turnstile lost
// every race to the process that had just let it go.
func TestLoneHoldersTakeTurns(t *testing.T) {
	loneWhileBusy(t, 1, func(busy *crashGate) {
		busy.lock()
		time.Sleep(100 * time.Microsecond) // a kill in flight, not a synchronisation
		busy.unlock()
	})
}

// loneWhileBusy runs hold over and over on n goroutines against one gate,
// and has a second gate on the same directory take the gate alone five
// times; each must be had before gateWait gives it up.
func loneWhileBusy(t *testing.T, n int, hold func(busy *crashGate)) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "s")
	busy, lone := &crashGate{file: file}, &crashGate{file: file}
	defer busy.close()
	defer lone.close()
	shortGateWait(t, 3*time.Second)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
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
	time.Sleep(10 * time.Millisecond) // let the holds get going

	for i := range 5 {
		start := time.Now()
		lone.lock()
		held, waited := lone.dirHeld && lone.lone != nil, time.Since(start)
		lone.unlock()
		if !held {
			t.Fatalf("lock %d: not held after %v: gave up waiting", i, waited)
		}
	}
}

// TestLoneWaitIsAbandoned holds the turnstile from outside past gateWait:
// the lone holder goes on without it, and its abandoned wait, once it gets
// the lock, lets it go at once instead of keeping everyone else out.
func TestLoneWaitIsAbandoned(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s")
	g := &crashGate{file: file}
	defer g.close()
	g.rlock() // creates the turnstile
	g.runlock()
	name := filepath.Join(filepath.Dir(file), turnstileName)
	stuck := holdFlock(t, name)
	shortGateWait(t, 50*time.Millisecond)

	g.lock()
	if g.lone != nil {
		t.Fatal("held the turnstile alone while another descriptor held it")
	}
	g.unlock()
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

// shortGateWait sets gateWait to d until the test ends.
func shortGateWait(t *testing.T, d time.Duration) {
	old := gateWait
	gateWait = d
	t.Cleanup(func() { gateWait = old })
}
