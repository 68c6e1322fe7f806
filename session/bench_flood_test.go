package session

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/session/internal/engine"
)

// Waits under a flood (issue 21): how long a wait takes to see a line while
// output flows, and how many reads of tmux's grid it makes meanwhile.

// BenchmarkWaitForText_WakeFlood is BenchmarkWaitForText_Wake while two
// other panes of the same window print without pause (yes): their output
// comes on the same control client as the awaited pane's.
func BenchmarkWaitForText_WakeFlood(b *testing.B) {
	benchWakeFlood(b, func(mark string) string { return mark + "\r\n" })
}

// BenchmarkWaitForText_WakeFloodInline is BenchmarkWaitForText_WakeInline
// under the same flood: the read of tmux's grid waits behind it too.
func BenchmarkWaitForText_WakeFloodInline(b *testing.B) {
	benchWakeFlood(b, func(mark string) string { return "\x1b[H\x1b[J" + mark + "\x1b[1B\r\x1b[2Kstatus" })
}

// benchWakeFlood is benchWake with two panes flooding next to the awaited
// one. Before the flood starts, 200 trials in the same process give the
// quiet median the flood's is compared with (x-quiet).
func benchWakeFlood(b *testing.B, draw func(mark string) string) {
	fx, wk := newWaker(b, draw)
	quiet := wk.wakes(200)[100]
	for range 2 {
		fx.Tmux(b, "split-window", "-d", "-t", "w:", "yes", "flood-line")
	}
	var lat []time.Duration
	looks := engine.GridLooks(wk.s.Engine)
	for b.Loop() {
		lat = append(lat, wk.wakes(200)...)
	}
	b.ReportMetric(float64(engine.GridLooks(wk.s.Engine)-looks)/float64(len(lat)), "looks/wait")
	median := reportWakes(b, lat)
	b.ReportMetric(float64(quiet.Microseconds()), "quiet-median-µs")
	b.ReportMetric(float64(median)/float64(quiet), "x-quiet")
	reportLoad(b)
}

// BenchmarkWaitForText_FloodLooks waits, a second a round, for a line that
// never comes on a pane that redraws without pause (a frame on the row
// above its cursor, over and over, as a spinner does): the wait reads
// tmux's grid after output, at most once per interval (50 ms). looks/s is
// how many reads it made a second; at-most/s is the bound.
func BenchmarkWaitForText_FloodLooks(b *testing.B) {
	fx, s := newTestServer(b)
	ctx := context.Background()
	fx.NewSession(b, "f", "sh", "-c", `i=0; while :; do i=$((i+1)); printf '\033[1A\033[2Kframe %d\n' $i; done`)
	pane := paneOf(b, s, "f")
	const interval = 50 * time.Millisecond
	var looks int64
	var took time.Duration
	for b.Loop() {
		n := engine.GridLooks(s.Engine)
		start := time.Now()
		r, err := s.WaitForText(ctx, WaitArgs{Pane: PaneRef{PaneID: pane}, Patterns: []string{"never-drawn"}, MatchCase: true,
			Interval: interval, Timeout: time.Second})
		if err != nil || r.Outcome != OutcomeTimeout || !r.SawNewOutput {
			b.Fatalf("got %+v %v, want a timeout after output", r, err)
		}
		took += time.Since(start)
		looks += engine.GridLooks(s.Engine) - n
	}
	if looks == 0 {
		b.Fatal("the wait never read the grid: the flood is not taken for a redraw")
	}
	b.ReportMetric(float64(looks)/took.Seconds(), "looks/s")
	b.ReportMetric(float64(time.Second/interval), "at-most/s")
	reportLoad(b)
}

// reportLoad reports the machine's load average over the last minute,
// where the system tells it (Linux), as the benchmark's noise.
func reportLoad(b *testing.B) {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return
	}
	if f := strings.Fields(string(raw)); len(f) > 0 {
		if v, err := strconv.ParseFloat(f[0], 64); err == nil {
			b.ReportMetric(v, "loadavg-1m")
		}
	}
}

// The benchmarks below measure designs for keeping a wait's output apart
// from a flood on another control client (issue 21), and were not taken:
// see docs/performance.md. On tmux 3.7 and later a pane is turned off on
// a client (refresh-client -A %N:off): tmux then still waits for the
// slowest client that has the pane on before it reads more. Before 3.7
// only a pause is safe (off keeps the output already queued, and the next
// output of the pane can make the server exit on "not enough data"); a
// paused pane is read whatever the clients' backlog.

// floodApart starts two panes flooding next to the waker's, and a second
// control client of this process attached to the same session, which
// counts the output it gets and asks again for a pane tmux pauses.
func floodApart(b *testing.B, fx *fixtures.Server, wk *waker) (flood []string, other *clientRef, carried *atomic.Int64) {
	ctx := context.Background()
	for range 2 {
		out := fx.Tmux(b, "split-window", "-d", "-P", "-F", "#{pane_id}", "-t", "w:", "yes", "flood-line")
		flood = append(flood, strings.TrimSpace(out))
	}
	sessionID, err := wk.s.sessionOfPane(ctx, wk.pane)
	if err != nil {
		b.Fatal(err)
	}
	carried = new(atomic.Int64)
	other, err = wk.s.link.startClient(ctx, sessionID, func(_ uint64, ref *clientRef, n controlmode.Notification) {
		switch n := n.(type) {
		case controlmode.Output:
			carried.Add(int64(len(n.Data)))
			if wk.arrived != nil && n.Pane == wk.pane {
				wk.arrived(n.Data)
			}
		case controlmode.Pause:
			wk.s.link.spawn(func() {
				if c := ref.conn(); c != nil {
					_, _ = c.Exec(ctx, controlmode.NewCommand("refresh-client", "-A", n.Pane+":continue"))
				}
			})
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { wk.s.link.closeClient(other.conn()) })
	return flood, other, carried
}

// stopOutput turns the output of panes off on client c (paused before
// tmux 3.7).
func stopOutput(b *testing.B, fx *fixtures.Server, s *Server, c *controlmode.Conn, panes []string) {
	state := ":pause"
	if fx.AtLeast(b, 3, 7) {
		state = ":off"
	}
	var args []string
	for _, p := range panes {
		args = append(args, "-A", p+state)
	}
	if _, err := s.send(context.Background(), c, controlmode.NewCommand("refresh-client", args...)); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkWaitForText_WakeFloodApart measures keeping a flood off the
// client a wait reads: the flood of BenchmarkWaitForText_WakeFlood, first
// as that benchmark has it (flood-*), then turned off on the main client
// and carried instead by a second client of this process (apart-*), in
// the same process, with the quiet median before the flood.
func BenchmarkWaitForText_WakeFloodApart(b *testing.B) {
	benchWakeFloodApart(b, func(mark string) string { return mark + "\r\n" })
}

// BenchmarkWaitForText_WakeFloodApartInline is
// BenchmarkWaitForText_WakeFloodApart for a line only tmux's grid holds.
func BenchmarkWaitForText_WakeFloodApartInline(b *testing.B) {
	benchWakeFloodApart(b, func(mark string) string { return "\x1b[H\x1b[J" + mark + "\x1b[1B\r\x1b[2Kstatus" })
}

func benchWakeFloodApart(b *testing.B, draw func(mark string) string) {
	fx, wk := newWaker(b, draw)
	quiet := wk.wakes(200)[100]
	flood, _, carried := floodApart(b, fx, wk)
	together := wk.wakes(400)
	stopOutput(b, fx, wk.s, wk.s.link.current(), flood)
	n, start := carried.Load(), time.Now()
	var apart []time.Duration
	for b.Loop() {
		apart = append(apart, wk.wakes(200)...)
	}
	mbs := float64(carried.Load()-n) / time.Since(start).Seconds() / 1e6
	reportPercentiles(b, "flood", together)
	reportPercentiles(b, "apart", apart)
	b.ReportMetric(float64(quiet.Microseconds()), "quiet-median-µs")
	b.ReportMetric(mbs, "apart-flood-MB/s")
	reportLoad(b)
}

// BenchmarkWaitForText_WakeFloodReader measures a reader: a second client
// that carries only the pane a wait is on, the flooding panes turned off
// on it, while the main client carries everything as it does today. In
// each trial: when the line reached the reader (reader-*) and when the
// wait, on the main client, returned (wake-*); then the round trip of a
// look at the grid (capture-pane) on each client under the flood. Only on
// tmux 3.7 and later: with the flood paused on the reader, tmux reads it
// whatever the main client's backlog, and the main client fell so far
// behind that it stopped answering within seconds and was replaced.
func BenchmarkWaitForText_WakeFloodReader(b *testing.B) {
	fx, wk := newWaker(b, func(mark string) string { return mark + "\r\n" })
	if !fx.AtLeast(b, 3, 7) {
		b.Skip("a pane is turned off on a client safely only from tmux 3.7")
	}
	ctx := context.Background()
	arrived := make(chan time.Time, 1)
	var mark atomic.Pointer[string]
	wk.arrived = func(data []byte) {
		if m := mark.Load(); m != nil && bytes.Contains(data, []byte(*m)) {
			select {
			case arrived <- time.Now():
			default:
			}
		}
	}
	flood, reader, _ := floodApart(b, fx, wk)
	stopOutput(b, fx, wk.s, reader.conn(), flood)
	var doorbell []time.Duration
	wk.marked = func(m string) {
		for len(arrived) > 0 {
			<-arrived
		}
		mark.Store(&m)
	}
	wk.drawn = func(m string, t0 time.Time) {
		select {
		case t := <-arrived:
			doorbell = append(doorbell, t.Sub(t0))
		case <-time.After(10 * time.Second):
			b.Fatalf("%s never reached the reader", m)
		}
	}
	var lat []time.Duration
	for b.Loop() {
		lat = append(lat, wk.wakes(200)...)
	}
	reportWakes(b, lat)
	reportPercentiles(b, "reader", doorbell)
	look := engine.CaptureCommand(CaptureArgs{Join: true}, wk.pane)
	var onMain, onReader []time.Duration
	for range 100 {
		t0 := time.Now()
		if _, err := wk.s.exec(ctx, look); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := wk.s.send(ctx, reader.conn(), look); err != nil {
			b.Fatal(err)
		}
		onMain, onReader = append(onMain, t1.Sub(t0)), append(onReader, time.Since(t1))
	}
	reportPercentiles(b, "look-main", onMain)
	reportPercentiles(b, "look-reader", onReader)
	reportLoad(b)
}

// BenchmarkRoundTrip_FloodTerminal measures the main client's round trip
// while two panes of its session print without pause: first with only
// this process's client attached (alone-*), then with a terminal client
// attached to the session as a person's would be (terminal-*), each for
// 8 s at 20 calls a second; fork-* is a tmux process per call at the same
// time, the server's own pace. With a terminal attached, tmux reads the
// flood whatever this client's backlog, and a reply comes after the
// output queued before it; replaced is how many
// times the client stopped answering for the reply deadline (10 s).
func BenchmarkRoundTrip_FloodTerminal(b *testing.B) {
	script, err := exec.LookPath("script")
	if err != nil {
		b.Skip("no script(1) to give a terminal client a terminal")
	}
	fx, s := newTestServer(b)
	fx.NewSession(b, "w", "sh", "-c", "exec cat >/dev/null")
	paneOf(b, s, "w")
	for range 2 {
		fx.Tmux(b, "split-window", "-d", "-t", "w:", "yes", "flood-line")
	}
	ctx := context.Background()
	phase := func(name string) {
		var lat, forks []time.Duration
		dials := s.link.dials.Load()
		for end := time.Now().Add(8 * time.Second); time.Now().Before(end); {
			t0 := time.Now()
			_, _ = s.exec(ctx, controlmode.NewCommand("display-message", "-p", "x")) // A replaced client is counted below.
			t1 := time.Now()
			if _, err := fx.TryTmux("display-message", "-p", "x"); err != nil {
				b.Fatal(err)
			}
			lat, forks = append(lat, t1.Sub(t0)), append(forks, time.Since(t1))
			time.Sleep(50 * time.Millisecond) // the pace of calls, not a synchronisation
		}
		reportPercentiles(b, name, lat)
		reportPercentiles(b, name+"-fork", forks)
		b.ReportMetric(float64(s.link.dials.Load()-dials), name+"-replaced")
	}
	for b.Loop() {
		phase("alone")
		cmd := exec.Command(script, "-qfec", strings.Join(append([]string{fx.Bin}, fx.Args("attach-session", "-t", "w")...), " "), "/dev/null")
		cmd.Env = append(fx.Env(), "TERM=xterm")
		in, err := cmd.StdinPipe()
		if err != nil {
			b.Fatal(err)
		}
		cmd.Stdout = io.Discard
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		fixtures.WaitFor(b, 20*time.Second, "a terminal client", func() bool {
			out, _ := fx.TryTmux("list-clients", "-F", "#{client_control_mode}")
			return strings.Contains(out, "0")
		})
		phase("terminal")
		in.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	reportLoad(b)
}
