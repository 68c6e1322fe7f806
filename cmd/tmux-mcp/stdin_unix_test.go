//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// stdinProbeEnv makes the test binary report what pollableStdin does with
// its stdin (see TestMain).
const stdinProbeEnv = "TMUX_MCP_TEST_STDIN_PROBE"

// probeStdin prints whether pollableStdin made stdin pollable (a read
// deadline can be set) and whether stdin is non-blocking after restore.
func probeStdin() {
	f, restore := pollableStdin()
	pollable := f.SetReadDeadline(time.Now()) == nil
	restore()
	flags, err := fcntlFlags(0)
	fmt.Printf("pollable=%v nonblocking-after=%v err=%v\n", pollable, flags&syscall.O_NONBLOCK != 0, err)
}

func fcntlFlags(fd int) (int, error) {
	r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(r), nil
}

// A pipe on stdin is read through the poller while tmux-mcp runs and put
// back to blocking at exit; a terminal is never touched.
func TestPollableStdin(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		stdin func(t *testing.T, cmd *exec.Cmd)
		want  string
	}{
		{"pipe", func(t *testing.T, cmd *exec.Cmd) {
			w, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = w.Close() })
		}, "pollable=true nonblocking-after=false err=<nil>"},
		{"terminal", func(t *testing.T, cmd *exec.Cmd) {
			master, tty, err := pty.Open()
			if err != nil {
				t.Skipf("no pty: %v", err)
			}
			t.Cleanup(func() { _ = master.Close(); _ = tty.Close() })
			cmd.Stdin = tty
		}, "pollable=false nonblocking-after=false err=<nil>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			// GORACE: the race detector otherwise waits a second at exit.
			cmd.Env = append(os.Environ(), stdinProbeEnv+"=1", "GORACE=atexit_sleep_ms=0")
			tc.stdin(t, cmd)
			out, err := cmd.Output()
			if got := strings.TrimSpace(string(out)); err != nil || got != tc.want {
				t.Fatalf("got %q (%v), want %q", got, err, tc.want)
			}
		})
	}
}
