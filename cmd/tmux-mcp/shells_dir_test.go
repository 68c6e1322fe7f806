package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// A session that tmux-mcp creates on an empty socket starts where the
// tmux-mcp under test runs: the fixture's temporary directory, never this
// package's, so a stray command of a test's shell writes nothing here.
func TestTestShellsStartOutsideThePackage(t *testing.T) {
	fx := fixtures.NewServer(t)
	c := startClient(t, fx, "", []string{"--safety", "destructive"})
	var made struct {
		PaneID string `json:"active_pane_id"`
	}
	c.ok(t, "create_session", map[string]any{"session_name": "first"}, &made)
	// tmux reads the path off the pane's foreground process group, which
	// a pane just made may not have yet: the path is empty until then.
	var cwd string
	fixtures.WaitFor(t, 20*time.Second, "the pane's current path", func() bool {
		cwd = strings.TrimSpace(fx.Tmux(t, "display-message", "-p", "-t", made.PaneID, "#{pane_current_path}"))
		return cwd != ""
	})
	got, _ := filepath.EvalSymlinks(cwd)
	want, _ := filepath.EvalSymlinks(fx.Dir)
	if got != want {
		t.Errorf("the session starts in %s, want %s", got, want)
	}
}
