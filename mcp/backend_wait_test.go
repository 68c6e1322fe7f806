package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// shPane starts a session running a plain sh and returns its pane.
func shPane(t *testing.T, env *tmuxEnv) string {
	t.Helper()
	env.fx.NewSession(t, "w", "env", "PS1=$ ", "sh")
	pane := env.fx.Tmux(t, "display-message", "-p", "-t", "w", "#{pane_id}")
	var r WaitForTextResult
	env.ok(t, "wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"$"}, "timeout": 20}, &r)
	return pane
}

func TestWaitForTextTool(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		pane := shPane(t, env)
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = env.fx.TryTmux("send-keys", "-t", pane, "sleep 0.3; printf 'RE%sDY\\n' A", "Enter")
		}()
		var r WaitForTextResult
		env.ok(t, "wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"ready"}, "timeout": 20}, &r)
		<-done
		if !r.Found || r.Outcome != "matched" || r.MatchedIndex == nil || *r.MatchedIndex != 0 || r.PaneID != pane || r.EffectiveTimeout != 20 {
			t.Fatalf("got %+v", r)
		}
		r = WaitForTextResult{}
		env.ok(t, "wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"never"}, "timeout": 0.05}, &r)
		if r.Found || r.Outcome != "timeout" || r.MatchedIndex != nil {
			t.Fatalf("timeout: got %+v", r)
		}
		wantCode(t, env.fail(t, "wait_for_text", map[string]any{"pane_id": "%999", "patterns": []string{"x"}}), CodeNotFound)
		wantCode(t, env.fail(t, "wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"("}, "regex": true}), CodeInvalidArguments)
	})
}

func TestRunCommandTool(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		pane := shPane(t, env)
		var r RunCommandResult
		env.ok(t, "run_command", map[string]any{"pane_id": pane, "command": "echo hi; (exit 4)"}, &r)
		if r.ExitStatus == nil || *r.ExitStatus != 4 || strings.Join(r.Output, "|") != "hi" || r.TimedOut {
			t.Fatalf("got %+v", r)
		}
		wantCode(t, env.fail(t, "run_command", map[string]any{"command": "true"}), CodeTargetRequired)
		// Two arguments, so tmux execs cat with no shell in front: from
		// the first moment no shell is the pane's program. (sh -c "exec
		// cat" left a window in which run_command saw sh and ran.)
		env.fx.NewSession(t, "cat", "cat", "-u")
		catPane := env.fx.Tmux(t, "display-message", "-p", "-t", "cat", "#{pane_id}")
		e := env.fail(t, "run_command", map[string]any{"pane_id": catPane, "command": "true"})
		wantCode(t, e, CodeTmuxError)
		if e.Effects != EffectsNone || !strings.Contains(e.Message, "not a shell") {
			t.Fatalf("got %+v", e)
		}
	})
}

// TestRunCommandHugeOutputKeepsItsStatus: a command that prints 200,000
// lines gets its exit status back, with the newest 2,000 lines, marked cut,
// and a cursor that reads the rest; its side effects ran once.
func TestRunCommandHugeOutputKeepsItsStatus(t *testing.T) {
	env := newTmuxEnv(t, "2025-11-25", nil)
	pane := shPane(t, env)
	mark := filepath.Join(t.TempDir(), "F")
	var r RunCommandResult
	env.ok(t, "run_command", map[string]any{"pane_id": pane, "command": "seq 1 200000; touch " + mark + "; sh -c 'exit 3'", "timeout": 120}, &r)
	if r.ExitStatus == nil || *r.ExitStatus != 3 || r.TimedOut {
		t.Fatalf("exit status: got %+v", r.ExitStatus)
	}
	if len(r.Output) != runCommandLines || r.Output[len(r.Output)-1] != "200000" || !r.OutputTruncated || r.OutputTruncatedLines != 200000-runCommandLines || r.OutputCursor == "" {
		t.Fatalf("output: %d lines ending %q, truncated %v (%d lines), cursor %q", len(r.Output), r.Output[len(r.Output)-1:], r.OutputTruncated, r.OutputTruncatedLines, r.OutputCursor)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Fatalf("the command's side effect: %v", err)
	}
	var more CaptureSinceResult
	env.ok(t, "capture_since", map[string]any{"cursor": r.OutputCursor, "max_lines": 5}, &more)
	if len(more.Lines) == 0 {
		t.Fatalf("capture_since from output_cursor: got %+v", more)
	}
	// An explicit bound is kept too, within the byte cap.
	env.ok(t, "run_command", map[string]any{"pane_id": pane, "command": "seq 1 50", "max_lines": 5}, &r)
	if strings.Join(r.Output, " ") != "46 47 48 49 50" || r.OutputTruncatedLines != 45 {
		t.Fatalf("max_lines 5: got %+v", r)
	}
}

func TestCaptureSinceTool(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		pane := shPane(t, env)
		var first, next CaptureSinceResult
		env.ok(t, "capture_since", map[string]any{"pane_id": pane}, &first)
		var run RunCommandResult
		env.ok(t, "run_command", map[string]any{"pane_id": pane, "command": "seq 3"}, &run)
		env.ok(t, "capture_since", map[string]any{"cursor": first.Cursor}, &next)
		if next.LinesMissed || !strings.Contains(strings.Join(next.Lines, "\n")+"\n", "\n1\n2\n3\n") || next.Cursor == first.Cursor {
			t.Fatalf("got %+v", next)
		}
		wantCode(t, env.fail(t, "capture_since", map[string]any{"cursor": "bogus"}), CodeInvalidArguments)
	})
}

func TestWaitForContentChangeTool(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		pane := shPane(t, env)
		// Gaps of 50 ms against a quiet of 1 s: on a loaded machine a
		// fork of sleep has taken more than 250 ms, a real quiet.
		env.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "for i in 1 2 3; do echo $i; sleep 0.05; done"}, nil)
		var r ContentChangeResult
		env.ok(t, "wait_for_content_change", map[string]any{"pane_id": pane, "quiet_ms": 1000, "timeout": 20}, &r)
		if !r.Quiet || !r.Changed || r.TimedOut || r.PaneID != pane || r.EffectiveTimeout != 20 {
			t.Fatalf("quiet: got %+v", r)
		}
		// Quiet came after the program finished: its last line and the
		// prompt after it are on screen. (Not a time: on a loaded machine
		// the wait may start after the loop ended.)
		if screen := env.fx.Tmux(t, "capture-pane", "-p", "-t", pane); !strings.Contains(screen, "\n3\n$") {
			t.Fatalf("quiet before the program finished: the screen is %q", screen)
		}
		r = ContentChangeResult{}
		env.ok(t, "wait_for_content_change", map[string]any{"pane_id": pane, "timeout": 0.05}, &r)
		if !r.TimedOut || r.Changed || r.Quiet {
			t.Fatalf("no change: got %+v", r)
		}
		wantCode(t, env.fail(t, "wait_for_content_change", map[string]any{"pane_id": "%999"}), CodeNotFound)
		wantCode(t, env.fail(t, "wait_for_content_change", map[string]any{"pane_id": pane, "quiet_ms": -1}), CodeInvalidArguments)
	})
}

// TestContentChangeCountsSinceInput: a change that came between the input
// and the wait counts (the wait answers at once), and once a wait has told
// of it the next one counts from there.
func TestContentChangeCountsSinceInput(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		pane := shPane(t, env)
		env.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "echo chan$((40+2))ged"}, nil)
		// The answer, and the prompt after it, are on screen before the
		// wait starts.
		var w WaitForTextResult
		env.ok(t, "wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"chan42ged"}, "timeout": 20}, &w)
		env.ok(t, "wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"$"}, "timeout": 20}, &w)
		var r ContentChangeResult
		env.ok(t, "wait_for_content_change", map[string]any{"pane_id": pane, "timeout": 2}, &r)
		if !r.Changed || r.TimedOut || r.OutputBytes == 0 || r.ElapsedSeconds > 5 {
			t.Fatalf("a change before the wait: got %+v, want changed at once, with its bytes", r)
		}
		r = ContentChangeResult{}
		env.ok(t, "wait_for_content_change", map[string]any{"pane_id": pane, "timeout": 0.2}, &r)
		if r.Changed || !r.TimedOut {
			t.Fatalf("nothing since the last wait: got %+v, want no change", r)
		}
		r = ContentChangeResult{}
		env.ok(t, "wait_for_content_change", map[string]any{"pane_id": pane, "quiet_ms": 100, "timeout": 20}, &r)
		if r.Changed || !r.Quiet {
			t.Fatalf("quiet, nothing since the last wait: got %+v", r)
		}
	})
}

func TestChannelTools(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		env.fx.NewSession(t, "main")
		env.ok(t, "signal_channel", map[string]any{"channel": "a.b"}, nil)
		// tmux keeps a signal that came before any waiter.
		if _, err := env.fx.TryTmux("wait-for", "a.b"); err != nil {
			t.Fatal(err)
		}
		go func() { _, _ = env.fx.TryTmux("wait-for", "-S", "c") }()
		env.ok(t, "wait_for_channel", map[string]any{"channel": "c", "timeout": 20}, nil)
		wantCode(t, env.fail(t, "wait_for_channel", map[string]any{"channel": "never", "timeout": 0.05}), CodeDeadline)
		wantCode(t, env.fail(t, "wait_for_channel", map[string]any{"channel": "bad channel"}), CodeInvalidArguments)
	})
}

func TestWaitForTextReportsProgress(t *testing.T) {
	env := newTmuxEnv(t, "2025-11-25", nil)
	env.fx.NewSession(t, "main")
	srv, err := NewServer(env.backend, &Options{Safety: "readonly"})
	if err != nil {
		t.Fatal(err)
	}
	var got atomic.Int32
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "0"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) { got.Add(1) },
	})
	cs, err := c.Connect(context.Background(), ct, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"wait_for_text", map[string]any{"patterns": []string{"never"}, "timeout": 2.5}},
		{"wait_for_content_change", map[string]any{"quiet_ms": 100000, "timeout": 2.5}},
	} {
		got.Store(0)
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{
			Name:      call.tool,
			Arguments: call.args,
			Meta:      sdk.Meta{"progressToken": "p1"},
		})
		if err != nil || res.IsError {
			t.Fatalf("%s: got %v %v", call.tool, res, err)
		}
		// Two ticks in 2.5 s; the handler may still be running for the last.
		deadline := time.Now().Add(5 * time.Second)
		for got.Load() < 2 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond) // waiting on the client's handler goroutine; no event to wait on
		}
		if got.Load() < 2 {
			t.Fatalf("%s: got %d progress notifications, want 2", call.tool, got.Load())
		}
	}
}
