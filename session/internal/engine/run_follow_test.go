package engine

import (
	"fmt"
	"testing"
)

// TestCommandSetKeepsTheNewest: the set holds at most commandCap
// commands; a new one makes it forget the oldest that ended, else the
// oldest still followed, which stops being followed.
func TestCommandSetKeepsTheNewest(t *testing.T) {
	var cs commandSet
	var cancelled []string
	mk := func(i int, ended bool) *runningCommand {
		c := &runningCommand{id: fmt.Sprint("c", i), done: make(chan struct{})}
		c.cancel = func() { cancelled = append(cancelled, c.id) }
		if ended {
			close(c.done)
		}
		return c
	}
	for i := range commandCap {
		if !cs.add(mk(i, i == 5)) { // c5 has ended, the others run
			t.Fatal("add refused")
		}
	}
	cs.add(mk(commandCap, false))
	if cs.get("c5") != nil || cs.get("c0") == nil || len(cancelled) != 1 || cancelled[0] != "c5" {
		t.Fatalf("with one ended: c5 kept %v, c0 kept %v, cancelled %v; want c5 forgotten first", cs.get("c5") != nil, cs.get("c0") != nil, cancelled)
	}
	cs.add(mk(commandCap+1, false))
	if cs.get("c0") != nil || len(cancelled) != 2 || cancelled[1] != "c0" || len(cs.order) != commandCap {
		t.Fatalf("all running: c0 kept %v, cancelled %v, %d kept; want the oldest, c0, stopped and forgotten", cs.get("c0") != nil, cancelled, len(cs.order))
	}
	// Each add counted a follower, which would call Done as it ends;
	// none runs here. Then close stops the rest and refuses new ones.
	for range commandCap + 2 {
		cs.wg.Done()
	}
	cs.close()
	if cs.add(mk(999, false)) {
		t.Fatal("add after close succeeded")
	}
}
