package main

import (
	"context"
	"net"
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

// TestReadmeHTTPLines runs the README's lines for a server over HTTP as a
// user would paste them, in a HOME of their own with neither
// XDG_RUNTIME_DIR nor XDG_STATE_HOME set: the curl initialize, and, with
// Claude Code installed (test/agents), the `claude mcp add ... --header`
// line, which `claude mcp list` must then report connected. Only the port
// is changed.
func TestReadmeHTTPLines(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	if os.Getenv(fixtures.EnvTmux) != "" {
		t.Skipf("%s is set (the version matrix): the HTTP face is the same on every release", fixtures.EnvTmux)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	curlLines := shBlock(t, string(readme), "curl -sS http://127.0.0.1:7777/mcp")
	claudeLines := shBlock(t, string(readme), "claude mcp add --transport http tmux")

	fx := fixtures.NewServer(t)
	home := t.TempDir()
	var env []string
	for _, kv := range childEnv(fx) {
		if name, _, _ := strings.Cut(kv, "="); name != "XDG_RUNTIME_DIR" && name != "XDG_STATE_HOME" && name != "HOME" {
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+home)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s := startHTTPEnv(t, fx, env, "--http", addr)
	port := strings.NewReplacer("127.0.0.1:7777", addr, "127.0.0.1-7777", strings.ReplaceAll(addr, ":", "-"))
	sh := func(script string, extra ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", "-c", "set -e\n"+port.Replace(script))
		cmd.Dir = home
		cmd.Env = append(env, extra...)
		cmd.WaitDelay = 5 * time.Second
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s\nserver:\n%s", port.Replace(script), err, out, s.stderr)
		}
		return string(out)
	}

	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true: curl is not installed (.ci/run installs it)")
		}
		t.Log("curl is not installed: the curl line is not run")
	} else if out := sh(curlLines); !strings.Contains(out, `"serverInfo":{"name":"tmux-mcp"`) {
		t.Fatalf("the README's curl line answered no initialize result:\n%s", out)
	}

	modules, err := agentcli.ModulesDir()
	if err != nil {
		t.Fatal(err)
	}
	arch := runtime.GOARCH
	if arch == "amd64" {
		arch = "x64"
	}
	claude := filepath.Join(modules, "@anthropic-ai", "claude-code-"+runtime.GOOS+"-"+arch, "claude")
	if !fileExists(claude) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: %s is missing: run npm ci --prefix test/agents --ignore-scripts", claude)
		}
		t.Skipf("%s is missing: the claude line is not run", claude)
	}
	bin := t.TempDir()
	if err := os.Symlink(claude, filepath.Join(bin, "claude")); err != nil {
		t.Fatal(err)
	}
	quiet := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "TMPDIR=" + home,
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1"}
	sh(claudeLines, quiet...)
	out := sh("claude mcp list", quiet...)
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "tmux: ") {
			if !strings.Contains(l, "✔ Connected") {
				t.Fatalf("after the README's claude line, claude mcp list says %q\n%s", l, out)
			}
			return
		}
	}
	t.Fatalf("claude mcp list has no tmux server after the README's line:\n%s", out)
}

// shBlock returns the lines of the README's sh code block that holds
// marker, from the line with marker to the last line of its command (lines
// ending in a backslash go on); a line before it that sets a variable the
// command uses comes with it.
func shBlock(t *testing.T, doc, marker string) string {
	t.Helper()
	i := strings.Index(doc, marker)
	if i < 0 {
		t.Fatalf("the README holds no %q", marker)
	}
	start := strings.LastIndex(doc[:i], "```sh\n")
	end := strings.Index(doc[i:], "\n```")
	if start < 0 || end < 0 {
		t.Fatalf("%q is in no sh block of the README", marker)
	}
	var keep []string
	for _, l := range strings.Split(doc[start+len("```sh\n"):i+end], "\n") {
		if strings.Contains(l, "=$(") || len(keep) > 0 || strings.Contains(l, marker) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
