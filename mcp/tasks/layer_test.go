package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// fixture is a go-sdk server with a layer and test tools, and a raw
// JSON-RPC client connected to it in memory.
type fixture struct {
	t       *testing.T
	layer   *Layer
	conn    sdk.Connection
	release chan struct{} // closing it ends the calls of "slow"
	mu      sync.Mutex
	replies map[string]chan *jsonrpc.Response
	notes   chan *jsonrpc.Request
	nextID  atomic.Int64

	slowCancelled atomic.Bool // a call of "slow" saw its context cancelled
	stopsRan      atomic.Int32
	sawProgress   atomic.Bool // a tool call still had a progress token
}

// testTools are the fixture's tools: slow (until released or cancelled),
// quick, toolerr (isError), protoerr (a JSON-RPC error), named (gives its
// task the id "named-<n>" and then waits as slow), required (Required).
func newFixture(t *testing.T, opts *Options) *fixture {
	t.Helper()
	f := &fixture{t: t, release: make(chan struct{}), replies: map[string]chan *jsonrpc.Response{},
		notes: make(chan *jsonrpc.Request, 100)}
	caps := &sdk.ServerCapabilities{}
	Advertise(caps)
	srv := sdk.NewServer(&sdk.Implementation{Name: "tasks-test", Version: "0"}, &sdk.ServerOptions{Capabilities: caps})
	f.layer = New(opts)
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	wait := func(ctx context.Context) (*sdk.CallToolResult, error) {
		select {
		case <-f.release:
			return text("done"), nil
		case <-ctx.Done():
			f.slowCancelled.Store(true)
			res := text("cancelled")
			res.IsError = true
			return res, nil
		}
	}
	schema := map[string]any{"type": "object"}
	add := func(name string, h sdk.ToolHandler) {
		srv.AddTool(&sdk.Tool{Name: name, InputSchema: schema}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			if req.Params.GetProgressToken() != nil {
				f.sawProgress.Store(true)
			}
			return h(ctx, req)
		})
	}
	add("slow", func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		OnCancel(ctx, func() { f.stopsRan.Add(1) })
		return wait(ctx)
	})
	// late says how it stops only once its call is cancelled: a
	// tasks/cancel that comes before the tool's OnCancel.
	add("late", func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		res, err := wait(ctx)
		OnCancel(ctx, func() { f.stopsRan.Add(1) })
		return res, err
	})
	add("quick", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("quick"), nil })
	add("toolerr", func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		<-f.release
		res := text("it failed")
		res.IsError = true
		return res, nil
	})
	add("protoerr", func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		<-f.release
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "it broke"}
	})
	var named atomic.Int32
	add("named", func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		Name(ctx, "named-"+string(rune('0'+named.Add(1))))
		return wait(ctx)
	})
	add("required", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("ran"), nil })
	for _, n := range []string{"slow", "late", "quick", "toolerr", "protoerr"} {
		f.layer.Allow(n, Tool{})
	}
	f.layer.Allow("named", Tool{Named: true})
	f.layer.Allow("required", Tool{Required: true})
	if err := f.layer.Install(srv); err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.conn, err = ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		for {
			msg, err := f.conn.Read(ctx)
			if err != nil {
				return
			}
			switch m := msg.(type) {
			case *jsonrpc.Response:
				f.mu.Lock()
				ch := f.replies[string(mustJSON(m.ID.Raw()))]
				f.mu.Unlock()
				if ch != nil {
					ch <- m
				}
			case *jsonrpc.Request:
				f.notes <- m
			}
		}
	}()
	t.Cleanup(func() {
		select {
		case <-f.release:
		default:
			close(f.release)
		}
		f.layer.Close()
		cancel()
		_ = f.conn.Close()
		_ = ss.Close()
		<-readDone
	})
	return f
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// meta is a 2026-07-28 request's _meta, with the extension when tasks.
func meta(tasks bool) map[string]any {
	caps := map[string]any{}
	if tasks {
		caps["extensions"] = map[string]any{ExtensionID: map[string]any{}}
	}
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "test", "version": "0"},
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
}

// send sends a request and returns a channel its response comes on.
func (f *fixture) send(method string, params map[string]any) chan *jsonrpc.Response {
	f.t.Helper()
	id, _ := jsonrpc.MakeID(float64(f.nextID.Add(1)))
	ch := make(chan *jsonrpc.Response, 1)
	f.mu.Lock()
	f.replies[string(mustJSON(id.Raw()))] = ch
	f.mu.Unlock()
	req := &jsonrpc.Request{ID: id, Method: method, Params: mustJSON(params)}
	if err := f.conn.Write(context.Background(), req); err != nil {
		f.t.Fatal(err)
	}
	return ch
}

// await waits for a response, failing the test on a hang.
func (f *fixture) await(ch chan *jsonrpc.Response) *jsonrpc.Response {
	f.t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		f.t.Fatal("no response within 10 s")
		return nil
	}
}

// request sends and awaits; result is the decoded result, nil on an error.
func (f *fixture) request(method string, params map[string]any) (map[string]any, *jsonrpc.Error) {
	f.t.Helper()
	r := f.await(f.send(method, params))
	if r.Error != nil {
		var werr *jsonrpc.Error
		if !errors.As(r.Error, &werr) {
			f.t.Fatalf("%s: error %v is no JSON-RPC error", method, r.Error)
		}
		return nil, werr
	}
	var m map[string]any
	if err := json.Unmarshal(r.Result, &m); err != nil {
		f.t.Fatalf("%s: result %s: %v", method, r.Result, err)
	}
	return m, nil
}

func (f *fixture) call(tool string, tasks bool) (map[string]any, *jsonrpc.Error) {
	return f.request("tools/call", map[string]any{"name": tool, "arguments": map[string]any{}, "_meta": meta(tasks)})
}

func (f *fixture) taskReq(method, id string, tasks bool) (map[string]any, *jsonrpc.Error) {
	return f.request(method, map[string]any{"taskId": id, "_meta": meta(tasks)})
}

// until polls tasks/get until the task is terminal.
func (f *fixture) until(id string) map[string]any {
	f.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		r, err := f.taskReq("tasks/get", id, true)
		if err != nil {
			f.t.Fatalf("tasks/get %s: %v", id, err)
		}
		if r["status"] != "working" {
			return r
		}
		time.Sleep(5 * time.Millisecond) // polling is the protocol here
	}
	f.t.Fatalf("task %s still working after 10 s", id)
	return nil
}

var taskIDRE = regexp.MustCompile(`^task-[0-9a-f]{32}$`)

func TestCallBecomesTask(t *testing.T) {
	f := newFixture(t, nil)
	r, err := f.call("slow", true)
	if err != nil {
		t.Fatalf("tools/call: %v", err)
	}
	if r["resultType"] != "task" || r["status"] != "working" || r["task"] != nil || r["result"] != nil || r["content"] != nil {
		t.Fatalf("got %v, want a flat working CreateTaskResult", r)
	}
	id, _ := r["taskId"].(string)
	if !taskIDRE.MatchString(id) {
		t.Errorf("taskId %q, want task- and 128 random bits", id)
	}
	if r["ttlMs"] != float64(time.Hour.Milliseconds()) || r["pollIntervalMs"] != float64(1000) {
		t.Errorf("ttlMs %v pollIntervalMs %v, want 3600000 and 1000", r["ttlMs"], r["pollIntervalMs"])
	}
	for _, k := range []string{"createdAt", "lastUpdatedAt"} {
		if _, err := time.Parse(time.RFC3339Nano, r[k].(string)); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	// Durable before the answer: tasks/get resolves at once.
	g, gerr := f.taskReq("tasks/get", id, true)
	if gerr != nil || g["status"] != "working" || g["resultType"] != "complete" || g["result"] != nil {
		t.Fatalf("tasks/get at once: %v %v, want working, resultType complete, no result", g, gerr)
	}
	close(f.release)
	g = f.until(id)
	res, _ := g["result"].(map[string]any)
	if g["status"] != "completed" || res == nil || res["isError"] == true || !strings.Contains(string(mustJSON(res["content"])), "done") {
		t.Fatalf("terminal tasks/get: %v, want completed with the result inlined", g)
	}
	if f.sawProgress.Load() {
		t.Error("a call that may become a task still had its progress token")
	}
}

func TestWithoutCapabilityAnswersAsToday(t *testing.T) {
	f := newFixture(t, nil)
	ch := f.send("tools/call", map[string]any{"name": "slow", "arguments": map[string]any{}, "_meta": meta(false)})
	select {
	case r := <-ch:
		t.Fatalf("answered %s before the call ended", r.Result)
	case <-time.After(100 * time.Millisecond):
	}
	close(f.release)
	r := f.await(ch)
	var m map[string]any
	_ = json.Unmarshal(r.Result, &m)
	if r.Error != nil || m["resultType"] == "task" || m["taskId"] != nil || m["content"] == nil {
		t.Fatalf("got %s %v, want the plain result", r.Result, r.Error)
	}
	// tasks/* without the capability: -32021.
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		if _, err := f.taskReq(method, "task-x", false); err == nil || err.Code != CodeMissingCapability {
			t.Errorf("%s without the capability: %v, want %d", method, err, CodeMissingCapability)
		}
	}
	// A tool that needs a task refuses such a client, and runs nothing.
	if _, err := f.call("required", false); err == nil || err.Code != CodeMissingCapability || !strings.Contains(string(err.Data), ExtensionID) {
		t.Errorf("required tool without the capability: %v, want %d naming the extension", err, CodeMissingCapability)
	}
	// A tool the layer does not know answers as ever, capability or not.
	if r, err := f.call("greet-unknown", true); err == nil && r["resultType"] == "task" {
		t.Errorf("unknown tool became a task: %v", r)
	}
}

func TestQuickCallAnswersWithinGrace(t *testing.T) {
	f := newFixture(t, &Options{Grace: 5 * time.Second})
	r, err := f.call("quick", true)
	if err != nil || r["resultType"] == "task" || r["content"] == nil {
		t.Fatalf("got %v %v, want the plain result", r, err)
	}
}

// TestNoGraceMakesATaskOfEveryCall calls a tool that answers at once,
// with no grace: each call becomes a task, never the answer itself. A
// call that had ended could win a select against the zero timer: with
// that select back, 6 runs in 10 of this test fail here.
func TestNoGraceMakesATaskOfEveryCall(t *testing.T) {
	f := newFixture(t, nil)
	for i := range 1000 {
		r, err := f.call("quick", true)
		if err != nil || r["resultType"] != "task" {
			t.Fatalf("call %d: got %v %v, want a task", i, r, err)
		}
	}
}

func TestErrorsEndCompletedOrFailed(t *testing.T) {
	f := newFixture(t, nil)
	tr, _ := f.call("toolerr", true)
	pr, _ := f.call("protoerr", true)
	close(f.release)
	g := f.until(tr["taskId"].(string))
	if res, _ := g["result"].(map[string]any); g["status"] != "completed" || res["isError"] != true || g["error"] != nil {
		t.Errorf("tool error: %v, want completed with isError", g)
	}
	g = f.until(pr["taskId"].(string))
	e, _ := g["error"].(map[string]any)
	if g["status"] != "failed" || e["code"] != float64(jsonrpc.CodeInternalError) || e["message"] != "it broke" || g["result"] != nil {
		t.Errorf("protocol error: %v, want failed with the JSON-RPC error, no result", g)
	}
}

func TestCancel(t *testing.T) {
	for _, tool := range []string{"slow", "late"} {
		t.Run(tool, func(t *testing.T) { testCancel(t, tool) })
	}
}

// testCancel cancels a call of tool: slow says how it stops at its start,
// late only after the cancel, as a tool the cancel reaches before its
// OnCancel does (TestCancel failed so, now and then, in the matrix).
func testCancel(t *testing.T, tool string) {
	f := newFixture(t, nil)
	r, _ := f.call(tool, true)
	id := r["taskId"].(string)
	a, err := f.taskReq("tasks/cancel", id, true)
	if err != nil || a["resultType"] != "complete" || a["taskId"] != nil || a["status"] != nil {
		t.Fatalf("tasks/cancel: %v %v, want an empty ack", a, err)
	}
	g := f.until(id)
	if g["status"] != "cancelled" || g["result"] != nil {
		t.Fatalf("after cancel: %v, want cancelled, no result", g)
	}
	if !f.slowCancelled.Load() || f.stopsRan.Load() != 1 {
		t.Errorf("call cancelled %v, stops run %d: want true and 1", f.slowCancelled.Load(), f.stopsRan.Load())
	}
	// Idempotent on a terminal task; unknown ids are -32602.
	if a, err := f.taskReq("tasks/cancel", id, true); err != nil || a["resultType"] != "complete" {
		t.Errorf("cancel of a terminal task: %v %v, want the ack", a, err)
	}
	if f.stopsRan.Load() != 1 {
		t.Errorf("stops ran %d times, want once", f.stopsRan.Load())
	}
	for _, m := range []string{"tasks/get", "tasks/cancel", "tasks/update"} {
		if _, err := f.taskReq(m, "task-00000000000000000000000000000000", true); err == nil || err.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s of an unknown id: %v, want -32602", m, err)
		}
	}
}

func TestNamedTask(t *testing.T) {
	f := newFixture(t, nil)
	r, err := f.call("named", true)
	if err != nil || r["taskId"] != "named-1" {
		t.Fatalf("got %v %v, want the task the tool named", r, err)
	}
}

func TestLayersKeepTheirOwnTasks(t *testing.T) {
	a, b := newFixture(t, nil), newFixture(t, nil)
	r, _ := a.call("slow", true)
	id := r["taskId"].(string)
	if _, err := b.taskReq("tasks/get", id, true); err == nil || err.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("another layer's tasks/get: %v, want -32602", err)
	}
	if _, err := b.taskReq("tasks/cancel", id, true); err == nil {
		t.Error("another layer cancelled the task")
	}
	if g, _ := a.taskReq("tasks/get", id, true); g["status"] != "working" {
		t.Errorf("task after another's cancel: %v, want working", g)
	}
}

func TestTTLKept(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	f := newFixture(t, &Options{TTL: time.Minute, Now: clock})
	r, _ := f.call("slow", true)
	id := r["taskId"].(string)
	if r["ttlMs"] != float64(60000) {
		t.Fatalf("ttlMs %v, want 60000", r["ttlMs"])
	}
	advance(2 * time.Minute) // still working: kept
	close(f.release)
	f.until(id)
	advance(time.Minute - time.Millisecond) // a TTL after the result, less 1 ms
	if _, err := f.taskReq("tasks/get", id, true); err != nil {
		t.Fatalf("task gone before its TTL: %v", err)
	}
	advance(time.Millisecond)
	if _, err := f.taskReq("tasks/get", id, true); err == nil || err.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("task after its TTL: %v, want -32602", err)
	}
}

func TestFullStoreAnswersAsToday(t *testing.T) {
	f := newFixture(t, &Options{Max: 1})
	if r, _ := f.call("slow", true); r["resultType"] != "task" {
		t.Fatalf("first call: %v, want a task", r)
	}
	ch := f.send("tools/call", map[string]any{"name": "slow", "arguments": map[string]any{}, "_meta": meta(true)})
	close(f.release)
	r := f.await(ch)
	var m map[string]any
	_ = json.Unmarshal(r.Result, &m)
	if m["resultType"] == "task" || m["content"] == nil {
		t.Fatalf("second call with the store full: %s, want the plain result", r.Result)
	}
}
