package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// taskParams are the params of tasks/get, tasks/update and tasks/cancel.
type taskParams struct {
	sdk.ParamsBase
	TaskID string `json:"taskId"`
	// InputResponses (tasks/update) answer a task's inputRequests; no
	// task here has any, so they are accepted and ignored.
	InputResponses json.RawMessage `json:"inputResponses,omitempty"`
}

// taskFields are a Task's fields on the wire (2026-07-28): times in ISO
// 8601, durations in integer milliseconds.
type taskFields struct {
	TaskID         string          `json:"taskId"`
	Status         Status          `json:"status"`
	StatusMessage  string          `json:"statusMessage,omitempty"`
	CreatedAt      string          `json:"createdAt"`
	LastUpdatedAt  string          `json:"lastUpdatedAt"`
	TTLMs          int64           `json:"ttlMs"`
	PollIntervalMs int64           `json:"pollIntervalMs"`
	Result         json.RawMessage `json:"result,omitempty"`
	Error          *jsonrpc.Error  `json:"error,omitempty"`
}

// createTaskResult answers a tools/call that became a task: a flat
// Result & Task with resultType "task", which go-sdk's CallToolResult cannot
// say (its resultType is unexported and knows no "task").
type createTaskResult struct {
	sdk.ResultBase
	ResultType string `json:"resultType"`
	taskFields
}

func (r *createTaskResult) MarshalJSON() ([]byte, error) {
	r.ResultType = "task"
	type wire createTaskResult // without this method
	return json.Marshal((*wire)(r))
}

// detailedTask answers tasks/get: the task, with its result or error
// inlined once terminal.
type detailedTask struct {
	sdk.ResultBase
	ResultType string `json:"resultType"`
	taskFields
}

// ack answers tasks/update and tasks/cancel: empty but for resultType.
type ack struct {
	sdk.ResultBase
	ResultType string `json:"resultType"`
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// fields are v's wire fields: a working task's result and error are
// absent, and only the terminal status's own one is there.
func (l *Layer) fields(v view) taskFields {
	f := taskFields{TaskID: v.id, Status: v.status, StatusMessage: v.message,
		CreatedAt: stamp(v.created), LastUpdatedAt: stamp(v.updated),
		TTLMs: v.ttl.Milliseconds(), PollIntervalMs: l.opts.PollInterval.Milliseconds()}
	switch v.status {
	case Completed:
		f.Result = v.result
	case Failed:
		f.Error = v.err
	}
	return f
}

// unknownTask is the error for a task id the layer does not hold.
func unknownTask(id string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
		Message: fmt.Sprintf("no task %q: it never was one of this client's, or it expired", id)}
}

func (l *Layer) get(ctx context.Context, _ *sdk.ServerSession, p *taskParams) (sdk.Result, error) {
	if p == nil {
		return nil, unknownTask("")
	}
	if isLegacy(ctx) {
		return l.legacyGet(p.TaskID)
	}
	v, ok := l.store.get(p.TaskID)
	if !ok {
		return nil, unknownTask(p.TaskID)
	}
	return &detailedTask{ResultType: "complete", taskFields: l.fields(v)}, nil
}

func (l *Layer) update(_ context.Context, _ *sdk.ServerSession, p *taskParams) (sdk.Result, error) {
	if p == nil {
		return nil, unknownTask("")
	}
	if _, ok := l.store.get(p.TaskID); !ok {
		return nil, unknownTask(p.TaskID)
	}
	return &ack{ResultType: "complete"}, nil
}

func (l *Layer) cancel(ctx context.Context, _ *sdk.ServerSession, p *taskParams) (sdk.Result, error) {
	if p == nil {
		return nil, unknownTask("")
	}
	if isLegacy(ctx) {
		return l.legacyCancel(ctx, p.TaskID)
	}
	if !l.store.cancel(p.TaskID) {
		return nil, unknownTask(p.TaskID)
	}
	return &ack{ResultType: "complete"}, nil
}

// result serves tasks/result (2025-11-25 only; the middleware refuses it
// otherwise).
func (l *Layer) result(ctx context.Context, _ *sdk.ServerSession, p *taskParams) (sdk.Result, error) {
	if p == nil {
		return nil, unknownTask("")
	}
	return l.legacyResult(ctx, p.TaskID)
}

// listParams are tasks/list's params.
type listParams struct {
	sdk.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

// list serves tasks/list (2025-11-25 only): one page, every task.
func (l *Layer) list(context.Context, *sdk.ServerSession, *listParams) (sdk.Result, error) {
	return l.legacyList()
}
