package mcp

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestBatch(t *testing.T) {
	f := newFake()
	f.errs["get_pane_info"] = sessionErr{CodeNotFound, EffectsNone}
	cs := connect(t, f, nil, "")
	res := call(t, cs, "call_readonly_tools_batch", map[string]any{
		"on_error": "continue",
		"operations": []any{
			map[string]any{"tool": "list_sessions"},
			map[string]any{"tool": "kill_pane", "arguments": map[string]any{"pane_id": "%1"}},
			map[string]any{"tool": "wait_for_text", "arguments": map[string]any{}},
			map[string]any{"tool": "get_pane_info", "arguments": map[string]any{"pane_id": "%9"}},
			map[string]any{"tool": "call_readonly_tools_batch"},
			map[string]any{"tool": "send_keys", "arguments": map[string]any{"keys": "x", "pane_id": "%1"}},
			map[string]any{"tool": "list_panes", "arguments": map[string]any{"bogus": true}},
		},
	})
	if res.IsError {
		t.Fatalf("batch: %s", textOf(res))
	}
	var out ToolCallBatchResult
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	wantPrefix := []string{"", "tool_denied:", "invalid_arguments:", "not_found:", "invalid_arguments:", "tool_denied:", "invalid_arguments:"}
	if len(out.Results) != len(wantPrefix) {
		t.Fatalf("got %d rows, want %d: %s", len(out.Results), len(wantPrefix), b)
	}
	for i, row := range out.Results {
		if (wantPrefix[i] == "") != row.Success || !strings.HasPrefix(row.Error, wantPrefix[i]) {
			t.Errorf("row %d (%s): success=%v error=%q, want error prefix %q", i, row.Tool, row.Success, row.Error, wantPrefix[i])
		}
	}
	if out.Succeeded != 1 || out.Failed != 6 || out.StoppedAt != nil {
		t.Errorf("got succeeded=%d failed=%d stopped_at=%v", out.Succeeded, out.Failed, out.StoppedAt)
	}
	if got := f.called(); !slices.Equal(got, []string{"list_sessions", "get_pane_info"}) {
		t.Errorf("backend calls %v, want list_sessions and get_pane_info only", got)
	}

	// on_error defaults to stop.
	res = call(t, cs, "call_mutating_tools_batch", map[string]any{"operations": []any{
		map[string]any{"tool": "kill_pane", "arguments": map[string]any{"pane_id": "%1"}},
		map[string]any{"tool": "list_sessions"},
	}})
	b, _ = json.Marshal(res.StructuredContent)
	out = ToolCallBatchResult{}
	_ = json.Unmarshal(b, &out)
	if len(out.Results) != 1 || out.StoppedAt == nil || *out.StoppedAt != 0 {
		t.Errorf("got %s, want a stop at row 0", b)
	}
}
