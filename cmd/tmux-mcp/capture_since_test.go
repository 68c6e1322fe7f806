package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// capture_since reads the pane as tmux draws it (issue 21): the rows from where the
// cursor was at the previous call, those that scrolled into history included.

// sinceAfter types keys into pane, waits until the shell signals channel and is back
// at its prompt, and returns what capture_since reads from cursor.
// With prompt false, it does not wait for the prompt.
func (c *client) sinceAfter(t *testing.T, fx *fixtures.Server, pane, cursor, keys, channel string, prompt ...bool) sinceResult {
	t.Helper()
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": keys + "; " + fx.Bin + " wait-for -S " + channel}, nil)
	c.ok(t, "wait_for_channel", map[string]any{"channel": channel, "timeout": 60}, nil)
	if len(prompt) > 0 && !prompt[0] {
		// no prompt to wait for
	} else if w := waitText(t, c, map[string]any{"pane_id": pane, "patterns": []string{`^[$#] ?$`}, "regex": true, "timeout": 20}); !w.Found {
		t.Fatalf("no prompt after %q: %+v", keys, w)
	}
	var r sinceResult
	c.ok(t, "capture_since", map[string]any{"cursor": cursor, "max_lines": 5000}, &r)
	return r
}

// TestCaptureSinceInlineRedraw replays Claude Code's recorded output (see
// TestReplayClaudeOutput) from a cursor taken at the shell's prompt: capture_since
// returns the answer as the pane shows it, not the spinner's fragments the bytes
// rebuild into; and a line a program wrote, then moved down from and erased below,
// reads as drawn.
func TestCaptureSinceInlineRedraw(t *testing.T) {
	t.Parallel()
	dir, err := fixtures.TestdataDir()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := filepath.Abs(filepath.Join(dir, "claude-answer.raw"))
	if err != nil {
		t.Fatal(err)
	}
	c, fx, _ := workflow(t)
	var made struct {
		ActivePaneID string `json:"active_pane_id"`
	}
	c.ok(t, "create_session", map[string]any{"session_name": "replay", "x": 100, "y": 30}, &made)
	pane := made.ActivePaneID
	atPrompt(t, c, pane)

	var r sinceResult
	c.ok(t, "capture_since", map[string]any{"pane_id": pane}, &r)
	r = c.sinceAfter(t, fx, pane, r.Cursor, `printf 'answer: 42\033[1B\r\033[2Kstatus\n'`, "drawn")
	if !slices.Contains(r.Lines, "answer: 42") || !slices.Contains(r.Lines, "status") || r.Missed {
		t.Fatalf("got %q (missed %v), want the line drawn above the status line", r.Lines, r.Missed)
	}

	// The replay asks the terminal questions; tmux's answers arrive as input, which
	// the last cat swallows instead of the shell (and stty -echo keeps off the screen).
	c.ok(t, "send_keys", map[string]any{"pane_id": pane,
		"keys": "stty -echo; cat " + raw + "; " + fx.Bin + " wait-for -S replayed; exec cat >/dev/null"}, nil)
	c.ok(t, "wait_for_channel", map[string]any{"channel": "replayed", "timeout": 30}, nil)
	c.ok(t, "capture_since", map[string]any{"cursor": r.Cursor, "max_lines": 5000}, &r)
	text := strings.Join(r.Lines, "\n")
	want := regexp.MustCompile(`(?m)^● ANSWER-1: the fake model answers\n  line 2 of ANSWER-1\n  line 3 of ANSWER-1$`)
	if !want.MatchString(text) || r.Missed {
		t.Fatalf("capture_since from before the replay: missed %v, got %d lines, want the answer as drawn:\n%s", r.Missed, len(r.Lines), text)
	}
	if strings.Contains(text, "esc to interrupt") {
		t.Errorf("capture_since shows the busy footer the CLI erased:\n%s", text)
	}
	if len(r.Lines) > 40 {
		t.Errorf("capture_since returned %d lines for a 30-row pane the replay never scrolled:\n%s", len(r.Lines), text)
	}
}

// TestCaptureSinceShell: a plain shell's output reads line by line, a prompt waiting
// for input last and unfinished, and output longer than the screen is all there,
// the rows that scrolled into history included; a line wider than the pane is one
// line.
func TestCaptureSinceShell(t *testing.T) {
	t.Parallel()
	c, fx, pane := workflow(t)
	atPrompt(t, c, pane)
	var r sinceResult
	c.ok(t, "capture_since", map[string]any{"pane_id": pane}, &r)
	r = c.sinceAfter(t, fx, pane, r.Cursor, "seq 1 300; printf '%0150d\\n' 7", "seq")
	if r.Missed || len(r.Lines) < 303 {
		t.Fatalf("got %d lines (missed %v), want the command, 300 numbers, a long line and the prompt:\n%s", len(r.Lines), r.Missed, strings.Join(r.Lines, "\n"))
	}
	prompt := r.Lines[len(r.Lines)-1]
	if prompt != "$ " && prompt != "# " || !r.Unfinished {
		t.Errorf("last line %q unfinished %v, want the prompt, unfinished", prompt, r.Unfinished)
	}
	if !strings.HasPrefix(r.Lines[0], prompt+"seq 1 300") {
		t.Errorf("first line %q, want the typed command at its prompt", r.Lines[0])
	}
	for i := 1; i <= 300; i++ {
		if r.Lines[i] != strconv.Itoa(i) {
			t.Fatalf("line %d is %q, want %d: the rows that scrolled into history are not all there:\n%s", i, r.Lines[i], i, strings.Join(r.Lines, "\n"))
		}
	}
	if long := fmt.Sprintf("%0150d", 7); r.Lines[301] != long {
		t.Errorf("line 301 is %q, want the long line whole, %q", r.Lines[301], long)
	}
	// The prompt comes again with what was typed at it, and nothing older.
	r = c.sinceAfter(t, fx, pane, r.Cursor, "echo next", "next")
	if want := []string{prompt + "echo next; " + fx.Bin + " wait-for -S next", "next", prompt}; !slices.Equal(r.Lines, want) || !r.Unfinished || r.Missed {
		t.Errorf("got %q unfinished %v missed %v, want %q, unfinished", r.Lines, r.Unfinished, r.Missed, want)
	}
}

// TestCaptureSinceHistoryLimit: past tmux's history limit the lines come from the
// output stream, all of them while it holds them; past that too, capture_since says
// lines were missed and returns the screen.
func TestCaptureSinceHistoryLimit(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "base")
	fx.Tmux(t, "set-option", "-g", "history-limit", "50")
	c := startClient(t, fx, "", nil, "SHELL="+fixtures.TestShell, "PS1=$ ", "ENV=")
	var made struct {
		ActivePaneID string `json:"active_pane_id"`
	}
	c.ok(t, "create_session", map[string]any{"session_name": "short", "x": 80, "y": 20}, &made)
	pane := made.ActivePaneID
	atPrompt(t, c, pane)
	var r sinceResult
	c.ok(t, "capture_since", map[string]any{"pane_id": pane}, &r)
	r = c.sinceAfter(t, fx, pane, r.Cursor, "seq 1 1000", "a")
	if r.Missed || !slices.Contains(r.Lines, "1") || !slices.Contains(r.Lines, "1000") {
		t.Fatalf("1000 lines past a history of 50: got %d lines (missed %v), want all, from the stream", len(r.Lines), r.Missed)
	}
	for i := 1; i <= 1000; i++ {
		if !slices.Contains(r.Lines, strconv.Itoa(i)) {
			t.Fatalf("line %d is missing, though the stream holds it", i)
		}
	}
	// More than the stream keeps (it holds 1-2 MiB).
	r = c.sinceAfter(t, fx, pane, r.Cursor, "seq 1 400000", "b", false)
	if !r.Missed || slices.Contains(r.Lines, "1") || !slices.Contains(r.Lines, "400000") {
		t.Fatalf("got %d lines, missed %v: want lines_missed and the screen, which ends with 400000:\n%s", len(r.Lines), r.Missed, strings.Join(r.Lines, "\n"))
	}
}

// TestCaptureSinceRunCommandCursor: the output_cursor run_command gives with output
// it cut reads all of that output, and the cursor capture_since then gives reads on.
func TestCaptureSinceRunCommandCursor(t *testing.T) {
	t.Parallel()
	c, fx, pane := workflow(t)
	atPrompt(t, c, pane)
	var run struct {
		OutputCursor string `json:"output_cursor"`
	}
	c.ok(t, "run_command", map[string]any{"pane_id": pane, "command": "seq 1 3000", "timeout": 60}, &run)
	if run.OutputCursor == "" {
		t.Fatalf("run_command cut no output: %+v", run)
	}
	var r sinceResult
	c.ok(t, "capture_since", map[string]any{"cursor": run.OutputCursor, "max_lines": 5000}, &r)
	for i := 1; i <= 3000; i++ {
		if !slices.Contains(r.Lines, strconv.Itoa(i)) || r.Missed {
			t.Fatalf("capture_since from output_cursor: line %d missing (missed %v, %d lines)", i, r.Missed, len(r.Lines))
		}
	}
	r = c.sinceAfter(t, fx, pane, r.Cursor, "echo after", "after")
	if !slices.Contains(r.Lines, "after") || slices.Contains(r.Lines, "3000") || r.Missed {
		t.Fatalf("capture_since on: got %q missed %v, want only what followed", r.Lines, r.Missed)
	}
}
