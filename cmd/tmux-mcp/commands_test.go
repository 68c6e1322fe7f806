package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// Tests of run_command's promises over stdio: a bounded answer that keeps
// the exit status, nothing run that the agent did not send, one answer per
// fault, and commands followed past the call's timeout.

// commandResult is run_command's and wait_for_command's result.
type commandResult struct {
	CommandID    string   `json:"command_id"`
	PaneID       string   `json:"pane_id"`
	ExitStatus   *int     `json:"exit_status"`
	TimedOut     bool     `json:"timed_out"`
	Ended        string   `json:"ended"`
	EndedReason  string   `json:"ended_reason"`
	ShellExited  bool     `json:"shell_exited"`
	Output       []string `json:"output"`
	Truncated    bool     `json:"output_truncated"`
	OutputCursor string   `json:"output_cursor"`
	Earlier      int      `json:"output_earlier_lines"`
}

func (r commandResult) status() string {
	if r.ExitStatus == nil {
		return "none"
	}
	return fmt.Sprint(*r.ExitStatus)
}

// commandShells are the shells run_command is promised in.
var commandShells = [][]string{{"sh"}, {"bash", "--norc", "--noprofile"}, {"zsh", "-f"}, {"fish", "--no-config"}}

// shellPaneFor splits a pane off first running shell, with a plain
// prompt; fish gets directories of its own, as it wants them.
func shellPaneFor(t *testing.T, c *client, first string, shell []string) string {
	t.Helper()
	if shell[0] != "fish" {
		return shellPane(t, c, first, shell...)
	}
	fixtures.NeedProgram(t, "fish")
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	var p struct {
		PaneID string `json:"pane_id"`
	}
	// fish --no-config prompts "> ", the same as a plain PS1 would.
	c.ok(t, "split_window", map[string]any{"pane_id": first, "shell": strings.Join(shell, " "),
		"environment": map[string]string{"XDG_RUNTIME_DIR": dir, "XDG_CONFIG_HOME": dir, "XDG_DATA_HOME": dir}}, &p)
	return p.PaneID
}

// waitCommand calls wait_for_command until the command ends, at most
// tries times, each waiting up to a second, and returns the last answer
// with the output of all (each holds only lines no earlier one returned).
func (c *client) waitCommand(t *testing.T, id string, tries int) (commandResult, int) {
	t.Helper()
	var r commandResult
	var output []string
	for i := 1; i <= tries; i++ {
		r = commandResult{}
		c.ok(t, "wait_for_command", map[string]any{"command_id": id, "timeout": 1}, &r)
		output = append(output, r.Output...)
		if !r.TimedOut {
			r.Output = output
			return r, i
		}
	}
	t.Fatalf("command %s still running after %d waits: %+v", id, tries, r)
	return r, tries
}

// TestRunCommandPromises runs, in each shell: a 200,000-line command
// (bounded answer, exit status kept), a person's half-typed line (refused,
// nothing run), a command that outlives its timeout many times over and
// one in the background, both read back with wait_for_command.
func TestRunCommandPromises(t *testing.T) {
	t.Parallel()
	for _, shell := range commandShells {
		t.Run(shell[0], func(t *testing.T) {
			c, _, first := workflow(t)
			pane := shellPaneFor(t, c, first, shell)
			dir := t.TempDir()
			c.waitText(t, pane, `[$>#] ?$`)

			begin := time.Now()
			// The whole output is 1.3 MB: the answer holds its newest
			// lines, within 256 KB, and the exit status.
			made := filepath.Join(dir, "made")
			res := c.call(t, "run_command", map[string]any{"pane_id": pane, "timeout": 120,
				"command": "seq 1 200000; touch " + made + "; sh -c 'exit 3'"})
			if res.IsError {
				t.Fatalf("200,000 lines: got error %s", textOf(res))
			}
			var r commandResult
			decode(t, res.StructuredContent, &r)
			size, _ := json.Marshal(res.StructuredContent)
			if r.status() != "3" || r.Ended != "exited" || !r.Truncated || r.OutputCursor == "" ||
				len(r.Output) == 0 || len(r.Output) > 2000 || r.Output[len(r.Output)-1] != "200000" || len(size) > 300<<10 {
				t.Fatalf("200,000 lines: got status %s, ended %q, %d lines ending %q, truncated %v, cursor %q, %d bytes",
					r.status(), r.Ended, len(r.Output), r.Output[max(0, len(r.Output)-1):], r.Truncated, r.OutputCursor, len(size))
			}
			if _, err := os.Stat(made); err != nil {
				t.Fatalf("the command's side effect is missing: %v", err)
			}

			// A person's half-typed line: refused at once, nothing run.
			c.run(t, pane, "cd "+dir)
			half := filepath.Join(dir, "HALF")
			c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "touch HALF", "enter": false, "literal": true}, nil)
			// The echo of typed keys is not "after input": read the screen.
			var w struct {
				Outcome string `json:"outcome"`
			}
			c.ok(t, "wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"HALF$"}, "regex": true, "since": "screen", "timeout": 30}, &w)
			if w.Outcome != "matched" {
				t.Fatalf("the typed line: %s", w.Outcome)
			}
			start := time.Now()
			e := c.fail(t, "run_command", map[string]any{"pane_id": pane, "command": "echo agent-command", "timeout": 30})
			if e.Code != "tmux_error" || e.Effects != "none" || !strings.Contains(e.Message, `"touch HALF"`) || time.Since(start) > 10*time.Second {
				t.Fatalf("half-typed line: got %+v after %v, want refused at once, effects none, naming the line", e, time.Since(start))
			}
			if _, err := os.Stat(half); err == nil {
				t.Fatal("the person's half-typed line ran")
			}
			c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "C-u", "enter": false}, nil)

			t.Logf("200,000 lines and the half-typed line: %v", time.Since(begin))
			// A command that outlives a 1 s timeout four times over.
			r = commandResult{}
			c.ok(t, "run_command", map[string]any{"pane_id": pane, "timeout": 1,
				"command": "echo begun; sleep 4; echo finished; sh -c 'exit 4'"}, &r)
			if !r.TimedOut || r.CommandID == "" || r.Ended != "" || r.ExitStatus != nil {
				t.Fatalf("long command: got %+v, want timed_out with a command_id", r)
			}
			// The pane's shell is busy with it: a second command is
			// refused, naming it.
			e = c.fail(t, "run_command", map[string]any{"pane_id": pane, "command": "true", "timeout": 1})
			if e.Code != "tmux_error" || e.Effects != "none" || !strings.Contains(e.Message, r.CommandID) {
				t.Fatalf("run_command beside a running one: got %+v", e)
			}
			done, waits := c.waitCommand(t, r.CommandID, 30)
			// Each answer holds the lines no earlier one returned.
			if done.status() != "4" || done.Ended != "exited" || fmt.Sprint(append(r.Output, done.Output...)) != "[begun finished]" || waits < 2 {
				t.Fatalf("wait_for_command: got %+v after %d waits (run_command's output %q), want status 4, output begun finished", done, waits, r.Output)
			}
			// Its answer stays: asked again, the same, with from_start
			// the whole output.
			var again commandResult
			c.ok(t, "wait_for_command", map[string]any{"command_id": r.CommandID, "timeout": 1, "from_start": true}, &again)
			if again.status() != "4" || fmt.Sprint(again.Output) != "[begun finished]" {
				t.Fatalf("wait_for_command again: got %+v", again)
			}

			// background: the answer comes at once, the outcome later.
			r = commandResult{}
			c.ok(t, "run_command", map[string]any{"pane_id": pane, "background": true,
				"command": "echo from-background; sh -c 'exit 5'"}, &r)
			if !r.TimedOut || r.CommandID == "" {
				t.Fatalf("background: got %+v, want running with a command_id", r)
			}
			if done, _ = c.waitCommand(t, r.CommandID, 30); done.status() != "5" || done.Ended != "exited" || fmt.Sprint(done.Output) != "[from-background]" {
				t.Fatalf("background, waited for: got %+v", done)
			}
			// C-c stops a command: its shell's answer (the end with a
			// status, or back at the prompt, status unknown), and no
			// prompt in its output.
			r = commandResult{}
			// "started" comes from the job itself, so the shell has made it
			// the terminal's foreground by then: a C-c sent while a shell
			// is still forking the job reaches the shell alone, and zsh
			// waits for the job it started (seen once in CI: 60 s).
			c.ok(t, "run_command", map[string]any{"pane_id": pane, "background": true, "command": "sh -c 'echo started; exec sleep 60'"}, &r)
			c.waitOnScreen(t, pane, "^started$") // running: C-c before that discards the line (fish)
			c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "C-c", "enter": false}, nil)
			done, _ = c.waitCommand(t, r.CommandID, 30)
			if !(done.Ended == "unknown" && done.ExitStatus == nil || done.Ended == "exited" && done.status() != "0") {
				t.Fatalf("C-c: got %+v, want unknown, or exited with a status not 0", done)
			}
			for _, l := range done.Output {
				if strings.HasSuffix(l, "$ ") || strings.HasSuffix(l, "# ") || strings.HasSuffix(l, "> ") {
					t.Fatalf("C-c: the output holds the prompt: %q", done.Output)
				}
			}
			// The pane is free again, and reads as typed.
			if r := c.run(t, pane, "echo after"); fmt.Sprint(r.Output) != "[after]" {
				t.Fatalf("after the background command: got %+v", r)
			}
		})
	}
	t.Run("shell not ready", func(t *testing.T) {
		// A shell still reading its rc file (no child, nothing drawn)
		// past the call's timeout: nothing is typed, so nothing runs
		// once it is ready.
		fixtures.NeedProgram(t, "bash")
		c, _, first := workflow(t)
		rc, ready := fixtures.SlowBashRC(t)
		dir := t.TempDir()
		var p struct {
			PaneID string `json:"pane_id"`
		}
		c.ok(t, "split_window", map[string]any{"pane_id": first, "shell": "bash --rcfile " + rc}, &p)
		ran := filepath.Join(dir, "ran")
		e := c.fail(t, "run_command", map[string]any{"pane_id": p.PaneID, "command": "touch " + ran, "timeout": 1})
		if e.Code != "deadline" || e.Effects != "none" || !strings.Contains(e.Message, "nothing was typed") {
			t.Fatalf("a shell not ready: got %+v, want deadline, effects none", e)
		}
		ready()
		c.waitOnScreen(t, p.PaneID, `\$ $`)
		if r := c.run(t, p.PaneID, "echo ready"); fmt.Sprint(r.Output) != "[ready]" {
			t.Fatalf("once ready: got %+v", r)
		}
		if _, err := os.Stat(ran); err == nil {
			t.Fatal("the command sent before the shell was ready ran")
		}
	})
	t.Run("unknown id", func(t *testing.T) {
		c, _, _ := workflow(t)
		if e := c.fail(t, "wait_for_command", map[string]any{"command_id": "cmd-000000000000"}); e.Code != "not_found" || e.Effects != "none" {
			t.Fatalf("unknown command id: got %+v", e)
		}
	})
}

// TestRunCommandFaults ends a run in each way it can end, ten times each
// in each shell, and wants one answer each time.
func TestRunCommandFaults(t *testing.T) {
	t.Parallel()
	const running = "echo started; sleep 30"
	type fault struct {
		name    string
		command string // typed into sh; gate is a file the test creates
		// do ends the run (nil: the command does) and may create gate.
		do   func(t *testing.T, c *client, fx *fixtures.Server, pane, gate string)
		want func(r commandResult) bool
	}
	ended := func(how, status string) func(r commandResult) bool {
		return func(r commandResult) bool { return r.Ended == how && r.status() == status }
	}
	// The same line in every shell, fish included.
	gated := `sh -c 'until [ -e "$GATE" ]; do sleep 0.05; done'; echo survived; sh -c 'exit 6'`
	faults := []fault{
		{"exit", "exit 3", nil, ended("pane_closed", "none")},
		{"kill-pane", running, func(t *testing.T, c *client, fx *fixtures.Server, pane, gate string) {
			fx.Tmux(t, "kill-pane", "-t", pane)
		}, ended("pane_closed", "none")},
		{"kill-window", running, func(t *testing.T, c *client, fx *fixtures.Server, pane, gate string) {
			fx.Tmux(t, "kill-window", "-t", pane)
		}, ended("pane_closed", "none")},
		{"respawn-pane", running, func(t *testing.T, c *client, fx *fixtures.Server, pane, gate string) {
			fx.Tmux(t, "respawn-pane", "-k", "-t", pane, "sh")
		}, ended("pane_respawned", "none")},
		{"client lost", gated, func(t *testing.T, c *client, fx *fixtures.Server, pane, gate string) {
			// Every client attached to the pane's session: ours. A
			// call attaches a new one, and then the command ends.
			old := strings.Join(controlClients(t, fx), ",")
			fx.Tmux(t, "detach-client", "-s", "work")
			for deadline := time.Now().Add(30 * time.Second); ; {
				c.ok(t, "list_sessions", nil, nil)
				if now := controlClients(t, fx); len(now) == 1 && !strings.Contains(old, now[0]) {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("no new control client attached")
				}
			}
			touch(t, gate)
		}, func(r commandResult) bool {
			return r.Ended == "exited" && r.status() == "6" && fmt.Sprint(r.Output) == "[survived]"
		}},
		{"client lost as it ends", gated, func(t *testing.T, c *client, fx *fixtures.Server, pane, gate string) {
			// The command ends while no client of ours may be attached:
			// its status, if its end came to the new client, or
			// "unknown" with the shell back at its prompt.
			fx.Tmux(t, "detach-client", "-s", "work")
			touch(t, gate)
		}, func(r commandResult) bool {
			return r.Ended == "exited" && r.status() == "6" || r.Ended == "unknown" && r.ExitStatus == nil
		}},
	}
	for _, shell := range commandShells {
		t.Run(shell[0], func(t *testing.T) {
			t.Parallel()
			fixtures.NeedProgram(t, shell[0])
			c, fx, _ := workflow(t)
			// New windows run the shell, with a plain prompt; fish gets
			// directories of its own.
			fx.Tmux(t, "set-option", "-g", "default-command", strings.Join(shell, " "))
			dir := t.TempDir()
			if err := os.Chmod(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			for _, f := range faults {
				for i := range 10 {
					// A window of its own, so that the session, and the
					// server, outlive the fault.
					var w struct {
						PaneID string `json:"active_pane_id"`
					}
					gate := filepath.Join(dir, fmt.Sprint("gate-", f.name, i))
					c.ok(t, "create_window", map[string]any{"session_name": "work", "environment": map[string]string{
						"GATE": gate, "PS1": "$ ", "PROMPT": "$ ", "XDG_RUNTIME_DIR": dir, "XDG_CONFIG_HOME": dir, "XDG_DATA_HOME": dir}}, &w)
					pane := w.PaneID
					c.waitText(t, pane, `[$#>] ?$`)
					var r commandResult
					c.ok(t, "run_command", map[string]any{"pane_id": pane, "command": f.command, "background": true}, &r)
					if f.command == running {
						c.waitOnScreen(t, pane, "^started$")
					}
					if f.do != nil {
						f.do(t, c, fx, pane, gate)
					}
					done, _ := c.waitCommand(t, r.CommandID, 30)
					if !f.want(done) {
						t.Fatalf("%s, try %d: got %+v; the pane shows:\n%s\nstderr:\n%s", f.name, i, done, c.screen(t, pane), c.stderr)
					}
				}
			}
		})
	}
	t.Run("kill-session", func(t *testing.T) {
		t.Parallel()
		c, fx, _ := workflow(t)
		for i := range 10 {
			// A session of its own; "work" keeps the server up.
			var made struct {
				ActivePaneID string `json:"active_pane_id"`
			}
			c.ok(t, "create_session", map[string]any{"session_name": fmt.Sprint("doomed-", i)}, &made)
			pane := made.ActivePaneID
			c.waitText(t, pane, prompt)
			var r commandResult
			c.ok(t, "run_command", map[string]any{"pane_id": pane, "command": running, "background": true}, &r)
			c.waitOnScreen(t, pane, "^started$")
			fx.Tmux(t, "kill-session", "-t", fmt.Sprint("doomed-", i))
			if done, _ := c.waitCommand(t, r.CommandID, 30); done.Ended != "pane_closed" || done.ExitStatus != nil {
				t.Fatalf("try %d: got %+v, want ended pane_closed, no status", i, done)
			}
		}
	})
	// The server goes away under the command: killed, or with the shell
	// of its last pane.
	for _, f := range []struct {
		name        string
		end         func(t *testing.T, c *client, fx *fixtures.Server, pane string) commandResult
		shellExited bool
	}{
		{"kill-server", func(t *testing.T, c *client, fx *fixtures.Server, pane string) commandResult {
			var r commandResult
			c.ok(t, "run_command", map[string]any{"pane_id": pane, "command": running, "background": true}, &r)
			c.waitOnScreen(t, pane, "^started$")
			fx.Kill(t)
			done, _ := c.waitCommand(t, r.CommandID, 30)
			return done
		}, false},
		{"exit in the last pane", func(t *testing.T, c *client, fx *fixtures.Server, pane string) commandResult {
			var r commandResult
			c.ok(t, "run_command", map[string]any{"pane_id": pane, "command": "exit 3", "timeout": 30}, &r)
			return r
		}, true},
	} {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			for i := range 10 {
				c, fx, pane := workflow(t)
				c.waitText(t, pane, prompt)
				if r := f.end(t, c, fx, pane); r.Ended != "server_exited" || r.ExitStatus != nil || f.shellExited && !r.ShellExited {
					t.Fatalf("try %d: got %+v, want ended server_exited, no status (and shell_exited: %v)", i, r, f.shellExited)
				}
				c.close()
			}
		})
	}
}

// waitOnScreen waits until pattern (a regular expression) is on the pane's
// screen, whether it came before the wait or after.
func (c *client) waitOnScreen(t *testing.T, pane, pattern string) {
	t.Helper()
	var w struct {
		Outcome string `json:"outcome"`
	}
	c.ok(t, "wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{pattern}, "regex": true, "since": "screen", "timeout": 30}, &w)
	if w.Outcome != "matched" {
		t.Fatalf("wait_for_text %q on the screen: %s; the pane shows:\n%s", pattern, w.Outcome, c.screen(t, pane))
	}
}

func touch(t *testing.T, name string) {
	t.Helper()
	if err := os.WriteFile(name, nil, 0o600); err != nil {
		t.Fatal(err)
	}
}
