package main

import (
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// BenchmarkSSHToolCall measures tool calls through the built binary with
// --ssh, its tmux behind a test sshd on loopback reached through a proxy
// that adds 0 or 20 ms of round trip. Beside each, measured in the same
// run through a proxy with the same delay: the proxy's bare round trip (a
// byte to an echo server and back), and one `ssh dest tmux ...` per call
// with the same command (what a server that forks ssh per call pays: a
// handshake and several round trips), all as medians. The bare round trip
// is timed right before each call:
//
//	µs/call     the tool's median latency
//	rtt-µs      the median bare round trip through the proxy
//	ssh-µs      the median ssh-per-call
//	x-rtt       tool median / bare round trip (the bar at 20 ms: at most 1.5)
//	x-ssh       ssh-per-call / tool median (the bar at 20 ms: at least 5)
func BenchmarkSSHToolCall(b *testing.B) {
	sshd := fixtures.NewSSHD(b)
	fx := fixtures.NewServer(b)
	sid := fx.NewSession(b, "bench", "cat >/dev/null")
	pane := fx.Tmux(b, "display-message", "-p", "-t", sid, "#{pane_id}")
	echo := echoServer(b)

	type toolCall struct {
		tool string
		args map[string]any
		tmux []string // the same, as one tmux command
	}
	calls := []toolCall{
		{"capture_pane", map[string]any{"pane_id": pane}, []string{"capture-pane", "-p", "-J", "-t", pane}},
		{"send_keys", map[string]any{"pane_id": pane, "keys": "x", "literal": true}, []string{"send-keys", "-t", pane, "-l", "x"}},
		{"list_panes", map[string]any{"session_id": sid}, []string{"list-panes", "-s", "-t", sid}},
	}
	for _, rtt := range []time.Duration{0, 20 * time.Millisecond} {
		proxy := fixtures.NewProxy(b, sshd.Port, rtt)
		bare := dialEcho(b, fixtures.NewProxy(b, echo, rtt).Port)
		args := sshd.ClientArgs(proxy.Port)
		lean := startLean(b, fx, "--ssh", shellWords(args))
		for _, c := range calls {
			b.Run("rtt="+rtt.String()+"/"+c.tool, func(b *testing.B) {
				ssh := sshPerCall(b, args, append([]string{fx.Bin}, fx.Args(c.tmux...)...), 10)
				lean.call(b, c.tool, c.args) // warm: the first call connects
				// The bare round trip is timed right before every call, so
				// that both medians come from the same moments of a shared
				// machine.
				var rttLat, lat []time.Duration
				for b.Loop() {
					t0 := time.Now()
					bare(b)
					t1 := time.Now()
					lean.call(b, c.tool, c.args)
					rttLat, lat = append(rttLat, t1.Sub(t0)), append(lat, time.Since(t1))
				}
				med, rttMed := us(median(lat)), us(median(rttLat))
				b.ReportMetric(med, "µs/call")
				b.ReportMetric(rttMed, "rtt-µs")
				b.ReportMetric(ssh, "ssh-µs")
				b.ReportMetric(med/rttMed, "x-rtt")
				b.ReportMetric(ssh/med, "x-ssh")
			})
		}
	}
}

// echoServer returns the port of a TCP server on 127.0.0.1 that echoes
// what it reads, until the benchmark ends.
func echoServer(b *testing.B) int {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c) // until the client closes
			}()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port
}

// dialEcho connects through the proxy at port to the echo server and
// returns a function that sends one byte and reads it back.
func dialEcho(b *testing.B, port int) func(*testing.B) {
	b.Helper()
	c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	buf := make([]byte, 1)
	return func(b *testing.B) {
		if _, err := c.Write([]byte{'x'}); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf); err != nil {
			b.Fatal(err)
		}
	}
}

// sshPerCall returns the median time of n runs of `ssh args tmux...`,
// each a connection of its own, in µs.
func sshPerCall(b *testing.B, args, tmux []string, n int) float64 {
	b.Helper()
	remote := "exec " + shellWords(tmux)
	lat := make([]time.Duration, 0, n)
	for range n {
		t0 := time.Now()
		cmd := exec.Command("ssh", append(append([]string{"-T", "-o", "BatchMode=yes"}, args...), remote)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("ssh per call: %v: %s", err, out)
		}
		lat = append(lat, time.Since(t0))
	}
	return us(median(lat))
}

// shellWords quotes words for a POSIX shell, as --ssh reads them.
func shellWords(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}
