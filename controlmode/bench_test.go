package controlmode_test

import (
	"context"
	"os/exec"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// Every benchmark prints its own figure and, measured in the same process
// against the same server, the baseline it is compared with, as a ratio.

var benchCmd = controlmode.NewCommand("display-message", "-p", "x")

// forkPerCall runs one `tmux display-message -p x` process per call for
// about d, the way a fork-per-call server works, and returns the median
// µs per call.
func forkPerCall(b *testing.B, srv *fixtures.Server, d time.Duration) float64 {
	b.Helper()
	var lat []time.Duration
	for start := time.Now(); time.Since(start) < d || len(lat) < 20; {
		t0 := time.Now()
		out, err := exec.Command(srv.Bin, srv.Args("display-message", "-p", "x")...).Output()
		if err != nil || string(out) != "x\n" {
			b.Fatalf("fork: %q %v", out, err)
		}
		lat = append(lat, time.Since(t0))
	}
	return medianµs(lat)
}

// sequential measures back-to-back Exec round trips for about d and
// returns µs per call.
func sequential(b *testing.B, c *controlmode.Conn, d time.Duration) float64 {
	b.Helper()
	n, start := 0, time.Now()
	for time.Since(start) < d || n < 100 {
		if _, err := c.Exec(context.Background(), benchCmd); err != nil {
			b.Fatal(err)
		}
		n++
	}
	return float64(time.Since(start).Microseconds()) / float64(n)
}

// medianµs is the median of lat in µs. Medians, not means, are compared:
// on a shared machine a few calls that lose the CPU move a mean a lot.
func medianµs(lat []time.Duration) float64 {
	s := slices.Clone(lat)
	slices.Sort(s)
	return float64(s[len(s)/2]) / float64(time.Microsecond)
}

func BenchmarkForkPerCall(b *testing.B) {
	srv, _ := attach(b, nil)
	for b.Loop() {
		if err := exec.Command(srv.Bin, srv.Args("display-message", "-p", "x")...).Run(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExec_Sequential(b *testing.B) {
	b.Run("pty", func(b *testing.B) { benchSequential(b, nil) })
	b.Run("pipes", func(b *testing.B) { benchSequential(b, &controlmode.Options{Pipes: true}) })
}

// benchSequential reports the median round trip (µs/call) beside the
// median fork-per-call, measured after it against the same server.
func benchSequential(b *testing.B, opts *controlmode.Options) {
	srv, c := attach(b, opts)
	b.ReportAllocs()
	lat := make([]time.Duration, 0, 4096)
	for b.Loop() {
		t0 := time.Now()
		if _, err := c.Exec(context.Background(), benchCmd); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	us := medianµs(lat)
	fork := forkPerCall(b, srv, 500*time.Millisecond)
	b.ReportMetric(us, "µs/call")
	b.ReportMetric(fork, "fork-µs/call")
	b.ReportMetric(fork/us, "x-faster-than-fork")
}

func BenchmarkExec_Pipelined(b *testing.B) {
	_, c := attach(b, nil)
	b.ReportAllocs()
	// 16 goroutines in all, whatever GOMAXPROCS is.
	procs := runtime.GOMAXPROCS(0)
	b.SetParallelism((16 + procs - 1) / procs)
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Exec(context.Background(), benchCmd); err != nil {
				b.Error(err)
				return
			}
		}
	})
	perSec := float64(b.N) / time.Since(start).Seconds()
	seqUS := sequential(b, c, 500*time.Millisecond)
	b.ReportMetric(perSec, "calls/s")
	b.ReportMetric(1e6/seqUS, "seq-calls/s")
	b.ReportMetric(perSec/(1e6/seqUS), "x-sequential")
}
