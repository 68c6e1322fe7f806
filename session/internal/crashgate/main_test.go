package crashgate

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// The test binary doubles as another process holding the gate: with
// helperEnv set it takes the gate on the directory in dirEnv, says
// "held true" (or "held false" if it gave up on the directory's flock) on
// stdout, and lets go when its stdin closes.
const (
	helperEnv = "CRASHGATE_TEST_HELPER" // "lock" or "rlock"
	dirEnv    = "CRASHGATE_TEST_DIR"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helper(mode, os.Getenv(dirEnv)))
	}
	os.Exit(fixtures.RunTests(m, nil))
}

func helper(mode, dir string) int {
	// Only a bound, in case the test that started it never lets it go.
	time.AfterFunc(time.Minute, func() { os.Exit(3) })
	g := New(dir, &Options{Wait: time.Minute})
	switch mode {
	case "lock":
		g.Lock()
		defer g.Unlock()
	case "rlock":
		g.RLock()
		defer g.RUnlock()
	default:
		fmt.Fprintf(os.Stderr, "unknown mode %q\n", mode)
		return 2
	}
	g.mu.Lock()
	held := g.dirHeld
	g.mu.Unlock()
	fmt.Println("held", held)
	_, _ = io.Copy(io.Discard, os.Stdin) // until the test lets go
	return 0
}

// helperProc is a helper process holding, or waiting for, a gate.
type helperProc struct {
	lines  chan string // its stdout, line by line; closed when it ends
	stdin  io.WriteCloser
	exited chan error
}

// startHelper starts a helper process taking the gate on dir as mode
// says; it is let go and waited for when the test ends, if not before.
func startHelper(t *testing.T, mode, dir string) *helperProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+mode, dirEnv+"="+dir)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &helperProc{lines: make(chan string, 1), stdin: stdin, exited: make(chan error, 1)}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			h.lines <- sc.Text()
		}
		close(h.lines)
		h.exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = stdin.Close() // Best effort: release may have closed it.
		select {
		case <-h.exited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill() // Best effort: it may have just exited.
		}
	})
	return h
}

// release has the helper let go of the gate, and waits until it has.
func (h *helperProc) release(t *testing.T) {
	t.Helper()
	if err := h.stdin.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-h.exited:
		if err != nil {
			t.Fatalf("helper: %v", err)
		}
		h.exited <- nil // for the cleanup
	case <-time.After(20 * time.Second): // only catches a hang
		t.Fatal("the helper did not let go")
	}
}
