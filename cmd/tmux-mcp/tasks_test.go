package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// Tests of MCP tasks (the Tasks extension, mcp/tasks) as a client drives
// the binary: over stdio with 2026-07-28 sessionless requests, and over
// HTTP with tokens.

const tasksExt = "io.modelcontextprotocol/tasks"

// taskMeta is a 2026-07-28 request's _meta, declaring the Tasks extension
// when tasks, with a progress token when token is not "".
func taskMeta(tasks bool, token string) map[string]any {
	caps := map[string]any{}
	if tasks {
		caps["extensions"] = map[string]any{tasksExt: map[string]any{}}
	}
	m := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "tasks-test", "version": "0"},
		"io.modelcontextprotocol/clientCapabilities": caps,
	}
	if token != "" {
		m["progressToken"] = token
	}
	return m
}

// taskClient sends raw JSON-RPC lines to tmux-mcp over stdio, and counts
// the notifications it gets.
type taskClient struct {
	r        *rawServer
	id       int
	progress int // notifications/progress seen
}

// request sends one request and returns its response, noting the
// notifications that come before it.
func (c *taskClient) request(t *testing.T, method string, params map[string]any) response {
	t.Helper()
	c.id++
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	c.r.send(t, string(line))
	for {
		l := c.r.next(t, 90*time.Second)
		var m struct {
			ID     any    `json:"id"`
			Method string `json:"method"`
		}
		_ = json.Unmarshal([]byte(l), &m)
		if m.Method == "notifications/progress" {
			c.progress++
		}
		if m.ID == float64(c.id) {
			return parseResponse(t, l)
		}
	}
}

// taskResult is a CreateTaskResult or a tasks/get result.
type taskResult struct {
	ResultType string          `json:"resultType"`
	TaskID     string          `json:"taskId"`
	Status     string          `json:"status"`
	TTLMs      int64           `json:"ttlMs"`
	Result     json.RawMessage `json:"result"`
	Content    json.RawMessage `json:"content"`
	raw        json.RawMessage // the whole result
}

func (c *taskClient) result(t *testing.T, method string, params map[string]any) taskResult {
	t.Helper()
	r := c.request(t, method, params)
	if r.Error != nil {
		t.Fatalf("%s: error %d %s", method, r.Error.Code, r.Error.Message)
	}
	var tr taskResult
	if err := json.Unmarshal(r.Result, &tr); err != nil {
		t.Fatal(err)
	}
	tr.raw = r.Result
	return tr
}

func (c *taskClient) call(t *testing.T, tasks bool, token, tool string, args map[string]any) (taskResult, time.Duration) {
	t.Helper()
	start := time.Now()
	r := c.result(t, "tools/call", map[string]any{"name": tool, "arguments": args, "_meta": taskMeta(tasks, token)})
	return r, time.Since(start)
}

func (c *taskClient) get(t *testing.T, id string) taskResult {
	t.Helper()
	return c.result(t, "tasks/get", map[string]any{"taskId": id, "_meta": taskMeta(true, "")})
}

// until polls tasks/get until the task is no longer working.
func (c *taskClient) until(t *testing.T, id string, d time.Duration) taskResult {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		g := c.get(t, id)
		if g.Status != "working" {
			return g
		}
		if time.Now().After(deadline) {
			t.Fatalf("task %s still working after %v", id, d)
		}
		time.Sleep(100 * time.Millisecond) // polling is the protocol
	}
}

// gated is a command that runs until the file gate exists, then prints
// done and exits 7.
func gated(gate string) string {
	return fmt.Sprintf(`until [ -e %s ]; do sleep 0.05; done; echo gate-passed; sh -c 'exit 7'`, gate)
}

func commandOf(t *testing.T, raw json.RawMessage) commandResult {
	t.Helper()
	var res struct {
		Structured commandResult `json:"structuredContent"`
		IsError    bool          `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || res.IsError {
		t.Fatalf("result %s: %v", raw, err)
	}
	return res.Structured
}

// TestTasksRunCommandStdio: with the extension, a long run_command is a
// task whose id is its command id: tasks/get and wait_for_command see the
// one command, tasks/cancel interrupts it, no progress is sent; without
// the extension, or for a quick command, the answer is as ever.
func TestTasksRunCommandStdio(t *testing.T) {
	fx := fixtures.NewServer(t)
	sess := fx.NewSession(t, "tasks", "sh")
	pane := strings.TrimSpace(fx.Tmux(t, "display-message", "-p", "-t", sess, "#{pane_id}"))
	c := &taskClient{r: startRaw(t, fx)}
	dir := t.TempDir()

	quick, _ := c.call(t, true, "", "run_command", map[string]any{"pane_id": pane, "command": "echo quick"})
	if quick.ResultType == "task" || len(quick.Content) == 0 {
		t.Fatalf("a quick command became a task: %+v", quick)
	}

	gate := filepath.Join(dir, "gate1")
	task, took := c.call(t, true, "tok-1", "run_command", map[string]any{"pane_id": pane, "command": gated(gate), "timeout": 60})
	if task.ResultType != "task" || task.Status != "working" || !strings.HasPrefix(task.TaskID, "cmd-") || task.TTLMs < 3600000 {
		t.Fatalf("long run_command: %+v, want a working task named by its command", task)
	}
	if took > 30*time.Second {
		t.Errorf("the task came after %v, want about the 2 s grace", took)
	}
	if g := c.get(t, task.TaskID); g.Status != "working" {
		t.Fatalf("tasks/get at once: %+v", g)
	}
	// The task is the command: wait_for_command names it by the task's id.
	wr, _ := c.call(t, false, "", "wait_for_command", map[string]any{"command_id": task.TaskID, "timeout": 0.2})
	w := commandOf(t, wr.raw)
	if w.CommandID != task.TaskID || !w.TimedOut {
		t.Fatalf("wait_for_command of the task's id: %+v, want the same command, still running", w)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	done := c.until(t, task.TaskID, 30*time.Second)
	r := commandOf(t, done.Result)
	if done.Status != "completed" || r.CommandID != task.TaskID || r.status() != "7" || !strings.Contains(strings.Join(r.Output, "\n"), "gate-passed") {
		t.Fatalf("terminal tasks/get: %s %+v, want completed with the command's exit 7 and output", done.Status, r)
	}
	if c.progress != 0 {
		t.Errorf("%d progress notifications for a call that became a task, want none", c.progress)
	}

	// tasks/cancel: acknowledged, the command interrupted (C-c), the task
	// cancelled, and the pane's shell free for the next command.
	gate2 := filepath.Join(dir, "gate2")
	task, _ = c.call(t, true, "", "run_command", map[string]any{"pane_id": pane, "command": gated(gate2), "timeout": 60})
	if task.ResultType != "task" {
		t.Fatalf("second long run_command: %+v", task)
	}
	ack := c.result(t, "tasks/cancel", map[string]any{"taskId": task.TaskID, "_meta": taskMeta(true, "")})
	if ack.ResultType != "complete" || ack.TaskID != "" {
		t.Fatalf("tasks/cancel: %+v, want an empty ack", ack)
	}
	if g := c.until(t, task.TaskID, 30*time.Second); g.Status != "cancelled" || len(g.Result) != 0 {
		t.Fatalf("after tasks/cancel: %+v, want cancelled", g)
	}
	wr, _ = c.call(t, false, "", "wait_for_command", map[string]any{"command_id": task.TaskID, "timeout": 10})
	if w = commandOf(t, wr.raw); w.TimedOut || w.Ended == "" {
		t.Fatalf("the cancelled task's command: %+v, want it ended (interrupted); the pane shows:\n%s\nthe server logged:\n%s",
			w, fx.Tmux(t, "capture-pane", "-p", "-t", pane), c.r.stderr)
	}

	// Without the extension the same long call blocks and answers itself.
	gate3 := filepath.Join(dir, "gate3")
	go func() {
		time.Sleep(3 * time.Second) // longer than the grace: a task, had it been asked for
		_ = os.WriteFile(gate3, nil, 0o600)
	}()
	plain, took := c.call(t, false, "", "run_command", map[string]any{"pane_id": pane, "command": gated(gate3), "timeout": 60})
	if plain.ResultType == "task" || plain.TaskID != "" {
		t.Fatalf("a client without the extension got a task: %+v", plain)
	}
	if r := commandOf(t, plain.raw); r.status() != "7" || took < 2*time.Second {
		t.Fatalf("plain run_command: %+v after %v, want exit 7 after the gate", r, took)
	}
	// tasks/get without the extension: -32021.
	if resp := c.request(t, "tasks/get", map[string]any{"taskId": task.TaskID, "_meta": taskMeta(false, "")}); resp.Error == nil || resp.Error.Code != -32021 {
		t.Fatalf("tasks/get without the extension: %+v, want -32021", resp.Error)
	}
}

// TestTasksWaitSendsNoProgress: a wait_for_text that becomes a task sends
// no progress notification, though it was given a progress token and runs
// past the ticks a plain wait sends; it completes with the wait's result.
func TestTasksWaitSendsNoProgress(t *testing.T) {
	fx := fixtures.NewServer(t)
	sess := fx.NewSession(t, "waits", "sh")
	pane := strings.TrimSpace(fx.Tmux(t, "display-message", "-p", "-t", sess, "#{pane_id}"))
	c := &taskClient{r: startRaw(t, fx)}

	// The control: without the extension the same wait sends its ticks.
	c.call(t, false, "plain", "wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"never-printed"}, "timeout": 2.5})
	if c.progress < 1 {
		t.Fatalf("a plain 2.5 s wait sent %d progress notifications, want some", c.progress)
	}
	c.progress = 0
	task, _ := c.call(t, true, "tasked", "wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"printed-later"}, "timeout": 60})
	if task.ResultType != "task" || !strings.HasPrefix(task.TaskID, "task-") {
		t.Fatalf("a long wait_for_text: %+v, want a task", task)
	}
	time.Sleep(1500 * time.Millisecond) // past a tick a plain wait would send
	fx.Tmux(t, "send-keys", "-t", pane, "echo printed-later", "Enter")
	done := c.until(t, task.TaskID, 30*time.Second)
	var res struct {
		Structured struct {
			Found bool `json:"found"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(done.Result, &res); err != nil || done.Status != "completed" || !res.Structured.Found {
		t.Fatalf("the wait's task: %s %s, want completed, found", done.Status, done.Result)
	}
	if c.progress != 0 {
		t.Errorf("%d progress notifications for a wait that became a task, want none", c.progress)
	}
}

// httpTaskRequest posts one 2026-07-28 request as token, with the routing
// headers (Mcp-Name: name, when not ""), and returns its response.
func httpTaskRequest(t *testing.T, s *httpServer, token, method, name string, params map[string]any) response {
	t.Helper()
	params["_meta"] = taskMeta(true, "")
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	h := map[string]string{"Authorization": "Bearer " + token, "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	if name != "" {
		h["Mcp-Name"] = name
	}
	_, text := s.post(t, h, string(body))
	for _, l := range strings.Split(text, "\n") { // JSON, or an SSE stream of one
		l = strings.TrimPrefix(strings.TrimSpace(l), "data: ")
		if strings.HasPrefix(l, "{") {
			return parseResponse(t, l)
		}
	}
	t.Fatalf("%s: no JSON-RPC response in %q", method, text)
	return response{}
}

// TestTasksHTTPBoundToToken: over HTTP a task is its token's: another
// token can neither read nor cancel it, and tasks/* must name the task in
// Mcp-Name.
func TestTasksHTTPBoundToToken(t *testing.T) {
	fx := fixtures.NewServer(t)
	sess := fx.NewSession(t, "http-tasks", "sh")
	pane := strings.TrimSpace(fx.Tmux(t, "display-message", "-p", "-t", sess, "#{pane_id}"))
	s := startHTTP(t, fx, "--auth-tokens", tokenFile(t, tokAlice+" name=alice", tokBob+" name=bob"))
	gate := filepath.Join(t.TempDir(), "gate")
	r := httpTaskRequest(t, s, tokAlice, "tools/call", "run_command", map[string]any{"name": "run_command",
		"arguments": map[string]any{"pane_id": pane, "command": gated(gate), "timeout": 60}})
	var task taskResult
	if r.Error != nil || json.Unmarshal(r.Result, &task) != nil || task.ResultType != "task" {
		t.Fatalf("alice's long run_command: %s %+v, want a task", r.Result, r.Error)
	}
	id := task.TaskID
	for _, m := range []string{"tasks/get", "tasks/cancel"} {
		if r := httpTaskRequest(t, s, tokBob, m, id, map[string]any{"taskId": id}); r.Error == nil || r.Error.Code != -32602 {
			t.Errorf("bob's %s of alice's task: %s %+v, want -32602", m, r.Result, r.Error)
		}
	}
	if r := httpTaskRequest(t, s, tokAlice, "tasks/get", "task-elsewhere", map[string]any{"taskId": id}); r.Error == nil || r.Error.Code != -32020 {
		t.Errorf("tasks/get with a wrong Mcp-Name: %s %+v, want -32020", r.Result, r.Error)
	}
	r = httpTaskRequest(t, s, tokAlice, "tasks/get", id, map[string]any{"taskId": id})
	if r.Error != nil || json.Unmarshal(r.Result, &task) != nil || task.Status != "working" {
		t.Fatalf("alice's tasks/get after bob's cancel: %s %+v, want working", r.Result, r.Error)
	}
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for task.Status == "working" && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond) // polling is the protocol
		r = httpTaskRequest(t, s, tokAlice, "tasks/get", id, map[string]any{"taskId": id})
		if r.Error != nil || json.Unmarshal(r.Result, &task) != nil {
			t.Fatalf("tasks/get: %s %+v", r.Result, r.Error)
		}
	}
	if c := commandOf(t, task.Result); task.Status != "completed" || c.status() != "7" {
		t.Fatalf("alice's task: %s %+v, want completed with exit 7", task.Status, c)
	}

	// Alice's tasks/cancel interrupts her command, as her token's.
	gate2 := filepath.Join(t.TempDir(), "gate2")
	r = httpTaskRequest(t, s, tokAlice, "tools/call", "run_command", map[string]any{"name": "run_command",
		"arguments": map[string]any{"pane_id": pane, "command": gated(gate2), "timeout": 60}})
	if r.Error != nil || json.Unmarshal(r.Result, &task) != nil || task.ResultType != "task" {
		t.Fatalf("alice's second run_command: %s %+v, want a task", r.Result, r.Error)
	}
	id = task.TaskID
	if r := httpTaskRequest(t, s, tokAlice, "tasks/cancel", id, map[string]any{"taskId": id}); r.Error != nil {
		t.Fatalf("alice's tasks/cancel: %+v", r.Error)
	}
	r = httpTaskRequest(t, s, tokAlice, "tools/call", "wait_for_command", map[string]any{"name": "wait_for_command",
		"arguments": map[string]any{"command_id": id, "timeout": 10}})
	if w := commandOf(t, r.Result); w.TimedOut || w.Ended == "" {
		t.Fatalf("alice's cancelled command: %+v, want it ended (interrupted)", w)
	}
}

// TestTasksInitializeEra: a client of an older protocol declares the
// extension in initialize's capabilities; its plain tools/call (no _meta)
// of a long command becomes a task, polled with plain tasks/get.
func TestTasksInitializeEra(t *testing.T) {
	fx := fixtures.NewServer(t)
	sess := fx.NewSession(t, "era", "sh")
	pane := strings.TrimSpace(fx.Tmux(t, "display-message", "-p", "-t", sess, "#{pane_id}"))
	for _, tc := range []struct {
		name  string
		caps  map[string]any
		tasks bool
	}{
		{"declared", map[string]any{"extensions": map[string]any{tasksExt: map[string]any{}}}, true},
		{"undeclared", map[string]any{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &taskClient{r: startRaw(t, fx)}
			init := c.request(t, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": tc.caps,
				"clientInfo": map[string]any{"name": "era-test", "version": "0"}})
			if init.Error != nil {
				t.Fatalf("initialize: %+v", init.Error)
			}
			c.r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			gate := filepath.Join(t.TempDir(), "gate")
			go func() {
				time.Sleep(4 * time.Second) // past the grace: a task, if the client takes them
				_ = os.WriteFile(gate, nil, 0o600)
			}()
			r := c.result(t, "tools/call", map[string]any{"name": "run_command",
				"arguments": map[string]any{"pane_id": pane, "command": gated(gate), "timeout": 60}})
			if (r.ResultType == "task") != tc.tasks {
				t.Fatalf("run_command: %s, want a task %v", r.raw, tc.tasks)
			}
			if !tc.tasks {
				return // a 2025-11-25 client without the extension asks with params.task: TestTasksLegacyShape
			}
			deadline := time.Now().Add(30 * time.Second)
			for {
				g := c.result(t, "tasks/get", map[string]any{"taskId": r.TaskID})
				if g.Status != "working" {
					if cr := commandOf(t, g.Result); g.Status != "completed" || cr.status() != "7" {
						t.Fatalf("the task: %s %+v, want completed with exit 7", g.Status, cr)
					}
					return
				}
				if time.Now().After(deadline) {
					t.Fatal("the task still works after 30 s")
				}
				time.Sleep(100 * time.Millisecond) // polling is the protocol
			}
		})
	}
}

// legacyRequest posts one request of a 2025-11-25 session over HTTP and
// returns its response.
func legacyRequest(t *testing.T, s *httpServer, token, sid, method string, params map[string]any) response {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	h := map[string]string{"Authorization": "Bearer " + token, "Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	_, text := s.post(t, h, string(body))
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimPrefix(strings.TrimSpace(l), "data: ")
		if strings.HasPrefix(l, "{") {
			return parseResponse(t, l)
		}
	}
	t.Fatalf("%s: no JSON-RPC response in %q", method, text)
	return response{}
}

// TestTasksLegacyShape: the 2025-11-25 shape VS Code speaks, over stdio
// and over HTTP: run_command says taskSupport, a call with params.task
// gets {task: {...}} named by its command, tasks/result waits for its
// result, tasks/list lists it.
func TestTasksLegacyShape(t *testing.T) {
	fx := fixtures.NewServer(t)
	sess := fx.NewSession(t, "legacy", "sh")
	pane := strings.TrimSpace(fx.Tmux(t, "display-message", "-p", "-t", sess, "#{pane_id}"))
	check := func(t *testing.T, request func(method string, params map[string]any) response) {
		t.Helper()
		var tl struct {
			Tools []struct {
				Name      string `json:"name"`
				Execution *struct {
					TaskSupport string `json:"taskSupport"`
				} `json:"execution"`
			} `json:"tools"`
		}
		if r := request("tools/list", map[string]any{}); r.Error != nil || json.Unmarshal(r.Result, &tl) != nil {
			t.Fatalf("tools/list: %+v", r.Error)
		}
		support := map[string]string{}
		for _, tool := range tl.Tools {
			if tool.Execution != nil {
				support[tool.Name] = tool.Execution.TaskSupport
			}
		}
		if support["run_command"] != "optional" || support["wait_for_text"] != "optional" || support["wait_for_agent_state"] != "optional" || support["send_keys"] != "" {
			t.Fatalf("tools/list taskSupport: %v, want run_command and the waits optional, nothing else", support)
		}
		gate := filepath.Join(t.TempDir(), "gate")
		r := request("tools/call", map[string]any{"name": "run_command", "task": map[string]any{"ttl": 60000},
			"arguments": map[string]any{"pane_id": pane, "command": gated(gate), "timeout": 60}})
		var created struct {
			Task struct {
				TaskID string `json:"taskId"`
				Status string `json:"status"`
			} `json:"task"`
		}
		if r.Error != nil || json.Unmarshal(r.Result, &created) != nil || !strings.HasPrefix(created.Task.TaskID, "cmd-") || created.Task.Status != "working" {
			t.Fatalf("tools/call with params.task: %s %+v, want {task: {taskId: cmd-…, status: working}}", r.Result, r.Error)
		}
		id := created.Task.TaskID
		if l := request("tasks/list", map[string]any{}); l.Error != nil || !strings.Contains(string(l.Result), id) {
			t.Fatalf("tasks/list: %s %+v, want the task", l.Result, l.Error)
		}
		go func() {
			time.Sleep(time.Second) // tasks/result must wait for the end: it comes a second later
			_ = os.WriteFile(gate, nil, 0o600)
		}()
		res := request("tasks/result", map[string]any{"taskId": id})
		if c := commandOf(t, res.Result); res.Error != nil || c.status() != "7" || !strings.Contains(string(res.Result), "related-task") {
			t.Fatalf("tasks/result: %s %+v, want the command's result, exit 7, with related-task", res.Result, res.Error)
		}
	}
	t.Run("stdio", func(t *testing.T) {
		c := &taskClient{r: startRaw(t, fx)}
		if r := c.request(t, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "vscode-like", "version": "0"}}); r.Error != nil || !strings.Contains(string(r.Result), `"tasks":{`) {
			t.Fatalf("initialize: %s %+v, want the tasks capability", r.Result, r.Error)
		}
		c.r.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		check(t, func(method string, params map[string]any) response { return c.request(t, method, params) })
	})
	t.Run("http", func(t *testing.T) {
		s := startHTTP(t, fx, "--auth-tokens", tokenFile(t, tokAlice+" name=alice"))
		sid := s.rawSession(t, tokAlice, "2025-11-25")
		check(t, func(method string, params map[string]any) response {
			return legacyRequest(t, s, tokAlice, sid, method, params)
		})
	})
}
