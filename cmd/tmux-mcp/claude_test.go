package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/fixtures/agentcli"
)

// TestClaudeCodeMCPList configures the real Claude Code (pinned in
// test/agents) for tmux-mcp --http the two ways the README and docs/http.md show, `claude
// mcp add --transport http ... --header` and `claude mcp add-json`, and
// checks that `claude mcp list`, which connects to each server, reports
// them connected, and a wrong token not. It runs offline, in a HOME of its
// own. Without Claude Code installed it skips, except under CI=true.
func TestClaudeCodeMCPList(t *testing.T) {
	skipOnLeanLane(t)
	if testing.Short() {
		t.Skip("-short")
	}
	if os.Getenv(fixtures.EnvTmux) != "" {
		// What it checks is the HTTP face, the same on every tmux release:
		// make test runs it once; the version matrix saves the time.
		t.Skipf("%s is set (the version matrix): run by make test only", fixtures.EnvTmux)
	}
	modules, err := agentcli.ModulesDir()
	if err != nil {
		t.Fatal(err)
	}
	arch := runtime.GOARCH
	if arch == "amd64" {
		arch = "x64"
	}
	// The package's bin is a stub until a postinstall script copies the
	// native binary over it; the platform package holds that binary.
	claude := filepath.Join(modules, "@anthropic-ai", "claude-code-"+runtime.GOOS+"-"+arch, "claude")
	if !fileExists(claude) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: %s is missing: run npm ci --prefix test/agents --ignore-scripts", claude)
		}
		t.Skipf("%s is missing: run npm ci --prefix test/agents --ignore-scripts", claude)
	}
	fx := fixtures.NewServer(t)
	s := startHTTP(t, fx, "--auth-tokens", tokenFile(t, tokAlice+" name=claude-code"))
	home := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, claude, args...)
		cmd.Dir = home
		cmd.Env = append(childEnv(nil), "HOME="+home, "TMPDIR="+home, "DISABLE_AUTOUPDATER=1",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1")
		cmd.WaitDelay = 5 * time.Second
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("claude %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("mcp", "add", "--transport", "http", "tmux", s.url, "--header", "Authorization: Bearer "+tokAlice)
	run("mcp", "add-json", "tmux-json", `{"type":"http","url":"`+s.url+`","headers":{"Authorization":"Bearer `+tokAlice+`"}}`)
	run("mcp", "add", "--transport", "http", "tmux-wrong", s.url, "--header", "Authorization: Bearer "+tokBob)
	out := run("mcp", "list")
	for name, want := range map[string]bool{"tmux": true, "tmux-json": true, "tmux-wrong": false} {
		var line string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, name+": ") {
				line = l
			}
		}
		if line == "" || strings.Contains(line, "✔ Connected") != want {
			t.Errorf("claude mcp list, %s: got %q, want connected %v\n%s", name, line, want, out)
		}
	}
	t.Logf("claude mcp list:\n%s", out)
}
