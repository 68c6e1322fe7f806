package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/mcp"
	"github.com/tmux-mcp/tmux-mcp/session"
)

// BenchmarkStdioToolCall measures tool calls as an MCP client sees them,
// over stdio, against the built binary, from two clients: "lean" writes
// JSON-RPC lines and reads the answers (the floor any client can reach;
// what the server costs), "gosdk" is the Go SDK's client (which adds its
// own decoding, about 70 µs here). "pipes" is the lean client with a
// server started with --pipes. "mixed" cycles through the four tools,
// as an agent loop does. Beside each it reports, measured in the same
// process against the same tmux server, the raw control-mode round trip
// (controlmode.Conn.Exec of display-message on a client of its own: the
// floor any call over the channel pays), timed right before each call,
// and a fork-per-call tmux (what most tmux MCP servers pay per command),
// all as medians:
//
//	µs/call     the tool's median latency
//	raw-µs      the median raw round trip
//	fork-µs     the median fork-per-call tmux
//	x-raw       tool median / raw round trip (the bar: at most 4)
//	x-fork      fork / tool median (the bar: at least 10)
func BenchmarkStdioToolCall(b *testing.B) {
	fx := fixtures.NewServer(b)
	sid := fx.NewSession(b, "bench", "cat >/dev/null")
	pane := fx.Tmux(b, "display-message", "-p", "-t", sid, "#{pane_id}")

	lean := startLean(b, fx)
	pipes := startLean(b, fx, "--pipes")
	cmd := exec.Command(binary(b), "--socket", fx.Socket)
	cmd.Env = childEnv(fx)
	ctx := context.Background()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "0"}, nil).
		Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })

	// The raw round trip is timed right before every call, so that both
	// medians come from the same minutes of a shared machine.
	rawConn := rawClient(b, fx, sid)
	rawCmd := controlmode.NewCommand("display-message", "-p", "x")
	fork := forkMedian(b, fx, 200)
	measure := func(b *testing.B, call func()) {
		var rawLat, lat []time.Duration
		for b.Loop() {
			t0 := time.Now()
			if _, err := rawConn.Exec(ctx, rawCmd); err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			call()
			rawLat, lat = append(rawLat, t1.Sub(t0)), append(lat, time.Since(t1))
		}
		med, raw := us(median(lat)), us(median(rawLat))
		b.ReportMetric(med, "µs/call")
		b.ReportMetric(raw, "raw-µs")
		b.ReportMetric(fork, "fork-µs")
		b.ReportMetric(med/raw, "x-raw")
		b.ReportMetric(fork/med, "x-fork")
	}

	type toolCall struct {
		tool string
		args map[string]any
	}
	calls := []toolCall{
		{"list_panes", map[string]any{"session_id": sid}},
		{"get_pane_info", map[string]any{"pane_id": pane}},
		{"capture_pane", map[string]any{"pane_id": pane}},
		{"send_keys", map[string]any{"pane_id": pane, "keys": "x", "literal": true}},
	}
	clients := []struct {
		name string
		call func(b *testing.B, c toolCall)
	}{
		{"lean", func(b *testing.B, c toolCall) { lean.call(b, c.tool, c.args) }},
		{"pipes", func(b *testing.B, c toolCall) { pipes.call(b, c.tool, c.args) }},
		{"gosdk", func(b *testing.B, c toolCall) {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
			if err != nil {
				b.Fatal(err)
			}
			if res.IsError {
				b.Fatalf("%s: %s", c.tool, textOf(res))
			}
		}},
	}
	for _, client := range clients {
		for _, c := range calls {
			b.Run(client.name+"/"+c.tool, func(b *testing.B) {
				client.call(b, c) // warm: the first call connects the control client
				measure(b, func() { client.call(b, c) })
			})
		}
		b.Run(client.name+"/mixed", func(b *testing.B) {
			i := 0
			measure(b, func() {
				client.call(b, calls[i%len(calls)])
				i++
			})
		})
	}

	// Floors: a ping through the server (the SDK's path, no tmux), and a
	// bare Go process echoing lines over the same kind of pipes.
	pingMedian := func(b *testing.B, c *leanClient) {
		lat := make([]time.Duration, 0, 1024)
		for b.Loop() {
			t0 := time.Now()
			c.send(b, `{"jsonrpc":"2.0","id":"p","method":"ping"}`+"\n")
			c.recv(b)
			lat = append(lat, time.Since(t0))
		}
		b.ReportMetric(us(median(lat)), "µs/call")
	}
	b.Run("lean/ping", func(b *testing.B) { pingMedian(b, lean) })
	b.Run("echo", func(b *testing.B) {
		pingMedian(b, startLeanCmd(b, exec.Command(os.Args[0]), echoEnv+"=1"))
	})

	// What a client pays to learn the catalogue, in bytes on the wire.
	b.Run("tools_list", func(b *testing.B) {
		b.ReportMetric(float64(toolsListBytes(b, fx)), "bytes")
		for b.Loop() {
			for _, err := range cs.Tools(ctx, nil) {
				if err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// leanClient is the least an MCP client can do over stdio: write a
// tools/call line, read the answer line, check it is no error.
type leanClient struct {
	in  io.WriteCloser
	out *bufio.Reader
	id  int
	buf []byte
}

func startLean(b *testing.B, fx *fixtures.Server, args ...string) *leanClient {
	b.Helper()
	c := startLeanCmd(b, exec.Command(binary(b), append([]string{"--socket", fx.Socket}, args...)...), childEnv(fx)...)
	c.send(b, initialize+"\n")
	c.recv(b)
	c.send(b, initialized+"\n")
	return c
}

// echoEnv makes the test binary echo its stdin (see TestMain).
const echoEnv = "TMUX_MCP_TEST_ECHO"

// echoLines copies stdin to stdout a line at a time, as a server answers.
func echoLines() {
	r := bufio.NewReader(os.Stdin)
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		if _, err := os.Stdout.Write(line); err != nil {
			return
		}
	}
}

// startLeanCmd starts cmd with env and returns a client on its stdin and stdout.
func startLeanCmd(b *testing.B, cmd *exec.Cmd, env ...string) *leanClient {
	b.Helper()
	cmd.Env = env
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = in.Close()
		_ = cmd.Wait()
	})
	return &leanClient{in: in, out: bufio.NewReaderSize(out, 1<<20)}
}

func (c *leanClient) send(b *testing.B, s string) {
	if _, err := io.WriteString(c.in, s); err != nil {
		b.Fatal(err)
	}
}

func (c *leanClient) recv(b *testing.B) []byte {
	line, err := c.out.ReadSlice('\n')
	if err != nil {
		b.Fatalf("reading an answer: %v", err)
	}
	return line
}

func (c *leanClient) call(b *testing.B, tool string, args map[string]any) {
	c.id++
	a, err := json.Marshal(args)
	if err != nil {
		b.Fatal(err)
	}
	c.buf = fmt.Appendf(c.buf[:0], `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`+"\n", c.id, tool, a)
	if _, err := c.in.Write(c.buf); err != nil {
		b.Fatal(err)
	}
	line := c.recv(b)
	if !bytes.HasPrefix(line, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"result":`, c.id)) || bytes.Contains(line, []byte(`"isError":true`)) {
		b.Fatalf("%s: %s", tool, line)
	}
}

// BenchmarkInProcessToolCall splits the cost of BenchmarkStdioToolCall by
// layer, in one process: "backend" calls the mcp.TmuxBackend method
// directly (session layer plus the control channel), "inmemory" goes
// through the MCP server and the Go SDK client over in-memory transports
// (adding JSON-RPC, schema checks and the SDK's goroutines, but no pipes
// and no second process).
func BenchmarkInProcessToolCall(b *testing.B) {
	fx := fixtures.NewServer(b)
	sid := fx.NewSession(b, "bench", "cat >/dev/null")
	pane := fx.Tmux(b, "display-message", "-p", "-t", sid, "#{pane_id}")
	m := session.NewManager(&session.Options{Tmux: fx.Bin, ConfigFile: "/dev/null", SocketDir: testSocketDir()})
	b.Cleanup(func() { m.Close() })
	backend := mcp.NewTmuxBackend(m, &mcp.TmuxOptions{Socket: session.Socket{Name: fx.Socket}})
	srv, err := mcp.NewServer(backend, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	cs, closeAll, err := connectInMemory(ctx, srv.Server)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(closeAll)
	raw := rawMedian(b, fx, sid, 2000)

	target := mcp.PaneTarget{PaneID: pane}
	for _, tc := range []struct {
		tool   string
		args   map[string]any
		direct func() error
	}{
		{"list_panes", map[string]any{"session_id": sid}, func() error {
			_, err := backend.ListPanes(ctx, mcp.ListPanesIn{SessionTarget: mcp.SessionTarget{SessionID: sid}})
			return err
		}},
		{"get_pane_info", map[string]any{"pane_id": pane}, func() error {
			_, err := backend.GetPaneInfo(ctx, mcp.GetPaneInfoIn{PaneTarget: target})
			return err
		}},
		{"capture_pane", map[string]any{"pane_id": pane}, func() error {
			_, err := backend.CapturePane(ctx, mcp.CapturePaneIn{PaneTarget: target, MaxLines: 500})
			return err
		}},
		{"send_keys", map[string]any{"pane_id": pane, "keys": "x", "literal": true}, func() error {
			_, err := backend.SendKeys(ctx, mcp.SendKeysIn{PaneTarget: target, Keys: mcp.KeyList{Keys: []string{"x"}}, Literal: true, Enter: true})
			return err
		}},
	} {
		viaMCP := func() error {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tc.tool, Arguments: tc.args})
			if err == nil && res.IsError {
				err = errors.New(textOf(res))
			}
			return err
		}
		for _, layer := range []struct {
			name string
			call func() error
		}{{"backend", tc.direct}, {"inmemory", viaMCP}} {
			b.Run(tc.tool+"/"+layer.name, func(b *testing.B) {
				if err := layer.call(); err != nil { // warm
					b.Fatal(err)
				}
				lat := make([]time.Duration, 0, 1024)
				b.ReportAllocs()
				for b.Loop() {
					t0 := time.Now()
					if err := layer.call(); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(t0))
				}
				med := us(median(lat))
				b.ReportMetric(med, "µs/call")
				b.ReportMetric(raw, "raw-µs")
				b.ReportMetric(med/raw, "x-raw")
			})
		}
	}
}

// rawClient returns a control client of its own, attached to session,
// closed when b ends.
func rawClient(b *testing.B, fx *fixtures.Server, session string) *controlmode.Conn {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := controlmode.Start(ctx, &controlmode.Options{
		Tmux: fx.Bin, Socket: fx.Socket, Command: []string{"attach-session", "-t", session},
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	return c
}

// rawMedian returns the median, in µs, of n sequential Exec round trips of
// display-message on a control client of its own, attached to session.
func rawMedian(b *testing.B, fx *fixtures.Server, session string, n int) float64 {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := rawClient(b, fx, session)
	cmd := controlmode.NewCommand("display-message", "-p", "x")
	lat := make([]time.Duration, 0, n)
	for range n + n/10 { // the first tenth warms up
		t0 := time.Now()
		if _, err := c.Exec(ctx, cmd); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	return us(median(lat[n/10:]))
}

// forkMedian returns the median, in µs, of n one-shot `tmux display-message`
// processes.
func forkMedian(b *testing.B, fx *fixtures.Server, n int) float64 {
	b.Helper()
	lat := make([]time.Duration, 0, n)
	for range n {
		t0 := time.Now()
		cmd := exec.Command(fx.Bin, fx.Args("display-message", "-p", "x")...)
		cmd.Env = fx.Env()
		if out, err := cmd.Output(); err != nil || string(out) != "x\n" {
			b.Fatalf("fork: %q %v", out, err)
		}
		lat = append(lat, time.Since(t0))
	}
	return us(median(lat))
}

// toolsListBytes returns the size of the tools/list response line a
// default (mutating tier) server writes.
func toolsListBytes(tb testing.TB, fx *fixtures.Server, args ...string) int {
	tb.Helper()
	r := startRaw(tb, fx, args...)
	r.send(tb, initialize)
	r.next(tb, 30*time.Second)
	r.send(tb, initialized, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	line := r.next(tb, 30*time.Second)
	if resp := parseResponse(tb, line); resp.ID != 1.0 || resp.Error != nil {
		tb.Fatalf("tools/list: %s", line)
	}
	_ = r.stdin.Close()
	r.wait(tb, 30*time.Second)
	return len(line) + 1 // and its newline
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// TestToolsListSize logs what tools/list costs a client, per tier, and
// keeps it at most 55,000 bytes at the default tier: clients send it to the model
// in every conversation.
func TestToolsListSize(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewServer(t)
	for _, tier := range []string{"readonly", "mutating", "destructive"} {
		n := toolsListBytes(t, fx, "--safety", tier)
		if n > 1<<20 {
			t.Errorf("%s: tools/list is %d bytes, over the 1 MiB response cap", tier, n)
		}
		if tier == "mutating" && n > 55_000 { // mcp's maxToolsListBytes
			t.Errorf("tools/list at the default tier is %d bytes, over 55,000", n)
		}
		t.Logf("tools/list at %s: %d bytes", tier, n)
	}
}
