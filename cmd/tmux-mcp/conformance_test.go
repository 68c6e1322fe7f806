package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// conformanceDir holds the official MCP conformance suite and the Node 22
// it needs, pinned in its package-lock.json (npm ci --prefix
// test/conformance; make test and .ci/run do it).
var conformanceDir = filepath.Join("..", "..", "test", "conformance")

// conformanceScenarios are the suite's server scenarios that apply to a
// server with this catalogue (no completion, sampling, elicitation, or
// tools made for the suite). server-sse-polling checks resumable SSE
// streams, which need an event store: tmux-mcp keeps none on purpose, as a
// client that drops its connection cancels its call instead. It passes
// with two warnings saying so (no priming event, no retry field).
var conformanceScenarios = []string{
	"server-initialize", "ping", "logging-set-level", "tools-list", "resources-list",
	"prompts-list", "server-sse-multiple-streams", "server-sse-polling", "dns-rebinding-protection",
}

// TestConformance runs @modelcontextprotocol/conformance in server mode
// against tmux-mcp --http, one scenario at a time. The suite sends no
// Authorization header, so the server runs with --no-auth on loopback.
// Without the suite installed it skips, except under CI=true.
func TestConformance(t *testing.T) {
	skipOnLeanLane(t)
	if testing.Short() {
		t.Skip("-short")
	}
	if os.Getenv(fixtures.EnvTmux) != "" {
		// What it checks is the HTTP face, the same on every tmux release:
		// make test runs it once; the version matrix saves the time.
		t.Skipf("%s is set (the version matrix): run by make test only", fixtures.EnvTmux)
	}
	node := filepath.Join(conformanceDir, "node_modules", ".bin", "node")
	suite := filepath.Join(conformanceDir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	if !fileExists(node) || !fileExists(suite) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: %s/node_modules is missing: run npm ci --prefix test/conformance", conformanceDir)
		}
		t.Skipf("%s/node_modules is missing: run npm ci --prefix test/conformance", conformanceDir)
	}
	fx := fixtures.NewServer(t)
	s := startHTTP(t, fx, "--no-auth")
	passed := regexp.MustCompile(`Passed: (\d+)/(\d+), 0 failed`)
	for _, sc := range conformanceScenarios {
		t.Run(sc, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, suite, "server", "--url", s.url, "--scenario", sc)
			cmd.Env = append(os.Environ(), "NO_COLOR=1")
			cmd.WaitDelay = 5 * time.Second
			out, err := cmd.CombinedOutput()
			m := passed.FindSubmatch(out)
			if err != nil || m == nil || string(m[1]) != string(m[2]) {
				t.Fatalf("conformance %s: %v\n%s", sc, err, out)
			}
			t.Logf("%s", m[0])
		})
	}
}
