package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// TestCopyModeWorkflow is the agent's copy-mode workflow over stdio: enter
// copy mode, send keys that open a prompt in copy mode (g, goto line) and
// text, then use the other tools. Each call must answer at once and
// succeed: a key in copy mode once stopped the control client for good,
// and every later call with it.
func TestCopyModeWorkflow(t *testing.T) {
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "work")
	c := startClient(t, fx, "", nil)

	// call is c.ok under a watchdog: generous, it catches a hang, which
	// would otherwise wait for the client's own 60 s.
	call := func(t *testing.T, tool string, args map[string]any, out any) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
		defer cancel()
		start := time.Now()
		res, err := c.cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s %v: no answer after %v (%v): the control client is stalled\nstderr:\n%s", tool, args, time.Since(start).Round(time.Millisecond), err, c.stderr)
		}
		if res.IsError {
			t.Fatalf("%s %v: got error %s", tool, args, textOf(res))
		}
		if out != nil {
			decode(t, res.StructuredContent, out)
		}
	}
	var panes struct {
		Result []struct {
			PaneID string `json:"pane_id"`
		} `json:"result"`
	}
	call(t, "list_panes", map[string]any{"session_name": "work"}, &panes)
	if len(panes.Result) != 1 {
		t.Fatalf("list_panes: got %+v, want one pane", panes)
	}
	pane := panes.Result[0].PaneID
	target := map[string]any{"pane_id": pane}
	with := func(kv ...any) map[string]any {
		m := map[string]any{"pane_id": pane}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	inMode := func(t *testing.T, want string) {
		t.Helper()
		var snap struct {
			InMode bool   `json:"pane_in_mode"`
			Mode   string `json:"pane_mode"`
		}
		call(t, "snapshot_pane", target, &snap)
		if snap.InMode != (want != "") || snap.Mode != want {
			t.Fatalf("snapshot_pane: pane_in_mode %v, pane_mode %q; want %q", snap.InMode, snap.Mode, want)
		}
	}
	// everyTool runs the other tools an agent would use next.
	everyTool := func(t *testing.T) {
		t.Helper()
		call(t, "list_sessions", map[string]any{}, nil)
		call(t, "list_panes", map[string]any{}, nil)
		call(t, "capture_pane", target, nil)
		call(t, "get_pane_info", target, nil)
		call(t, "display_message", with("format_string", "#{pane_mode}"), nil)
		inMode(t, "copy-mode")
		call(t, "exit_copy_mode", target, nil)
		inMode(t, "")
		call(t, "send_keys", with("keys", "echo done-$((6*7))"), nil)
		var w struct {
			Found bool `json:"found"`
		}
		call(t, "wait_for_text", with("patterns", []string{"done-42"}, "timeout", 5), &w)
		if !w.Found {
			t.Fatalf("wait_for_text: the shell never printed done-42 after copy mode was left")
		}
	}

	// refused calls send_keys and checks it was refused with nothing sent,
	// the answer naming want, and the pane still in copy mode.
	refused := func(t *testing.T, args map[string]any, want string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
		defer cancel()
		res, err := c.cs.CallTool(ctx, &sdk.CallToolParams{Name: "send_keys", Arguments: args})
		if err != nil {
			t.Fatalf("send_keys %v: no answer (%v): the control client is stalled", args, err)
		}
		if text := textOf(res); !res.IsError || !strings.Contains(text, "nothing was sent") || !strings.Contains(text, want) ||
			!regexp.MustCompile(`"effects":\s*"none"`).MatchString(text) {
			t.Fatalf("send_keys %v: got %s; want refused, nothing sent, naming %s", args, text, want)
		}
		inMode(t, "copy-mode")
	}
	// keys sends keys to a pane in copy mode. Not meant for the mode, they
	// are refused on every release. Meant for it (drive_mode), keys that a
	// default copy-mode binding answers with a prompt: before 3.8 the
	// prompt cannot open (tmux-mcp's client holds one) and the call
	// succeeds; from 3.8 the prompt would open in the pane and hold the
	// client until a person answers, so tmux refuses the keys and the
	// answer says how to leave the mode.
	panePrompts := fx.AtLeast(t, 3, 8)
	keys := func(t *testing.T, args map[string]any) {
		t.Helper()
		refused(t, args, "drive_mode=true")
		driven := map[string]any{"drive_mode": true}
		for k, v := range args {
			driven[k] = v
		}
		if !panePrompts {
			call(t, "send_keys", driven, nil)
			return
		}
		refused(t, driven, "exit_copy_mode")
	}
	t.Run("agent in copy mode", func(t *testing.T) {
		call(t, "enter_copy_mode", with("scroll_up", 1), nil)
		keys(t, with("keys", "g", "enter", false))                          // goto line: a prompt
		keys(t, with("keys", "go to the top", "enter", false))              // text, a key at a time
		keys(t, with("keys", "find: f/?", "literal", true, "enter", false)) // literal text too
		keys(t, with("keys", "M-1", "enter", false))                        // repeat count: a prompt
		everyTool(t)
	})
	t.Run("a person scrolls back while the agent types", func(t *testing.T) {
		fx.Tmux(t, "copy-mode", "-t", pane) // not through us: another client
		keys(t, with("keys", "git log --format=%h", "enter", false))
		keys(t, with("keys", "t", "enter", false)) // jump to: a prompt
		everyTool(t)
	})
	if out := c.stderr.String(); strings.Contains(out, "no reply from tmux") {
		t.Errorf("the liveness deadline tripped; the keys must not stall the client at all:\n%s", out)
	}
}
