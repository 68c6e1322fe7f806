package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/session"
)

func envOf(kv ...string) func(string) string {
	m := map[string]string{}
	for _, s := range kv {
		k, v, _ := strings.Cut(s, "=")
		m[k] = v
	}
	return func(k string) string { return m[k] }
}

func TestParseConfig(t *testing.T) {
	for _, tc := range []struct {
		name  string
		env   []string
		args  []string
		check func(t *testing.T, c *config)
	}{
		{"defaults", nil, nil, func(t *testing.T, c *config) {
			if c.safety != "" || c.tools != nil || c.socket != (session.Socket{}) || c.tmux != "" ||
				!c.suppressHistory || c.waitMax != 30*time.Second || c.teardownOnExit || c.pipes || c.command != "" {
				t.Errorf("got %+v", c)
			}
		}},
		{"environment", []string{"LIBTMUX_SAFETY=destructive", "LIBTMUX_SOCKET=work", "LIBTMUX_TMUX_BIN=/opt/tmux",
			"LIBTMUX_SUPPRESS_HISTORY=0", "LIBTMUX_MCP_WAIT_MAX_SECONDS=2.5", "TMUX_MCP_CONFIG_FILE=/dev/null"}, nil,
			func(t *testing.T, c *config) {
				if c.safety != "destructive" || c.socket != (session.Socket{Name: "work"}) || c.tmux != "/opt/tmux" ||
					c.suppressHistory || c.waitMax != 2500*time.Millisecond || c.configFile != "/dev/null" {
					t.Errorf("got %+v", c)
				}
			}},
		{"flags override the environment", []string{"LIBTMUX_SAFETY=destructive", "LIBTMUX_SOCKET_PATH=/env/sock", "LIBTMUX_TMUX_BIN=/opt/tmux"},
			[]string{"--safety=readonly", "--socket", "flag", "--tmux", "/usr/bin/tmux", "--teardown-on-exit", "--pipes", "--tool", "b", "--tool", "a"},
			func(t *testing.T, c *config) {
				if c.safety != "readonly" || c.socket != (session.Socket{Name: "flag"}) || c.tmux != "/usr/bin/tmux" ||
					!c.teardownOnExit || !c.pipes || !slices.Equal(c.tools, []string{"b", "a"}) {
					t.Errorf("got %+v", c)
				}
			}},
		{"a path wins over a name", []string{"LIBTMUX_SOCKET=n", "LIBTMUX_SOCKET_PATH=/p"}, nil, func(t *testing.T, c *config) {
			if c.socket != (session.Socket{Path: "/p"}) {
				t.Errorf("socket: got %+v", c.socket)
			}
		}},
		{"inside tmux", []string{"TMUX=/tmp/tmux-1/work,42,3", "TMUX_PANE=%7"}, nil, func(t *testing.T, c *config) {
			if c.selfPane != "%7" || c.selfSocketPath != "/tmp/tmux-1/work" || c.socket != (session.Socket{Path: "/tmp/tmux-1/work"}) {
				t.Errorf("got %+v", c)
			}
		}},
		{"inside tmux, socket given", []string{"TMUX=/tmp/tmux-1/work,42,3", "LIBTMUX_SOCKET=other"}, nil, func(t *testing.T, c *config) {
			if c.selfSocketPath != "/tmp/tmux-1/work" || c.socket != (session.Socket{Name: "other"}) {
				t.Errorf("got %+v", c)
			}
		}},
		{"wait ceiling clamped low", []string{"LIBTMUX_MCP_WAIT_MAX_SECONDS=0"}, nil, func(t *testing.T, c *config) {
			if c.waitMax != time.Second || len(c.warnings) != 1 {
				t.Errorf("got %v, warnings %q", c.waitMax, c.warnings)
			}
		}},
		{"wait ceiling clamped high", []string{"LIBTMUX_MCP_WAIT_MAX_SECONDS=9999"}, nil, func(t *testing.T, c *config) {
			if c.waitMax != 120*time.Second || len(c.warnings) != 1 {
				t.Errorf("got %v, warnings %q", c.waitMax, c.warnings)
			}
		}},
		{"reply deadline", []string{"TMUX_MCP_REPLY_DEADLINE=30"}, []string{"--reply-deadline", "2.5"}, func(t *testing.T, c *config) {
			if c.replyDeadline != 2500*time.Millisecond || len(c.warnings) != 0 {
				t.Errorf("got %v, warnings %q", c.replyDeadline, c.warnings)
			}
		}},
		{"reply deadline off", nil, []string{"--reply-deadline=0"}, func(t *testing.T, c *config) {
			if c.replyDeadline >= 0 {
				t.Errorf("got %v, want a negative duration (none)", c.replyDeadline)
			}
		}},
		{"reply deadline from the environment, unreadable", []string{"TMUX_MCP_REPLY_DEADLINE=soon"}, nil, func(t *testing.T, c *config) {
			if c.replyDeadline != 0 || len(c.warnings) != 1 {
				t.Errorf("got %v, warnings %q; want the default and a warning", c.replyDeadline, c.warnings)
			}
		}},
		{"wait ceiling unreadable", []string{"LIBTMUX_MCP_WAIT_MAX_SECONDS=soon"}, nil, func(t *testing.T, c *config) {
			if c.waitMax != 30*time.Second || len(c.warnings) != 1 {
				t.Errorf("got %v, warnings %q", c.waitMax, c.warnings)
			}
		}},
		{"suppress history on", []string{"LIBTMUX_SUPPRESS_HISTORY=1"}, nil, func(t *testing.T, c *config) {
			if !c.suppressHistory {
				t.Error("got off")
			}
		}},
		{"tools with flags after", nil, []string{"tools", "--safety", "readonly"}, func(t *testing.T, c *config) {
			if c.command != "tools" || c.safety != "readonly" {
				t.Errorf("got %+v", c)
			}
		}},
		{"call", nil, []string{"--socket", "s", "call", "--tool", "send_keys", "send_keys", "keys=-l", "pane_id=%1", "enter=false"},
			func(t *testing.T, c *config) {
				if c.command != "call" || c.callTool != "send_keys" || !slices.Equal(c.callArgs, []string{"keys=-l", "pane_id=%1", "enter=false"}) ||
					!slices.Equal(c.tools, []string{"send_keys"}) || c.socket.Name != "s" {
					t.Errorf("got %+v", c)
				}
			}},
		{"toolsets and tool lists from the environment", []string{"LIBTMUX_TOOLSETS=inspect,teardown", "LIBTMUX_TOOLS=list_panes, send_keys,", "LIBTMUX_EXCLUDE_TOOLS=kill_server"}, nil,
			func(t *testing.T, c *config) {
				if c.toolsets != "inspect,teardown" || c.safety != "" || !slices.Equal(c.tools, []string{"list_panes", "send_keys"}) ||
					!slices.Equal(c.excludeTools, []string{"kill_server"}) {
					t.Errorf("got %+v", c)
				}
			}},
		{"a toolsets flag replaces an inherited tier", []string{"LIBTMUX_SAFETY=destructive", "LIBTMUX_TOOLS=kill_server", "LIBTMUX_EXCLUDE_TOOLS=a"},
			[]string{"--toolsets", "inspect", "--exclude-tool", "b", "--exclude-tool", "c"},
			func(t *testing.T, c *config) {
				if c.toolsets != "inspect" || c.safety != "" || !slices.Equal(c.tools, []string{"kill_server"}) ||
					!slices.Equal(c.excludeTools, []string{"b", "c"}) {
					t.Errorf("got %+v", c)
				}
			}},
		{"a tier flag replaces inherited toolsets", []string{"LIBTMUX_TOOLSETS=inspect"}, []string{"--safety", "readonly"},
			func(t *testing.T, c *config) {
				if c.toolsets != "" || c.safety != "readonly" {
					t.Errorf("got %+v", c)
				}
			}},
		{"help wins", nil, []string{"--help", "call"}, func(t *testing.T, c *config) {
			if !c.help {
				t.Errorf("got %+v", c)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseConfig(tc.args, envOf(tc.env...))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}

func TestParseConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		args []string
	}{
		{[]string{"LIBTMUX_SUPPRESS_HISTORY=yes"}, nil},
		{[]string{"LIBTMUX_SUPPRESS_HISTORY=true"}, nil},
		{nil, []string{"--nope"}},
		{nil, []string{"--teardown-on-exit=maybe"}},
		{nil, []string{"serve"}},
		{nil, []string{"tools", "x", "y"}},
		{nil, []string{"call"}},
		{nil, []string{"--reply-deadline", "soon"}},
		{nil, []string{"--reply-deadline", "-1"}},
	} {
		if _, err := parseConfig(tc.args, envOf(tc.env...)); !errors.Is(err, errUsage) {
			t.Errorf("env %q args %q: got %v, want a usage error", tc.env, tc.args, err)
		}
	}
}

func TestCallArgs(t *testing.T) {
	got, err := callArgs([]string{"n=5", "b=true", "s=hello world", "q=\"5\"", "l=[\"a\",1]", "o={\"k\":\"v\"}", "e=", "eq=a=b", "neg=-3", "id=%1"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"n": 5.0, "b": true, "s": "hello world", "q": "5", "l": []any{"a", 1.0},
		"o": map[string]any{"k": "v"}, "e": "", "eq": "a=b", "neg": -3.0, "id": "%1"}
	for k, w := range want {
		if g, ok := got[k]; !ok || !equalJSON(g, w) {
			t.Errorf("%s: got %#v, want %#v", k, g, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d arguments, want %d", len(got), len(want))
	}
}

func equalJSON(a, b any) bool {
	switch a := a.(type) {
	case []any:
		bb, ok := b.([]any)
		return ok && slices.EqualFunc(a, bb, equalJSON)
	case map[string]any:
		bb, ok := b.(map[string]any)
		if !ok || len(a) != len(bb) {
			return false
		}
		for k := range a {
			if !equalJSON(a[k], bb[k]) {
				return false
			}
		}
		return true
	}
	return a == b
}

func TestUsageListsEveryFlag(t *testing.T) {
	var b strings.Builder
	usage(&b)
	for _, o := range options {
		name := o.flag
		if name == "" {
			name = o.env
		}
		if !strings.Contains(b.String(), name) {
			t.Errorf("--help does not mention %s", name)
		}
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if len(line) > 80 {
			t.Errorf("--help line over 80 columns: %q", line)
		}
	}
}

// TestReadProcess: cmd, the one reader of the environment, hands session
// the socket directory tmux would use under TMUX_TMPDIR, and an environment.
func TestReadProcess(t *testing.T) {
	dir := t.TempDir()
	var c config
	c.readProcess(envOf("TMUX_TMPDIR=" + dir))
	if want := session.SocketDir(dir, os.Getuid()); c.socketDir != want || !strings.HasPrefix(filepath.Base(c.socketDir), "tmux-") {
		t.Errorf("socketDir: got %q, want %q", c.socketDir, want)
	}
	if real, _ := filepath.EvalSymlinks(dir); filepath.Dir(c.socketDir) != real {
		t.Errorf("socketDir %q is not in TMUX_TMPDIR %q", c.socketDir, real)
	}
	if c.env == nil {
		t.Error("env: got nil, want this process's environment")
	}
}
