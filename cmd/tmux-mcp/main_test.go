package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/internal/stdio"
	"github.com/tmux-mcp/tmux-mcp/mcp"
)

// protocolVersions are the versions the stdio tests speak: what the TS SDK
// and most clients negotiate, the one before, and the Go client's default.
var protocolVersions = []string{"2025-06-18", "2025-11-25", "2026-07-28"}

type sessionInfo struct {
	SessionID   string `json:"session_id"`
	SessionName string `json:"session_name"`
	Generation  string `json:"generation"`
}

// tierCount returns how many catalogue tools a tier exposes.
func tierCount(tier mcp.Tier) int {
	n := 0
	for _, t := range mcp.Catalogue() {
		if t.Tier <= tier {
			n++
		}
	}
	return n
}

func TestStdio(t *testing.T) {
	t.Parallel()
	for _, v := range protocolVersions {
		t.Run(v, func(t *testing.T) {
			fx := fixtures.NewServer(t)
			c := startClient(t, fx, v, nil)

			init := c.cs.InitializeResult()
			if init == nil || init.ServerInfo == nil || init.ServerInfo.Name != "tmux-mcp" || init.ServerInfo.Version == "" {
				t.Fatalf("initialize: got %+v, want server tmux-mcp with a version", init)
			}

			// tools/list: the default tier, mutating, by tier.
			byTier := map[mcp.Tier]int{}
			tiers := map[string]mcp.Tier{}
			for _, ti := range mcp.Catalogue() {
				tiers[ti.Name] = ti.Tier
			}
			for tool, err := range c.cs.Tools(context.Background(), nil) {
				if err != nil {
					t.Fatalf("tools/list: %v", err)
				}
				tier, ok := tiers[tool.Name]
				if !ok {
					t.Errorf("tools/list: %s is not in the catalogue", tool.Name)
				}
				byTier[tier]++
			}
			if byTier[mcp.TierReadonly] != tierCount(mcp.TierReadonly) ||
				byTier[mcp.TierMutating] != tierCount(mcp.TierMutating)-tierCount(mcp.TierReadonly) ||
				byTier[mcp.TierDestructive] != 0 {
				t.Errorf("tools/list by tier: got %v, want readonly %d, mutating %d, destructive 0", byTier,
					tierCount(mcp.TierReadonly), tierCount(mcp.TierMutating)-tierCount(mcp.TierReadonly))
			}

			// create_session, then list_sessions, and tmux agrees.
			var made sessionInfo
			c.ok(t, "create_session", map[string]any{"session_name": "made"}, &made)
			if !strings.HasPrefix(made.SessionID, "$") || made.Generation == "" {
				t.Fatalf("create_session: got %+v, want a $id and a generation", made)
			}
			if got := sessionIDs(t, fx); !slices.Contains(got, made.SessionID) {
				t.Fatalf("tmux list-sessions: got %v, want %s among them", got, made.SessionID)
			}
			var list struct{ Result []sessionInfo }
			c.ok(t, "list_sessions", nil, &list)
			if !slices.ContainsFunc(list.Result, func(s sessionInfo) bool {
				return s.SessionID == made.SessionID && s.SessionName == "made"
			}) {
				t.Fatalf("list_sessions: got %+v, want %s (made)", list.Result, made.SessionID)
			}

			// Tool errors come back as the envelope: tmux's own refusal ...
			borrowed := fx.NewSession(t, "borrowed")
			env := c.fail(t, "teardown_session", map[string]any{"sessionId": borrowed, "generation": made.Generation})
			if env.Code != "ownership_required" || env.Effects != "none" || env.Retryable {
				t.Errorf("teardown_session of a borrowed session: got %+v, want ownership_required, effects none, not retryable", env)
			}
			// ... and a schema violation the SDK would have caught.
			env = c.fail(t, "list_sessions", map[string]any{"bogus": true})
			if env.Code != "invalid_arguments" || env.Effects != "none" {
				t.Errorf("unknown argument: got %+v, want invalid_arguments, effects none", env)
			}

			if err := c.close(); err != nil {
				t.Fatalf("closing stdin: got %v, want exit 0\nstderr:\n%s", err, c.stderr)
			}
			// Without --teardown-on-exit, owned sessions outlive the process.
			if got := sessionIDs(t, fx); !slices.Contains(got, made.SessionID) || !slices.Contains(got, borrowed) {
				t.Errorf("after exit: sessions %v, want %s and %s still there", got, made.SessionID, borrowed)
			}
			if !strings.Contains(c.stderr.String(), "tool call") {
				t.Errorf("stderr has no audit line:\n%s", c.stderr)
			}
		})
	}
}

func TestTeardownOnExit(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewServer(t)
	borrowed := fx.NewSession(t, "borrowed")
	c := startClient(t, fx, "2025-11-25", []string{"--teardown-on-exit"})
	var owned []string
	for _, name := range []string{"own1", "own2"} {
		var s sessionInfo
		c.ok(t, "create_session", map[string]any{"session_name": name}, &s)
		owned = append(owned, s.SessionID)
	}
	// Torn down already: teardown on exit must not trip over it.
	var gone sessionInfo
	c.ok(t, "create_session", map[string]any{"session_name": "own3"}, &gone)
	c.ok(t, "teardown_session", map[string]any{"sessionId": gone.SessionID, "generation": gone.Generation}, nil)

	if got := sessionIDs(t, fx); len(got) != 3 {
		t.Fatalf("before exit: sessions %v, want %s and %v", got, borrowed, owned)
	}
	if err := c.close(); err != nil {
		t.Fatalf("closing stdin: got %v, want exit 0\nstderr:\n%s", err, c.stderr)
	}
	if got := sessionIDs(t, fx); !slices.Equal(got, []string{borrowed}) {
		t.Fatalf("after exit with --teardown-on-exit: sessions %v, want only the borrowed %s\nstderr:\n%s", got, borrowed, c.stderr)
	}
}

// --pipes reaches the control client: by default it has a pty for its
// terminal, with --pipes none.
func TestPipesFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		args    []string
		wantTTY bool
	}{{"pty", nil, true}, {"pipes", []string{"--pipes"}, false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fx := fixtures.NewServer(t)
			fx.NewSession(t, "s")
			c := startClient(t, fx, "2025-11-25", tc.args)
			c.ok(t, "list_panes", map[string]any{}, nil) // reads through the control client
			var ttys []string
			for _, line := range strings.Split(fx.Tmux(t, "list-clients", "-F", "#{client_control_mode}:#{client_tty}"), "\n") {
				if tty, ok := strings.CutPrefix(line, "1:"); ok {
					ttys = append(ttys, tty)
				}
			}
			if len(ttys) != 1 || strings.HasPrefix(ttys[0], "/dev/") != tc.wantTTY {
				t.Errorf("control clients' ttys %q; want one, with a terminal: %v", ttys, tc.wantTTY)
			}
		})
	}
}

func TestHelpAndVersionTouchNoTmux(t *testing.T) {
	t.Parallel()
	// A tmux that leaves a mark when run: neither flag may run it, and
	// neither may the tools subcommand.
	dir := t.TempDir()
	mark := filepath.Join(dir, "ran")
	fake := filepath.Join(dir, "tmux")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\ntouch '"+mark+"'\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(childEnv(nil), "LIBTMUX_TMUX_BIN="+fake, "LIBTMUX_SOCKET=does-not-exist")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--help"}, "Usage:"},
		{[]string{"-h"}, "Usage:"},
		{[]string{"--version"}, "tmux-mcp "},
		{[]string{"--safety", "readonly", "tools"}, "list_panes"},
		{[]string{"--toolsets", "inspect,teardown", "tools"}, "\nkill_session                  destructive  teardown  "},
		{[]string{"tools", "set_option"}, "  global_ (boolean, default false)\n      Global table (-g).\n"},
		{[]string{"tools", "send_keys", "--toolsets", "inspect"}, "tier mutating, toolset execute; hints: open-world\n  Not enabled by this selection"},
		{[]string{"tools", "call_read_tools_batch"}, "  operations (array of object, required)"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, stderr, code := runCmd(t, env, tc.args...)
			if code != 0 || !strings.Contains(stdout, tc.want) {
				t.Fatalf("got exit %d, stdout %q, stderr %q; want exit 0 and %q", code, stdout, stderr, tc.want)
			}
			if fileExists(mark) {
				t.Fatalf("tmux was run")
			}
		})
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	env := childEnv(nil, "LIBTMUX_SOCKET=does-not-exist")
	for _, tc := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"unknown tool", nil, []string{"--tool", "no_such_tool"}, "no_such_tool"},
		{"repeated tool", nil, []string{"--tool", "list_panes", "--tool", "list_panes"}, "list_panes"},
		{"unknown flag", nil, []string{"--no-such-flag"}, "no-such-flag"},
		{"missing flag value", nil, []string{"--socket"}, "socket"},
		{"bad suppress history", []string{"LIBTMUX_SUPPRESS_HISTORY=yes"}, nil, "LIBTMUX_SUPPRESS_HISTORY"},
		{"unknown command", nil, []string{"serve"}, "serve"},
		{"tools with arguments", nil, []string{"tools", "extra"}, "extra"},
		{"call without tool", nil, []string{"call"}, "tool"},
		{"call unknown tool", nil, []string{"call", "no_such_tool"}, "no_such_tool"},
		{"call bad pair", nil, []string{"call", "list_sessions", "novalue"}, "novalue"},
		{"call repeated key", nil, []string{"call", "list_sessions", "a=1", "a=2"}, "twice"},
		{"call a near name", nil, []string{"call", "send_key"}, `unknown tool "send_key"; did you mean send_keys?`},
		{"tools a near name", nil, []string{"tools", "kill_sesion"}, `unknown tool "kill_sesion"; did you mean kill_session?`},
		{"tools two names", nil, []string{"tools", "send_keys", "list_panes"}, "at most one tool name"},
		{"tier and toolsets", []string{"LIBTMUX_SAFETY=readonly", "LIBTMUX_TOOLSETS=inspect"}, nil, "both choose the tools; set one of them"},
		{"tier and toolsets flags", nil, []string{"--safety", "readonly", "--toolsets", "inspect"}, "both choose the tools; set one of them"},
		{"bad safety flag lists the tiers", nil, []string{"--safety", "Destructive"}, `--safety "Destructive": want readonly, mutating or destructive`},
		{"bad scope flag lists the scopes", nil, []string{"--scope", "everything"}, `--scope "everything": want all, owned-write, owned or tagged`},
		{"unknown toolset", nil, []string{"--toolsets", "inspekt"}, `did you mean "inspect"?`},
		{"unknown excluded tool", []string{"LIBTMUX_EXCLUDE_TOOLS=kill_sever"}, nil, `did you mean "kill_server"?`},
		{"unknown tool in LIBTMUX_TOOLS", []string{"LIBTMUX_TOOLS=list_panes,snapshot"}, nil, `unknown tool "snapshot" (did you mean "snapshot_pane"?)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runCmd(t, append(env, tc.env...), tc.args...)
			if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
				t.Fatalf("got exit %d, stdout %q, stderr %q; want exit 2, no stdout, %q on stderr", code, stdout, stderr, tc.want)
			}
		})
	}
}

func TestSafety(t *testing.T) {
	t.Parallel()
	readonly := tierCount(mcp.TierReadonly)
	for _, tc := range []struct {
		name  string
		env   []string
		args  []string
		tools int
		warn  bool
	}{
		{"bad env fails closed", []string{"LIBTMUX_SAFETY=everything"}, nil, readonly, true},
		{"flag beats env", []string{"LIBTMUX_SAFETY=destructive"}, []string{"--safety", "readonly"}, readonly, false},
		{"env destructive", []string{"LIBTMUX_SAFETY=destructive"}, nil, len(mcp.Catalogue()), false},
		{"tool selection", []string{"LIBTMUX_SAFETY=readonly"}, []string{"--tool", "create_session", "--tool", "list_panes"}, 2, false},
		{"toolsets", []string{"LIBTMUX_TOOLSETS=inspect", "LIBTMUX_EXCLUDE_TOOLS=list_servers,get_server_info"}, nil, readonly - 2, false},
		{"toolsets flag beats an inherited tier", []string{"LIBTMUX_SAFETY=destructive"}, []string{"--toolsets", "inspect"}, readonly, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := fixtures.NewServer(t)
			c := startClient(t, fx, "2025-11-25", tc.args, tc.env...)
			var names []string
			for tool, err := range c.cs.Tools(context.Background(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, tool.Name)
			}
			if len(names) != tc.tools {
				t.Errorf("tools/list: got %d tools %v, want %d", len(names), names, tc.tools)
			}
			if !slices.Contains(names, "kill_server") {
				env := c.fail(t, "kill_server", nil)
				// The message names what is in force and what would allow it.
				if env.Code != "tool_denied" || env.Effects != "none" || !strings.Contains(env.Message, "kill_server is in toolset teardown and tier destructive. To allow it, ") ||
					!strings.Contains(env.Message, "--safety destructive") && !strings.Contains(env.Message, "--tool kill_server") && !strings.Contains(env.Message, "--toolsets inspect,teardown") {
					t.Errorf("kill_server off-tier: got %+v, want tool_denied, effects none, naming the tier and the flag", env)
				}
			}
			if err := c.close(); err != nil {
				t.Fatalf("exit: %v", err)
			}
			if warned := strings.Contains(c.stderr.String(), "invalid safety tier"); warned != tc.warn {
				t.Errorf("warning on stderr: got %v, want %v\nstderr:\n%s", warned, tc.warn, c.stderr)
			}
			if tc.warn && sessionIDs(t, fx) != nil {
				t.Errorf("the readonly server started tmux")
			}
		})
	}
}

func TestMalformedLinesKeepTheSession(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewServer(t)
	r := startRaw(t, fx)
	r.send(t, initialize)
	if got := parseResponse(t, r.next(t, 30*time.Second)); got.ID != "init" || got.Error != nil {
		t.Fatalf("initialize: got %+v", got)
	}
	r.send(t, initialized)
	for _, tc := range []struct {
		line string
		code int
		id   any
	}{
		{"this is not json", -32700, nil},
		{`{"jsonrpc":"2.0","id":1,"method":`, -32700, nil},
		{"[]", -32600, nil},
		{`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`, -32600, nil},
		{"42", -32600, nil},
		{`{"jsonrpc":"2.0","id":9,"method":"ping"} trailing`, -32700, nil},
		{`{"jsonrpc":"2.0","id":9,"method":"ping"}{"jsonrpc":"2.0","id":10,"method":"ping"}`, -32700, nil},
		{`[{"jsonrpc":"2.0","id":9,"method":"ping"}`, -32700, nil},
		{"\"a string\"", -32600, nil},
		{"null", -32600, nil},
		{`{"jsonrpc":"1.0","id":3,"method":"ping"}`, -32600, 3.0},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, -32600, nil},
		{`{"jsonrpc":"2.0","id":4,"method":"no/such/method"}`, -32601, 4.0},
	} {
		r.send(t, tc.line)
		got := parseResponse(t, r.next(t, 30*time.Second))
		if got.Error == nil || got.Error.Code != tc.code || got.ID != tc.id {
			t.Errorf("%s: got %+v, want error %d for id %v", tc.line, got, tc.code, tc.id)
		}
	}
	// Blank lines are not messages and get no answer; the session still
	// works after everything above.
	r.send(t, "", "   ", `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`)
	if got := parseResponse(t, r.next(t, 30*time.Second)); got.ID != 5.0 || got.Error != nil {
		t.Fatalf("tools/list after malformed lines: got %+v", got)
	}
	r.stdin.Close()
	if code, rest := r.wait(t, 30*time.Second); code != 0 || len(rest) != 0 {
		t.Fatalf("at EOF: exit %d, extra output %q; want exit 0, none", code, rest)
	}
}

// TestEOFAnswersCallsInFlight is `printf ... | tmux-mcp`: stdin ends right
// after the requests, and each must still be answered before the exit.
func TestEOFAnswersCallsInFlight(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "main")
	r := startRaw(t, fx)
	r.send(t, initialize, initialized,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_sessions","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_sessions","arguments":{"bogus":1}}}`,
		// Outlives the grace period: cancelled, and answered as such.
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"wait_for_text","arguments":{"session_name":"main","patterns":["never printed"],"timeout":60}}}`,
	)
	start := time.Now()
	r.stdin.Close()
	code, lines := r.wait(t, 30*time.Second)
	if code != 0 {
		t.Errorf("exit %d, want 0\nstderr:\n%s", code, r.stderr)
	}
	// A generous bound, to catch a hang (the wait in flight would run 60 s):
	// on a loaded machine the exit took 5.5 to 8.8 s against 3.5 s of grace.
	if d := time.Since(start); d > stdio.DrainTime+15*time.Second {
		t.Errorf("exit took %v after EOF", d)
	}
	got := map[any]response{}
	for _, l := range lines {
		resp := parseResponse(t, l)
		got[resp.ID] = resp
	}
	for _, id := range []any{"init", 1.0, 2.0, 3.0, 4.0} {
		if _, ok := got[id]; !ok {
			t.Errorf("no response to request %v; got %q", id, lines)
		}
	}
	var res struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			Error envelope `json:"error"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(got[4.0].Result, &res); err != nil || !res.IsError || res.StructuredContent.Error.Code != "cancelled" {
		t.Errorf("wait_for_text in flight at EOF: got %s, want the cancelled envelope", got[4.0].Result)
	}
}

func TestSignals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{
		{syscall.SIGTERM, 0},
		{syscall.SIGINT, 130},
	} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			fx := fixtures.NewServer(t)
			r := startRaw(t, fx, "--teardown-on-exit")
			r.send(t, initialize)
			r.next(t, 30*time.Second)
			r.send(t, initialized, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_session","arguments":{"session_name":"owned"}}}`)
			if got := parseResponse(t, r.next(t, 30*time.Second)); got.Error != nil || strings.Contains(string(got.Result), `"isError":true`) {
				t.Fatalf("create_session: %v %s", got.Error, got.Result)
			}
			borrowed := fx.NewSession(t, "borrowed")
			if err := r.cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			// stdin stays open: the signal alone ends the process.
			if code, _ := r.wait(t, 30*time.Second); code != tc.code {
				t.Fatalf("exit %d, want %d\nstderr:\n%s", code, tc.code, r.stderr)
			}
			if got := sessionIDs(t, fx); !slices.Equal(got, []string{borrowed}) {
				t.Fatalf("after %v with --teardown-on-exit: sessions %v, want only %s", tc.sig, got, borrowed)
			}
		})
	}
}

// TestBrokenStdout: a client that stops reading must not kill the server
// with SIGPIPE before it can clean up.
func TestBrokenStdout(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewServer(t)
	borrowed := fx.NewSession(t, "borrowed")
	r := startRaw(t, fx, "--teardown-on-exit")
	r.send(t, initialize)
	r.next(t, 30*time.Second)
	r.send(t, initialized, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_session","arguments":{"session_name":"owned"}}}`)
	r.next(t, 30*time.Second)
	_ = r.stdout.Close()
	r.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	_ = r.stdin.Close()
	r.wait(t, 30*time.Second) // fails the test if a signal killed it
	if got := sessionIDs(t, fx); !slices.Equal(got, []string{borrowed}) {
		t.Fatalf("after a broken stdout: sessions %v, want only %s\nstderr:\n%s", got, borrowed, r.stderr)
	}
}

func TestCallAndTools(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewServer(t)
	env := childEnv(fx)
	sock := []string{"--socket", fx.Socket}

	stdout, stderr, code := runCmd(t, env, append(sock, "call", "create_session", "session_name=cli", "x=100", "y=30")...)
	var made sessionInfo
	if code != 0 || json.Unmarshal([]byte(stdout), &made) != nil || made.SessionName != "cli" {
		t.Fatalf("call create_session: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if got := fx.Tmux(t, "display-message", "-p", "-t", made.SessionID, "#{session_name} #{window_width}x#{window_height}"); got != "cli 100x30" {
		t.Fatalf("tmux: got %q, want cli 100x30 (numbers passed as JSON)", got)
	}
	// A string that looks like a number stays a number; quoted JSON is a string.
	stdout, _, code = runCmd(t, env, append(sock, "call", "list_sessions", `filters={"session_name":"cli"}`)...)
	var list struct{ Result []sessionInfo }
	if code != 0 || json.Unmarshal([]byte(stdout), &list) != nil || len(list.Result) != 1 || list.Result[0].SessionID != made.SessionID {
		t.Fatalf("call list_sessions: exit %d, stdout %q", code, stdout)
	}
	// The process that made it is gone: the session is borrowed now.
	stdout, _, code = runCmd(t, env, append(sock, "call", "teardown_session", "sessionId="+made.SessionID, "generation="+made.Generation)...)
	var failed struct{ Error envelope }
	if code != 1 || json.Unmarshal([]byte(stdout), &failed) != nil || failed.Error.Code != "ownership_required" {
		t.Fatalf("call teardown_session of a borrowed session: exit %d, stdout %q, want exit 1 and ownership_required", code, stdout)
	}
	// Off-tier: denied, with the envelope.
	stdout, _, code = runCmd(t, env, append(sock, "--safety", "readonly", "call", "create_session")...)
	if code != 1 || !strings.Contains(stdout, `"tool_denied"`) {
		t.Fatalf("call create_session at readonly: exit %d, stdout %q, want exit 1 and tool_denied", code, stdout)
	}
	// --teardown-on-exit applies to call as well.
	stdout, _, code = runCmd(t, env, append(sock, "--teardown-on-exit", "call", "create_session", "session_name=brief")...)
	if code != 0 || strings.Contains(fx.Tmux(t, "list-sessions", "-F", "#{session_name}"), "brief") {
		t.Fatalf("call --teardown-on-exit create_session: exit %d, stdout %q; the session must be gone", code, stdout)
	}

	stdout, _, code = runCmd(t, env, "--tool", "list_panes", "--tool", "kill_server", "tools")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[1], "kill_server ") || !strings.Contains(lines[1], "destructive") ||
		!strings.HasPrefix(lines[2], "list_panes ") || !strings.Contains(lines[2], "readonly") {
		t.Fatalf("tools with --tool: exit %d, stdout:\n%s", code, stdout)
	}
	stdout, _, _ = runCmd(t, env, "tools")
	if n := len(strings.Split(strings.TrimSpace(stdout), "\n")) - 1; n != tierCount(mcp.TierMutating) {
		t.Fatalf("tools: %d tools, want %d\n%s", n, tierCount(mcp.TierMutating), stdout)
	}
}

// TestInsideTmux runs the server as if in a pane of fx's server: with no
// socket given it drives that server, and refuses to kill it.
func TestInsideTmux(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "home")
	pane := fx.Tmux(t, "display-message", "-p", "-t", "home", "#{pane_id}")
	pid := fx.PID(t)
	cmd := exec.Command(binary(t), "--safety", "destructive")
	cmd.Env = childEnv(fx, "TMUX="+fx.SocketPath()+","+strconv.Itoa(pid)+",0", "TMUX_PANE="+pane)
	c := startClientCmd(t, cmd, "")
	var list struct{ Result []sessionInfo }
	c.ok(t, "list_sessions", nil, &list)
	if len(list.Result) != 1 || list.Result[0].SessionName != "home" {
		t.Fatalf("list_sessions inside tmux: got %+v, want the caller's server", list.Result)
	}
	if env := c.fail(t, "kill_server", nil); env.Code != "target_denied" || env.Effects != "none" {
		t.Fatalf("kill_server of the caller's server: got %+v, want target_denied", env)
	}
	if env := c.fail(t, "kill_pane", map[string]any{"pane_id": pane}); env.Code != "target_denied" {
		t.Fatalf("kill_pane of the caller's pane: got %+v, want target_denied", env)
	}
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	fx.Tmux(t, "has-session", "-t", "home")
}
