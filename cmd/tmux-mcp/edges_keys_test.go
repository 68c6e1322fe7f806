package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// The everyday edges of issue 32 at the keyboard (items 1 to 3): a shell
// still starting, echo told from output, a text then Enter; driven over
// stdio as an agent drives them.

// TestEdgeTextThenEnterPaced: send_keys "42" with Enter into fzf --height
// picks 42: the Enter goes once fzf has drawn the query, not in one burst
// with it, before fzf filtered.
func TestEdgeTextThenEnterPaced(t *testing.T) {
	t.Parallel()
	fixtures.NeedProgram(t, "fzf")
	c, pane, _ := startAtPrompt(t, `seq 1 50 | fzf --height 10 --no-mouse; echo "picked:$?"`)
	c.waitOrShow(t, pane, "screen", `^\s*50/50\b`)
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "42"}, nil)
	w := c.waitOrShow(t, pane, "input", `^picked:`)
	if !strings.Contains(c.screen(t, pane), "\n42\n") {
		t.Fatalf("send_keys \"42\" then Enter into fzf did not pick 42 (%+v); the pane shows:\n%s", w, c.screen(t, pane))
	}
}

// TestEdgeOutputEqualToInput: fzf prints the pick, 42, which is also the
// text typed: a wait for ^42$ after the input finds it, and a wait for
// "picked" finds the line after it. A line printed by the program is not
// echo because its text equals the input.
func TestEdgeOutputEqualToInput(t *testing.T) {
	t.Parallel()
	fixtures.NeedProgram(t, "fzf")
	c, _, pane := workflow(t)
	atPrompt(t, c, pane)
	// Text and Enter in one burst (pace_ms 0): the command line's echo
	// comes after the input, and the answer shows it was left out.
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "sleep 0.2; echo DONE_42", "pace_ms": 0}, nil)
	w := c.waitOrShow(t, pane, "input", `DONE_42`)
	if w.EchoSkipped != 1 || len(w.EchoLines) != 1 || !strings.HasSuffix(w.EchoLines[0], "sleep 0.2; echo DONE_42") {
		t.Errorf("the wait after the command line: skipped %d lines, shows %q, want the command line", w.EchoSkipped, w.EchoLines)
	}
	atPrompt(t, c, pane)
	// fzf draws its list below the prompt; given 42 and Enter, it clears
	// the list and prints 42 where the list began, above the row the keys
	// went in on.
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": `seq 1 50 | fzf --height 10 --no-mouse; echo "picked 42"`, "pace_ms": 0}, nil)
	c.waitOrShow(t, pane, "screen", `^\s*50/50\b`)
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": []string{"42", "Enter"}, "enter": false}, nil)
	w = c.waitOrShow(t, pane, "input", `^42$`)
	if len(w.EchoLines) != min(w.EchoSkipped, 5) {
		t.Errorf("the wait skipped %d lines and shows %q", w.EchoSkipped, w.EchoLines)
	}
	if w = c.waitOrShow(t, pane, "input", `picked`); strings.Join(w.MatchedLines, "|") != "picked 42" {
		t.Errorf("wait for picked: matched %q, want the line echo printed", w.MatchedLines)
	}
}

// TestEdgeKeysToStartingShell: keys sent to a shell still reading its
// start-up file (bash, zsh, fish) are held until it has drawn its first
// prompt, and send_keys says so; the wait that follows matches what the
// command printed, never the typed line, and the line runs once, as typed.
func TestEdgeKeysToStartingShell(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			t.Parallel()
			command, env, ready := fixtures.SlowShell(t, shell)
			c, _, first := workflow(t)
			var p struct {
				PaneID string `json:"pane_id"`
			}
			c.ok(t, "split_window", map[string]any{"pane_id": first, "shell": command, "environment": env}, &p)
			sent := make(chan string, 1)
			go func() {
				var m struct{ Result string }
				res := c.call(t, "send_keys", map[string]any{"pane_id": p.PaneID, "keys": `sleep 0.3; echo DONE_4""2 DONE_42`})
				decode(t, res.StructuredContent, &m)
				sent <- m.Result
			}()
			// The shell is held in its start-up file until ready: the keys
			// are not typed before, so its screen stays blank.
			early := c.awaitLog(t, "holding text for a shell that has drawn no prompt yet", sent)
			if s := strings.TrimSpace(c.screen(t, p.PaneID)); s != "" {
				t.Errorf("the starting shell's pane shows %q before its prompt", s)
			}
			ready()
			msg := early
			if msg == "" {
				msg = <-sent
			}
			if !strings.Contains(msg, "first prompt") {
				t.Errorf("send_keys into a starting shell: %q, want it to say it waited for the first prompt", msg)
			}
			w := waitText(t, c, map[string]any{"pane_id": p.PaneID, "patterns": []string{"DONE_42"}, "timeout": 30})
			if !w.Found || len(w.MatchedLines) != 1 || w.MatchedLines[0] != "DONE_42 DONE_42" {
				t.Fatalf("wait for DONE_42 after keys sent to a starting shell: got %+v, want the line the command printed; the pane shows:\n%s", w, c.screen(t, p.PaneID))
			}
			c.waitOnScreen(t, p.PaneID, `^\$ $`)
			if n := strings.Count(c.screen(t, p.PaneID), "sleep 0.3"); n != 1 {
				t.Errorf("the typed line shows %d times, want once:\n%s", n, c.screen(t, p.PaneID))
			}
		})
	}
}

// awaitLog waits until tmux-mcp has logged a line holding text, or a
// call's answer comes on answered first (returned then). The deadline
// only catches a hang.
func (c *client) awaitLog(t *testing.T, text string, answered <-chan string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(c.stderr.String(), text) {
		select {
		case a := <-answered:
			return a
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("tmux-mcp never logged %q; its log:\n%s", text, c.stderr)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return ""
}

// TestEdgeBackgroundRunStartingShell: run_command with background true
// into a shell still reading its start-up file answers at once with its
// command_id; wait_for_command says it waits for the shell's first
// prompt until the shell draws it, then the line is typed and runs.
func TestEdgeBackgroundRunStartingShell(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			t.Parallel()
			command, env, ready := fixtures.SlowShell(t, shell)
			c, _, first := workflow(t)
			var p struct {
				PaneID string `json:"pane_id"`
			}
			c.ok(t, "split_window", map[string]any{"pane_id": first, "shell": command, "environment": env}, &p)
			type result struct {
				CommandID  string   `json:"command_id"`
				TimedOut   bool     `json:"timed_out"`
				ExitStatus *int     `json:"exit_status"`
				Output     []string `json:"output"`
				WaitingFor string   `json:"waiting_for"`
			}
			var r result
			// The shell stays in its start-up file until ready: an answer
			// that waited for it would be a deadline.
			c.ok(t, "run_command", map[string]any{"pane_id": p.PaneID, "command": `echo ready_4""2`, "background": true, "timeout": 20}, &r)
			if r.CommandID == "" || !r.TimedOut || !strings.Contains(r.WaitingFor, "first prompt") {
				t.Fatalf("run_command in the background into a starting shell: got %+v, want its command_id at once, waiting for the first prompt", r)
			}
			var w result
			c.ok(t, "wait_for_command", map[string]any{"command_id": r.CommandID, "timeout": 0.2}, &w)
			if !w.TimedOut || !strings.Contains(w.WaitingFor, "first prompt") {
				t.Fatalf("wait_for_command before the prompt: got %+v, want it waiting for the first prompt", w)
			}
			ready()
			w = result{}
			c.ok(t, "wait_for_command", map[string]any{"command_id": r.CommandID, "timeout": 30}, &w)
			if w.ExitStatus == nil || *w.ExitStatus != 0 || strings.Join(w.Output, "|") != "ready_42" || w.WaitingFor != "" {
				t.Fatalf("wait_for_command once the shell is ready: got %+v, want ready_42 with status 0", w)
			}
		})
	}
}

// TestEdgeReadTypeahead: text for a program that reads the terminal with
// no line editor (the shell's read) is not held: typed ahead while the
// script is busy in a child, or sent while read waits in a blank pane, it
// is read, echoed once by the terminal, and the wait finds the answer.
func TestEdgeReadTypeahead(t *testing.T) {
	t.Parallel()
	c, _, first := workflow(t)
	fifo := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	split := func(script string) string {
		var p struct {
			PaneID string `json:"pane_id"`
		}
		c.ok(t, "split_window", map[string]any{"pane_id": first, "shell": "sh -c '" + script + "'"}, &p)
		return p.PaneID
	}
	// Typed ahead: the script is in cat until the gate opens, then reads.
	ahead := split(`cat ` + fifo + ` >/dev/null; read -r x; echo "got:$x"; exec sleep 60`)
	var m struct{ Result string }
	c.ok(t, "send_keys", map[string]any{"pane_id": ahead, "keys": "hello ahead"}, &m)
	if strings.Contains(m.Result, "held") {
		t.Errorf("keys typed ahead for a script in cat were held: %q", m.Result)
	}
	gate, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	gate.Close()
	w := waitText(t, c, map[string]any{"pane_id": ahead, "patterns": []string{`^got:`}, "regex": true, "timeout": 30})
	if !w.Found || strings.Join(w.MatchedLines, "|") != "got:hello ahead" {
		t.Fatalf("typed ahead for read: got %+v; the pane shows:\n%s", w, c.screen(t, ahead))
	}
	// A blank pane whose script waits in read gets the keys, not a wait
	// for a prompt it never draws.
	reading := split(`read -r x; echo "got:$x"; exec sleep 60`)
	c.ok(t, "send_keys", map[string]any{"pane_id": reading, "keys": "hello read"}, &m)
	w = waitText(t, c, map[string]any{"pane_id": reading, "patterns": []string{`^got:`}, "regex": true, "timeout": 30})
	if !w.Found || strings.Join(w.MatchedLines, "|") != "got:hello read" {
		t.Fatalf("keys for read in a blank pane: got %+v (send_keys said %q); the pane shows:\n%s", w, m.Result, c.screen(t, reading))
	}
}
