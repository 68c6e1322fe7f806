package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// runBatch runs the operations one after another, each through the whole
// call path (validation, target checks, panics, audit), and reports each
// row. A row may call a tool only if it is enabled and its tier is at most
// ceiling; batches do not nest, and self-bounded tools are refused.
func (s *server) runBatch(ctx context.Context, ceiling Tier, in ToolCallBatchIn) (ToolCallBatchResult, error) {
	out := ToolCallBatchResult{Results: make([]ToolCallOperationResult, 0, len(in.Operations))}
	for i, op := range in.Operations {
		if err := ctx.Err(); err != nil {
			return ToolCallBatchResult{}, err
		}
		start := time.Now()
		var res *sdk.CallToolResult
		if te := s.batchPolicy(op.Tool, ceiling); te != nil {
			res = te.result()
		} else {
			res = s.call(ctx, lookupTool(op.Tool), json.RawMessage(op.Arguments))
		}
		row := batchRow(i, op.Tool, res, time.Since(start))
		out.Results = append(out.Results, row)
		if row.Success {
			out.Succeeded++
			continue
		}
		out.Failed++
		if in.OnError != "continue" {
			stop := i
			out.StoppedAt = &stop
			break
		}
	}
	elide(&out, MaxResultBytes-64<<10)
	return out, nil
}

// batchPolicy refuses a row before it runs.
func (s *server) batchPolicy(name string, ceiling Tier) *ToolError {
	d := lookupTool(name)
	switch {
	case d == nil:
		return invalidArguments("unknown tool %q", name)
	case d.batch:
		return invalidArguments("%s cannot run inside a batch", name)
	case d.selfBounded:
		return invalidArguments("%s waits on its own clock and cannot run inside a batch; call it directly", name)
	case !s.enabled[name] || d.tier > ceiling:
		return Errorf(CodeToolDenied, EffectsNone, "tool %q is not allowed in a %s batch at this server's tool selection", name, ceiling)
	}
	return nil
}

func batchRow(i int, tool string, res *sdk.CallToolResult, elapsed time.Duration) ToolCallOperationResult {
	row := ToolCallOperationResult{
		Index:          i,
		Tool:           tool,
		Success:        !res.IsError,
		ElapsedSeconds: seconds(elapsed),
	}
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			row.Content = append(row.Content, ContentBlock{Type: "text", Text: t.Text})
		}
	}
	if raw, ok := res.StructuredContent.(json.RawMessage); ok {
		row.StructuredContent = JSONObject(raw)
		if res.IsError {
			var env envelope
			if json.Unmarshal(raw, &env) == nil {
				row.Error = fmt.Sprintf("%s: %s", env.Error.Code, env.Error.Message)
			}
		}
	}
	return row
}

// elide drops the payloads of the earliest rows until the batch result fits
// in limit bytes, and says how much it dropped.
func elide(out *ToolCallBatchResult, limit int) {
	size := func(v any) int {
		b, _ := json.Marshal(v)
		return len(b)
	}
	total := size(out)
	for i := range out.Results {
		if total <= limit {
			return
		}
		r := &out.Results[i]
		if len(r.StructuredContent) == 0 && len(r.Content) == 0 {
			continue
		}
		before := size(r)
		r.StructuredContent, r.Content = nil, nil
		dropped := before - size(r)
		total -= dropped
		out.ResponseTruncated = true
		out.ResponseTruncatedBytes += dropped
	}
}
