package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// osc133Bashrc is a terminal's bash integration: C as a command starts
// (PS0), D with its status and A as the prompt comes back
// (PROMPT_COMMAND).
const osc133Bashrc = `PS1='$ '
PS0=$'\e]133;C\a'
PROMPT_COMMAND='printf "\033]133;D;%s\007\033]133;A\007" "$?"'
`

// marksShell starts a tmux server whose one pane runs a bash that prints
// OSC 133 marks, and a tmux-mcp on it.
func marksShell(t *testing.T) (*fixtures.Server, string, *client) {
	t.Helper()
	fixtures.NeedProgram(t, "bash")
	fx := fixtures.NewServer(t)
	rc := filepath.Join(t.TempDir(), "bashrc")
	if err := os.WriteFile(rc, []byte(osc133Bashrc), 0o600); err != nil {
		t.Fatal(err)
	}
	fx.NewSession(t, "marks", "bash", "--noprofile", "--rcfile", rc, "-i")
	pane := paneOfSession(t, fx, "marks")
	c := startClient(t, fx, "", nil)
	return fx, pane, c
}

// TestWorkflowCommandMarks: in a bash that prints OSC 133 marks, on tmux
// 3.8 (which records them), run_command leaves the command's exit status
// as the one tmux records (not its wrapper's 0); a command interrupted
// with C-c, whose end marker never comes, gets the status the shell's own
// mark carried instead of "unknown"; and a command a person typed
// (straight through tmux) that still runs, a builtin whose program name
// says nothing, makes run_command refuse. Before 3.8 the same calls keep
// today's answers.
func TestWorkflowCommandMarks(t *testing.T) {
	t.Parallel()
	fx, pane, c := marksShell(t)
	marks := fx.AtLeast(t, 3, 8)
	status := func() string {
		var out struct {
			Result string `json:"result"`
		}
		c.ok(t, "display_message", map[string]any{"pane_id": pane, "format_string": "#{pane_command_status}"}, &out)
		return out.Result
	}

	var r commandResult
	c.ok(t, "run_command", map[string]any{"pane_id": pane, "command": "(exit 3)", "timeout": 30}, &r)
	if r.status() != "3" {
		t.Fatalf("(exit 3): %+v", r)
	}
	c.waitText(t, pane, `^\$ $`) // the shell reports the status as it draws its prompt
	if got := status(); marks && got != "3" || !marks && got != "" {
		t.Fatalf("pane_command_status after run_command (exit 3): %q", got)
	}

	r = commandResult{}
	c.ok(t, "run_command", map[string]any{"pane_id": pane, "background": true, "command": "sh -c 'echo started; exec sleep 60'"}, &r)
	c.waitOnScreen(t, pane, "^started$")
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "C-c", "enter": false}, nil)
	done, _ := c.waitCommand(t, r.CommandID, 30)
	switch {
	case marks && (done.Ended != "exited" || done.status() != "130"):
		t.Fatalf("C-c on tmux 3.8: %+v; want exited 130, from the shell's mark", done)
	case !marks && !(done.Ended == "unknown" && done.ExitStatus == nil || done.Ended == "exited" && done.status() != "0"):
		t.Fatalf("C-c: %+v", done)
	}

	// A person types a builtin that waits: bash is the pane's program all along.
	c.waitText(t, pane, `^\$ $`)
	fx.Tmux(t, "send-keys", "-t", pane, "read line", "Enter")
	c.waitOnScreen(t, pane, `^\$ read line$`)
	// Keys typed before read has the terminal back from the line editor
	// (canonical mode) can be lost in the switch, as a person's could.
	waitCanonical(t, fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_tty}"))
	if marks {
		if e := c.fail(t, "run_command", map[string]any{"pane_id": pane, "command": "echo no", "timeout": 5}); !strings.Contains(e.Message, "OSC 133") || e.Effects != "none" {
			t.Fatalf("run_command while a person's read runs: %+v; want refused by the marks, nothing typed", e)
		}
	}
	fx.Tmux(t, "send-keys", "-t", pane, "x", "Enter")
	fx.Tmux(t, "send-keys", "-t", pane, "sh -c 'exit 4'", "Enter")
	c.waitText(t, pane, `^\$ $`)
	if got := status(); marks && got != "4" {
		t.Fatalf("pane_command_status after a person's sh -c 'exit 4': %q", got)
	}
}

// waitCanonical waits until the terminal tty is in canonical mode: a
// program reads it line by line (a shell's read), not the line editor. It
// returns at once where stty cannot tell (not GNU stty).
func waitCanonical(t *testing.T, tty string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		out, err := exec.Command("stty", "-F", tty, "-a").Output()
		if err != nil {
			return
		}
		if strings.Contains(" "+strings.Join(strings.Fields(string(out)), " ")+" ", " icanon ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never went back to canonical mode: %s", tty, out)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestAgentStateCommandMarks: a command a person types in a bash that prints OSC
// 133 marks (straight through tmux, not through this server) leaves the pane done
// with its exit status on tmux 3.8, which records the marks, as wait_for_agent_state
// and get_pane_info tell; before 3.8 the marks are absent, and so is the status: the
// shell is at its prompt, idle, nothing claimed of a command this server did not see.
func TestAgentStateCommandMarks(t *testing.T) {
	t.Parallel()
	fx, pane, c := marksShell(t)
	one := []string{pane}
	wantState(t, "a new shell", c.waitStates(t, one, false, "idle")[0], "idle", "at its prompt")

	fx.Tmux(t, "send-keys", "-t", pane, "sh -c 'echo ran-it; exit 4'", "Enter")
	if fx.AtLeast(t, 3, 8) {
		st := c.waitStates(t, one, false, "done")[0]
		wantState(t, "a person's command, tmux 3.8", st, "done", "OSC 133", "with status 4")
		got, detail := c.paneInfoState(t, pane)
		wantState(t, "get_pane_info", stateOf{AgentState: got, StateDetail: detail}, "done", "with status 4")
		personReads(t, fx, c, pane)
		return
	}
	c.waitOnScreen(t, pane, `^ran-it$`)
	c.waitText(t, pane, `^\$ $`)
	// The prompt is drawn a moment before bash reads the terminal (a
	// loaded machine widens it: "bash runs"); once it reads, it stays.
	c.waitStates(t, one, false, "idle")
	got, detail := c.paneInfoState(t, pane)
	if got != "idle" || strings.Contains(detail, "status") || strings.Contains(detail, "OSC 133") {
		t.Fatalf("a person's command before tmux 3.8: agent_state %q (%s), want idle, no status claimed", got, detail)
	}
	personReads(t, fx, c, pane)
}

// personReads: a read typed by a person waits for this pane's keyboard,
// and its end leaves the pane done (3.8) or idle. From 3.8 the marks say
// a command runs, so even a read whose prompt ends as a shell's does is
// told from the shell's prompt; before, only its row tells, and a row
// like "name> " reads as a prompt: the test asks a question there.
func personReads(t *testing.T, fx *fixtures.Server, c *client, pane string) {
	t.Helper()
	ask, want := "name? ", "idle"
	if fx.AtLeast(t, 3, 8) {
		ask, want = "name> ", "done"
	}
	fx.Tmux(t, "send-keys", "-t", pane, "read -p '"+ask+"' x", "Enter")
	st := c.waitStates(t, []string{pane}, false, "blocked")[0]
	wantState(t, "a person's read", st, "blocked", "read", strings.TrimSpace(ask))
	fx.Tmux(t, "send-keys", "-t", pane, "bob", "Enter")
	wantState(t, "the read answered", c.waitStates(t, []string{pane}, false, want)[0], want)
}
