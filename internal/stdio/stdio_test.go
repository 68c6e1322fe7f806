package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests drive the stdio layer in process, with tools whose timing
// the test controls.

// stdioEnv is an SDK server with the tools hold, block and stubborn, served
// through a stdio whose stdin the test writes; with the direct lane on, the
// same tools are served by it too.
type stdioEnv struct {
	st        *Conn
	in        *io.PipeWriter
	out       *syncBuffer
	done      chan error    // Run's result
	release   chan struct{} // ends stubborn
	unblocked chan struct{} // a block call saw its cancellation
	tools     map[string]func(context.Context) *sdk.CallToolResult

	mu     sync.Mutex
	direct []string // the tools the direct lane ran, in order
}

// CallTool serves the direct lane from e.tools.
func (e *stdioEnv) CallTool(ctx context.Context, name string, _ json.RawMessage) (*sdk.CallToolResult, bool) {
	h, ok := e.tools[name]
	if !ok {
		return nil, false
	}
	e.mu.Lock()
	e.direct = append(e.direct, name)
	e.mu.Unlock()
	return h(ctx), true
}

func (e *stdioEnv) Implementation() *sdk.Implementation {
	return &sdk.Implementation{Name: "t", Version: "0"}
}

func (e *stdioEnv) Enabled(name string) bool { _, ok := e.tools[name]; return ok }

func (e *stdioEnv) directCalls() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.direct)
}

// bothLanes runs f with the direct lane off and on.
func bothLanes(t *testing.T, f func(t *testing.T, direct bool)) {
	t.Run("sdk", func(t *testing.T) { f(t, false) })
	t.Run("direct", func(t *testing.T) { f(t, true) })
}

func newStdioEnv(t *testing.T, grace, cancelWait time.Duration, direct bool) *stdioEnv {
	t.Helper()
	pr, pw := io.Pipe()
	e := &stdioEnv{in: pw, out: &syncBuffer{}, done: make(chan error, 1), release: make(chan struct{}),
		unblocked: make(chan struct{}, 16)}
	var tools ToolCaller
	if direct {
		tools = e
	}
	e.st = New(pr, e.out, tools, slog.New(slog.DiscardHandler))
	e.st.grace, e.st.cancelWait = grace, cancelWait
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	e.tools = map[string]func(context.Context) *sdk.CallToolResult{
		// hold answers once stdin has ended.
		"hold": func(context.Context) *sdk.CallToolResult {
			<-e.st.atEOF
			return text("held")
		},
		// block answers when cancelled.
		"block": func(ctx context.Context) *sdk.CallToolResult {
			<-ctx.Done()
			select {
			case e.unblocked <- struct{}{}:
			default:
			}
			return text("cancelled")
		},
		// stubborn ignores cancellation.
		"stubborn": func(context.Context) *sdk.CallToolResult {
			<-e.release
			return text("late")
		},
		"now": func(context.Context) *sdk.CallToolResult { return text("now") },
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "t", Version: "0"}, nil)
	for name, h := range e.tools {
		tool := &sdk.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}
		srv.AddTool(tool, func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return h(ctx), nil
		})
	}
	srv.AddReceivingMiddleware(e.st.Middleware)
	go func() { e.done <- srv.Run(context.Background(), e.st.Transport()) }()
	t.Cleanup(func() {
		close(e.release)
		_ = pw.Close()
		select {
		case <-e.done:
		case <-time.After(30 * time.Second):
			t.Error("Run did not return")
		}
	})
	e.write(t, initialize+"\n"+initialized+"\n")
	return e
}

func (e *stdioEnv) write(t *testing.T, s string) {
	t.Helper()
	if _, err := io.WriteString(e.in, s); err != nil {
		t.Fatal(err)
	}
}

// eof closes stdin and waits until the SDK is given the EOF, which is when
// serve stops waiting for calls.
func (e *stdioEnv) eof(t *testing.T) {
	t.Helper()
	_ = e.in.Close()
	select {
	case <-e.st.drained:
	case <-time.After(30 * time.Second):
		t.Fatal("EOF held back for 30 s")
	}
}

// responses parses what was written to stdout, by id.
func (e *stdioEnv) responses(t *testing.T) map[any]response {
	t.Helper()
	got := map[any]response{}
	for _, l := range strings.Split(strings.TrimSpace(e.out.String()), "\n") {
		if l == "" {
			continue
		}
		r := parseResponse(t, l)
		got[r.ID] = r
	}
	return got
}

func callLine(id int, tool string) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": map[string]any{}}})
	return string(b)
}

func resultText(t *testing.T, r response) string {
	t.Helper()
	var res sdk.CallToolResult
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatalf("result %s: %v", r.Result, err)
	}
	return textOf(&res)
}

func TestStdioEOFWaitsForAnswers(t *testing.T) { bothLanes(t, testStdioEOFWaitsForAnswers) }

func testStdioEOFWaitsForAnswers(t *testing.T, direct bool) {
	e := newStdioEnv(t, 30*time.Second, time.Second, direct)
	// The last line has no newline; it is still a message.
	e.write(t, callLine(1, "hold")+"\n"+callLine(2, "hold"))
	start := time.Now()
	e.eof(t)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("EOF took %v: answered calls must not wait for the grace period", d)
	}
	got := e.responses(t)
	for _, id := range []any{1.0, 2.0} {
		if r, ok := got[id]; !ok || resultText(t, r) != "held" {
			t.Errorf("call %v: got %+v, want answered after EOF", id, r)
		}
	}
}

func TestStdioEOFCancelsAfterGrace(t *testing.T) { bothLanes(t, testStdioEOFCancelsAfterGrace) }

func testStdioEOFCancelsAfterGrace(t *testing.T, direct bool) {
	e := newStdioEnv(t, 50*time.Millisecond, 30*time.Second, direct)
	e.write(t, callLine(1, "block")+"\n")
	e.eof(t)
	if r, ok := e.responses(t)[1.0]; !ok || resultText(t, r) != "cancelled" {
		t.Fatalf("blocked call: got %+v, want answered after its cancellation", r)
	}
}

func TestStdioEOFGivesUp(t *testing.T) { bothLanes(t, testStdioEOFGivesUp) }

func testStdioEOFGivesUp(t *testing.T, direct bool) {
	e := newStdioEnv(t, 50*time.Millisecond, 50*time.Millisecond, direct)
	e.write(t, callLine(1, "stubborn")+"\n")
	e.eof(t) // returns although the call never answers
	if _, ok := e.responses(t)[1.0]; ok {
		t.Fatal("stubborn call answered")
	}
}

func TestStdioCancelledRequestsAreNotAwaited(t *testing.T) {
	bothLanes(t, testStdioCancelledRequestsAreNotAwaited)
}

func testStdioCancelledRequestsAreNotAwaited(t *testing.T, direct bool) {
	e := newStdioEnv(t, 30*time.Second, 30*time.Second, direct)
	e.write(t, callLine(1, "stubborn")+"\n")
	e.write(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`+"\n")
	start := time.Now()
	e.eof(t)
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("EOF took %v: a request the client cancelled must not be awaited", d)
	}
}

// The direct lane takes plain tools/call requests once the session is
// initialized, and nothing else; a client's cancellation reaches the tool
// and leaves the call unanswered.
func TestStdioDirectLane(t *testing.T) {
	e := newStdioEnv(t, 30*time.Second, 30*time.Second, true)
	before := e.directCalls()
	if len(before) != 0 {
		t.Fatalf("direct calls before any: %v", before)
	}
	e.write(t, strings.Join([]string{
		callLine(1, "now"),
		// With _meta (a progress token) the SDK serves it.
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"now","arguments":{},"_meta":{"progressToken":"p"}}}`,
		// Not exactly "method": the SDK's (which takes it for a response).
		`{"jsonrpc":"2.0","id":3,"Method":"tools/call","params":{"name":"now"}}`,
		// Unknown tool: answered as the SDK does.
		callLine(4, "nosuch"),
		callLine(5, "block"),
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`,
		callLine(6, "now"),
	}, "\n")+"\n")
	e.eof(t)
	got := e.responses(t)
	for _, id := range []any{1.0, 2.0, 6.0} {
		if r, ok := got[id]; !ok || r.Error != nil || resultText(t, r) != "now" {
			t.Errorf("call %v: got %+v, want \"now\"", id, r)
		}
	}
	if r, ok := got[3.0]; ok && r.Error == nil {
		t.Errorf("\"Method\" was served: %+v", r)
	}
	if r := got[4.0]; r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, `unknown tool "nosuch"`) {
		t.Errorf("unknown tool: got %+v, want -32602 unknown tool", r)
	}
	if r, ok := got[5.0]; ok {
		t.Errorf("cancelled call answered: %+v", r)
	}
	// A cancelled call is retired at once, and may not have started yet.
	select {
	case <-e.unblocked:
	case <-time.After(30 * time.Second):
		t.Fatal("the cancellation never reached the block call")
	}
	calls := e.directCalls()
	slices.Sort(calls)
	if !slices.Equal(calls, []string{"block", "now", "now"}) {
		t.Errorf("direct lane ran %v, want block, now and now", calls)
	}
}

// Before initialization every call goes to the SDK, which refuses it.
func TestStdioDirectLaneWaitsForInitialized(t *testing.T) {
	pr, pw := io.Pipe()
	e := &stdioEnv{in: pw, out: &syncBuffer{}, tools: map[string]func(context.Context) *sdk.CallToolResult{
		"now": func(context.Context) *sdk.CallToolResult { return &sdk.CallToolResult{} },
	}}
	e.st = New(pr, e.out, e, slog.New(slog.DiscardHandler))
	srv := sdk.NewServer(&sdk.Implementation{Name: "t", Version: "0"}, nil)
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), e.st.Transport()) }()
	e.write(t, callLine(1, "now")+"\n")
	_ = pw.Close()
	<-done
	if calls := e.directCalls(); len(calls) != 0 {
		t.Errorf("direct lane ran %v before initialization", calls)
	}
	if r := e.responses(t)[1.0]; r.Error == nil {
		t.Errorf("call before initialize: got %+v, want the SDK's error", r)
	}
}

func TestStdioLongLine(t *testing.T) {
	e := newStdioEnv(t, time.Second, time.Second, true)
	long := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", maxLine) + `"}}`
	e.write(t, long+"\n"+`{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	e.eof(t)
	got := e.responses(t)
	if r := got[nil]; r.Error == nil || r.Error.Code != -32600 {
		t.Errorf("line over %d bytes: got %+v, want -32600", maxLine, r)
	}
	if r, ok := got[2.0]; !ok || r.Error != nil {
		t.Errorf("ping after the long line: got %+v, want an answer", r)
	}
	if _, ok := got[1.0]; ok {
		t.Errorf("the long line was answered as a request")
	}
}

func TestStdioReadError(t *testing.T) {
	pr, pw := io.Pipe()
	st := New(pr, io.Discard, nil, slog.New(slog.DiscardHandler))
	conn, err := st.Transport().Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_ = pw.CloseWithError(errors.New("broken"))
	if _, err := conn.Read(context.Background()); !errors.Is(err, io.EOF) {
		t.Fatalf("read after a stdin error: got %v, want io.EOF", err)
	}
}

// FuzzCheck checks that every line is either handed to the SDK as a
// message, with nothing written, or answered with exactly one JSON-RPC
// error response (blank lines: neither).
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		initialize, initialized, `{"jsonrpc":"2.0","id":1,"method":"ping"} x`, "[]", "42", "null",
		`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, `{"jsonrpc":"2.0","id":1}`, " \t{}\r",
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n") {
			return
		}
		out := &syncBuffer{}
		st := New(strings.NewReader(""), out, nil, slog.New(slog.DiscardHandler))
		msg := st.check([]byte(line))
		written := out.String()
		if msg != nil {
			if written != "" {
				t.Fatalf("%q was handed on and answered: %q", line, written)
			}
			return
		}
		if strings.TrimSpace(line) == "" {
			if written != "" {
				t.Fatalf("blank line answered: %q", written)
			}
			return
		}
		lines := strings.Split(strings.TrimSuffix(written, "\n"), "\n")
		var r struct {
			JSONRPC string          `json:"jsonrpc"`
			Error   *jsonrpc.Error  `json:"error"`
			ID      json.RawMessage `json:"id"`
		}
		if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &r) != nil || r.JSONRPC != "2.0" || r.Error == nil {
			t.Fatalf("%q: answered %q, want one JSON-RPC error", line, written)
		}
	})
}

// Close interrupts the read of a pollable stdin, so the reading goroutine
// ends with the session instead of staying blocked.
func TestStdioCloseInterruptsPipe(t *testing.T) {
	r, w, err := os.Pipe() // pollable, as pollableStdin makes stdin
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	st := New(r, io.Discard, nil, slog.New(slog.DiscardHandler))
	conn, err := st.Transport().Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_ = conn.Close()
	select {
	case <-st.atEOF:
	case <-time.After(30 * time.Second):
		t.Fatal("the reading goroutine is still blocked on stdin after Close")
	}
}

// FuzzPlainToolCall checks the direct lane's decoder against the SDK's:
// a line it takes must decode, by jsonrpc.DecodeMessage and the SDK's
// CallToolParamsRaw, to a tools/call with the same id, name and arguments
// and no _meta.
func FuzzPlainToolCall(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":1}}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"x","arguments":null}}`,
		`{"jsonrpc":"2.0","id":1,"Method":"tools/call","params":{"name":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{}}}`,
		`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"ping","params":{"name":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":1}}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if !json.Valid([]byte(line)) {
			return // check refuses these before the direct lane
		}
		c, ok := plainToolCall([]byte(line))
		if !ok {
			return
		}
		msg, err := jsonrpc.DecodeMessage([]byte(line))
		req, isReq := msg.(*jsonrpc.Request)
		if err != nil || !isReq || req.Method != "tools/call" || req.ID != c.id {
			t.Fatalf("%s: direct lane took %+v; the SDK decodes %#v, %v", line, c, msg, err)
		}
		var p sdk.CallToolParamsRaw
		if err := json.Unmarshal(req.Params, &p); err != nil || p.Name != c.name || (p.Meta != nil) != c.stateless ||
			p.GetProgressToken() != nil || (c.stateless && p.Meta[sdk.MetaKeyProtocolVersion] != multiRoundTripVersion) ||
			strings.TrimSpace(string(p.Arguments)) != strings.TrimSpace(string(c.args)) {
			t.Fatalf("%s: direct lane took %+v; the SDK's params are %+v, %v", line, c, p, err)
		}
	})
}

func TestUnescapeHTML(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":"x\u003ey"}`, `{"a":"x>y"}`},
		{`{"a":"\u003c\u0026\u003E"}`, `{"a":"<&>"}`},
		{`{"a":"x\\u003ey"}`, `{"a":"x\\u003ey"}`},       // a backslash, then u003e
		{`{"a":"x\\\u003ey"}`, `{"a":"x\\>y"}`},          // a backslash, then >
		{`{"a":"\u00e9\u0000"}`, `{"a":"\u00e9\u0000"}`}, // other escapes stay
		{`{"a":"\u003"}`, `{"a":"\u003"}`},
	} {
		if got := string(unescapeHTML([]byte(tc.in))); got != tc.want {
			t.Errorf("unescapeHTML(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
