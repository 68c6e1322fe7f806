package main

import (
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// controlClients lists the control-mode clients attached to fx's server,
// through a separate tmux process, as "pid tty" lines.
func controlClients(t *testing.T, fx *fixtures.Server) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(fx.Tmux(t, "list-clients", "-F", "#{client_control_mode} #{client_pid} #{client_tty}"), "\n") {
		if c, ok := strings.CutPrefix(line, "1 "); ok {
			out = append(out, c)
		}
	}
	return out
}

// TestSIGKILLLeavesNoClient: a tmux-mcp that is killed outright, with no
// chance to detach anything, still leaves no control client behind. Its
// clients' terminals (or stdin pipes) are held by it alone, so the kernel
// hangs them up when it dies; a descriptor inherited by any other child,
// its own client or a later one, would keep them attached for ever.
func TestSIGKILLLeavesNoClient(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
	}{{"pty", nil}, {"pipes", []string{"--pipes"}}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fx := fixtures.NewServer(t)
			fx.NewSession(t, "borrowed")
			c := startClient(t, fx, "2025-11-25", tc.args)

			// A few sessions, each printing all the time, and its output
			// watched: the main client is attached to one of them, a watcher
			// client to each other one. Output still flowing at the kill is
			// what can keep a client of a dead reader waiting to write it.
			names := []string{"one", "two", "three"}
			for _, name := range names {
				c.ok(t, "create_session", map[string]any{"session_name": name}, nil)
			}
			for _, name := range append(names, "borrowed") {
				c.ok(t, "capture_since", map[string]any{"session_name": name}, nil)
				c.ok(t, "send_keys", map[string]any{"session_name": name, "keys": "while :; do echo tick; sleep 0.01; done", "literal": true}, nil)
				var w struct {
					Found bool `json:"found"`
				}
				c.ok(t, "wait_for_text", map[string]any{"session_name": name, "patterns": []string{"^tick$"}, "regex": true, "timeout": 20}, &w)
				if !w.Found {
					t.Fatalf("wait_for_text tick in %s: not found in 20 s", name)
				}
			}
			before := controlClients(t, fx)
			if len(before) < len(names)+1 {
				t.Fatalf("control clients before the kill: got %q, want at least %d (one per session)", before, len(names)+1)
			}

			if err := c.cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			killed := time.Now()
			// The SDK's transport reaps the process when the session closes.
			c.closed = true
			_ = c.cs.Close() // it was killed: the error says so

			// Hung up clients leave within milliseconds; 20 s only catches
			// clients that will never leave.
			deadline := time.Now().Add(20 * time.Second)
			for {
				left := controlClients(t, fx)
				if len(left) == 0 {
					t.Logf("%d control clients gone %v after SIGKILL", len(before), time.Since(killed).Round(time.Millisecond))
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("20 s after SIGKILL of tmux-mcp, %d of its %d control clients are still attached: %q", len(left), len(before), left)
				}
				time.Sleep(20 * time.Millisecond) // bounded retry of list-clients
			}
		})
	}
}
