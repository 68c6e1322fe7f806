//go:build linux

package session

import (
	"os/exec"
	"testing"
	"time"
)

// TestWatchExit: a process's exit is seen through its pidfd, which the
// runtime's poller waits on: no polling.
func TestWatchExit(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 0.2")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = cmd.Wait() }()
	ch, stop, ok := watchExit(cmd.Process.Pid)
	if !ok {
		t.Skip("no pidfd here")
	}
	defer stop()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatal("the exit was not seen")
	}
}

// TestWatchExitGone: a process gone before the watch counts as exited.
func TestWatchExitGone(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	ch, stop, ok := watchExit(cmd.Process.Pid)
	if !ok {
		t.Skip("no pidfd here")
	}
	defer stop()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatal("a process gone before the watch was not seen as exited")
	}
}
