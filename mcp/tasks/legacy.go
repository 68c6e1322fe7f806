package tasks

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The 2025-11-25 shape of tasks (SEP-1686, which VS Code speaks), served by
// the same store: the client asks for a task with params.task on
// tools/call; the answer nests the task under "task" and names its
// durations ttl and pollInterval; tasks/result waits for the result and
// tasks/list lists the client's tasks; tasks/cancel answers with the task,
// cancelled. It applies only to sessions initialized for 2025-11-25 (the
// only version with it); elsewhere tasks/result and tasks/list do not exist.

// LegacyRequestKey is the _meta key under which a transport puts a
// tools/call's params.task (see [LegacyParams]): go-sdk drops params it
// does not know before any middleware sees them.
const LegacyRequestKey = "tmux-mcp/task-request"

// The methods only the 2025-11-25 shape has.
const (
	methodResult = "tasks/result"
	methodList   = "tasks/list"
)

// LegacyParams returns the params of a tools/call with its "task" moved
// into _meta[LegacyRequestKey], and params itself when it has none (or is
// no object).
func LegacyParams(params json.RawMessage) json.RawMessage {
	if !bytes.Contains(params, []byte(`"task"`)) {
		return params
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	task, ok := p["task"]
	if !ok {
		return params
	}
	var meta map[string]json.RawMessage
	if raw, ok := p["_meta"]; ok && json.Unmarshal(raw, &meta) != nil {
		return params // a _meta the SDK will refuse anyway
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	meta[LegacyRequestKey] = task
	delete(p, "task")
	var err error
	if p["_meta"], err = json.Marshal(meta); err != nil {
		return params
	}
	out, err := json.Marshal(p)
	if err != nil {
		return params
	}
	return out
}

// LegacyMessage rewrites the params of a JSON-RPC message (one HTTP body)
// with [LegacyParams] when it is a tools/call, and returns body itself
// otherwise.
func LegacyMessage(body []byte) []byte {
	if !bytes.Contains(body, []byte(`"task"`)) || !bytes.Contains(body, []byte(`tools/call`)) {
		return body
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil || string(m["method"]) != `"tools/call"` {
		return body
	}
	params := LegacyParams(m["params"])
	if bytes.Equal(params, m["params"]) {
		return body
	}
	m["params"] = params
	out, err := json.Marshal(m)
	if err != nil {
		return body
	}
	return out
}

// legacyVersion is the one protocol version with the 2025-11-25 shape.
const legacyVersion = "2025-11-25"

// legacyEra reports whether req belongs to a session of protocol
// 2025-11-25 that did not declare the extension: one initialized so, whose
// request carries no per-request protocol version.
func legacyEra(req sdk.Request) bool {
	if p := req.GetParams(); p != nil {
		if _, ok := p.GetMeta()[sdk.MetaKeyProtocolVersion]; ok {
			return false
		}
	}
	ss, ok := req.GetSession().(*sdk.ServerSession)
	if !ok {
		return false
	}
	ip := ss.InitializeParams()
	if ip == nil || ip.ProtocolVersion != legacyVersion {
		return false
	}
	// A client that declared the extension at initialize speaks its shape.
	if ip.Capabilities != nil {
		if _, ok := ip.Capabilities.Extensions[ExtensionID]; ok {
			return false
		}
	}
	return true
}

// legacyAsked reports whether a tools/call asks for a task the 2025-11-25
// way.
func legacyAsked(req *sdk.CallToolRequest) bool {
	_, ok := req.Params.Meta[LegacyRequestKey]
	return ok && legacyEra(req)
}

// eraKey marks the context of a tasks/* request of the 2025-11-25 shape.
type eraKey struct{}

func isLegacy(ctx context.Context) bool { return ctx.Value(eraKey{}) != nil }

// legacyTask is a Task as 2025-11-25 says it.
type legacyTask struct {
	TaskID        string `json:"taskId"`
	Status        Status `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           int64  `json:"ttl"`
	PollInterval  int64  `json:"pollInterval"`
}

func (l *Layer) legacyOf(v view) legacyTask {
	return legacyTask{TaskID: v.id, Status: v.status, StatusMessage: v.message,
		CreatedAt: stamp(v.created), LastUpdatedAt: stamp(v.updated),
		TTL: v.ttl.Milliseconds(), PollInterval: l.opts.PollInterval.Milliseconds()}
}

// legacyCreateResult answers a tools/call that became a task (2025-11-25).
type legacyCreateResult struct {
	sdk.ResultBase
	Task legacyTask `json:"task"`
}

// legacyTaskResult answers tasks/get and tasks/cancel (2025-11-25).
type legacyTaskResult struct {
	sdk.ResultBase
	legacyTask
}

// legacyList answers tasks/list.
type legacyList struct {
	sdk.ResultBase
	Tasks []legacyTask `json:"tasks"`
}

// rawResult is a stored result as tasks/result returns it.
type rawResult struct {
	sdk.ResultBase
	raw json.RawMessage
}

func (r *rawResult) MarshalJSON() ([]byte, error) { return r.raw, nil }

// relatedTaskKey is the _meta key 2025-11-25 puts on a task's result.
const relatedTaskKey = "io.modelcontextprotocol/related-task"

// legacyGet answers tasks/get of the 2025-11-25 shape.
func (l *Layer) legacyGet(id string) (sdk.Result, error) {
	v, ok := l.store.get(id)
	if !ok {
		return nil, unknownTask(id)
	}
	return &legacyTaskResult{legacyTask: l.legacyOf(v)}, nil
}

// legacyCancel cancels task id and answers with it once it is terminal
// (2025-11-25 wants it cancelled in the answer); a terminal task is -32602.
func (l *Layer) legacyCancel(ctx context.Context, id string) (sdk.Result, error) {
	v, ok := l.store.get(id)
	if !ok {
		return nil, unknownTask(id)
	}
	if v.status.terminal() {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "task " + id + " has ended already: " + string(v.status)}
	}
	l.store.cancel(id)
	if err := l.store.wait(ctx, id, 10*time.Second); err != nil {
		return nil, err
	}
	return l.legacyGet(id)
}

// legacyResult waits until task id is terminal and answers with its
// result, or its JSON-RPC error.
func (l *Layer) legacyResult(ctx context.Context, id string) (sdk.Result, error) {
	if _, ok := l.store.get(id); !ok {
		return nil, unknownTask(id)
	}
	if err := l.store.wait(ctx, id, 0); err != nil {
		return nil, err
	}
	v, ok := l.store.get(id)
	if !ok {
		return nil, unknownTask(id)
	}
	switch v.status {
	case Failed:
		return nil, v.err
	case Cancelled:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "task " + id + " was cancelled"}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(v.result, &m); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	delete(m, "resultType") // a 2026-07-28 field
	var meta map[string]any
	_ = json.Unmarshal(m["_meta"], &meta) // none: a new one
	if meta == nil {
		meta = map[string]any{}
	}
	meta[relatedTaskKey] = map[string]string{"taskId": id}
	m["_meta"], _ = json.Marshal(meta)
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return &rawResult{raw: raw}, nil
}

// legacyList answers tasks/list: every task of this layer, oldest first.
func (l *Layer) legacyList() (sdk.Result, error) {
	vs := l.store.all()
	sort.Slice(vs, func(i, j int) bool { return vs[i].created.Before(vs[j].created) })
	out := &legacyList{Tasks: []legacyTask{}}
	for _, v := range vs {
		out.Tasks = append(out.Tasks, l.legacyOf(v))
	}
	return out, nil
}

// legacyCapability is what 2025-11-25 servers declare in initialize.
var legacyCapability = map[string]any{"list": map[string]any{}, "cancel": map[string]any{},
	"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}

// decorated is a result sent with fields go-sdk's types cannot carry,
// set by edit on its JSON object.
type decorated struct {
	sdk.Result
	edit func(map[string]json.RawMessage)
}

func (d *decorated) MarshalJSON() ([]byte, error) {
	raw, err := json.Marshal(d.Result)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	d.edit(m)
	return json.Marshal(m)
}

// decorate adds to an initialize or tools/list result of a 2025-11-25
// session what its clients look for before they ask for tasks: the tasks
// capability, and each task tool's execution.taskSupport.
func (l *Layer) decorate(res sdk.Result, legacyInit bool) sdk.Result {
	switch r := res.(type) {
	case *sdk.InitializeResult:
		if r.ProtocolVersion != legacyVersion || !legacyInit {
			return res
		}
		return &decorated{Result: res, edit: func(m map[string]json.RawMessage) {
			var caps map[string]json.RawMessage
			_ = json.Unmarshal(m["capabilities"], &caps) // none: a new object
			if caps == nil {
				caps = map[string]json.RawMessage{}
			}
			caps["tasks"], _ = json.Marshal(legacyCapability)
			m["capabilities"], _ = json.Marshal(caps)
		}}
	case *sdk.ListToolsResult:
		return &decorated{Result: res, edit: func(m map[string]json.RawMessage) {
			var tools []map[string]json.RawMessage
			if json.Unmarshal(m["tools"], &tools) != nil {
				return
			}
			for _, t := range tools {
				var name string
				_ = json.Unmarshal(t["name"], &name)
				if tt, ok := l.tool(name); ok {
					support := "optional"
					if tt.Required {
						support = "required"
					}
					t["execution"], _ = json.Marshal(map[string]string{"taskSupport": support})
				}
			}
			m["tools"], _ = json.Marshal(tools)
		}}
	}
	return res
}
