package main

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// loadCalls are the calls of an agent loop on pane: list, look, read, type.
func loadCalls(sid, pane string) []*sdk.CallToolParams {
	return []*sdk.CallToolParams{
		{Name: "list_panes", Arguments: map[string]any{"session_id": sid}},
		{Name: "get_pane_info", Arguments: map[string]any{"pane_id": pane}},
		{Name: "capture_pane", Arguments: map[string]any{"pane_id": pane}},
		{Name: "send_keys", Arguments: map[string]any{"pane_id": pane, "keys": "x", "literal": true}},
	}
}

// p99 returns the 99th percentile of d (sorted in place).
func p99(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[(len(d)*99)/100]
}

// TestHTTPManyClients: 16, then 64 clients at once, each its own MCP
// session, 30 calls each, are all answered, and the tmux server sees the
// control clients of one agent, however many agents there are.
func TestHTTPManyClients(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	fx := fixtures.NewServer(t)
	sid := fx.NewSession(t, "load", "cat >/dev/null")
	pane := strings.TrimSpace(fx.Tmux(t, "display-message", "-p", "-t", sid, "#{pane_id}"))
	s := startHTTP(t, fx, "--auth-tokens", tokenFile(t, tokAlice+" name=alice", tokBob+" name=bob"))
	calls := loadCalls(sid, pane)
	const perClient = 30

	run := func(t *testing.T, c *client) []time.Duration {
		lat := make([]time.Duration, 0, perClient)
		for i := range perClient {
			p := *calls[i%len(calls)] // the client writes the request's _meta into it
			t0 := time.Now()
			res, err := c.cs.CallTool(context.Background(), &p)
			if err != nil {
				t.Errorf("call %d: %v", i, err)
				return lat
			}
			if res.IsError {
				t.Errorf("call %d (%s): %s", i, calls[i%len(calls)].Name, textOf(res))
				return lat
			}
			lat = append(lat, time.Since(t0))
		}
		return lat
	}
	// One agent: the control clients it needs.
	run(t, s.connect(t, tokAlice, "2025-11-25"))
	one := len(controlClients(t, fx))
	if one < 1 {
		t.Fatalf("one agent: %d control clients", one)
	}
	for _, n := range []int{16, 64} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			clients := make([]*client, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					tok := tokAlice
					if i%2 == 1 {
						tok = tokBob
					}
					clients[i] = s.connect(t, tok, "2025-11-25") // each its own MCP session
				})
			}
			wg.Wait()
			if t.Failed() {
				return
			}
			var mu sync.Mutex
			var all []time.Duration
			start := time.Now()
			for _, c := range clients {
				wg.Go(func() {
					lat := run(t, c)
					mu.Lock()
					all = append(all, lat...)
					mu.Unlock()
				})
			}
			wg.Wait()
			wall := time.Since(start)
			if len(all) != n*perClient {
				t.Fatalf("%d of %d calls answered", len(all), n*perClient)
			}
			if got := len(controlClients(t, fx)); got != one {
				t.Fatalf("%d agents: %d control clients on the tmux server, want %d, one agent's", n, got, one)
			}
			t.Logf("%d clients × %d calls: all answered in %v; median %v, p99 %v; %d control clients, as for one agent",
				n, perClient, wall.Round(time.Millisecond), median(all).Round(time.Microsecond), p99(all).Round(time.Microsecond), one)
			for _, c := range clients {
				_ = c.cs.Close()
				c.closed = true
			}
		})
	}
}

// BenchmarkHTTPToolCall measures a tool call (get_pane_info, then the
// agent loop's mix) over streamable HTTP against one stdio client of
// another process on the same tmux server, in the same run, both through
// the Go SDK's client: medians and p99, and http/stdio ratios. "16" runs
// 16 HTTP clients at once, each call timed on its own.
//
//	µs/call, p99-µs        the HTTP call
//	stdio-µs, stdio-p99-µs the stdio call, timed right before each HTTP one
//	x-stdio                HTTP median / stdio median
func BenchmarkHTTPToolCall(b *testing.B) {
	fx := fixtures.NewServer(b)
	sid := fx.NewSession(b, "bench", "cat >/dev/null")
	pane := strings.TrimSpace(fx.Tmux(b, "display-message", "-p", "-t", sid, "#{pane_id}"))
	s := startHTTP(b, fx, "--auth-tokens", tokenFile(b, tokAlice+" name=alice"))
	cmd := exec.Command(binary(b), "--socket", fx.Socket)
	cmd.Env = childEnv(fx)
	ctx := context.Background()
	stdio, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "0"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = stdio.Close() })
	calls := loadCalls(sid, pane)
	do := func(b *testing.B, cs *sdk.ClientSession, p0 *sdk.CallToolParams) time.Duration {
		p := *p0 // the client writes the request's _meta into it
		t0 := time.Now()
		res, err := cs.CallTool(ctx, &p)
		if err != nil || res.IsError {
			b.Fatalf("%s: %v %v", p0.Name, err, res)
		}
		return time.Since(t0)
	}
	report := func(b *testing.B, lat, slat []time.Duration) {
		med, smed := us(median(lat)), us(median(slat))
		b.ReportMetric(med, "µs/call")
		b.ReportMetric(us(p99(lat)), "p99-µs")
		b.ReportMetric(smed, "stdio-µs")
		b.ReportMetric(us(p99(slat)), "stdio-p99-µs")
		b.ReportMetric(med/smed, "x-stdio")
	}
	one := s.connect(b, tokAlice, "2025-11-25")
	for _, c := range []struct {
		name string
		next func(i int) *sdk.CallToolParams
	}{
		{"get_pane_info", func(int) *sdk.CallToolParams { return calls[1] }},
		{"mixed", func(i int) *sdk.CallToolParams { return calls[i%len(calls)] }},
	} {
		b.Run(c.name, func(b *testing.B) {
			do(b, one.cs, c.next(0)) // warm
			do(b, stdio, c.next(0))
			var lat, slat []time.Duration
			i := 0
			for b.Loop() {
				slat = append(slat, do(b, stdio, c.next(i)))
				lat = append(lat, do(b, one.cs, c.next(i)))
				i++
			}
			report(b, lat, slat)
		})
	}
	b.Run("16", func(b *testing.B) {
		const n = 16
		clients := make([]*client, n)
		for i := range clients {
			clients[i] = s.connect(b, tokAlice, "2025-11-25")
		}
		var (
			mu        sync.Mutex
			lat, slat []time.Duration
			wg        sync.WaitGroup
		)
		i := 0
		for b.Loop() {
			slat = append(slat, do(b, stdio, calls[i%len(calls)]))
			for _, c := range clients {
				wg.Go(func() {
					d := do(b, c.cs, calls[i%len(calls)])
					mu.Lock()
					lat = append(lat, d)
					mu.Unlock()
				})
			}
			wg.Wait()
			i++
		}
		report(b, lat, slat)
	})
}
