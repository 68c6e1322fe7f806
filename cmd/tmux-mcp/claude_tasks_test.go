package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/fixtures/agentapi"
	"github.com/tmux-mcp/tmux-mcp/fixtures/agentcli"
)

// claudeWithTmux prepares the real Claude Code (pinned in test/agents) to
// talk to the fake model api, with tmux-mcp over stdio on fx's server as
// its MCP server "tmux", run_command allowed, and the variables vars set.
// Tool search is off: it would defer run_command behind a search the fake
// does not make.
func claudeWithTmux(t *testing.T, fx *fixtures.Server, api *agentapi.Server, vars ...string) *agentcli.Env {
	t.Helper()
	argv, err := agentcli.Program(agentcli.Claude)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: %v", err)
		}
		t.Skip(err)
	}
	root := t.TempDir()
	mcpEnv := map[string]string{}
	for _, kv := range childEnv(fx) {
		k, v, _ := strings.Cut(kv, "=")
		mcpEnv[k] = v
	}
	cfg := filepath.Join(root, "mcp.json")
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"tmux": map[string]any{
		"type": "stdio", "command": binary(t), "args": []string{"--socket", fx.Socket}, "env": mcpEnv}}})
	if err := os.WriteFile(cfg, b, 0o600); err != nil {
		t.Fatal(err)
	}
	// The start script clears the environment (env -i): the variables go
	// through env(1), in front of the program.
	run := append([]string{"env", "ENABLE_TOOL_SEARCH=false"}, vars...)
	run = append(append(run, argv...), "--mcp-config", cfg, "--strict-mcp-config", "--allowedTools", "mcp__tmux__run_command")
	env, err := agentcli.Write(root, agentcli.Claude, run, api.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agentcli.KillStragglers(env.Home) })
	return env
}

// TestClaudeCodeBackgroundsTasks: the real Claude Code, interactive in a
// pane, calls a long run_command for its fake model. Claude Code 2.1.332
// speaks the 2026-07-28 Tasks extension: it gets a task, tells the model
// the call went to the background at once, polls the task, and hands the
// command's result to the model in a later turn. With
// CLAUDE_CODE_DISABLE_MCP_TASKS=1 the call blocks and its result is the
// tool result, as without tasks. It runs offline.
func TestClaudeCodeBackgroundsTasks(t *testing.T) {
	skipOnLeanLane(t)
	if testing.Short() {
		t.Skip("-short")
	}
	if os.Getenv(fixtures.EnvTmux) != "" {
		t.Skipf("%s is set (the version matrix): run by make test only", fixtures.EnvTmux)
	}
	for _, tc := range []struct {
		name     string
		vars     []string
		tasks    bool
		resultIn int // the turn whose prompt holds the command's result
	}{
		{name: "tasks", tasks: true, resultIn: 3},
		{name: "disabled", vars: []string{"CLAUDE_CODE_DISABLE_MCP_TASKS=1"}, resultIn: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, fx, pane := workflow(t)
			work := shellPane(t, c, pane, fixtures.TestShell)
			gate := filepath.Join(t.TempDir(), "gate")
			marker := "built-" + tc.name
			api := agentapi.New(t, &agentapi.Options{ToolUse: &agentapi.ToolUse{
				Name: "mcp__tmux__run_command",
				Input: map[string]any{"pane_id": work, "timeout": 120,
					"command": "until [ -e " + gate + " ]; do sleep 0.1; done; echo " + marker},
			}})
			env := claudeWithTmux(t, fx, api, tc.vars...)
			screen := agentcli.Screens[agentcli.Claude]
			c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": env.Command()}, nil)
			c.waitScreen(t, pane, "claude ready", api, "screen", 90, []string{screen.Ready})
			// Claude Code connects its MCP servers as it starts: a prompt sent
			// before run_command is offered gets a text answer; send another.
			asked := 0
			for try := 1; ; try++ {
				c.typeText(t, pane, "run the build", api)
				asked++
				if p, _ := c.submit(t, pane, api, asked); p.ToolUse {
					break
				}
				if try == 5 {
					t.Fatalf("run_command was never offered to the model; the pane shows:\n%s\nrequests:\n%s", c.screen(t, pane), api.Log())
				}
				c.waitScreen(t, pane, "the text answer", api, "", 60, []string{screen.Done}, screen.Busy)
			}

			// The command waits for the gate; the model hears back before it
			// opens only when the call went to the background.
			second, early := api.AwaitPrompt(asked+1, 20*time.Second)
			if early != tc.tasks {
				t.Fatalf("turn 2 came before the command ended: %v, want %v; prompt: %q\nthe pane shows:\n%s\nrequests:\n%s", early, tc.tasks, second.Text, c.screen(t, pane), api.Log())
			}
			if tc.tasks {
				if !strings.Contains(second.Text, "tool_result") || !strings.Contains(second.Text, "cmd-") || strings.Contains(second.Text, marker) {
					t.Fatalf("the tool result of a backgrounded call: %q, want a note naming the task (the command id), no output", second.Text)
				}
			}
			if err := os.WriteFile(gate, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			p, ok := api.AwaitPrompt(asked+tc.resultIn-1, 90*time.Second)
			if !ok {
				t.Fatalf("no turn %d; the pane shows:\n%s\nrequests:\n%s", asked+tc.resultIn-1, c.screen(t, pane), api.Log())
			}
			if !strings.Contains(p.Text, marker) || !strings.Contains(p.Text, `"exit_status":0`) {
				t.Fatalf("turn %d: %q, want the command's result (its output and exit status)", tc.resultIn, p.Text)
			}
			for _, q := range api.Prompts() {
				t.Logf("turn %d: %.600q", q.N, q.Text)
			}
		})
	}
}
