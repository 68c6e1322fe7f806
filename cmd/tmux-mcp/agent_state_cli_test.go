package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/fixtures/agentapi"
	"github.com/tmux-mcp/tmux-mcp/fixtures/agentcli"
)

// TestAgentStateClaudeCode follows the real Claude Code through its states with
// wait_for_agent_state, each transition seen by the wait: idle at its prompt,
// working on a prompt (the fake model thinks 2 s), blocked on the permission menu
// its Bash tool call raises (the question in state_detail, list_panes says so too),
// working again once allowed, and idle with its answer, read from its transcript.
func TestAgentStateClaudeCode(t *testing.T) {
	skipOnLeanLane(t)
	t.Parallel()
	if testing.Short() {
		t.Skip("-short")
	}
	api := agentapi.New(t, &agentapi.Options{Think: 2 * time.Second, ToolUse: &agentapi.ToolUse{
		Name: "Bash", Input: map[string]any{"command": "touch made-by-tool", "description": "Make a file"}}})
	env := agentcli.Prepare(t, agentcli.Claude, api, &agentcli.Options{AskPermission: true})
	c, fx, pane := workflow(t)
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": env.Command()}, nil)
	one := []string{pane}

	st := c.waitStates(t, one, false, "idle", "blocked")[0]
	if st.AgentState == "blocked" {
		// With the manual permission mode, Claude Code 2.1.332 first offers to make
		// auto mode the default: a question this pane's keyboard answers.
		wantState(t, "claude's first question", st, "blocked", "claude asks", "auto mode")
		c.awaitQuiet(t, pane, "claude at its question")
		c.pickWithKeys(t, pane, []string{"Down", "Enter"}, agentcli.Screens[agentcli.Claude].Ready, []string{"keep manual mode"}, `❯ No, keep manual mode`)
		st = c.waitStates(t, one, false, "idle")[0]
	}
	wantState(t, "claude ready", st, "idle", "claude waits for a prompt")

	c.typeText(t, pane, "please make the file", api)
	c.submit(t, pane, api, 1)
	wantState(t, "claude on the prompt", c.waitStates(t, one, false, "working")[0], "working", "claude")

	st = c.waitStates(t, one, false, "blocked")[0]
	wantState(t, "claude's permission menu", st, "blocked", "claude asks: permission", "Do you want to proceed?", "1. Yes", "touch made-by-tool")
	if got := c.listedState(t, pane); got != "blocked" {
		t.Fatalf("list_panes: %q, want blocked", got)
	}
	c.awaitQuiet(t, pane, "claude at its permission menu")
	c.pickWithKeys(t, pane, []string{"Enter"}, `esc to interrupt`, []string{"Do you want to proceed"}, "")
	wantState(t, "claude after the permission", c.waitStates(t, one, false, "working")[0], "working", "claude")

	st = c.waitStates(t, one, false, "idle")[0]
	wantState(t, "claude answered", st, "idle")
	if st.AnswerFrom != "transcript" || !strings.Contains(strings.Join(st.Answer, "\n"), "ANSWER-2: the fake model answers\nline 2 of ANSWER-2") {
		t.Fatalf("the answer: %q from %q, want ANSWER-2 from the transcript; the pane shows:\n%s", st.Answer, st.AnswerFrom, c.screen(t, pane))
	}
	if _, err := os.Stat(filepath.Join(env.Dir, "made-by-tool")); err != nil {
		t.Fatalf("the tool call did not run once allowed: %v", err)
	}

	// The same answer for a client that reaches this tmux over ssh: the
	// transcript is read through the host's shell, on the host.
	sshd := fixtures.NewSSHD(t)
	remote := startClient(t, fx, "", []string{"--ssh", shellWords(sshd.ClientArgs(sshd.Port))})
	st = remote.waitStates(t, one, false, "idle")[0]
	if st.AnswerFrom != "transcript" || !strings.Contains(strings.Join(st.Answer, "\n"), "ANSWER-2: the fake model answers\nline 2 of ANSWER-2") {
		t.Fatalf("over ssh, the answer: %q from %q, want ANSWER-2 from the transcript", st.Answer, st.AnswerFrom)
	}
}

// TestAgentStateClaudeCodeTypeAhead: a person types the next prompt while
// Claude Code 2.1.332 works. Its footer then loses "esc to interrupt", but
// its spinner turns on: the pane reads working until the answer is drawn,
// then idle with it, the typed text still in its input box.
func TestAgentStateClaudeCodeTypeAhead(t *testing.T) {
	skipOnLeanLane(t)
	t.Parallel()
	if testing.Short() {
		t.Skip("-short")
	}
	api := agentapi.New(t, &agentapi.Options{Think: 8 * time.Second})
	env := agentcli.Prepare(t, agentcli.Claude, api, &agentcli.Options{})
	c, _, pane := workflow(t)
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": env.Command()}, nil)
	one := []string{pane}
	wantState(t, "claude ready", c.waitStates(t, one, false, "idle")[0], "idle", "claude waits for a prompt")
	c.awaitQuiet(t, pane, "claude ready")
	c.typeText(t, pane, "please answer", api)
	c.submit(t, pane, api, 1)
	c.waitOnScreen(t, pane, `esc to interrupt`)

	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "and then", "enter": false}, nil)
	c.waitOnScreen(t, pane, `^❯.and then`) // NBSP after ❯
	// The model thinks 8 s: idle now is idle with no answer drawn.
	if st := c.waitStates(t, one, false, "working", "idle")[0]; st.AgentState != "working" && len(st.Answer) == 0 {
		t.Fatalf("typed ahead, before the answer: %+v; the pane shows:\n%s", st, c.screen(t, pane))
	}
	st := c.waitStates(t, one, false, "idle")[0]
	screen := c.screen(t, pane)
	if spinner.MatchString(screen) || !strings.Contains(strings.Join(st.Answer, "\n"), "ANSWER-1: the fake model answers") {
		t.Fatalf("idle: %+v, want ANSWER-1 and no spinner; the pane shows:\n%s", st, screen)
	}
}

// spinner is Claude Code's row while it works ("✶ Cooking…").
var spinner = regexp.MustCompile(`(?m)^[·✢✳✶✻✽*] \p{L}+…`)

// permissionTurn is what a test of one agent CLI's permission menu needs: the tool
// call the fake model makes, what state_detail holds while the CLI asks, and the
// row the CLI draws while it works (its busy mark).
type permissionTurn struct {
	cli  agentcli.CLI
	tool agentapi.ToolUse
	ask  []string // in state_detail while blocked
	busy string   // a row drawn while working
}

// followPermission follows the real CLI through its states with wait_for_agent_state,
// each transition seen by the wait: idle at its prompt, working on a prompt (the fake
// model thinks 3 s before each answer), blocked on the permission menu its shell tool
// call raises (the question in state_detail, list_panes says so too), working again
// once allowed with Enter, and idle with its answer read from the screen; the tool's
// command ran, and its result went back to the model.
func followPermission(t *testing.T, turn permissionTurn) {
	skipOnLeanLane(t)
	t.Parallel()
	if testing.Short() {
		t.Skip("-short")
	}
	api := agentapi.New(t, &agentapi.Options{Think: 3 * time.Second, ToolUse: &turn.tool})
	env := agentcli.Prepare(t, turn.cli, api, &agentcli.Options{AskPermission: true})
	c, _, pane := workflow(t)
	name := string(turn.cli)
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": env.Command()}, nil)
	one := []string{pane}

	wantState(t, name+" ready", c.waitStates(t, one, false, "idle")[0], "idle", name+" waits for a prompt")
	c.awaitQuiet(t, pane, name+" ready") // keys typed while it still starts are lost
	c.typeText(t, pane, "please make the file", api)
	if p, _ := c.submit(t, pane, api, 1); !p.ToolUse {
		t.Fatalf("the fake's first turn %+v, want it answered with the tool call", p)
	}
	wantState(t, name+" on the prompt", c.waitStates(t, one, false, "working")[0], "working", name)

	st := c.waitStates(t, one, false, "blocked")[0]
	wantState(t, name+"'s permission menu", st, "blocked", append([]string{name + " asks: permission"}, turn.ask...)...)
	if got := c.listedState(t, pane); got != "blocked" {
		t.Fatalf("list_panes: %q, want blocked", got)
	}
	c.awaitQuiet(t, pane, name+" at its permission menu")
	c.pickWithKeys(t, pane, []string{"Enter"}, turn.busy+`|ANSWER-2`, []string{turn.ask[0]}, "")
	wantState(t, name+" after the permission", c.waitStates(t, one, false, "working")[0], "working", name)

	st = c.waitStates(t, one, false, "idle")[0]
	wantState(t, name+" answered", st, "idle", name+" waits for a prompt")
	answer := strings.Join(st.Answer, "\n")
	if st.AnswerFrom != "screen" || !strings.Contains(answer, "ANSWER-2: the fake model answers\nline 2 of ANSWER-2") {
		t.Fatalf("the answer: %q from %q, want ANSWER-2 from the screen; the pane shows:\n%s", st.Answer, st.AnswerFrom, c.screen(t, pane))
	}
	if strings.Contains(answer, "Worked for") || strings.Contains(answer, "for shortcuts") {
		t.Errorf("the answer holds the CLI's status rows: %q", st.Answer)
	}
	if _, err := os.Stat(filepath.Join(env.Dir, "made-by-tool")); err != nil {
		t.Fatalf("the tool call did not run once allowed: %v", err)
	}
	if p := api.WaitPrompt(t, 2, time.Second); !strings.HasPrefix(p.Text, "tool_result: ") {
		t.Fatalf("the fake's second turn %+v, want the tool call's result", p)
	}
}

// TestAgentStateCodex: Codex 0.171.0, its approval policy on-request, asks before it
// runs a command the model wants run outside the sandbox (exec_command with
// sandbox_permissions require_escalated).
func TestAgentStateCodex(t *testing.T) {
	followPermission(t, permissionTurn{
		cli: agentcli.Codex,
		tool: agentapi.ToolUse{Name: "exec_command", Input: map[string]any{"cmd": "touch made-by-tool",
			"sandbox_permissions": "require_escalated", "justification": "May I make the file?"}},
		ask:  []string{"Would you like to run the following command?", "May I make the file?", "touch made-by-tool", "1. Yes, proceed"},
		busy: agentcli.Screens[agentcli.Codex].Busy,
	})
}

// TestAgentStateGemini: Gemini CLI 0.61.0 asks before it runs a shell command
// (run_shell_command), in its default approval mode.
func TestAgentStateGemini(t *testing.T) {
	followPermission(t, permissionTurn{
		cli:  agentcli.Gemini,
		tool: agentapi.ToolUse{Name: "run_shell_command", Input: map[string]any{"command": "touch made-by-tool", "description": "Make a file"}},
		ask:  []string{"Allow execution of [Shell]?", "touch made-by-tool", "1. Allow once"},
		busy: agentcli.Screens[agentcli.Gemini].Busy,
	})
}
