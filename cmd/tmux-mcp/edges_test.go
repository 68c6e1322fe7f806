package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// Tests of the small edges an agent meets (issue 32): answers as plain
// JSON, and failures that say what would mend them.

// rawCall sends one tools/call over r's stdin and returns its response line
// as written on stdout.
func rawCall(t *testing.T, r *rawServer, id int, tool string, args map[string]any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	if err != nil {
		t.Fatal(err)
	}
	r.send(t, string(b))
	for {
		line := r.next(t, 90*time.Second)
		if resp := parseResponse(t, line); fmt.Sprint(resp.ID) == fmt.Sprint(id) {
			return line
		}
	}
}

// rawSession starts tmux-mcp on plain pipes, initialized, with a session
// made, and returns it and the session's pane.
func rawSession(t *testing.T, fx *fixtures.Server) (*rawServer, string) {
	t.Helper()
	r := startRaw(t, fx)
	r.send(t, initialize)
	r.next(t, 30*time.Second)
	r.send(t, initialized)
	line := rawCall(t, r, 1, "create_session", map[string]any{"session_name": "work"})
	var res struct {
		Result struct {
			StructuredContent struct {
				ActivePaneID string `json:"active_pane_id"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &res); err != nil || res.Result.StructuredContent.ActivePaneID == "" {
		t.Fatalf("create_session: %s (%v)", line, err)
	}
	return r, res.Result.StructuredContent.ActivePaneID
}

// TestAnswersAreNotHTMLEscaped: "->", "<" and "&" in a command's output
// reach the client as themselves, not as \u003e, \u003c and \u0026 (in
// the structured result and in the text), and a literal backslash-u in the
// output stays escaped as JSON wants.
func TestAnswersAreNotHTMLEscaped(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewServer(t)
	r, pane := rawSession(t, fx)
	line := rawCall(t, r, 2, "run_command", map[string]any{"pane_id": pane, "timeout": 30,
		"command": `printf '%s\n' 'a->b <c> & d' 'x\u003ey'`})
	bare := strings.NewReplacer(`x\\\\u003ey`, "", `x\\u003ey`, "").Replace(line) // the literal backslash-u, escaped
	if strings.Contains(bare, `\u003e`) || strings.Contains(bare, `\u003c`) || strings.Contains(bare, `\u0026`) {
		t.Fatalf("the answer escapes HTML: %s", line)
	}
	// Twice: in structuredContent, and in the text's JSON (escaped once more).
	if strings.Count(line, `a->b <c> & d`) != 2 || strings.Count(line, `x\\u003ey`) != 1 || strings.Count(line, `x\\\\u003ey`) != 1 {
		t.Fatalf("the output is not in the answer as printed: %s", line)
	}
	var resp struct {
		Result struct {
			StructuredContent commandResult `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &resp); err != nil {
		t.Fatalf("the answer is no JSON: %v: %s", err, line)
	}
	if got := fmt.Sprint(resp.Result.StructuredContent.Output); got != `[a->b <c> & d x\u003ey]` {
		t.Fatalf("decoded output: got %s", got)
	}
}

// TestNoTmuxBinaryNamesTheFlag: a tmux binary that does not exist is no
// retryable failure, and the message says which flag to set.
func TestNoTmuxBinaryNamesTheFlag(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewServer(t)
	c := startClient(t, fx, "", []string{"--tmux", "/nonexistent/tmux"})
	e := c.fail(t, "list_sessions", nil)
	if e.Code != "server_unavailable" || e.Retryable || !strings.Contains(e.Message, "--tmux") {
		t.Fatalf("no tmux binary: got %+v, want server_unavailable, not retryable, naming --tmux", e)
	}
	if text := textOf(c.call(t, "list_sessions", nil)); strings.Contains(text, "Retry shortly") {
		t.Fatalf("no tmux binary: the text suggests a retry: %s", text)
	}
}

// TestNoServerSuggestsCreateSession: a call that needs a server on a
// socket where none runs says that create_session starts one, and starts
// none itself.
func TestNoServerSuggestsCreateSession(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewServer(t)
	c := startClient(t, fx, "", nil)
	e := c.fail(t, "capture_pane", map[string]any{"pane_id": "%1"})
	if e.Code != "server_unavailable" || !strings.Contains(e.Message, "create_session") {
		t.Fatalf("no server: got %+v, want server_unavailable suggesting create_session", e)
	}
	if ids := sessionIDs(t, fx); ids != nil {
		t.Fatalf("a server was started: sessions %v", ids)
	}
}

// rawResult decodes the structuredContent of a tools/call response line.
func rawResult(t *testing.T, line string, out any) {
	t.Helper()
	var resp struct {
		Result struct {
			IsError           bool            `json:"isError"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &resp); err != nil || resp.Result.IsError {
		t.Fatalf("answer %s (%v)", line, err)
	}
	if err := json.Unmarshal(resp.Result.StructuredContent, out); err != nil {
		t.Fatalf("decoding %s: %v", resp.Result.StructuredContent, err)
	}
}

// TestFollowingACommandReadsEachLineOnce: a background loop printing 2,000
// lines over some seconds, followed to its end with wait_for_command,
// costs under 8 KB of answers in all: each answer holds only lines no
// earlier one returned, the newest 50 of them; from_start reads from the
// start again.
func TestFollowingACommandReadsEachLineOnce(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewServer(t)
	r, pane := rawSession(t, fx)
	id := 10
	call := func(tool string, args map[string]any, out any) int {
		t.Helper()
		id++
		line := rawCall(t, r, id, tool, args)
		rawResult(t, line, out)
		return len(line) + 1
	}
	var run commandResult
	total := call("run_command", map[string]any{"pane_id": pane, "background": true,
		"command": `i=0; while [ $i -lt 2000 ]; do i=$((i+1)); echo "line $i"; case $i in *00) sleep 0.2;; esac; done`}, &run)
	seen := map[string]bool{}
	var done commandResult
	waits := 0
	for waits < 60 {
		waits++
		done = commandResult{}
		total += call("wait_for_command", map[string]any{"command_id": run.CommandID, "timeout": 2}, &done)
		for _, l := range done.Output {
			if seen[l] {
				t.Fatalf("wait %d returned %q again: %v", waits, l, done.Output)
			}
			seen[l] = true
		}
		if !done.TimedOut {
			break
		}
	}
	t.Logf("%d waits, %d bytes of answers", waits, total)
	if done.status() != "0" || done.Ended != "exited" || !seen["line 2000"] || len(seen) > 50*waits {
		t.Fatalf("the last answer: %+v; %d lines seen, line 2000 among them: %v", done, len(seen), seen["line 2000"])
	}
	if total >= 8<<10 {
		t.Fatalf("following the command read %d bytes of answers, want under 8 KB", total)
	}
	// Asked again: the end, and no line twice; from_start reads again.
	var again commandResult
	call("wait_for_command", map[string]any{"command_id": run.CommandID}, &again)
	if again.status() != "0" || len(again.Output) != 0 || again.Earlier != 2000 {
		t.Fatalf("asked again: got %+v, want status 0, no output, 2000 earlier lines", again)
	}
	again = commandResult{}
	call("wait_for_command", map[string]any{"command_id": run.CommandID, "from_start": true, "max_lines": 3}, &again)
	if fmt.Sprint(again.Output) != "[line 1998 line 1999 line 2000]" || again.Earlier != 0 || again.OutputCursor == "" {
		t.Fatalf("from_start: got %+v", again)
	}
}

// TestOutputCursorSkipsTheWrapperLine: capture_since from a cut answer's
// output_cursor starts with the command's first line of output, not with
// the line tmux-mcp typed to run it (its eval and markers).
func TestOutputCursorSkipsTheWrapperLine(t *testing.T) {
	t.Parallel()
	c, _, pane := workflow(t)
	c.waitText(t, pane, prompt)
	var r commandResult
	c.ok(t, "run_command", map[string]any{"pane_id": pane, "command": "seq 1 10", "max_lines": 3, "timeout": 30}, &r)
	if r.status() != "0" || fmt.Sprint(r.Output) != "[8 9 10]" || r.OutputCursor == "" {
		t.Fatalf("run_command: got %+v, want 8 9 10, cut, with a cursor", r)
	}
	var since struct {
		Lines []string `json:"lines"`
	}
	c.ok(t, "capture_since", map[string]any{"cursor": r.OutputCursor, "max_lines": 0}, &since)
	if len(since.Lines) < 10 || fmt.Sprint(since.Lines[:10]) != "[1 2 3 4 5 6 7 8 9 10]" {
		t.Fatalf("capture_since from output_cursor: got %q, want 1 to 10 first", since.Lines)
	}
}

// TestServerDiesBeforeTheFirstPrompt: the tmux server killed while
// run_command waits for a new shell's first prompt is server_unavailable,
// not retryable, saying the server exited, at once; not a deadline that
// says to retry.
func TestServerDiesBeforeTheFirstPrompt(t *testing.T) {
	t.Parallel()
	fixtures.NeedProgram(t, "bash")
	for _, how := range []string{"SIGKILL", "kill-server"} {
		t.Run(how, func(t *testing.T) {
			c, fx, first := workflow(t)
			rc, _ := fixtures.SlowBashRC(t)
			var p struct {
				PaneID string `json:"pane_id"`
			}
			c.ok(t, "split_window", map[string]any{"pane_id": first, "shell": "bash --rcfile " + rc}, &p)
			answer := make(chan envelope, 1)
			go func() {
				answer <- c.fail(t, "run_command", map[string]any{"pane_id": p.PaneID, "command": "echo never", "timeout": 30})
			}()
			// No event says that run_command waits for the prompt: it
			// does within moments of the call, and for 30 s.
			time.Sleep(2 * time.Second)
			killed := time.Now()
			if how == "SIGKILL" {
				fx.Kill(t)
			} else {
				fx.Tmux(t, "kill-server")
			}
			e := <-answer
			if e.Code != "server_unavailable" || e.Retryable || !strings.Contains(e.Message, "server_exited") ||
				!strings.Contains(e.Message, "nothing was typed") || time.Since(killed) > 10*time.Second {
				t.Fatalf("server killed before the first prompt: got %+v %v after the kill, want server_unavailable, not retryable, server_exited, at once\nstderr:\n%s", e, time.Since(killed), c.stderr)
			}
		})
	}
}

// TestRespawnDuringARun: respawn-pane -k while run_command waits answers
// pane_respawned within about a second (the new program printing at once,
// or nothing for seconds), and the new program's lines are not in the
// command's output. Before, the answer waited for the new program's first
// output (3.5 s for a shell with heavy rc files) and held its lines.
func TestRespawnDuringARun(t *testing.T) {
	t.Parallel()
	for _, newProgram := range []string{"sh -c 'echo NEW-PROGRAM; exec sleep 60'", "sh -c 'sleep 8; echo NEW-PROGRAM; exec sleep 60'"} {
		t.Run(strings.Fields(newProgram)[2], func(t *testing.T) {
			c, fx, pane := workflow(t)
			c.waitText(t, pane, prompt)
			answer := make(chan commandResult, 1)
			go func() {
				var r commandResult
				c.ok(t, "run_command", map[string]any{"pane_id": pane, "command": "echo started; sleep 60", "timeout": 30}, &r)
				answer <- r
			}()
			c.waitOnScreen(t, pane, "^started$")
			// An agent respawns a pane it has read, not within the
			// moment after: lines printed within burstGap (50 ms) of a
			// respawn cannot be told from the new program's, and are
			// dropped with them. This is that moment passing, not a
			// wait for an event.
			time.Sleep(300 * time.Millisecond)
			respawned := time.Now()
			fx.Tmux(t, "respawn-pane", "-k", "-t", pane, newProgram)
			r := <-answer
			took := time.Since(respawned)
			t.Logf("answered %v after the respawn", took)
			if r.Ended != "pane_respawned" || fmt.Sprint(r.Output) != "[started]" || took > 3*time.Second {
				t.Fatalf("respawn during a run: got %+v %v after the respawn, want pane_respawned, output [started], within a second or so\n%s", r, took, c.stderr)
			}
		})
	}
}

// TestUnknownEndSaysWhy: a run whose exit status is unknown says why and
// what was seen: a shell whose printf prints nothing (so neither of the
// command's markers comes) answers unknown with the reason and the
// command's output as the screen shows it; a command stopped with C-c in
// sh, whose end marker never comes, says so.
func TestUnknownEndSaysWhy(t *testing.T) {
	t.Parallel()
	c, _, pane := workflow(t)
	c.waitText(t, pane, prompt)
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "printf() { :; }", "literal": true}, nil)
	c.waitText(t, pane, prompt)
	var r commandResult
	c.ok(t, "run_command", map[string]any{"pane_id": pane, "command": "echo rea''dy", "timeout": 30}, &r)
	if r.Ended != "unknown" || !strings.Contains(r.EndedReason, "neither of the command's markers") ||
		len(r.Output) == 0 || r.Output[len(r.Output)-1] != "ready" {
		t.Fatalf("no markers: got %+v, want unknown, the reason, and the output seen", r)
	}
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "unset -f printf", "literal": true}, nil)
	c.waitText(t, pane, prompt)

	r = commandResult{}
	c.ok(t, "run_command", map[string]any{"pane_id": pane, "background": true, "command": "sh -c 'echo started; exec sleep 60'"}, &r)
	c.waitOnScreen(t, pane, "^started$")
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "C-c", "enter": false}, nil)
	done, _ := c.waitCommand(t, r.CommandID, 30)
	if done.Ended == "unknown" && !strings.Contains(done.EndedReason, "end marker never came") || done.Ended != "unknown" && done.ExitStatus == nil {
		t.Fatalf("C-c: got %+v, want unknown with its reason, or a status", done)
	}
	t.Logf("C-c: %s, %q", done.Ended, done.EndedReason)
}

// TestOutputAfterThePaneClosed: a command that printed 3,000 lines and
// closed its pane (exit 3) keeps its output readable through its
// output_cursor: capture_since pages through it oldest first (the first
// line is the command's, not tmux-mcp's wrapper line) and reads its end;
// before, the cursor answered not_found once the pane was gone.
func TestOutputAfterThePaneClosed(t *testing.T) {
	t.Parallel()
	c, _, first := workflow(t)
	pane := shellPane(t, c, first, "sh")
	c.waitText(t, pane, prompt)
	var r commandResult
	// The pause lets tmux deliver the output before the pane closes:
	// tmux-mcp forgets a pane's stream when tmux says the pane is gone,
	// which can come before the pane's last output.
	c.ok(t, "run_command", map[string]any{"pane_id": pane, "command": "seq 1 3000; sleep 1; exit 3", "timeout": 60}, &r)
	if r.Ended != "pane_closed" || !r.Truncated || r.OutputCursor == "" {
		t.Fatalf("run_command: got ended %q, truncated %v, cursor %q", r.Ended, r.Truncated, r.OutputCursor)
	}
	type since struct {
		Lines          []string `json:"lines"`
		Cursor         string   `json:"cursor"`
		Truncated      bool     `json:"truncated"`
		TruncatedLines int      `json:"truncated_lines"`
	}
	var page since
	c.ok(t, "capture_since", map[string]any{"cursor": r.OutputCursor, "order": "oldest", "max_lines": 5}, &page)
	if fmt.Sprint(page.Lines) != "[1 2 3 4 5]" || !page.Truncated || page.TruncatedLines != 2995 {
		t.Fatalf("the first page: got %+v", page)
	}
	var next since
	c.ok(t, "capture_since", map[string]any{"cursor": page.Cursor, "order": "oldest", "max_lines": 3}, &next)
	if fmt.Sprint(next.Lines) != "[6 7 8]" {
		t.Fatalf("the second page: got %+v", next)
	}
	var tail since
	c.ok(t, "capture_since", map[string]any{"cursor": r.OutputCursor, "max_lines": 2}, &tail)
	if fmt.Sprint(tail.Lines) != "[2999 3000]" {
		t.Fatalf("the newest lines: got %+v", tail)
	}
}

// TestCaptureSinceOldestFirst: with the pane alive, order oldest reads a
// long output from the cursor forward, page after page, each line once.
func TestCaptureSinceOldestFirst(t *testing.T) {
	t.Parallel()
	c, _, pane := workflow(t)
	c.waitText(t, pane, prompt)
	var r commandResult
	c.ok(t, "run_command", map[string]any{"pane_id": pane, "command": "seq 1 500", "max_lines": 10, "timeout": 60}, &r)
	if r.OutputCursor == "" {
		t.Fatalf("run_command: got %+v, want a cursor", r)
	}
	var got []string
	cursor := r.OutputCursor
	for range 20 {
		var page struct {
			Lines  []string `json:"lines"`
			Cursor string   `json:"cursor"`
		}
		c.ok(t, "capture_since", map[string]any{"cursor": cursor, "order": "oldest", "max_lines": 100}, &page)
		if len(page.Lines) > 100 {
			t.Fatalf("a page of %d lines", len(page.Lines))
		}
		got, cursor = append(got, page.Lines...), page.Cursor
		if len(page.Lines) < 100 {
			break
		}
	}
	if len(got) < 500 || got[0] != "1" || got[499] != "500" {
		t.Fatalf("paged: got %d lines, %q first", len(got), got[:min(3, len(got))])
	}
	for i := range 500 {
		if got[i] != fmt.Sprint(i+1) {
			t.Fatalf("line %d: got %q", i, got[i])
		}
	}
}
