package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// Inline programs from Debian, driven over stdio as an agent does (issue 21):
// fzf --height draws its list on the main screen below the prompt and moves
// the cursor up and down it; ipython3 is a prompt_toolkit REPL that redraws its
// input line in place. What the waits and capture_since answer is what tmux
// shows.

// waitOrShow waits for pattern (a regular expression) in pane, reading from since,
// and fails showing the screen when it does not come.
func (c *client) waitOrShow(t *testing.T, pane, since, pattern string) waitResult {
	t.Helper()
	w := waitText(t, c, map[string]any{"pane_id": pane, "patterns": []string{pattern}, "regex": true, "since": since, "timeout": 30})
	if !w.Found {
		t.Fatalf("wait_for_text %q (since %s): %s; the pane shows:\n%s", pattern, since, w.Outcome, c.screen(t, pane))
	}
	return w
}

// startAtPrompt runs command in a new session's shell, as an agent types it, and
// returns the client, the pane and a capture_since cursor taken at the prompt before.
func startAtPrompt(t *testing.T, command string) (*client, string, sinceResult) {
	t.Helper()
	c, _, pane := workflow(t)
	atPrompt(t, c, pane)
	var r sinceResult
	c.ok(t, "capture_since", map[string]any{"pane_id": pane}, &r)
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": command}, nil)
	return c, pane, r
}

// TestWorkflowFzfHeight: an agent picks an item from fzf --height with a key list,
// one key at a time, reading the list as tmux draws it; the pick is the output, the
// list is gone from what capture_since reads after, and the shell is back.
func TestWorkflowFzfHeight(t *testing.T) {
	t.Parallel()
	fixtures.NeedProgram(t, "fzf")
	c, pane, r := startAtPrompt(t, `printf 'alpha\nbeta\ngamma\n' | fzf --height 8 --no-mouse; echo "picked $?"`)
	// The list is drawn by cursor movement: its first item selected, and the count.
	c.waitOrShow(t, pane, "input", `^> alpha$`)
	c.waitOrShow(t, pane, "screen", `^\s*3/3\b`)
	// The list runs up from the query line, where the cursor is: what is selected
	// is above the input, so it is read from the screen.
	var m struct{ Result string }
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": []string{"Up", "Up"}, "enter": false}, &m)
	if want := "2 keys pressed one at a time in pane " + pane; !strings.HasPrefix(m.Result, want) {
		t.Errorf("send_keys [Up Up]: got %q, want it to start %q", m.Result, want)
	}
	c.waitOrShow(t, pane, "screen", `^> gamma$`)
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": []string{"Enter"}, "enter": false}, nil)
	c.waitOrShow(t, pane, "input", `^picked 0$`)
	c.waitOrShow(t, pane, "input", `^[$#] ?$`)
	c.ok(t, "capture_since", map[string]any{"cursor": r.Cursor}, &r)
	if i := slices.Index(r.Lines, "gamma"); i < 0 || i+1 >= len(r.Lines) || r.Lines[i+1] != "picked 0" || r.Missed {
		t.Fatalf("capture_since after fzf: got %q (missed %v), want the pick, then the status", r.Lines, r.Missed)
	}
	for _, l := range r.Lines {
		if strings.Contains(l, "3/3") || strings.TrimSpace(l) == "beta" {
			t.Errorf("capture_since after fzf shows its list, which it erased on exit: %q", r.Lines)
			break
		}
	}
}

// TestWorkflowIPython: an agent waits for ipython3's prompt (prompt_toolkit), runs
// an expression and a loop, reads each answer after its input, without the typed
// line, and quits back to the shell.
func TestWorkflowIPython(t *testing.T) {
	t.Parallel()
	// By its path: the pane's login shell sets its own PATH, which may not hold
	// where this one was found (a pyenv shim, say).
	ipython := fixtures.NeedProgram(t, "ipython3")
	c, pane, r := startAtPrompt(t, "IPYTHONDIR="+t.TempDir()+" "+ipython+" --no-banner --colors=NoColor --no-confirm-exit")
	c.waitOrShow(t, pane, "input", `^In \[1\]: $`)
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "6 * 7"}, nil)
	w := c.waitOrShow(t, pane, "input", `^Out\[1\]: 42$`)
	if strings.Contains(strings.Join(w.MatchedLines, "\n"), "6 * 7") {
		t.Errorf("the answer's lines hold the typed expression: %q", w.MatchedLines)
	}
	c.waitOrShow(t, pane, "input", `^In \[2\]: $`)
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "for i in range(3): print('row', i * 10)"}, nil)
	c.waitOrShow(t, pane, "input", `^row 20$`)
	c.waitOrShow(t, pane, "input", `^In \[3\]: $`)
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "exit"}, nil)
	c.waitOrShow(t, pane, "input", `^[$#] ?$`)
	c.ok(t, "capture_since", map[string]any{"cursor": r.Cursor}, &r)
	text := strings.Join(r.Lines, "\n")
	for _, want := range []string{"Out[1]: 42", "row 0", "row 10", "row 20"} {
		if !slices.Contains(r.Lines, want) {
			t.Errorf("capture_since after ipython3: no line %q in:\n%s", want, text)
		}
	}
}
