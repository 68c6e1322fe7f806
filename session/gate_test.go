package session

import (
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// TestTurnstileLetsALoneHolderIn has one gate's goroutines hold it shared
// without a break (their holds overlap, as concurrent commands do) while a
// second gate on the same directory, another process as far as flock can
// tell, asks for it alone. The turnstile must get it in; flock alone would
// leave it waiting until it gave up.
func TestTurnstileLetsALoneHolderIn(t *testing.T) {
	sock := Socket{Path: filepath.Join(t.TempDir(), "s")}
	busy, lone := &crashGate{sock: sock}, &crashGate{sock: sock}
	defer busy.close()
	defer lone.close()
	old := gateWait
	gateWait = 3 * time.Second
	defer func() { gateWait = old }()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				busy.rlock()
				time.Sleep(200 * time.Microsecond) // a command in flight, not a synchronisation
				busy.runlock()
			}
		})
	}
	defer func() { close(stop); wg.Wait() }()
	time.Sleep(10 * time.Millisecond) // let the shared holds get going

	for i := range 5 {
		start := time.Now()
		lone.lock()
		held, waited := lone.dirHeld && lone.turnHeld, time.Since(start)
		lone.unlock()
		if !held {
			t.Fatalf("lock %d: not held after %v: gave up waiting", i, waited)
		}
	}
}
