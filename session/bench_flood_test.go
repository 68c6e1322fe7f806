package session

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
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
	for b.Loop() {
		lat = append(lat, wk.wakes(200)...)
	}
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
		n := s.gridLooks.Load()
		start := time.Now()
		r, err := s.WaitForText(ctx, WaitArgs{Pane: PaneRef{PaneID: pane}, Patterns: []string{"never-drawn"}, MatchCase: true,
			Interval: interval, Timeout: time.Second})
		if err != nil || r.Outcome != OutcomeTimeout || !r.SawNewOutput {
			b.Fatalf("got %+v %v, want a timeout after output", r, err)
		}
		took += time.Since(start)
		looks += s.gridLooks.Load() - n
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
