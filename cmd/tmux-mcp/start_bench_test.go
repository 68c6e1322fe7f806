package main

import (
	"bufio"
	"io"
	"os/exec"
	"testing"
	"time"
)

// BenchmarkStart measures what a client waits for when it starts the
// server: process start to the initialize answer, and then one tools/list,
// against the bare start of the same binary (`--version`, which exits
// before building anything), timed in turn in the same loop, as medians:
//
//	version-ms   the median start and exit of `tmux-mcp --version`
//	init-ms      the median start to the initialize answer (the bar: 20 ms)
//	list-ms      the median tools/list after it (the bar: 3 ms)
//	x-version    init-ms / version-ms
//
// No tmux is started: the server reaches tmux at the first tool call.
func BenchmarkStart(b *testing.B) {
	bin := binary(b)
	env := childEnv(nil, "TMUX_TMPDIR="+b.TempDir())
	const (
		initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}` + "\n"
		list       = `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n"
	)
	var version, start, listed []time.Duration
	for b.Loop() {
		t0 := time.Now()
		v := exec.Command(bin, "--version")
		v.Env = env
		if out, err := v.Output(); err != nil {
			b.Fatalf("--version: %v: %s", err, out)
		}
		version = append(version, time.Since(t0))

		cmd := exec.Command(bin, "--socket", "bench-start")
		cmd.Env = env
		stdin, err := cmd.StdinPipe()
		if err != nil {
			b.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		rd := bufio.NewReaderSize(stdout, 1<<20)
		t0 = time.Now()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		answer := func(req string) time.Duration {
			t := time.Now()
			if _, err := io.WriteString(stdin, req); err != nil {
				b.Fatal(err)
			}
			if _, err := rd.ReadBytes('\n'); err != nil {
				b.Fatalf("no answer to %s: %v", req, err)
			}
			return time.Since(t)
		}
		answer(initialize)
		start = append(start, time.Since(t0))
		listed = append(listed, answer(list))
		_ = stdin.Close()
		if err := cmd.Wait(); err != nil {
			b.Fatal(err)
		}
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(median(version)), "version-ms")
	b.ReportMetric(ms(median(start)), "init-ms")
	b.ReportMetric(ms(median(listed)), "list-ms")
	b.ReportMetric(float64(median(start))/float64(median(version)), "x-version")
	b.ReportMetric(0, "ns/op")
}
