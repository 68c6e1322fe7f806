package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/session/internal/engine"
)

// TestHoldForFirstPrompt: a shell reading its start-up file is starting
// until it draws its prompt, in bash, zsh and fish; past the hold's bound
// nothing is sent.
func TestHoldForFirstPrompt(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			command, env, ready := fixtures.SlowShell(t, shell)
			fx, s := newTestServer(t)
			args := []string{"new-session", "-d", "-s", "slow", "-x", "80", "-y", "24"}
			for k, v := range env {
				args = append(args, "-e", k+"="+v)
			}
			fx.Tmux(t, append(args, command)...)
			pane := paneOf(t, s, "slow")
			ctx := testCtx(t)
			if st, err := engine.Starting(ctx, s.Engine, pane); err != nil || !st {
				t.Fatalf("a shell in its start-up file: starting %v (%v), want true", st, err)
			}
			done := make(chan error, 1)
			go func() {
				h, err := s.HoldForFirstPrompt(ctx, PaneRef{PaneID: pane})
				if err == nil && !h.AtShell {
					err = errors.New("the shell that drew its prompt is not at a shell")
				}
				done <- err
			}()
			ready()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if st, err := engine.Starting(ctx, s.Engine, pane); err != nil || st {
				t.Fatalf("a shell at its prompt: starting %v (%v), want false", st, err)
			}
		})
	}
}

// TestHoldForFirstPromptBound: a shell that draws nothing within the
// caller's time gets nothing: the hold answers deadline.
func TestHoldForFirstPromptBound(t *testing.T) {
	command, _, ready := fixtures.SlowShell(t, "bash")
	defer ready()
	fx, s := newTestServer(t)
	fx.Tmux(t, "new-session", "-d", "-s", "slow", command)
	pane := paneOf(t, s, "slow")
	ctx, cancel := context.WithTimeout(testCtx(t), 500*time.Millisecond)
	defer cancel()
	h, err := s.HoldForFirstPrompt(ctx, PaneRef{PaneID: pane})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindDeadline || h.For == 0 {
		t.Fatalf("got %v after %v, want deadline", err, h.For)
	}
}

// TestRunCommandBackgroundPending: a background command for a shell that
// never draws its prompt within the timeout is answered at once, waits,
// and ends with the deadline, nothing typed; once the shell is ready the
// line typed before would run, and does not.
func TestRunCommandBackgroundPending(t *testing.T) {
	command, _, ready := fixtures.SlowShell(t, "bash")
	fx, s := newTestServer(t)
	fx.Tmux(t, "new-session", "-d", "-s", "slow", command)
	pane := paneOf(t, s, "slow")
	ctx := testCtx(t)
	ran := filepath.Join(t.TempDir(), "ran")
	r, err := s.RunCommand(ctx, RunArgs{Pane: PaneRef{PaneID: pane}, Command: "touch " + ran, Timeout: 300 * time.Millisecond, Background: true})
	if err != nil || !r.AwaitingPrompt || r.CommandID == "" {
		t.Fatalf("got %+v %v, want the command kept for the first prompt", r, err)
	}
	_, err = s.WaitForCommand(ctx, CommandWaitArgs{ID: r.CommandID, Timeout: 20 * time.Second})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindDeadline || e.Written || !strings.Contains(err.Error(), "nothing was typed") {
		t.Fatalf("got %v, want deadline with nothing typed", err)
	}
	ready()
	waitPrompt(t, s, pane)
	if r, err := s.RunCommand(ctx, RunArgs{Pane: PaneRef{PaneID: pane}, Command: "echo ok", Timeout: 20 * time.Second}); err != nil || !slices.Equal(r.Output, []string{"ok"}) {
		t.Fatalf("once ready: got %+v %v", r, err)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("the command kept for the first prompt ran after its timeout")
	}
	// A command kept for a prompt that never comes, stopped (a task
	// cancelled), ends as cancelled, nothing typed.
	other, _, _ := fixtures.SlowShell(t, "bash")
	fx.Tmux(t, "new-session", "-d", "-s", "slower", other)
	r, err = s.RunCommand(ctx, RunArgs{Pane: PaneRef{PaneID: paneOf(t, s, "slower")}, Command: "echo never", Timeout: time.Hour, Background: true})
	if err != nil || !r.AwaitingPrompt {
		t.Fatalf("got %+v %v, want the command kept for the first prompt", r, err)
	}
	// One kept when the server closes (at the test's cleanup) is let go:
	// the close does not wait for the prompt.
	other2, _, _ := fixtures.SlowShell(t, "bash")
	fx.Tmux(t, "new-session", "-d", "-s", "slowest", other2)
	if r, err := s.RunCommand(ctx, RunArgs{Pane: PaneRef{PaneID: paneOf(t, s, "slowest")}, Command: "echo never", Timeout: time.Hour, Background: true}); err != nil || !r.AwaitingPrompt {
		t.Fatalf("got %+v %v, want the command kept for the first prompt", r, err)
	}
	if ended, err := s.InterruptCommand(ctx, r.CommandID, time.Second); !ended || err != nil {
		t.Fatalf("interrupting a kept command: ended %v, %v", ended, err)
	}
	if _, err := s.WaitForCommand(ctx, CommandWaitArgs{ID: r.CommandID, Timeout: time.Second}); !errors.As(err, &e) || e.Kind != KindCancelled {
		t.Fatalf("a kept command stopped: got %v, want cancelled", err)
	}
}
