package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests drive the stdio layer in process, with tools whose timing
// the test controls.

// stdioEnv is an SDK server with the tools hold, block and stubborn, served
// through a stdio whose stdin the test writes.
type stdioEnv struct {
	st      *stdio
	in      *io.PipeWriter
	out     *syncBuffer
	done    chan error    // Run's result
	release chan struct{} // ends stubborn
}

func newStdioEnv(t *testing.T, grace, cancelWait time.Duration) *stdioEnv {
	t.Helper()
	pr, pw := io.Pipe()
	e := &stdioEnv{in: pw, out: &syncBuffer{}, done: make(chan error, 1), release: make(chan struct{})}
	e.st = newStdio(pr, e.out, slog.New(slog.DiscardHandler))
	e.st.grace, e.st.cancelWait = grace, cancelWait
	srv := sdk.NewServer(&sdk.Implementation{Name: "t", Version: "0"}, nil)
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	obj := &sdk.Tool{InputSchema: map[string]any{"type": "object"}}
	add := func(name string, h sdk.ToolHandler) {
		tool := *obj
		tool.Name = name
		srv.AddTool(&tool, h)
	}
	// hold answers once stdin has ended.
	add("hold", func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		<-e.st.atEOF
		return text("held"), nil
	})
	// block answers when cancelled.
	add("block", func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		<-ctx.Done()
		return text("cancelled"), nil
	})
	// stubborn ignores cancellation.
	add("stubborn", func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		<-e.release
		return text("late"), nil
	})
	srv.AddReceivingMiddleware(e.st.middleware)
	go func() { e.done <- srv.Run(context.Background(), e.st.transport()) }()
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

func TestStdioEOFWaitsForAnswers(t *testing.T) {
	e := newStdioEnv(t, 30*time.Second, time.Second)
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

func TestStdioEOFCancelsAfterGrace(t *testing.T) {
	e := newStdioEnv(t, 50*time.Millisecond, 30*time.Second)
	e.write(t, callLine(1, "block")+"\n")
	e.eof(t)
	if r, ok := e.responses(t)[1.0]; !ok || resultText(t, r) != "cancelled" {
		t.Fatalf("blocked call: got %+v, want answered after its cancellation", r)
	}
}

func TestStdioEOFGivesUp(t *testing.T) {
	e := newStdioEnv(t, 50*time.Millisecond, 50*time.Millisecond)
	e.write(t, callLine(1, "stubborn")+"\n")
	e.eof(t) // returns although the call never answers
	if _, ok := e.responses(t)[1.0]; ok {
		t.Fatal("stubborn call answered")
	}
}

func TestStdioCancelledRequestsAreNotAwaited(t *testing.T) {
	e := newStdioEnv(t, 30*time.Second, 30*time.Second)
	e.write(t, callLine(1, "stubborn")+"\n")
	e.write(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`+"\n")
	start := time.Now()
	e.eof(t)
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("EOF took %v: a request the client cancelled must not be awaited", d)
	}
}

func TestStdioLongLine(t *testing.T) {
	e := newStdioEnv(t, time.Second, time.Second)
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
	st := newStdio(pr, io.Discard, slog.New(slog.DiscardHandler))
	_ = pw.CloseWithError(errors.New("broken"))
	if _, err := st.read(make([]byte, 10)); !errors.Is(err, io.EOF) {
		t.Fatalf("read after a stdin error: got %v, want io.EOF", err)
	}
}

func TestResponseID(t *testing.T) {
	for _, tc := range []struct {
		in   string
		id   any // nil: not a response
		resp bool
	}{
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, int64(1), true},
		{`{"jsonrpc":"2.0","id":"a","error":{"code":1,"message":"x"}}` + "\n", "a", true},
		{`{"jsonrpc":"2.0","result":{"x":[1,2]},"id":7}`, int64(7), true}, // another field order
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, nil, false},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, nil, false},
		{`not json`, nil, false},
		{`[]`, nil, false},
	} {
		id, ok := responseID([]byte(tc.in))
		if ok != tc.resp || (ok && id.Raw() != tc.id) {
			t.Errorf("%s: got %v %v, want %v %v", tc.in, id.Raw(), ok, tc.id, tc.resp)
		}
	}
}

// FuzzCheck checks that every line check lets through is one the SDK's
// stdio reader takes without ending the session: one JSON value framed by
// encoding/json, nothing after it, that decodes as a JSON-RPC message.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		initialize, initialized, `{"jsonrpc":"2.0","id":1,"method":"ping"} x`, "[]", "42", "null",
		`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, `{"jsonrpc":"2.0","id":1}`, " \t{}\r",
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x"}}`,
	} {
		f.Add(s)
	}
	st := newStdio(strings.NewReader(""), io.Discard, slog.New(slog.DiscardHandler))
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsAny(line, "\n") {
			return
		}
		out := st.check([]byte(line))
		if out == nil {
			return
		}
		dec := json.NewDecoder(strings.NewReader(string(out)))
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatalf("%q passed check, but the SDK's framing fails: %v", line, err)
		}
		var tr [1]byte
		if n, _ := dec.Buffered().Read(tr[:]); n > 0 && tr[0] != '\n' && tr[0] != '\r' {
			t.Fatalf("%q passed check with trailing data", line)
		}
		if _, err := jsonrpc.DecodeMessage(raw); err != nil {
			t.Fatalf("%q passed check, but does not decode: %v", line, err)
		}
	})
}
