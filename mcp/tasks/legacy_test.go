package tasks

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// initLegacy opens a 2025-11-25 session on f and returns its initialize
// result.
func (f *fixture) initLegacy() map[string]any {
	f.t.Helper()
	r, err := f.request("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "vscode-like", "version": "0"}})
	if err != nil {
		f.t.Fatalf("initialize: %v", err)
	}
	note := &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)}
	if err := f.conn.Write(context.Background(), note); err != nil {
		f.t.Fatal(err)
	}
	return r
}

// legacyCall is a tools/call of the 2025-11-25 shape, its params.task as
// a transport hands it on (LegacyParams).
func (f *fixture) legacyCall(tool string, task bool) (map[string]any, *jsonrpc.Error) {
	p := map[string]any{"name": tool, "arguments": map[string]any{}}
	if task {
		p["task"] = map[string]any{"ttl": 60000}
	}
	var params map[string]any
	_ = json.Unmarshal(LegacyParams(mustJSON(p)), &params)
	return f.request("tools/call", params)
}

func TestLegacyParams(t *testing.T) {
	in := `{"name":"x","arguments":{"task":"not this"},"task":{"ttl":5},"_meta":{"progressToken":1}}`
	var got struct {
		Task      any            `json:"task"`
		Meta      map[string]any `json:"_meta"`
		Arguments map[string]any `json:"arguments"`
	}
	if err := json.Unmarshal(LegacyParams(json.RawMessage(in)), &got); err != nil {
		t.Fatal(err)
	}
	if got.Task != nil || got.Meta[LegacyRequestKey] == nil || got.Meta["progressToken"] != float64(1) || got.Arguments["task"] != "not this" {
		t.Fatalf("got %v, want task moved into _meta, the rest kept", got)
	}
	for _, same := range []string{`{"name":"x","arguments":{"task":1}}`, `{"name":"x"}`, `[1]`} {
		if out := LegacyParams(json.RawMessage(same)); string(out) != same {
			t.Errorf("LegacyParams(%s) = %s, want it unchanged", same, out)
		}
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","task":{}}}`
	if out := string(LegacyMessage([]byte(body))); !strings.Contains(out, LegacyRequestKey) || strings.Contains(out, `"task":{}`) {
		t.Errorf("LegacyMessage: %s", out)
	}
	if out := string(LegacyMessage([]byte(`{"method":"tasks/get","params":{"task":1}}`))); out != `{"method":"tasks/get","params":{"task":1}}` {
		t.Errorf("LegacyMessage rewrote a tasks/get: %s", out)
	}
}

// TestLegacyShape: a 2025-11-25 session (VS Code's shape) sees the tasks
// capability and each task tool's taskSupport, gets a nested task when it
// asks for one, and uses tasks/get, tasks/result, tasks/list and
// tasks/cancel as that version says.
func TestLegacyShape(t *testing.T) {
	f := newFixture(t, &Options{Grace: time.Hour})
	init := f.initLegacy()
	caps, _ := init["capabilities"].(map[string]any)
	if tc, _ := caps["tasks"].(map[string]any); tc == nil || tc["requests"] == nil || tc["list"] == nil || tc["cancel"] == nil {
		t.Fatalf("initialize capabilities: %v, want tasks with requests, list and cancel", caps)
	}
	tl, _ := f.request("tools/list", map[string]any{})
	support := map[string]any{}
	for _, x := range tl["tools"].([]any) {
		tool := x.(map[string]any)
		if e, ok := tool["execution"].(map[string]any); ok {
			support[tool["name"].(string)] = e["taskSupport"]
		}
	}
	if support["slow"] != "optional" || support["required"] != "required" || len(support) != 7 {
		t.Fatalf("taskSupport: %v, want the layer's tools only", support)
	}

	// Not asked: no task, even past the grace.
	if r, err := f.legacyCall("quick", false); err != nil || r["task"] != nil || r["content"] == nil {
		t.Fatalf("a call without params.task: %v %v, want the plain result", r, err)
	}
	r, err := f.legacyCall("slow", true)
	task, _ := r["task"].(map[string]any)
	if err != nil || task == nil || task["status"] != "working" || task["ttl"] != float64(3600000) || task["pollInterval"] == nil || r["taskId"] != nil {
		t.Fatalf("asked for a task: %v %v, want {task: {...}} with ttl and pollInterval", r, err)
	}
	id := task["taskId"].(string)
	g, gerr := f.request("tasks/get", map[string]any{"taskId": id})
	if gerr != nil || g["status"] != "working" || g["taskId"] != id || g["result"] != nil {
		t.Fatalf("tasks/get: %v %v", g, gerr)
	}
	l, lerr := f.request("tasks/list", map[string]any{})
	if tasks, _ := l["tasks"].([]any); lerr != nil || len(tasks) != 1 {
		t.Fatalf("tasks/list: %v %v, want the one task", l, lerr)
	}
	// tasks/result waits for the end.
	ch := f.send("tasks/result", map[string]any{"taskId": id})
	select {
	case resp := <-ch:
		t.Fatalf("tasks/result answered while the task works: %s %v", resp.Result, resp.Error)
	case <-time.After(100 * time.Millisecond):
	}
	close(f.release)
	resp := f.await(ch)
	var res map[string]any
	_ = json.Unmarshal(resp.Result, &res)
	meta, _ := res["_meta"].(map[string]any)
	if resp.Error != nil || res["content"] == nil || res["resultType"] != nil || meta[relatedTaskKey] == nil {
		t.Fatalf("tasks/result: %s %v, want the tool's result with the related-task _meta", resp.Result, resp.Error)
	}

	// tasks/cancel answers with the task, cancelled; a terminal one is -32602.
	f2 := newFixture(t, nil)
	f2.initLegacy()
	r, _ = f2.legacyCall("slow", true)
	id = r["task"].(map[string]any)["taskId"].(string)
	c, cerr := f2.request("tasks/cancel", map[string]any{"taskId": id})
	if cerr != nil || c["status"] != "cancelled" || c["taskId"] != id {
		t.Fatalf("tasks/cancel: %v %v, want the task, cancelled", c, cerr)
	}
	if _, cerr := f2.request("tasks/cancel", map[string]any{"taskId": id}); cerr == nil || cerr.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("cancel of a cancelled task: %v, want -32602", cerr)
	}
}

// TestLegacyMethodsNotInTheNewShape: tasks/result and tasks/list do not
// exist for 2026-07-28 requests.
func TestLegacyMethodsNotInTheNewShape(t *testing.T) {
	f := newFixture(t, nil)
	for _, m := range []string{"tasks/result", "tasks/list"} {
		if _, err := f.request(m, map[string]any{"taskId": "task-x", "_meta": meta(true)}); err == nil || err.Code != jsonrpc.CodeMethodNotFound {
			t.Errorf("%s at 2026-07-28: %v, want -32601", m, err)
		}
	}
}
