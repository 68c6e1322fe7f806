package mcp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestScopeTagged: under --scope tagged only what a person tagged with
// @mcp (on, or the client's name) is seen and reached, a window through
// its session's tag and a pane through its window's; listings, searches,
// resources, subscriptions and batch rows all keep to it; a change aimed
// elsewhere reaches nothing; unsetting the tag takes a pane away at once;
// and the agent may not tag anything itself.
func TestScopeTagged(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	env := newScopeEnv(t, "tagged", nil)
	fx := env.fx
	dir := t.TempDir()
	heard := filepath.Join(dir, "plain.out")
	if err := os.WriteFile(heard, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	prog := []string{"sh", "-c", "echo MARK; exec cat"}
	fx.NewSession(t, "plain", "sh", "-c", "echo MARK; exec cat >"+heard)
	fx.NewSession(t, "tagsess", prog...)
	fx.NewSession(t, "tagwin", prog...)
	fx.NewSession(t, "tagpane", prog...)
	fx.NewSession(t, "elsewise", prog...)
	plain, tagsess, tagwin, tagpane, elsewise := idsOf(t, env, "plain"), idsOf(t, env, "tagsess"), idsOf(t, env, "tagwin"), idsOf(t, env, "tagpane"), idsOf(t, env, "elsewise")
	win2 := fx.Tmux(t, append([]string{"new-window", "-d", "-t", "tagwin", "-P", "-F", "#{window_id} #{pane_id}"}, prog...)...)
	wid2, wpane2, ok := strings.Cut(win2, " ")
	if !ok {
		t.Fatalf("new-window printed %q", win2)
	}
	split := fx.Tmux(t, append([]string{"split-window", "-d", "-t", tagpane.pane, "-P", "-F", "#{pane_id}"}, prog...)...)
	fx.Tmux(t, "set-option", "-t", tagsess.session, "@mcp", "on")
	fx.Tmux(t, "set-option", "-w", "-t", wid2, "@mcp", "on")
	fx.Tmux(t, "set-option", "-p", "-t", split, "@mcp", "on")
	fx.Tmux(t, "set-option", "-t", elsewise.session, "@mcp", "another-agent") // another client's name
	fx.Tmux(t, "set-option", "-g", "@mcp", "on")                              // global: counts for nothing

	var sessions List[SessionInfo]
	env.ok(t, "list_sessions", nil, &sessions)
	if len(sessions.Result) != 1 || sessions.Result[0].SessionID != tagsess.session {
		t.Errorf("list_sessions: got %+v, want tagsess only", sessions.Result)
	}
	var windows List[WindowInfo]
	env.ok(t, "list_windows", nil, &windows)
	var gotW []string
	for _, w := range windows.Result {
		gotW = append(gotW, w.WindowID)
	}
	slices.Sort(gotW)
	wantW := []string{tagsess.window, wid2}
	slices.Sort(wantW)
	if !slices.Equal(gotW, wantW) {
		t.Errorf("list_windows: got %v, want %v (tagsess's window, tagwin's tagged one)", gotW, wantW)
	}
	wantP := []string{tagsess.pane, wpane2, split}
	slices.Sort(wantP)
	var panes List[PaneInfo]
	env.ok(t, "list_panes", nil, &panes)
	var gotP []string
	for _, p := range panes.Result {
		gotP = append(gotP, p.PaneID)
	}
	slices.Sort(gotP)
	if !slices.Equal(gotP, wantP) {
		t.Errorf("list_panes: got %v, want %v", gotP, wantP)
	}
	var found SearchPanesResult
	env.ok(t, "search_panes", map[string]any{"pattern": "MARK"}, &found)
	var gotS []string
	for _, m := range found.Matches {
		gotS = append(gotS, m.PaneID)
	}
	slices.Sort(gotS)
	for _, p := range gotS {
		if !slices.Contains(wantP, p) {
			t.Errorf("search_panes: matched pane %s, out of scope (matches %v, scope %v)", p, gotS, wantP)
		}
	}

	// Reached: the tagged things and what inherits from them.
	for _, p := range wantP {
		env.ok(t, "capture_pane", map[string]any{"pane_id": p}, nil)
	}
	env.ok(t, "send_keys", map[string]any{"pane_id": split, "keys": "x", "enter": false}, nil)
	env.ok(t, "rename_window", map[string]any{"window_id": wid2, "new_name": "agents"}, nil)

	// Refused, with nothing done.
	for _, args := range []map[string]any{
		{"pane_id": plain.pane}, {"pane_id": tagwin.pane}, {"pane_id": tagpane.pane}, {"pane_id": elsewise.pane},
	} {
		wantCode(t, env.fail(t, "capture_pane", args), CodeTargetDenied)
		send := map[string]any{"keys": "typed", "literal": true, "enter": true}
		for k, v := range args {
			send[k] = v
		}
		wantCode(t, env.fail(t, "send_keys", send), CodeTargetDenied)
	}
	wantCode(t, env.fail(t, "kill_window", map[string]any{"window_id": tagpane.window}), CodeTargetDenied)
	wantCode(t, env.fail(t, "rename_session", map[string]any{"session_id": tagwin.session, "new_name": "x"}), CodeTargetDenied)
	for _, set := range []map[string]any{
		{"scope": "session", "target": plain.session, "option": "@mcp", "value": "on"},
		{"scope": "pane", "target": split, "option": "@mcp", "value": "off"},
	} {
		wantCode(t, env.fail(t, "set_option", set), CodeTargetDenied)
	}
	if got := fx.Tmux(t, "show-options", "-qv", "-t", plain.session, "@mcp"); got != "" {
		t.Errorf("@mcp on plain after a refused set_option: %q, want unset", got)
	}

	// A batch row is a call: the one out of scope fails alone.
	var batch ToolCallBatchResult
	env.ok(t, "call_readonly_tools_batch", map[string]any{"on_error": "continue", "operations": []any{
		map[string]any{"tool": "capture_pane", "arguments": map[string]any{"pane_id": split}},
		map[string]any{"tool": "capture_pane", "arguments": map[string]any{"pane_id": plain.pane}},
	}}, &batch)
	if len(batch.Results) != 2 || !batch.Results[0].Success || batch.Results[1].Success {
		t.Errorf("batch: got %+v, want the tagged row read and the plain row refused", batch.Results)
	}

	// Resources and subscriptions.
	ctx := context.Background()
	if _, err := env.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "tmux://panes/" + plain.pane + "/content"}); err == nil {
		t.Errorf("read of plain's pane resource: got content, want a refusal")
	}
	if _, err := env.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "tmux://panes/" + split + "/content"}); err != nil {
		t.Errorf("read of the tagged pane's resource: %v", err)
	}
	if err := env.cs.Subscribe(ctx, &sdk.SubscribeParams{URI: "tmux://panes/" + plain.pane}); err == nil {
		t.Errorf("subscribe to plain's pane: accepted, want a refusal")
	}

	// Untagged: gone at once.
	fx.Tmux(t, "set-option", "-p", "-u", "-t", split, "@mcp")
	wantCode(t, env.fail(t, "capture_pane", map[string]any{"pane_id": split}), CodeTargetDenied)
	env.ok(t, "list_panes", nil, &panes)
	for _, p := range panes.Result {
		if p.PaneID == split {
			t.Errorf("list_panes after @mcp was unset: still lists %s", split)
		}
	}

	if b, err := os.ReadFile(heard); err != nil || len(b) != 0 {
		t.Errorf("plain's pane heard %q (%v), want nothing", b, err)
	}
}

// TestScopeTaggedCost measures a capture_pane of a pane in scope under
// all, owned (the session by --allow-session) and tagged, on a server of
// 4 sessions of 5 panes, and logs what each costs against all, measured
// in the same process (run with -v). Under tagged each call reads the
// placement fresh and @mcp of every session, window and pane.
func TestScopeTaggedCost(t *testing.T) {
	if testing.Short() || os.Getenv("TMUX_MCP_COST") == "" {
		t.Skip("a measurement: set TMUX_MCP_COST=1")
	}
	per := map[string]float64{}
	for _, scope := range []string{"all", "owned", "tagged"} {
		env := newScopeEnv(t, scope, []string{"s0"})
		for i := range 4 {
			name := fmt.Sprintf("s%d", i)
			env.fx.NewSession(t, name, "sh", "-c", "exec cat")
			for range 4 {
				env.fx.Tmux(t, "split-window", "-d", "-t", name, "sh", "-c", "exec cat")
				env.fx.Tmux(t, "select-layout", "-t", name, "tiled")
			}
		}
		env.fx.Tmux(t, "set-option", "-t", "s0", "@mcp", "on")
		pane := idsOf(t, env, "s0").pane
		args := map[string]any{"pane_id": pane}
		env.ok(t, "capture_pane", args, nil)
		r := testing.Benchmark(func(b *testing.B) {
			for b.Loop() {
				if res := call(t, env.cs, "capture_pane", args); res.IsError {
					b.Fatal(textOf(res))
				}
			}
		})
		per[scope] = float64(r.NsPerOp())
	}
	t.Logf("capture_pane: all %.0f µs; owned %.2fx; tagged %.2fx", per["all"]/1e3, per["owned"]/per["all"], per["tagged"]/per["all"])
}
