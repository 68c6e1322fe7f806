package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/fixtures/agentapi"
	"github.com/tmux-mcp/tmux-mcp/fixtures/agentcli"
)

// TestCodexEnvVars starts the real Codex (test/agents) in a tmux pane with the
// README's configuration and records the environment of the tmux-mcp it
// starts: with env_vars, TMUX, TMUX_PANE and LIBTMUX_SOCKET reach it; without
// the line, Codex passes none of them, and inside tmux the guard of the own
// pane would be off and the configured socket ignored.
func TestCodexEnvVars(t *testing.T) {
	skipOnLeanLane(t)
	t.Parallel()
	if testing.Short() {
		t.Skip("-short")
	}
	for _, withVars := range []bool{true, false} {
		t.Run(fmt.Sprintf("env_vars=%v", withVars), func(t *testing.T) {
			t.Parallel()
			api := agentapi.New(t, nil)
			env := agentcli.Prepare(t, agentcli.Codex, api, nil)

			dir := t.TempDir()
			record := filepath.Join(dir, "env")
			wrapper := filepath.Join(dir, "tmux-mcp")
			script := fmt.Sprintf("#!/bin/sh\nenv >%[1]s.part && mv %[1]s.part %[1]s\nexec %[2]s \"$@\"\n", record, binary(t))
			if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			snippet := fmt.Sprintf("\n[mcp_servers.tmux]\ncommand = %q\n", wrapper)
			if withVars {
				snippet += `env_vars = ["TMUX", "TMUX_PANE", "LIBTMUX_SOCKET"]` + "\n"
			}
			appendFile(t, filepath.Join(env.Home, ".codex", "config.toml"), snippet)
			// Codex itself runs with LIBTMUX_SOCKET set, as a user's shell would.
			start, err := os.ReadFile(env.Script)
			if err != nil {
				t.Fatal(err)
			}
			withSocket := strings.Replace(string(start), "exec env -i ", "exec env -i LIBTMUX_SOCKET=probe ", 1)
			if withSocket == string(start) {
				t.Fatalf("the start script has no env -i line:\n%s", start)
			}
			if err := os.WriteFile(env.Script, []byte(withSocket), 0o755); err != nil {
				t.Fatal(err)
			}

			fx := fixtures.NewServer(t)
			fx.NewSession(t, "codex", "sh", env.Script)
			pane := fx.Tmux(t, "display-message", "-p", "-t", "codex", "#{pane_id}")
			// Codex starts its MCP servers as it starts; no event of its reaches
			// this test.
			fixtures.WaitFor(t, 120*time.Second, "Codex to start tmux-mcp", func() bool { return fileExists(record) })
			b, err := os.ReadFile(record)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, line := range strings.Split(string(b), "\n") {
				if k, v, ok := strings.Cut(line, "="); ok {
					got[k] = v
				}
			}
			want := map[string]string{
				"TMUX":           "", // the pane's: socket path, pid, session
				"TMUX_PANE":      pane,
				"LIBTMUX_SOCKET": "probe",
			}
			for k, v := range want {
				val, ok := got[k]
				switch {
				case withVars && !ok:
					t.Errorf("with env_vars, %s did not reach tmux-mcp", k)
				case withVars && v != "" && val != v:
					t.Errorf("with env_vars, %s=%q reached tmux-mcp, want %q", k, val, v)
				case withVars && k == "TMUX" && !strings.HasPrefix(val, fx.SocketPath()+","):
					t.Errorf("with env_vars, TMUX=%q, want the pane's server %s", val, fx.SocketPath())
				case !withVars && ok:
					t.Errorf("without env_vars, %s=%q reached tmux-mcp: the README's reason for the line is gone", k, val)
				}
			}
		})
	}
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestClientSnippets runs the README's commands for Claude Code and Gemini CLI
// (from test/agents) with tmux-mcp on PATH, in a HOME of their own, and checks
// that each client's list says the server connected: both start tmux-mcp and
// complete the MCP handshake with it.
func TestClientSnippets(t *testing.T) {
	skipOnLeanLane(t)
	t.Parallel()
	if testing.Short() {
		t.Skip("-short")
	}
	modules, err := agentcli.ModulesDir()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := os.Symlink(binary(t), filepath.Join(bin, "tmux-mcp")); err != nil {
		t.Fatal(err)
	}
	arch := runtime.GOARCH
	if arch == "amd64" {
		arch = "x64"
	}
	for _, tc := range []struct {
		name  string
		argv  []string // the CLI
		setup func(home string)
		add   []string
		want  string // the line of its list for the server, connected
	}{
		{"claude", []string{filepath.Join(modules, "@anthropic-ai", "claude-code-"+runtime.GOOS+"-"+arch, "claude")}, nil,
			[]string{"mcp", "add", "--scope", "user", "tmux", "--", "tmux-mcp"}, "tmux: tmux-mcp  - ✔ Connected"},
		{"gemini", []string{"node", filepath.Join(modules, "@google", "gemini-cli", "bundle", "gemini.js")},
			func(home string) {
				// gemini mcp list shows servers disabled in a folder not trusted.
				if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
					t.Fatal(err)
				}
				trusted := fmt.Sprintf("{%q: \"TRUST_FOLDER\"}\n", home)
				if err := os.WriteFile(filepath.Join(home, ".gemini", "trustedFolders.json"), []byte(trusted), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			[]string{"mcp", "add", "--scope", "user", "tmux", "tmux-mcp"}, "✓ tmux: tmux-mcp  (stdio) - Connected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if !fileExists(tc.argv[len(tc.argv)-1]) {
				if os.Getenv("CI") == "true" {
					t.Fatalf("CI=true: %s is missing: run npm ci --prefix test/agents --ignore-scripts", tc.argv[len(tc.argv)-1])
				}
				t.Skipf("%s is missing: run npm ci --prefix test/agents --ignore-scripts", tc.argv[len(tc.argv)-1])
			}
			home := t.TempDir()
			if tc.setup != nil {
				tc.setup(home)
			}
			run := func(args ...string) string {
				t.Helper()
				ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
				defer cancel()
				cmd := exec.CommandContext(ctx, tc.argv[0], append(tc.argv[1:], args...)...)
				cmd.Dir = home
				cmd.Env = append(childEnv(nil), "HOME="+home, "TMPDIR="+home, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
					"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1")
				cmd.WaitDelay = 5 * time.Second
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s %s: %v\n%s", tc.name, strings.Join(args, " "), err, out)
				}
				return string(out)
			}
			run(tc.add...)
			out := run("mcp", "list")
			if !strings.Contains(out, tc.want) {
				t.Errorf("%s mcp list: got\n%s\nwant a line %q", tc.name, out, tc.want)
			}
		})
	}
}
