package session

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkRecording_Wake measures what a recording of a pane costs the
// waits on it: wait_for_text's wake (from the write to the pane's terminal
// to the wait's return) and a capture's round trip, each 100 times with
// the pane recorded and 100 times without, alternating in one process, as
// medians and the ratio on/off.
func BenchmarkRecording_Wake(b *testing.B) {
	_, wk := newWaker(b, func(mark string) string { return mark + "\r\n" })
	dir := filepath.Join(b.TempDir(), "rec")
	ctx := context.Background()
	var wakeOn, wakeOff, capOn, capOff []time.Duration
	captures := func(n int) []time.Duration {
		out := make([]time.Duration, 0, n)
		for range n {
			t0 := time.Now()
			if _, _, err := wk.s.Capture(ctx, PaneRef{PaneID: wk.pane}, CaptureArgs{}); err != nil {
				b.Fatal(err)
			}
			out = append(out, time.Since(t0))
		}
		return out
	}
	for b.Loop() {
		wakeOff = append(wakeOff, wk.wakes(100)...)
		capOff = append(capOff, captures(100)...)
		if _, err := wk.s.StartRecording(ctx, PaneRef{PaneID: wk.pane}, RecordArgs{Dir: dir, MaxBytes: 1 << 20, MaxDuration: time.Hour}); err != nil {
			b.Fatal(err)
		}
		wakeOn = append(wakeOn, wk.wakes(100)...)
		capOn = append(capOn, captures(100)...)
		r, err := wk.s.StopRecording(ctx, PaneRef{PaneID: wk.pane})
		if err != nil || r.Events < 100 {
			b.Fatalf("the recording: %+v %v", r, err)
		}
	}
	reportPercentiles(b, "wake-off", wakeOff)
	reportPercentiles(b, "wake-on", wakeOn)
	reportPercentiles(b, "capture-off", capOff)
	reportPercentiles(b, "capture-on", capOn)
	b.ReportMetric(float64(wakeOn[len(wakeOn)/2])/float64(wakeOff[len(wakeOff)/2]), "wake-on/off")
	b.ReportMetric(float64(capOn[len(capOn)/2])/float64(capOff[len(capOff)/2]), "capture-on/off")
}
