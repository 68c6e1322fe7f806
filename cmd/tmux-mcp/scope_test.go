package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

func TestParseConfigScope(t *testing.T) {
	for _, tc := range []struct {
		name      string
		env, args []string
		scope     string
		allow     []string
	}{
		{"default", nil, nil, "", nil},
		{"environment", []string{"TMUX_MCP_SCOPE=owned", "TMUX_MCP_ALLOW_SESSION=agent-*:scratch::"}, nil,
			"owned", []string{"agent-*", "scratch"}},
		{"flags override the environment", []string{"TMUX_MCP_SCOPE=owned", "TMUX_MCP_ALLOW_SESSION=env"},
			[]string{"--scope", "owned-write", "--allow-session", "b*", "--allow-session", "a"},
			"owned-write", []string{"b*", "a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseConfig(tc.args, envOf(tc.env...))
			if err != nil {
				t.Fatal(err)
			}
			if c.scope != tc.scope || !slices.Equal(c.allowSessions, tc.allow) {
				t.Errorf("got scope %q, allow %q; want %q, %q", c.scope, c.allowSessions, tc.scope, tc.allow)
			}
		})
	}
}

// TestScopeUsage: a bad --allow-session glob exits 2 before touching tmux;
// a bad --scope flag exits 2 listing the scopes; a bad TMUX_MCP_SCOPE fails
// closed to owned (tools still listed: the tier decides those) and is not a
// usage error.
func TestScopeUsage(t *testing.T) {
	t.Parallel()
	env := childEnv(nil, "LIBTMUX_SOCKET=does-not-exist")
	stdout, stderr, code := runCmd(t, env, "--allow-session", "[", "tools")
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "allow-session") {
		t.Fatalf("bad glob: got exit %d, stdout %q, stderr %q; want exit 2 naming --allow-session", code, stdout, stderr)
	}
	stdout, stderr, code = runCmd(t, env, "--scope", "ownd", "tools")
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "want all, owned-write, owned or tagged") {
		t.Fatalf("bad --scope: got exit %d, stdout %q, stderr %q; want exit 2 listing the scopes", code, stdout, stderr)
	}
	stdout, stderr, code = runCmd(t, append(env, "TMUX_MCP_SCOPE=ownd"), "tools")
	if code != exitOK || !strings.Contains(stderr, "invalid scope") || !strings.Contains(stdout, "list_sessions") {
		t.Fatalf("bad scope: got exit %d, stdout %q, stderr %q; want exit 0 and a warning", code, stdout, stderr)
	}
}

// TestScopeOverStdio: the flags reach the server: under --scope owned
// with --allow-session, the agent lists only the lent session and its own,
// and is refused the other borrowed one.
func TestScopeOverStdio(t *testing.T) {
	t.Parallel()
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "user", "sh", "-c", "exec cat >/dev/null")
	fx.NewSession(t, "lent", "sh", "-c", "exec cat >/dev/null")
	c := startClient(t, fx, "2025-11-25", []string{"--scope", "owned", "--allow-session", "le*"})
	var made struct {
		SessionID string `json:"session_id"`
	}
	c.ok(t, "create_session", map[string]any{"session_name": "agent"}, &made)
	var list struct {
		Result []struct {
			SessionName string `json:"session_name"`
		} `json:"result"`
	}
	c.ok(t, "list_sessions", nil, &list)
	var names []string
	for _, s := range list.Result {
		names = append(names, s.SessionName)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"agent", "lent"}) {
		t.Errorf("list_sessions: got %q, want agent and lent", names)
	}
	if e := c.fail(t, "send_keys", map[string]any{"session_name": "user", "keys": "x"}); e.Code != "target_denied" || e.Effects != "none" {
		t.Errorf("send_keys to user: got %+v, want target_denied with effects none", e)
	}
	c.ok(t, "send_keys", map[string]any{"session_name": "lent", "keys": "x", "enter": false}, nil)
}
