package stdio

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/mcp"
	"github.com/tmux-mcp/tmux-mcp/session"
)

// lineConn is one stdio session of an MCP server, driven a line at a time.
type lineConn struct {
	in     *io.PipeWriter
	out    *bufio.Reader
	direct atomic.Int32 // calls the direct lane took
}

// counted counts the direct lane's calls.
type counted struct {
	ToolCaller
	n *atomic.Int32
}

func (c counted) CallTool(ctx context.Context, name string, args json.RawMessage) (*sdk.CallToolResult, bool) {
	c.n.Add(1)
	return c.ToolCaller.CallTool(ctx, name, args)
}

// serveLines serves one connection of srv, initialized for version, or
// not at all when version is "" (sessionless requests need no handshake).
func serveLines(t *testing.T, srv *mcp.Server, direct bool, version string) *lineConn {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &lineConn{in: inW, out: bufio.NewReaderSize(outR, 1<<20)}
	var tools ToolCaller
	if direct {
		tools = counted{srv, &c.direct}
	}
	st := New(inR, outW, tools, slog.New(slog.DiscardHandler))
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), st.Transport()) }()
	t.Cleanup(func() {
		_ = inW.Close()
		go func() { _, _ = io.Copy(io.Discard, outR) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("Run did not return")
		}
	})
	if version == "" {
		return c
	}
	c.roundTrip(t, strings.Replace(initialize, "2025-11-25", version, 1))
	if _, err := io.WriteString(inW, initialized+"\n"); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *lineConn) roundTrip(t *testing.T, line string) string {
	t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
	got, err := c.out.ReadString('\n')
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return strings.TrimSuffix(got, "\n")
}

// TestDirectLaneAnswersAsTheSDK sends the same tools/call lines through
// the direct lane and through the SDK, against one real server, and wants
// the same bytes back: results, every kind of error envelope, and the
// SDK's own protocol error for an unknown tool.
func TestDirectLaneAnswersAsTheSDK(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewServer(t)
	sid := fx.NewSession(t, "eq", "cat")
	pane := fx.Tmux(t, "display-message", "-p", "-t", sid, "#{pane_id}")
	m := session.NewManager(&session.Options{Tmux: fx.Bin, ConfigFile: "/dev/null", SocketDir: testSocketDir()})
	t.Cleanup(func() { m.Close() })
	srv, err := mcp.NewServer(mcp.NewTmuxBackend(m, &mcp.TmuxOptions{Socket: session.Socket{Name: fx.Socket}}),
		&mcp.Options{Safety: "readonly"})
	if err != nil {
		t.Fatal(err)
	}

	calls := []string{
		fmt.Sprintf(`{"name":"get_pane_info","arguments":{"pane_id":%q}}`, pane),
		fmt.Sprintf(`{"name":"capture_pane","arguments":{"pane_id":%q,"max_lines":5}}`, pane),
		fmt.Sprintf(`{"name":"list_windows","arguments":{"session_id":%q}}`, sid),
		`{"name":"get_pane_info","arguments":{"pane_id":"%999"}}`,                 // no such pane
		`{"name":"get_pane_info","arguments":{"pane_id":"bogus"}}`,                // schema: pattern
		`{"name":"capture_pane","arguments":{"pane_id":"%0","nosuch":1}}`,         // schema: unknown key
		`{"name":"capture_pane","arguments":{"pane_id":"%0","max_lines":"many"}}`, // schema: type
		`{"name":"capture_pane","arguments":5}`,                                   // not an object
		`{"name":"capture_pane"}`,                                                 // no arguments
		`{"name":"send_keys","arguments":{"pane_id":"%0","keys":"x"}}`,            // off the readonly tier
		`{"name":"no_such_tool","arguments":{}}`,                                  // the SDK's protocol error
	}
	const live = 3 // the first calls read the live pane
	for _, version := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		viaSDK, direct := serveLines(t, srv, false, version), serveLines(t, srv, true, version)
		asked := int32(0) // calls sent to each lane
		for i, call := range calls {
			line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, i+1, call)
			want, got, tries := bothAnswer(t, viaSDK, direct, line, i < live)
			asked += tries
			if got != want {
				t.Errorf("%s: %s\n direct: %s\n    sdk: %s", version, call, got, want)
			}
		}
		// From 2026-07-28 the SDK adds "resultType": the lane leaves
		// those sessions to it.
		want := asked
		if version >= multiRoundTripVersion {
			want = 0
		}
		if n := direct.direct.Load(); n != want || viaSDK.direct.Load() != 0 {
			t.Errorf("%s: the direct lane took %d of %d calls, want %d (and %d with it off)",
				version, n, asked, want, viaSDK.direct.Load())
		}
	}

	// Sessionless (2026-07-28, no initialize): every request carries its
	// _meta, and the SDK adds the server's info and resultType to results.
	const (
		caps = `"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}}`
		info = `"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}`
		v26  = `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`
	)
	metas := []struct {
		meta   string
		direct bool // the lane takes it
	}{
		{`{` + v26 + `,` + caps + `,` + info + `}`, true},
		{`{` + v26 + `,` + caps + `}`, true},
		{`{` + v26 + `,` + caps + `,` + info + `,"progressToken":"p"}`, false},
		{`{` + v26 + `,` + caps + `,"io.modelcontextprotocol/logLevel":"debug"}`, false},
		{`{` + v26 + `}`, false},                                                          // the SDK refuses: no capabilities
		{`{` + v26 + `,` + caps + `,"io.modelcontextprotocol/clientInfo":null}`, false},   // refused: bad info
		{`{` + v26 + `,"io.modelcontextprotocol/clientCapabilities":{"roots":5}}`, false}, // refused: bad capabilities
		{`{"io.modelcontextprotocol/protocolVersion":"2099-01-01",` + caps + `}`, false},  // unsupported version
	}
	viaSDK, direct := serveLines(t, srv, false, ""), serveLines(t, srv, true, "")
	id, lane := 0, int32(0) // lane: the calls the direct lane takes
	for _, m := range metas {
		for i, call := range calls {
			id++
			withMeta := strings.Replace(call, `{"name"`, `{"_meta":`+m.meta+`,"name"`, 1)
			line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id, withMeta)
			want, got, tries := bothAnswer(t, viaSDK, direct, line, i < live)
			if m.direct {
				lane += tries
			}
			if got != want {
				t.Errorf("sessionless: %s\n direct: %s\n    sdk: %s", withMeta, got, want)
			}
		}
	}
	if n := direct.direct.Load(); n != lane {
		t.Errorf("sessionless: the direct lane took %d calls, want %d", n, lane)
	}

	// A sessionless call on a connection that sent initialize: the SDK's.
	viaSDK, direct = serveLines(t, srv, false, "2025-11-25"), serveLines(t, srv, true, "2025-11-25")
	line := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{%s,%s},"name":"get_pane_info","arguments":{"pane_id":%q}}}`,
		v26, caps, pane)
	if want, got, _ := bothAnswer(t, viaSDK, direct, line, true); got != want || direct.direct.Load() != 0 {
		t.Errorf("sessionless after initialize: lane took %d\n direct: %s\n    sdk: %s", direct.direct.Load(), got, want)
	}
}

// bothAnswer sends line to the SDK and to the direct lane and returns
// their answers. A call that reads the live pane may see it change
// between the two (the shell that starts cat reads as "sh runs", then
// cat as reading input): such a pair is asked again, for a while, until
// both saw the same pane. A lane that answers otherwise differs every
// time. tries is how many times each was asked.
func bothAnswer(t *testing.T, viaSDK, direct *lineConn, line string, live bool) (want, got string, tries int32) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		want, got = viaSDK.roundTrip(t, line), direct.roundTrip(t, line)
		tries++
		if got == want || !live || time.Now().After(deadline) {
			return want, got, tries
		}
		time.Sleep(20 * time.Millisecond)
	}
}
