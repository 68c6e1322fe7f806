package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// stateOf is one pane of wait_for_agent_state's answer.
type stateOf struct {
	PaneID      string   `json:"pane_id"`
	AgentState  string   `json:"agent_state"`
	StateDetail string   `json:"state_detail"`
	Answer      []string `json:"answer"`
	AnswerFrom  string   `json:"answer_from"`
}

// settledState waits with wait_for_content_change until pane has printed nothing for
// 1.1 s (agentstate.Recent) and its program reads the terminal (or the kernel cannot tell), then returns
// its state from get_pane_info; it fails the test unless the state is one of want.
func (c *client) settledState(t *testing.T, pane string, want ...string) stateOf {
	t.Helper()
	var q struct {
		Quiet bool `json:"quiet"`
	}
	c.ok(t, "wait_for_content_change", map[string]any{"pane_id": pane, "quiet_ms": 1100, "until_reading": true, "timeout": 30}, &q)
	if !q.Quiet {
		t.Fatalf("pane %s never settled; it shows:\n%s", pane, c.screen(t, pane))
	}
	st, detail := c.paneInfoState(t, pane)
	if !slices.Contains(want, st) {
		t.Fatalf("get_pane_info: agent_state %q (%s), want one of %v; the pane shows:\n%s", st, detail, want, c.screen(t, pane))
	}
	return stateOf{PaneID: pane, AgentState: st, StateDetail: detail}
}

// paneInfoState is get_pane_info's agent_state and state_detail.
func (c *client) paneInfoState(t *testing.T, pane string) (string, string) {
	t.Helper()
	var p struct {
		AgentState  string `json:"agent_state"`
		StateDetail string `json:"state_detail"`
	}
	c.ok(t, "get_pane_info", map[string]any{"pane_id": pane}, &p)
	return p.AgentState, p.StateDetail
}

// listedState is the agent_state list_panes gives pane ("": idle).
func (c *client) listedState(t *testing.T, pane string) string {
	t.Helper()
	var l struct {
		Result []struct {
			PaneID     string `json:"pane_id"`
			AgentState string `json:"agent_state"`
		} `json:"result"`
	}
	c.ok(t, "list_panes", map[string]any{}, &l)
	for _, p := range l.Result {
		if p.PaneID == pane {
			return p.AgentState
		}
	}
	t.Fatalf("list_panes has no pane %s: %+v", pane, l)
	return ""
}

// wantState fails the test unless st is state with detail holding each of want.
func wantState(t *testing.T, what string, st stateOf, state string, want ...string) {
	t.Helper()
	if st.AgentState != state {
		t.Fatalf("%s: agent_state %q (%s), want %q", what, st.AgentState, st.StateDetail, state)
	}
	for _, w := range want {
		if !strings.Contains(st.StateDetail, w) {
			t.Fatalf("%s: state_detail %q, want %q in it", what, st.StateDetail, w)
		}
	}
}

// TestAgentStateShells follows each shell through its states with
// wait_for_agent_state, get_pane_info and list_panes: idle at its first prompt,
// done with the status of run_command's command, working while a program runs,
// blocked in a read (the question in state_detail), and done again after the answer.
func TestAgentStateShells(t *testing.T) {
	t.Parallel()
	for _, argv := range commandShells {
		shell := argv[0]
		t.Run(shell, func(t *testing.T) {
			t.Parallel()
			c, _, base := workflow(t)
			pane := shellPaneFor(t, c, base, argv)
			wantState(t, "a new shell", c.settledState(t, pane, "idle"), "idle", "at its prompt")
			if st := c.listedState(t, pane); st != "" {
				t.Fatalf("list_panes: %q, want none (idle)", st)
			}
			c.run(t, pane, "false")
			st, detail := c.paneInfoState(t, pane)
			wantState(t, "after run_command false", stateOf{AgentState: st, StateDetail: detail}, "done", "status 1")
			if st := c.listedState(t, pane); st != "done" {
				t.Fatalf("list_panes after run_command: %q, want done", st)
			}

			var bg commandResult
			c.ok(t, "run_command", map[string]any{"pane_id": pane, "command": "sleep 2; false", "background": true}, &bg)
			st, detail = c.paneInfoState(t, pane)
			wantState(t, "sleep", stateOf{AgentState: st, StateDetail: detail}, "working", "our command")
			c.waitCommand(t, bg.CommandID, 30)
			st, detail = c.paneInfoState(t, pane)
			wantState(t, "sleep ended", stateOf{AgentState: st, StateDetail: detail}, "done", "status 1")

			// A question ending as prompts do ("> ") under a "$ " prompt
			// run_command has seen; fish's own prompt is "> ".
			read, question := "printf 'name> '; read x", "name>"
			if shell == "fish" {
				read, question = "read -P 'name? ' x", "name?"
			}
			c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": read}, nil)
			wantState(t, "read", c.settledState(t, pane, "blocked"), "blocked", "read", question)
			c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "abc"}, nil)
			wantState(t, "read answered", c.settledState(t, pane, "done"), "done")

			// The same read inside a command run_command typed: the shell
			// reads, so the command is blocked, not working.
			bg = commandResult{}
			c.ok(t, "run_command", map[string]any{"pane_id": pane, "command": read + "; echo got-$x", "background": true}, &bg)
			wantState(t, "read in run_command", c.settledState(t, pane, "blocked"), "blocked", "our command", question)
			c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "xyz"}, nil)
			if done, _ := c.waitCommand(t, bg.CommandID, 30); done.status() != "0" || !strings.HasSuffix(fmt.Sprint(done.Output), " got-xyz]") {
				t.Fatalf("read in run_command, answered: got %+v", done)
			}
		})
	}
}

// TestAgentStatePrograms: a password prompt, python's REPL and its input(), vi and a
// pager at the end of a pipeline each have their state.
func TestAgentStatePrograms(t *testing.T) {
	t.Parallel()
	python := fixtures.NeedProgram(t, "python3")
	vi := fixtures.NeedProgram(t, "vi")
	c, _, base := workflow(t)
	pane := shellPane(t, c, base, "bash", "--norc", "--noprofile")
	c.settledState(t, pane, "idle")

	c.ok(t, "send_keys", map[string]any{"pane_id": pane,
		"keys": python + ` -c 'import getpass; getpass.getpass("[sudo] password for me: ")'`}, nil)
	wantState(t, "a password prompt", c.settledState(t, pane, "blocked"), "blocked", "password", "[sudo] password for me:")
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "secret"}, nil)
	c.settledState(t, pane, "done")

	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": python + " -q"}, nil)
	wantState(t, "python's REPL", c.settledState(t, pane, "idle"), "idle", "at its prompt")
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": `input("your age? ")`}, nil)
	wantState(t, "input()", c.settledState(t, pane, "blocked"), "blocked", "your age?")
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "42"}, nil)
	c.settledState(t, pane, "idle")
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "exit()"}, nil)
	c.settledState(t, pane, "done")

	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": vi + " -u NONE notes.txt"}, nil)
	wantState(t, "vi", c.settledState(t, pane, "blocked"), "blocked", "full screen")
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": ":q!"}, nil)
	c.settledState(t, pane, "done")

	// A pager at the end of a pipeline: its first process exited, and tmux
	// names the shell the pane's program; the alternate screen tells.
	less := fixtures.NeedProgram(t, "less")
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "seq 1 200 | " + less}, nil)
	wantState(t, "a pager in a pipeline", c.settledState(t, pane, "blocked"), "blocked", "full screen")
	if st := c.listedState(t, pane); st != "blocked" {
		t.Fatalf("list_panes: agent_state %q for the pager, want blocked", st)
	}
	// The last input, q, went to the pager, not to the shell: idle.
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "q", "enter": false}, nil)
	c.settledState(t, pane, "idle")
}

// waitStates calls wait_for_agent_state on panes until one (all: every one) is in a
// state of until, and returns its answer; it fails the test on a timeout.
func (c *client) waitStates(t *testing.T, panes []string, all bool, until ...string) []stateOf {
	t.Helper()
	var r struct {
		Panes    []stateOf `json:"panes"`
		TimedOut bool      `json:"timed_out"`
	}
	c.ok(t, "wait_for_agent_state", map[string]any{"pane_ids": panes, "until": until, "all": all, "timeout": 60}, &r)
	if r.TimedOut || len(r.Panes) == 0 {
		var screens []string
		for _, p := range panes {
			screens = append(screens, p+":\n"+c.screen(t, p))
		}
		t.Fatalf("wait_for_agent_state %v on %v: got %+v; the panes show:\n%s", until, panes, r, strings.Join(screens, "\n"))
	}
	return r.Panes
}

// TestWaitForAgentState waits on two shells as an orchestrator waits on its workers:
// both idle (all), the first to ask a question (blocked, the question in
// state_detail), and both done (all), each with its status when known; bad
// arguments are refused before anything is waited on.
func TestWaitForAgentState(t *testing.T) {
	t.Parallel()
	c, _, base := workflow(t)
	a := shellPane(t, c, base, "bash", "--norc", "--noprofile")
	b := shellPane(t, c, base, "sh")
	both := []string{a, b}
	for _, st := range c.waitStates(t, both, true, "idle") {
		wantState(t, "a new shell", st, "idle")
	}

	c.ok(t, "send_keys", map[string]any{"pane_id": a, "keys": "sleep 1; printf 'go on? '; read x"}, nil)
	first := c.waitStates(t, []string{b, a}, false, "blocked") // the one that reached it first
	if first[0].PaneID != a {
		t.Fatalf("the first blocked: %+v, want %s first", first, a)
	}
	wantState(t, "read", first[0], "blocked", "go on?")

	c.ok(t, "send_keys", map[string]any{"pane_id": a, "keys": "y"}, nil)
	c.ok(t, "run_command", map[string]any{"pane_id": b, "command": "sleep 1; false", "background": true}, nil)
	done := c.waitStates(t, both, true, "done")
	if len(done) != 2 {
		t.Fatalf("all done: %+v, want both panes", done)
	}
	for _, st := range done {
		want := []string{}
		if st.PaneID == b {
			want = append(want, "status 1")
		}
		wantState(t, "done "+st.PaneID, st, "done", want...)
	}

	for _, bad := range []map[string]any{
		{"pane_ids": []string{a}, "until": []string{"finished"}},
		{"pane_ids": []string{"%1;kill-server"}, "until": []string{"idle"}},
		{"pane_ids": []string{}, "until": []string{"idle"}},
		{"pane_ids": []string{a}, "until": []string{}},
	} {
		if e := c.fail(t, "wait_for_agent_state", bad); e.Code != "invalid_arguments" || e.Effects != "none" {
			t.Errorf("wait_for_agent_state %v: %+v, want invalid_arguments, effects none", bad, e)
		}
	}
}
