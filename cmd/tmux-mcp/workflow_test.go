package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// Workflow tests: what an agent does, over stdio against the built
// binary, and what it reads back. Each drives a fresh private tmux server.

// prompt matches a row holding only a shell's prompt: $, or # for root
// in the first pane of a session, a login shell.
const prompt = `^[$#]\s*$`

// runResult is run_command's result as an agent reads it.
type runResult struct {
	PaneID          string   `json:"pane_id"`
	ExitStatus      *int     `json:"exit_status"`
	TimedOut        bool     `json:"timed_out"`
	ShellExited     bool     `json:"shell_exited"`
	Output          []string `json:"output"`
	OutputTruncated bool     `json:"output_truncated"`
}

// workflow starts tmux-mcp (with env on top) on a fresh server, makes a
// session with create_session, and returns the client and the session's
// pane, running sh.
func workflow(t *testing.T, env ...string) (*client, *fixtures.Server, string) {
	t.Helper()
	fx := fixtures.NewServer(t)
	c := startClient(t, fx, "", nil, append([]string{"SHELL=" + fixtures.TestShell, "PS1=$ ", "ENV="}, env...)...)
	var made struct {
		SessionID    string `json:"session_id"`
		ActivePaneID string `json:"active_pane_id"`
	}
	c.ok(t, "create_session", map[string]any{"session_name": "work", "x": 100, "y": 40}, &made)
	if made.ActivePaneID == "" {
		t.Fatalf("create_session: got %+v, want its pane", made)
	}
	return c, fx, made.ActivePaneID
}

// shellPane splits a pane off pane running shell with a plain prompt.
func shellPane(t *testing.T, c *client, pane string, shell ...string) string {
	t.Helper()
	fixtures.NeedProgram(t, shell[0])
	var p struct {
		PaneID string `json:"pane_id"`
	}
	c.ok(t, "split_window", map[string]any{"pane_id": pane, "shell": strings.Join(shell, " "),
		"environment": map[string]string{"PS1": "$ ", "PROMPT": "$ "}}, &p)
	return p.PaneID
}

func (c *client) run(t *testing.T, pane, command string) runResult {
	t.Helper()
	var r runResult
	c.ok(t, "run_command", map[string]any{"pane_id": pane, "command": command, "timeout": 60}, &r)
	if r.TimedOut {
		t.Fatalf("run_command %q timed out: %+v", command, r)
	}
	return r
}

func (c *client) screen(t *testing.T, pane string) string {
	t.Helper()
	var m struct{ Result string }
	c.ok(t, "capture_pane", map[string]any{"pane_id": pane}, &m)
	return m.Result
}

func (c *client) waitText(t *testing.T, pane, pattern string) {
	t.Helper()
	if outcome := c.waitFor(t, pane, pattern); outcome != "matched" {
		t.Fatalf("wait_for_text %q: %s; the pane shows:\n%s", pattern, outcome, c.screen(t, pane))
	}
}

// waitFor waits for pattern (a regular expression) in pane and returns the
// outcome.
func (c *client) waitFor(t *testing.T, pane, pattern string) string {
	t.Helper()
	var w struct {
		Found   bool   `json:"found"`
		Outcome string `json:"outcome"`
	}
	c.ok(t, "wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{pattern}, "regex": true, "timeout": 30}, &w)
	return w.Outcome
}

func status(r runResult) string {
	if r.ExitStatus == nil {
		return "none"
	}
	return strconv.Itoa(*r.ExitStatus)
}

// TestWorkflowRunAndRead runs commands as an agent does and reads their
// statuses and output, in sh, bash and zsh.
func TestWorkflowRunAndRead(t *testing.T) {
	t.Parallel()
	shells := [][]string{{"sh"}, {"bash", "--norc", "--noprofile"}, {"zsh", "-f"}}
	for _, shell := range shells {
		t.Run(shell[0], func(t *testing.T) {
			c, _, first := workflow(t)
			pane := shellPane(t, c, first, shell...)
			for cmd, want := range map[string]string{"true": "0", "false": "1", "(exit 3)": "3"} {
				if r := c.run(t, pane, cmd); status(r) != want || len(r.Output) != 0 {
					t.Errorf("%s: got status %s output %q, want %s and no output", cmd, status(r), r.Output, want)
				}
			}
			// run_command keeps the newest 2,000 lines and says it cut the rest.
			r := c.run(t, pane, "seq 5000")
			if len(r.Output) != 2000 || r.Output[0] != "3001" || r.Output[1999] != "5000" || !r.OutputTruncated || status(r) != "0" {
				t.Fatalf("seq 5000: got %d lines (%q..), truncated %v, status %s; want the last 2000, truncated, status 0",
					len(r.Output), r.Output[:min(1, len(r.Output))], r.OutputTruncated, status(r))
			}
			// cd persists, as the description says.
			c.run(t, pane, "cd /")
			if r := c.run(t, pane, "pwd"); fmt.Sprint(r.Output) != "[/]" {
				t.Fatalf("pwd after cd /: got %q", r.Output)
			}
			// Multi-line, with the default suppress_history.
			if r := c.run(t, pane, "for i in 1 2; do\n  echo \"line $i\"\ndone\ncat <<EOF\nhere\nEOF"); status(r) != "0" || fmt.Sprint(r.Output) != "[line 1 line 2 here]" {
				t.Fatalf("multi-line: got %+v", r)
			}
			// An unterminated quote is the shell's syntax error, and the
			// next call runs as usual.
			if r := c.run(t, pane, "echo 'unterminated"); status(r) == "0" || status(r) == "none" {
				t.Fatalf("unterminated quote: got %+v", r)
			}
			if r := c.run(t, pane, "echo fine"); fmt.Sprint(r.Output) != "[fine]" {
				t.Fatalf("after the unterminated quote: got %+v", r)
			}
			// The pane shows commands and output, nothing else.
			screen := c.screen(t, pane)
			for _, junk := range []string{"tmux-mcp", "printf '", "command eval", "__tmcp"} {
				if strings.Contains(screen, junk) {
					t.Fatalf("the pane shows %q:\n%s", junk, screen)
				}
			}
			if !strings.Contains(screen, "$ echo fine\nfine\n$") {
				t.Fatalf("the pane does not read as typed:\n%s", screen)
			}
			// exit ends the shell: said so, not a lost connection.
			r = c.run(t, pane, "exit 4")
			if !r.ShellExited {
				t.Fatalf("exit 4: got %+v, want shell_exited", r)
			}
		})
	}
	t.Run("only pane", func(t *testing.T) {
		c, fx, pane := workflow(t)
		if r := c.run(t, pane, "exit 3"); !r.ShellExited {
			t.Fatalf("exit 3 in the session's only pane: got %+v, want shell_exited", r)
		}
		if ids := sessionIDs(t, fx); len(ids) != 0 {
			t.Fatalf("sessions left: %v", ids)
		}
	})
}

// TestWorkflowPythonREPL defines a function over several lines in a
// Python REPL, with one send_keys call, and uses it.
func TestWorkflowPythonREPL(t *testing.T) {
	t.Parallel()
	python := fixtures.NeedProgram(t, "python3")
	c, _, pane := workflow(t)
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": python + " -q"}, nil)
	c.waitText(t, pane, ">>> $")
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": []string{
		"def twice(x):", "Enter", "    return 2 * x", "Enter", "Enter",
		"print('answer', twice(21))",
	}}, nil)
	c.waitText(t, pane, "answer 42")
	// exit(), not C-d: a C-d that arrives before the REPL puts the tty in
	// raw mode for its next line can be lost in the switch (seen once).
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "exit()"}, nil)
	c.waitText(t, pane, prompt)
	if r := c.run(t, pane, "echo back"); fmt.Sprint(r.Output) != "[back]" {
		t.Fatalf("after leaving python: got %+v", r)
	}
}

// TestWorkflowInterrupt stops a command that runs too long with Ctrl-C,
// without an Enter after it.
func TestWorkflowInterrupt(t *testing.T) {
	t.Parallel()
	c, _, pane := workflow(t)
	var r runResult
	c.ok(t, "run_command", map[string]any{"pane_id": pane, "command": "sleep 600", "timeout": 1}, &r)
	if !r.TimedOut {
		t.Fatalf("sleep 600 with timeout 1: got %+v", r)
	}
	e := c.fail(t, "run_command", map[string]any{"pane_id": pane, "command": "true"})
	if e.Code != "tmux_error" || !strings.Contains(e.Message, "C-c") {
		t.Fatalf("run_command while sleep runs: got %+v, want the way out named", e)
	}
	var m struct{ Result string }
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "C-c", "enter": false}, &m)
	if !strings.Contains(m.Result, "no Enter") {
		t.Fatalf("send_keys C-c enter=false: got %q, want it to say no Enter was pressed", m.Result)
	}
	c.waitText(t, pane, prompt)
	if r := c.run(t, pane, "echo after"); fmt.Sprint(r.Output) != "[after]" || status(r) != "0" {
		t.Fatalf("after C-c: got %+v", r)
	}
}

// TestWorkflowEditInVi edits a file in vi with several keys per call and
// checks it on disk.
func TestWorkflowEditInVi(t *testing.T) {
	t.Parallel()
	vi := fixtures.NeedProgram(t, "vi")
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(file, []byte("first\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, fx, pane := workflow(t)
	// The shell signals a channel when vi has exited, as an agent would
	// ask it to; tmux in the pane is the server's own version.
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": vi + " -u NONE -i NONE " + file + "; " + fx.Bin + " wait-for -S edited"}, nil)
	// vi is up when the file shows, or the pane is on the alternate
	// screen, where wait_for_text does not look (yet).
	if outcome := c.waitFor(t, pane, "first"); outcome != "matched" && outcome != "alternate_screen" {
		t.Fatalf("vi did not start: %s; the pane shows:\n%s", outcome, c.screen(t, pane))
	}
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": []string{"G", "o", "second line", "Escape", ":wq"}}, nil)
	c.ok(t, "wait_for_channel", map[string]any{"channel": "edited", "timeout": 30}, nil)
	got, err := os.ReadFile(file)
	if err != nil || string(got) != "first\nsecond line\n" {
		t.Fatalf("the file holds %q (%v), want first and second line", got, err)
	}
}

// TestWorkflowSearchAndKill runs a command in each of three panes, finds
// the one whose output holds a word, and kills it.
func TestWorkflowSearchAndKill(t *testing.T) {
	t.Parallel()
	c, _, first := workflow(t, "LIBTMUX_SAFETY=destructive")
	panes := []string{first, shellPane(t, c, first, "sh"), shellPane(t, c, first, "sh")}
	for i, p := range panes {
		word := "hay"
		if i == 1 {
			word = "nee" + `""` + "dle" // the command line does not read "needle"
		}
		c.run(t, p, "echo "+word+"-"+strconv.Itoa(i))
	}
	var found struct {
		Matches []struct {
			PaneID string `json:"pane_id"`
		} `json:"matches"`
	}
	c.ok(t, "search_panes", map[string]any{"pattern": "needle"}, &found)
	if len(found.Matches) != 1 || found.Matches[0].PaneID != panes[1] {
		t.Fatalf("search_panes needle: got %+v, want only %s", found, panes[1])
	}
	// The panes hold what ran, and none of run_command's machinery.
	c.ok(t, "search_panes", map[string]any{"pattern": "printf|tmux-mcp|eval", "regex": true}, &found)
	if len(found.Matches) != 0 {
		t.Fatalf("search_panes for the wrapper: got %+v, want nothing", found)
	}
	c.ok(t, "kill_pane", map[string]any{"pane_id": panes[1]}, nil)
	var list struct {
		Result []struct {
			PaneID string `json:"pane_id"`
		} `json:"result"`
	}
	c.ok(t, "list_panes", map[string]any{"session_name": "work"}, &list)
	var ids []string
	for _, p := range list.Result {
		ids = append(ids, p.PaneID)
	}
	if len(ids) != 2 || slices.Contains(ids, panes[1]) {
		t.Fatalf("list_panes after kill_pane %s: got %v", panes[1], ids)
	}
}

// TestWorkflowRunCommandProgressBars: an agent runs a command that draws
// two progress bars and redraws them in place, as a download or a build
// does; run_command answers with what the pane shows at the end, not
// every frame, and a pane that never redrew answers its lines as before.
func TestWorkflowRunCommandProgressBars(t *testing.T) {
	c, _, pane := workflow(t)
	bars := `printf 'fetching\n'; for i in 1 2 3 4; do printf '\033[Kimage: %s0%%\n\033[Klayer: %s5%%\n\033[2A' $i $i; done; printf '\033[2Bdone\n'`
	r := c.run(t, pane, bars)
	if want := []string{"fetching", "image: 40%", "layer: 45%", "done"}; !slices.Equal(r.Output, want) {
		t.Fatalf("progress bars: got %q, want the last frame %q", r.Output, want)
	}
	if r := c.run(t, pane, "printf 'one\\ntwo\\n'"); !slices.Equal(r.Output, []string{"one", "two"}) {
		t.Fatalf("plain lines: got %q", r.Output)
	}
}
