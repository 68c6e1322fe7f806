package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// Workflows of an agent that waits: each drives the built binary over
// stdio as an MCP client does and checks what the agent reads back.

// waitResult is what an agent reads of wait_for_text.
type waitResult struct {
	Found          bool     `json:"found"`
	Outcome        string   `json:"outcome"`
	MatchedLines   []string `json:"matched_lines"`
	MatchedAtEntry bool     `json:"matched_at_entry"`
	Alternate      bool     `json:"alternate_screen"`
	Since          string   `json:"since"`
	MatchedIn      string   `json:"matched_in"`
	EchoSkipped    int      `json:"echo_skipped"`
	EchoLines      []string `json:"echo_lines"`
	Tail           []string `json:"tail"`
	Elapsed        float64  `json:"elapsed_seconds"`
}

// paneOfSession returns the pane of fx's session name.
func paneOfSession(t *testing.T, fx *fixtures.Server, name string) string {
	t.Helper()
	return fx.Tmux(t, "display-message", "-p", "-t", name+":", "#{pane_id}")
}

// waitText calls wait_for_text, which must answer.
func waitText(t *testing.T, c *client, args map[string]any) waitResult {
	t.Helper()
	var r waitResult
	c.ok(t, "wait_for_text", args, &r)
	return r
}

// atPrompt waits for the shell of pane to show its prompt.
func atPrompt(t *testing.T, c *client, pane string) {
	t.Helper()
	r := waitText(t, c, map[string]any{"pane_id": pane, "patterns": []string{`[$#] *$`}, "regex": true, "since": "screen", "timeout": 20})
	if !r.Found {
		t.Fatalf("no prompt in %s: %+v", pane, r)
	}
}

// TestWorkflowWaitForReadyAfterTyping: an agent types a command that
// prints READY later and waits for READY. The typed command line holds
// READY, and an older READY is on screen: neither may answer the wait.
func TestWorkflowWaitForReadyAfterTyping(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "one")
	fx.NewSession(t, "two")
	// A pane nothing of the server follows until its first wait.
	fx.NewSession(t, "three", "sh", "-c", "echo READY-old; exec sh")
	c := startClient(t, fx, "", nil)
	// One session has the server's control client, the others not.
	for _, name := range []string{"one", "two", "three"} {
		t.Run(name, func(t *testing.T) {
			pane := paneOfSession(t, fx, name)
			if name != "three" {
				atPrompt(t, c, pane)
				c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "echo READY-old"}, nil)
				if r := waitText(t, c, map[string]any{"pane_id": pane, "patterns": []string{"READY"}, "timeout": 10}); !r.Found {
					t.Fatalf("old READY: %+v", r)
				}
			}
			c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "sleep 1; echo READY"}, nil)
			start := time.Now()
			r := waitText(t, c, map[string]any{"pane_id": pane, "patterns": []string{"READY"}, "timeout": 10})
			took := time.Since(start)
			// The shell may print its prompt before the output, on the
			// same line, when the line was typed ahead.
			if !r.Found || r.Outcome != "matched" || r.MatchedAtEntry || len(r.MatchedLines) != 1 ||
				!strings.HasSuffix(r.MatchedLines[0], "READY") || strings.Contains(r.MatchedLines[0], "echo") {
				t.Fatalf("got %+v, want the program's READY, printed after the wait began", r)
			}
			if r.Since != "input" || r.MatchedIn != "output" || took < 700*time.Millisecond {
				t.Fatalf("got since %q, matched in %q after %v; want input, output, about 1 s", r.Since, r.MatchedIn, took)
			}
			t.Logf("READY matched after %v (%d echo lines skipped)", took, r.EchoSkipped)
		})
	}
}

// TestWorkflowWaitInLess: an agent opens a file in less and waits for text
// to be drawn, then pages to the end and waits for the last line.
func TestWorkflowWaitInLess(t *testing.T) {
	t.Parallel()
	fixtures.NeedProgram(t, "less")
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "pager")
	pane := paneOfSession(t, fx, "pager")
	c := startClient(t, fx, "", nil)
	file := filepath.Join(t.TempDir(), "text")
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "entry %03d\n", i)
	}
	b.WriteString("LAST-ENTRY\n")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	atPrompt(t, c, pane)
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "less " + file}, nil)
	r := waitText(t, c, map[string]any{"pane_id": pane, "patterns": []string{"entry 010"}, "timeout": 10})
	// From the screen or the page's output: see TestWaitInFullScreenProgram.
	if !r.Found || !slices.Equal(r.MatchedLines, []string{"entry 010"}) {
		t.Fatalf("first page of less: got %+v", r)
	}
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "G", "enter": false}, nil)
	r = waitText(t, c, map[string]any{"pane_id": pane, "patterns": []string{"LAST-ENTRY"}, "timeout": 10})
	if !r.Found || r.Outcome != "matched" || r.MatchedIn != "screen" || !r.Alternate {
		t.Fatalf("end of the file in less: got %+v, want matched on the (alternate) screen", r)
	}
	if slices.Contains(r.Tail, "entry 010") {
		t.Fatalf("the screen read is stale: %q", r.Tail)
	}
	// Out of less the shell's screen is back, and a wait says so. (Keys
	// typed before less has quit are read without echo: less turned it
	// off.)
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "q", "enter": false}, nil)
	atPrompt(t, c, pane)
	r = waitText(t, c, map[string]any{"pane_id": pane, "patterns": []string{`[$#] *$`}, "regex": true, "since": "screen", "timeout": 10})
	if !r.Found || r.Alternate || slices.Contains(r.Tail, "LAST-ENTRY") {
		t.Fatalf("after quitting less: got %+v, want the prompt found off the alternate screen", r)
	}
}

// TestWorkflowRunCommandAfterQuittingLess: an agent quits less with q and
// runs a command at once. less gives the pane back to the shell a moment
// after the key; run_command waits for that instead of refusing the pane
// as "running less" (it did in 2 of 3 tries before). A program that takes
// 300 ms to end after its input is the same case made certain: without
// the wait it is refused every time.
func TestWorkflowRunCommandAfterQuittingLess(t *testing.T) {
	t.Parallel()
	fixtures.NeedProgram(t, "less")
	c, _, pane := workflow(t)
	file := filepath.Join(t.TempDir(), "text")
	if err := os.WriteFile(file, []byte(strings.Repeat("some text\n", 100)+"END-OF-TEXT\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	atPrompt(t, c, pane)
	// Ten tries: without the wait some tries pass by luck.
	for i := range 10 {
		c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "less " + file}, nil)
		if r := waitText(t, c, map[string]any{"pane_id": pane, "patterns": []string{"some text"}, "timeout": 10}); !r.Found || !r.Alternate {
			t.Fatalf("try %d: less did not show the file: %+v", i, r)
		}
		c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "q", "enter": false}, nil)
		want := fmt.Sprintf("after-less-%d", i)
		if r := c.run(t, pane, "echo "+want); fmt.Sprint(r.Output) != "["+want+"]" || status(r) != "0" {
			t.Fatalf("try %d: run_command right after q: got %+v", i, r)
		}
	}
	slow := filepath.Join(t.TempDir(), "slow-exit")
	// The "bye" keeps the cursor off column 0, as less's last line does,
	// so that the wait for a prompt to be drawn does not cover this case
	// by chance (awk flushes it before system).
	script := "echo ready-for-input\nexec awk '{ printf \"bye\"; system(\"sleep 0.3\"); exit }'\n"
	if err := os.WriteFile(slow, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "sh " + slow}, nil)
	if r := waitText(t, c, map[string]any{"pane_id": pane, "patterns": []string{"^ready-for-input$"}, "regex": true, "timeout": 10}); !r.Found {
		t.Fatalf("the slow program did not start: %+v", r)
	}
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "go"}, nil)
	if r := c.run(t, pane, "echo after-awk"); fmt.Sprint(r.Output) != "[after-awk]" || status(r) != "0" {
		t.Fatalf("run_command while awk ends: got %+v", r)
	}
	// A script's shell (the pane names it "sh", the cursor on column 0)
	// that execs a program which prints, then ends: what moved the cursor
	// was not a prompt, and the wait for the shell goes on.
	script = "echo ready-for-more\nread x\nsleep 0.3\nexec awk 'BEGIN { printf \"bye\"; system(\"sleep 0.3\"); exit }'\n"
	if err := os.WriteFile(slow, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "sh " + slow}, nil)
	if r := waitText(t, c, map[string]any{"pane_id": pane, "patterns": []string{"^ready-for-more$"}, "regex": true, "timeout": 10}); !r.Found {
		t.Fatalf("the script did not start: %+v", r)
	}
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "go"}, nil)
	if r := c.run(t, pane, "echo after-script"); fmt.Sprint(r.Output) != "[after-script]" || status(r) != "0" {
		t.Fatalf("run_command while a script's program ends: got %+v", r)
	}
	// A program that does not end is still refused, a moment later.
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "less " + file}, nil)
	waitText(t, c, map[string]any{"pane_id": pane, "patterns": []string{"some text"}, "timeout": 10})
	if e := c.fail(t, "run_command", map[string]any{"pane_id": pane, "command": "true"}); e.Code != "tmux_error" || !strings.Contains(e.Message, `"less"`) {
		t.Fatalf("run_command in less: got %+v, want it refused as running less", e)
	}
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "q", "enter": false}, nil)
}

// contentChange is what an agent reads of wait_for_content_change.
type contentChange struct {
	Changed  bool    `json:"changed"`
	Quiet    bool    `json:"quiet"`
	TimedOut bool    `json:"timed_out"`
	Bytes    int64   `json:"output_bytes"`
	Elapsed  float64 `json:"elapsed_seconds"`
}

// TestWorkflowWaitForTUIToGoQuiet: an agent starts a full-screen program
// that draws for a while, and waits until it has finished drawing.
func TestWorkflowWaitForTUIToGoQuiet(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "tui")
	pane := paneOfSession(t, fx, "tui")
	c := startClient(t, fx, "", nil)
	atPrompt(t, c, pane)
	// A TUI: the alternate screen, six frames 150 ms apart, then it waits.
	script := `printf '\033[?1049h\033[H'; for i in 1 2 3 4 5 6; do printf 'frame %s\r\n' $i; sleep 0.15; done; sleep 30`
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": script}, nil)
	start := time.Now()
	var r contentChange
	c.ok(t, "wait_for_content_change", map[string]any{"pane_id": pane, "quiet_ms": 400, "timeout": 20}, &r)
	took := time.Since(start)
	if !r.Quiet || !r.Changed || r.TimedOut || r.Bytes == 0 {
		t.Fatalf("got %+v, want quiet after output", r)
	}
	// The last frame comes about 750 ms after the input, quiet 400 ms after.
	if took < time.Second {
		t.Fatalf("quiet after %v, before the program finished drawing", took)
	}
	var shot struct {
		Content string `json:"content"`
	}
	c.ok(t, "snapshot_pane", map[string]any{"pane_id": pane}, &shot)
	if !strings.Contains(shot.Content, "frame 6") {
		t.Fatalf("quiet, but the last frame is not drawn:\n%s", shot.Content)
	}
	t.Logf("quiet wait (400 ms) answered %v after the input; the program drew for about 750 ms", took)
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "C-c", "enter": false}, nil)
}

// sinceResult is what an agent reads of capture_since.
type sinceResult struct {
	Cursor     string   `json:"cursor"`
	Lines      []string `json:"lines"`
	Missed     bool     `json:"lines_missed"`
	Unfinished bool     `json:"last_line_unfinished"`
	Alternate  bool     `json:"alternate_screen"`
}

// TestWorkflowMonitorWithCaptureSince: an agent follows a pane with
// capture_since while a script asks a question with read -p, answers it,
// and reads on.
func TestWorkflowMonitorWithCaptureSince(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "mon")
	pane := paneOfSession(t, fx, "mon")
	c := startClient(t, fx, "", nil)
	atPrompt(t, c, pane)
	var r sinceResult
	c.ok(t, "capture_since", map[string]any{"pane_id": pane}, &r)
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "echo step-1; read -p 'Continue? [y/N] ' a; echo answer=$a"}, nil)
	if w := waitText(t, c, map[string]any{"pane_id": pane, "patterns": []string{"Continue?"}, "timeout": 10}); !w.Found {
		t.Fatalf("no question: %+v", w)
	}
	c.ok(t, "capture_since", map[string]any{"cursor": r.Cursor}, &r)
	if !r.Unfinished || len(r.Lines) == 0 || r.Lines[len(r.Lines)-1] != "Continue? [y/N] " || !slices.Contains(r.Lines, "step-1") {
		t.Fatalf("got %+v, want step-1 and then the question, unfinished", r)
	}
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "y"}, nil)
	if w := waitText(t, c, map[string]any{"pane_id": pane, "patterns": []string{"answer="}, "timeout": 10}); !w.Found {
		t.Fatalf("no answer: %+v", w)
	}
	c.ok(t, "capture_since", map[string]any{"cursor": r.Cursor}, &r)
	if len(r.Lines) < 2 || r.Lines[0] != "Continue? [y/N] y" || r.Lines[1] != "answer=y" || r.Missed {
		t.Fatalf("got %+v, want the answered question, then answer=y", r)
	}
	// A cursor this process did not issue is refused, not misread.
	foreign := r.Cursor[:strings.LastIndexByte(r.Cursor, ':')] + ":000000000000"
	if env := c.fail(t, "capture_since", map[string]any{"cursor": foreign}); env.Code != "invalid_arguments" || env.Effects != "none" {
		t.Fatalf("foreign cursor: got %+v, want invalid_arguments", env)
	}
}
