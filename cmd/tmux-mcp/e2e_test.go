package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// e2eDir holds the TypeScript SDK client tests, relative to this package.
var e2eDir = filepath.Join("..", "..", "test", "e2e")

// TestNodeE2E runs test/e2e with node --test against the built binary: the
// official TypeScript SDK client, as most MCP clients are built on it. It
// needs `npm ci --prefix test/e2e` (make test and .ci/run do it); without
// node_modules it skips, except under CI=true, where it fails.
func TestNodeE2E(t *testing.T) {
	skipOnLeanLane(t)
	t.Parallel()
	if testing.Short() {
		t.Skip("-short")
	}
	if !fileExists(filepath.Join(e2eDir, "package.json")) {
		t.Fatalf("%s/package.json is missing", e2eDir)
	}
	ci := os.Getenv("CI") == "true"
	missing := func(format string, args ...any) {
		t.Helper()
		if ci {
			t.Fatalf("CI=true: "+format, args...)
		}
		t.Skipf(format, args...)
	}
	if !fileExists(filepath.Join(e2eDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")) {
		missing("%s/node_modules is missing: run npm ci --prefix test/e2e", e2eDir)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not installed: %v", err)
	}
	tmux := os.Getenv(fixtures.EnvTmux)
	if tmux == "" {
		tmux = "tmux"
	}
	if tmux, err = exec.LookPath(tmux); err != nil {
		if os.Getenv(fixtures.EnvTmux) != "" {
			t.Fatalf("%s: %v", fixtures.EnvTmux, err)
		}
		t.Skipf("tmux not installed: %v", err)
	}

	bin, err := filepath.Abs(binary(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--test", "stdio.test.mjs", "http.test.mjs")
	cmd.Dir = e2eDir
	cmd.Env = append(childEnv(nil), "TMUX_MCP_BIN="+bin, fixtures.EnvTmux+"="+tmux)
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("node --test did not finish within 3 minutes:\n%s", out)
	}
	if err != nil {
		t.Fatalf("node --test %s: %v\n%s", e2eDir, err, out)
	}
	t.Logf("node --test:\n%s", out)
}
