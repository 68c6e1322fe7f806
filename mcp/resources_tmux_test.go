package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestResourcesAndPromptsAgainstTmux reads every tmux:// resource and gets
// every prompt once, end to end against a real tmux server.
func TestResourcesAndPromptsAgainstTmux(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		ctx := context.Background()
		sid := env.fx.NewSession(t, "res", "sh", "-c", "echo resource-marker-93; exec cat")
		win := env.fx.Tmux(t, "display-message", "-p", "-t", "res", "#{window_id}")
		index := env.fx.Tmux(t, "display-message", "-p", "-t", "res", "#{window_index}")
		pane := env.fx.Tmux(t, "display-message", "-p", "-t", "res", "#{pane_id}")
		waitPaneText(t, env, pane, "resource-marker-93")

		read := func(uri, mime string, into any) string {
			t.Helper()
			res, err := env.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
			if err != nil {
				t.Fatalf("read %s: %v", uri, err)
			}
			if len(res.Contents) != 1 || res.Contents[0].MIMEType != mime || res.Contents[0].URI != uri {
				t.Fatalf("read %s: got %+v, want one %s content", uri, res.Contents, mime)
			}
			text := res.Contents[0].Text
			if into != nil {
				if err := json.Unmarshal([]byte(text), into); err != nil {
					t.Fatalf("read %s: %v in %s", uri, err, text)
				}
			}
			return text
		}

		var sessions []SessionInfo
		read("tmux://sessions", "application/json", &sessions)
		if len(sessions) != 1 || sessions[0].SessionID != sid || sessions[0].SessionName != "res" {
			t.Errorf("tmux://sessions: got %+v", sessions)
		}
		var sess struct {
			SessionInfo
			Windows []WindowInfo `json:"windows"`
		}
		read("tmux://sessions/res?socket_name="+env.fx.Socket, "application/json", &sess)
		if sess.SessionID != sid || len(sess.Windows) != 1 || sess.Windows[0].WindowID != win {
			t.Errorf("tmux://sessions/res: got %+v", sess)
		}
		var windows []WindowInfo
		read("tmux://sessions/res/windows", "application/json", &windows)
		if len(windows) != 1 || windows[0].WindowID != win {
			t.Errorf("tmux://sessions/res/windows: got %+v", windows)
		}
		var window struct {
			WindowInfo
			Panes []PaneInfo `json:"panes"`
		}
		read("tmux://sessions/res/windows/"+index, "application/json", &window)
		if window.WindowID != win || len(window.Panes) != 1 || window.Panes[0].PaneID != pane {
			t.Errorf("tmux://sessions/res/windows/%s: got %+v", index, window)
		}
		var info PaneInfo
		read("tmux://panes/"+pane, "application/json", &info)
		if info.PaneID != pane {
			t.Errorf("tmux://panes/%s: got %+v", pane, info)
		}
		if text := read("tmux://panes/"+strings.TrimPrefix(pane, "%")+"/content", "text/plain", nil); !strings.Contains(text, "resource-marker-93") {
			t.Errorf("pane content: got %q", text)
		}

		for _, uri := range []string{"tmux://sessions/nosuch", "tmux://panes/%99", "tmux://sessions/res/windows/99"} {
			if _, err := env.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri}); err == nil {
				t.Errorf("read %s: got no error", uri)
			}
		}

		for name, args := range map[string]map[string]string{
			"run_and_wait":          {"command": "make test", "pane_id": pane, "timeout": "30"},
			"diagnose_failing_pane": {"pane_id": pane},
			"build_dev_workspace":   {"session_name": "devws"},
			"interrupt_gracefully":  {"pane_id": pane},
		} {
			res, err := env.cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
			if err != nil {
				t.Fatalf("prompt %s: %v", name, err)
			}
			if len(res.Messages) != 1 {
				t.Fatalf("prompt %s: got %d messages", name, len(res.Messages))
			}
			text, ok := res.Messages[0].Content.(*sdk.TextContent)
			if !ok {
				t.Fatalf("prompt %s: content %T", name, res.Messages[0].Content)
			}
			for _, v := range args {
				if !strings.Contains(text.Text, v) {
					t.Errorf("prompt %s does not mention %q:\n%s", name, v, text.Text)
				}
			}
		}
		if _, err := env.cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "run_and_wait", Arguments: map[string]string{"pane_id": pane}}); err == nil {
			t.Error("run_and_wait without its command: got no error")
		}
	})
}
