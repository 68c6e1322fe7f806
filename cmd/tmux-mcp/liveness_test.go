package main

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// TestStoppedTmuxAnswersOverStdio stops the test's own tmux server under a
// tmux-mcp with a 1 s liveness deadline: tools answer with the contract's
// connection_lost envelope instead of hanging (a read retryable, input
// with effects possible), and once the server runs again so do the tools.
func TestStoppedTmuxAnswersOverStdio(t *testing.T) {
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "work")
	c := startClient(t, fx, "", []string{"--reply-deadline", "1"})
	pane := strings.TrimSpace(fx.Tmux(t, "display-message", "-p", "-t", "work", "#{pane_id}"))
	target := map[string]any{"pane_id": pane}
	c.ok(t, "capture_pane", target, nil) // the control client is up

	pid := fx.PID(t)
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			_ = syscall.Kill(pid, syscall.SIGCONT) // Best effort: it may be gone.
		}
	}
	t.Cleanup(resume) // before the fixture's kill-server, which needs it running
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			t.Skipf("cannot read the server's state: %v", err)
		}
		if _, rest, _ := strings.Cut(string(stat), ") "); strings.HasPrefix(rest, "T") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the tmux server did not stop")
		}
		time.Sleep(time.Millisecond) // no event says a signal arrived
	}

	type answer struct {
		res  *sdk.CallToolResult
		err  error
		took time.Duration
	}
	callAsync := func(tool string, args map[string]any) <-chan answer {
		ch := make(chan answer, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second) // catches a hang
			defer cancel()
			start := time.Now()
			res, err := c.cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
			ch <- answer{res, err, time.Since(start)}
		}()
		return ch
	}
	read := callAsync("capture_pane", target)
	// A key, not text: text is looked at before it is typed (a shell still
	// starting holds it), and that look answers, nothing sent; a key goes
	// at once, and is in flight when the client is ended.
	input := callAsync("send_keys", map[string]any{"pane_id": pane, "keys": "Escape", "enter": false, "drive_mode": true})
	for _, w := range []struct {
		name      string
		ch        <-chan answer
		effects   string
		retryable bool
	}{
		{"capture_pane", read, "none", true},
		{"send_keys", input, "possible", false},
	} {
		a := <-w.ch
		if a.err != nil {
			t.Fatalf("%s: no answer after %v (%v)\nstderr:\n%s", w.name, a.took, a.err, c.stderr)
		}
		env := envelopeOf(t, a.res)
		if env.Code != "connection_lost" || env.Effects != w.effects || env.Retryable != w.retryable {
			t.Errorf("%s: got %+v, want connection_lost, effects %s, retryable %v", w.name, env, w.effects, w.retryable)
		}
		t.Logf("%s answered after %v: %s", w.name, a.took.Round(time.Millisecond), env.Message)
	}

	resume()
	healStart := time.Now()
	for deadline := time.Now().Add(30 * time.Second); ; {
		a := <-callAsync("capture_pane", target)
		if a.err == nil && !a.res.IsError {
			t.Logf("tools answered again %v after SIGCONT", time.Since(healStart).Round(time.Millisecond))
			break
		}
		if a.err == nil {
			t.Logf("after SIGCONT, %v: %s", a.took.Round(time.Millisecond), textOf(a.res))
		}
		if a.err != nil || time.Now().After(deadline) {
			t.Fatalf("capture_pane after SIGCONT: %v %s", a.err, textOf(a.res))
		}
		if env := envelopeOf(t, a.res); !env.Retryable && env.Code != "deadline" {
			t.Fatalf("capture_pane after SIGCONT: got %+v, want success or a retryable error", env)
		}
		time.Sleep(20 * time.Millisecond) // an agent's retry, not a synchronisation
	}
}
