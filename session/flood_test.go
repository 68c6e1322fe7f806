package session

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// rss returns this process's resident memory in bytes.
func rss(t testing.TB) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for l := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return kb << 10
		}
	}
	t.Skip("no VmRSS")
	return 0
}

// TestFloodStaysBounded runs yes in four panes of the attached session
// while capture_pane is called in a loop: memory stays bounded, calls keep
// answering, and a plain tmux client from outside is never blocked.
func TestFloodStaysBounded(t *testing.T) {
	seconds := 30
	if testing.Short() {
		seconds = 3
	}
	if v, err := strconv.Atoi(os.Getenv("TMUX_MCP_FLOOD_SECONDS")); err == nil {
		seconds = v
	}
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	fx.NewSession(t, "flood", "yes")
	for range 3 {
		fx.Tmux(t, "split-window", "-t", "flood", "yes")
	}
	fx.Tmux(t, "select-layout", "-t", "flood", "tiled")
	pane := paneOf(t, s, "flood") // connects: the client attaches to flood
	if st := s.ConnStats(); st.Attached == "" {
		t.Fatal("not attached")
	}
	time.Sleep(time.Second) // let the flood reach full speed before the baseline
	base := rss(t)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var peak, calls, outside atomic.Int64
	var slowest atomic.Int64
	errs := make(chan error, 2)
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			start := time.Now()
			if _, _, err := s.Capture(ctx, PaneRef{PaneID: pane}, CaptureArgs{}); err != nil {
				errs <- err
				return
			}
			if d := int64(time.Since(start)); d > slowest.Load() {
				slowest.Store(d)
			}
			calls.Add(1)
			if r := rss(t); r > peak.Load() {
				peak.Store(r)
			}
		}
	})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
			start := time.Now()
			if _, err := fx.TryTmux("list-sessions"); err != nil {
				errs <- err
				return
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("an outside list-sessions took %v: the server was blocked", d)
			}
			outside.Add(1)
		}
	})
	time.Sleep(time.Duration(seconds) * time.Second) // the flood's duration
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	held := s.streams.Held()
	grew := peak.Load() - base
	t.Logf("%d s of yes in 4 panes: %d capture_pane calls (slowest %v), %d outside list-sessions; RSS %d MiB at start, peak +%d MiB; streams hold %d KiB",
		seconds, calls.Load(), time.Duration(slowest.Load()).Round(time.Millisecond), outside.Load(), base>>20, grew>>20, held>>10)
	if calls.Load() == 0 || outside.Load() == 0 {
		t.Fatal("calls stopped answering")
	}
	// Each stream keeps at most 2 x StreamCap, plus the slack append leaves.
	if held > 4*3*StreamCap {
		t.Fatalf("streams hold %d bytes for 4 panes, want at most %d", held, 4*3*StreamCap)
	}
	if grew > 128<<20 {
		t.Fatalf("resident memory grew by %d MiB during the flood", grew>>20)
	}
}
