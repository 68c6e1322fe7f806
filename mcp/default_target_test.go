package mcp

import (
	"strings"
	"testing"
)

// TestReadsWithoutTarget proves the read tools' default: with no target
// they act on the oldest session (the lowest id, not the first name nor
// the newest), and with no session at all they say so as not_found,
// except that a bad pattern is still invalid_arguments.
func TestReadsWithoutTarget(t *testing.T) {
	env := newTmuxEnv(t, protocolVersions[len(protocolVersions)-1], nil)
	reads := []struct {
		tool string
		args map[string]any
	}{
		{"capture_pane", map[string]any{}},
		{"snapshot_pane", map[string]any{}},
		{"get_pane_info", map[string]any{}},
		{"display_message", map[string]any{"format_string": "#{pane_id}"}},
		{"get_window_info", map[string]any{}},
		{"find_pane_by_position", map[string]any{"corner": "top-left"}},
		{"list_panes", map[string]any{"window_index": "0"}},
		{"wait_for_text", map[string]any{"patterns": []string{"x"}, "timeout": 0.05}},
		{"wait_for_content_change", map[string]any{"timeout": 0.05}},
		{"capture_since", map[string]any{}},
	}

	t.Run("no session", func(t *testing.T) {
		for _, r := range reads {
			e := env.fail(t, r.tool, r.args)
			if e.Code != CodeNotFound || e.Effects != EffectsNone || e.Retryable || !strings.Contains(e.Message, "no tmux sessions on socket") {
				t.Errorf("%s: got %+v, want not_found \"no tmux sessions on socket ...\", effects none", r.tool, e)
			}
		}
		e := env.fail(t, "wait_for_text", map[string]any{"patterns": []string{"("}, "regex": true, "timeout": 0.05})
		if e.Code != CodeInvalidArguments {
			t.Errorf("wait_for_text with a bad pattern: got %+v, want invalid_arguments", e)
		}
	})

	// zeta is created first, so it is $0 although it sorts last by name.
	old := env.fx.NewSession(t, "zeta")
	env.fx.NewSession(t, "alpha")
	oldPane := env.fx.Tmux(t, "display-message", "-p", "-t", old, "#{pane_id}")
	oldWindow := env.fx.Tmux(t, "display-message", "-p", "-t", old, "#{window_id}")

	t.Run("oldest session", func(t *testing.T) {
		var p PaneInfo
		env.ok(t, "get_pane_info", map[string]any{}, &p)
		if p.PaneID != oldPane || p.SessionID != old {
			t.Errorf("get_pane_info: got %s in %s, want %s in %s", p.PaneID, p.SessionID, oldPane, old)
		}
		var w WindowInfo
		env.ok(t, "get_window_info", map[string]any{}, &w)
		if w.WindowID != oldWindow {
			t.Errorf("get_window_info: got %s, want %s", w.WindowID, oldWindow)
		}
		var panes List[PaneInfo]
		env.ok(t, "list_panes", map[string]any{"window_index": "0"}, &panes)
		if len(panes.Result) != 1 || panes.Result[0].PaneID != oldPane {
			t.Errorf("list_panes window_index 0: got %+v, want pane %s", panes.Result, oldPane)
		}
		var m Message
		env.ok(t, "display_message", map[string]any{"format_string": "#{session_name}"}, &m)
		if !strings.HasSuffix(m.Result, "\nzeta") {
			t.Errorf("display_message: got %q, want the note, then zeta", m.Result)
		}
		var wt WaitForTextResult
		env.ok(t, "wait_for_text", map[string]any{"patterns": []string{"never-printed"}, "timeout": 0.05}, &wt)
		if wt.PaneID != oldPane {
			t.Errorf("wait_for_text: got pane %s, want %s", wt.PaneID, oldPane)
		}
		var c ContentChangeResult
		env.ok(t, "wait_for_content_change", map[string]any{"timeout": 0.05}, &c)
		if c.PaneID != oldPane {
			t.Errorf("wait_for_content_change: got pane %s, want %s", c.PaneID, oldPane)
		}
		var since CaptureSinceResult
		env.ok(t, "capture_since", map[string]any{}, &since)
		if since.PaneID != oldPane {
			t.Errorf("capture_since: got pane %s, want %s", since.PaneID, oldPane)
		}
		// A cursor names its pane: no default is looked up beside it.
		env.ok(t, "capture_since", map[string]any{"cursor": since.Cursor}, &since)
		if since.PaneID != oldPane {
			t.Errorf("capture_since with a cursor: got pane %s, want %s", since.PaneID, oldPane)
		}
	})
}
