package mcp

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// optionOut decodes an OptionResult keeping the value's JSON type.
type optionOut struct {
	Option string `json:"option"`
	Value  any    `json:"value"`
}

func TestOptionTools(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		env.fx.NewSession(t, "opts")
		win := env.fx.Tmux(t, "display-message", "-p", "-t", "opts", "#{window_id}")
		pane := env.fx.Tmux(t, "display-message", "-p", "-t", "opts", "#{pane_id}")
		canary := filepath.Join(t.TempDir(), "CANARY")

		t.Run("values are stored literally", func(t *testing.T) {
			for opt, val := range map[string]string{
				"@semi":   "; kill-server",
				"@job":    "#(touch " + canary + ")",
				"@format": "#{session_name} #[fg=red] ## #{?1,a,b}",
				"@tricky": "-dash \"dq\" 'sq' $HOME ${HOME} `x` ~ \\ \\\\ \t tab é \x1b[1m",
				"@multi":  "line1\nline2 \"q\"",
				"@digits": "0042",
			} {
				var set OptionSetResult
				env.ok(t, "set_option", map[string]any{"option": opt, "value": val, "global_": true}, &set)
				if set != (OptionSetResult{Option: opt, Value: val, Status: "set"}) {
					t.Errorf("set_option %s: got %+v", opt, set)
				}
				// The command line shows the value as this release prints it.
				if got, want := env.fx.Tmux(t, "show-options", "-gv", opt), env.fx.Printed(t, strings.TrimSpace(val)); got != want {
					t.Errorf("tmux holds %s = %q, want %q", opt, got, want)
				}
				if opt == "@digits" {
					continue // read back as a number, below
				}
				var show optionOut
				env.ok(t, "show_option", map[string]any{"option": opt, "global_": true}, &show)
				if show.Option != opt || show.Value != val {
					t.Errorf("show_option %s: got %+v, want %q", opt, show, val)
				}
			}
			if _, err := os.Stat(canary); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("canary %s exists (err %v): a #() job ran", canary, err)
			}
			// The server is still there: "; kill-server" stayed a value.
			env.fx.Tmux(t, "has-session", "-t", "opts")
		})

		t.Run("typed values", func(t *testing.T) {
			for opt, want := range map[string]any{
				"history-limit": float64(2000),
				"mouse":         env.fx.AtLeast(t, 3, 8), // on by default from 3.8
				"@digits":       float64(42),
			} {
				var show optionOut
				env.ok(t, "show_option", map[string]any{"option": opt, "global_": true}, &show)
				if show.Value != want {
					t.Errorf("show_option %s: got %#v, want %#v", opt, show.Value, want)
				}
			}
			var show optionOut
			env.ok(t, "show_option", map[string]any{"option": "command-alias", "global_": true}, &show)
			items, ok := show.Value.(map[string]any)
			if !ok || items["0"] != "split-pane=split-window" {
				t.Errorf("command-alias: got %#v, want an object with \"0\": split-pane=split-window", show.Value)
			}
			env.ok(t, "show_option", map[string]any{"option": "command-alias[2]", "global_": true}, &show)
			if show.Value != "server-info=show-messages -JT" {
				t.Errorf("command-alias[2]: got %#v", show.Value)
			}
			// Not set on the session: the value in force, from the global table.
			env.ok(t, "show_option", map[string]any{"option": "history-limit", "scope": "session", "target": "opts"}, &show)
			if show.Value != float64(2000) {
				t.Errorf("inherited history-limit: got %#v, want 2000", show.Value)
			}
			// Not set anywhere: null.
			env.ok(t, "show_option", map[string]any{"option": "user-keys", "global_": true}, &show)
			if show.Value != nil {
				t.Errorf("empty user-keys: got %#v, want null", show.Value)
			}
		})

		t.Run("scopes and targets", func(t *testing.T) {
			for _, tc := range []struct {
				scope, target, opt string
				check              []string // show-options arguments that read it back
			}{
				{"server", "", "@srv", []string{"-s", "-v", "@srv"}},
				{"session", "opts", "@sess", []string{"-t", "opts", "-v", "@sess"}},
				{"session", "opts", "status-interval", []string{"-t", "opts", "-v", "status-interval"}},
				{"window", win, "@win", []string{"-w", "-t", win, "-v", "@win"}},
				{"pane", pane, "@pane", []string{"-p", "-t", pane, "-v", "@pane"}},
			} {
				args := map[string]any{"option": tc.opt, "value": "7", "scope": tc.scope}
				if tc.target != "" {
					args["target"] = tc.target
				}
				env.ok(t, "set_option", args, nil)
				if got := env.fx.Tmux(t, append([]string{"show-options"}, tc.check...)...); got != "7" {
					t.Errorf("%s %s: tmux holds %q, want 7", tc.scope, tc.opt, got)
				}
				delete(args, "value")
				var show optionOut
				env.ok(t, "show_option", args, &show)
				if show.Value != float64(7) {
					t.Errorf("show_option %v: got %#v, want 7", args, show.Value)
				}
			}
			// The global table did not change.
			if got := env.fx.Tmux(t, "show-options", "-gv", "status-interval"); got != "15" {
				t.Errorf("global status-interval %q, want 15", got)
			}
		})

		t.Run("failures", func(t *testing.T) {
			e := env.fail(t, "show_option", map[string]any{"option": "no-such-option", "global_": true})
			wantCode(t, e, CodeTmuxError)
			if !strings.Contains(e.Message, "no-such-option") {
				t.Errorf("message %q does not carry tmux's words", e.Message)
			}
			wantCode(t, env.fail(t, "set_option", map[string]any{"option": "no-such-option", "value": "1", "global_": true}), CodeTmuxError)
			wantCode(t, env.fail(t, "set_option", map[string]any{"option": "mode-keys", "value": "nonsense", "global_": true}), CodeTmuxError)
			e = env.fail(t, "set_option", map[string]any{"option": "@x", "value": "1", "target": "opts"})
			wantCode(t, e, CodeInvalidArguments)
			if e.Effects != EffectsNone {
				t.Errorf("target without scope: effects %q, want none", e.Effects)
			}
			wantCode(t, env.fail(t, "show_option", map[string]any{"option": "history-limit", "scope": "session", "target": "nosuch"}), CodeNotFound)
			wantCode(t, env.fail(t, "set_option", map[string]any{"option": "@x", "value": "1", "scope": "pane", "target": "%99"}), CodeNotFound)
			wantCode(t, env.fail(t, "show_option", map[string]any{"option": "mouse", "scope": "galaxy"}), CodeInvalidArguments)
		})
	})
}

func TestEnvironmentTools(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		sid := env.fx.NewSession(t, "envs")
		tricky := "multi\nline \"q\" $x `bt` \\bs 'sq' ; kill-server #{session_name}"

		var set EnvironmentSetResult
		env.ok(t, "set_environment", map[string]any{"name": "MCP_GLOBAL", "value": tricky}, &set)
		if set != (EnvironmentSetResult{Name: "MCP_GLOBAL", Value: tricky, Status: "set"}) {
			t.Errorf("set_environment: got %+v", set)
		}
		if got, want := env.fx.Tmux(t, "show-environment", "-g", "MCP_GLOBAL"), env.fx.Printed(t, "MCP_GLOBAL="+tricky); got != want {
			t.Errorf("tmux holds %q, want %q", got, want)
		}
		env.ok(t, "set_environment", map[string]any{"name": "MCP_SESS", "value": "by-name", "session_name": "envs"}, nil)
		env.ok(t, "set_environment", map[string]any{"name": "MCP_SID", "value": "", "session_id": sid}, nil)
		if got := env.fx.Tmux(t, "show-environment", "-t", "envs", "MCP_SESS"); got != "MCP_SESS=by-name" {
			t.Errorf("session variable: tmux holds %q", got)
		}
		if got := env.fx.Tmux(t, "show-environment", "-t", "envs", "MCP_SID"); got != "MCP_SID=" {
			t.Errorf("session variable by id: tmux holds %q", got)
		}
		if _, err := env.fx.TryTmux("show-environment", "-g", "MCP_SESS"); err == nil {
			t.Error("a session variable leaked into the global environment")
		}

		env.fx.Tmux(t, "set-environment", "-g", "-r", "MCP_REMOVED")
		env.fx.Tmux(t, "set-environment", "-g", "-h", "MCP_HIDDEN", "secret")
		var global EnvironmentResult
		env.ok(t, "show_environment", map[string]any{}, &global)
		if global.Variables["MCP_GLOBAL"] != tricky {
			t.Errorf("global MCP_GLOBAL: got %#v, want %q", global.Variables["MCP_GLOBAL"], tricky)
		}
		if global.Variables["-MCP_REMOVED"] != true {
			t.Errorf("removed variable: got %#v, want \"-MCP_REMOVED\": true", global.Variables["-MCP_REMOVED"])
		}
		if _, ok := global.Variables["MCP_HIDDEN"]; ok {
			t.Error("a hidden variable was shown")
		}
		if _, ok := global.Variables["MCP_SESS"]; ok {
			t.Error("a session variable shows in the global environment")
		}
		var sess EnvironmentResult
		env.ok(t, "show_environment", map[string]any{"session_name": "envs"}, &sess)
		if sess.Variables["MCP_SESS"] != "by-name" || sess.Variables["MCP_SID"] != "" {
			t.Errorf("session environment: got %v", sess.Variables)
		}
		env.ok(t, "show_environment", map[string]any{"session_id": sid}, &sess)
		if sess.Variables["MCP_SESS"] != "by-name" {
			t.Errorf("session environment by id: got %v", sess.Variables)
		}

		e := env.fail(t, "set_environment", map[string]any{"name": "A=B", "value": "x"})
		wantCode(t, e, CodeInvalidArguments)
		if e.Effects != EffectsNone {
			t.Errorf("bad name: effects %q, want none", e.Effects)
		}
		wantCode(t, env.fail(t, "set_environment", map[string]any{"name": "X", "value": "x", "session_name": "nosuch"}), CodeNotFound)
		wantCode(t, env.fail(t, "show_environment", map[string]any{"session_name": "nosuch"}), CodeNotFound)
		wantCode(t, env.fail(t, "show_environment", map[string]any{"session_id": "$99"}), CodeNotFound)
	})
}

func TestHookTools(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		env.fx.NewSession(t, "hooks")
		env.fx.Tmux(t, "set-hook", "-g", "session-renamed", "display-message 'renamed #{session_name}'")
		env.fx.Tmux(t, "set-hook", "-g", "session-renamed[3]", "display-message three")
		env.fx.Tmux(t, "set-hook", "-gw", "pane-exited", "display-message exited")
		env.fx.Tmux(t, "set-hook", "-t", "hooks", "client-attached", "display-message attached")

		idx := func(i int) *int { return &i }
		renamed := []HookEntry{
			{HookName: "session-renamed", Index: idx(0), Command: `display-message "renamed #{session_name}"`},
			{HookName: "session-renamed", Index: idx(3), Command: "display-message three"},
		}
		// tmux prints a hook's command as it parsed it; read the reference
		// from a separate tmux process.
		want0 := strings.TrimPrefix(env.fx.Tmux(t, "show-hooks", "-g", "session-renamed[0]"), "session-renamed[0] ")
		renamed[0].Command = want0

		var all HookListResult
		env.ok(t, "show_hooks", map[string]any{"scope": "server"}, &all)
		wantEntries := append([]HookEntry{{HookName: "pane-exited", Index: idx(0), Command: "display-message exited"}}, renamed...)
		if !reflect.DeepEqual(all.Entries, wantEntries) {
			t.Errorf("show_hooks server: got %s, want %s", hookString(all.Entries), hookString(wantEntries))
		}

		var one HookListResult
		env.ok(t, "show_hook", map[string]any{"hook_name": "session-renamed", "scope": "server"}, &one)
		if !reflect.DeepEqual(one.Entries, renamed) {
			t.Errorf("show_hook session-renamed: got %s", hookString(one.Entries))
		}
		env.ok(t, "show_hook", map[string]any{"hook_name": "pane-exited", "scope": "server"}, &one)
		if len(one.Entries) != 1 || one.Entries[0].Command != "display-message exited" {
			t.Errorf("show_hook pane-exited: got %s", hookString(one.Entries))
		}
		env.ok(t, "show_hook", map[string]any{"hook_name": "alert-bell", "scope": "server"}, &one)
		if one.Entries == nil || len(one.Entries) != 0 {
			t.Errorf("unset hook: got %#v, want an empty list", one.Entries)
		}
		env.ok(t, "show_hook", map[string]any{"hook_name": "client-attached", "scope": "session", "target": "hooks"}, &one)
		if len(one.Entries) != 1 || one.Entries[0].Command != "display-message attached" {
			t.Errorf("session hook: got %s", hookString(one.Entries))
		}
		var sess HookListResult
		env.ok(t, "show_hooks", map[string]any{"scope": "session", "target": "hooks"}, &sess)
		if len(sess.Entries) != 1 || sess.Entries[0].HookName != "client-attached" {
			t.Errorf("show_hooks session: got %s", hookString(sess.Entries))
		}
		env.ok(t, "show_hooks", map[string]any{"global_": true}, &sess)
		if !reflect.DeepEqual(sess.Entries, renamed) {
			t.Errorf("show_hooks -g: got %s", hookString(sess.Entries))
		}

		e := env.fail(t, "show_hook", map[string]any{"hook_name": "no-such-hook", "scope": "server"})
		wantCode(t, e, CodeTmuxError)
		wantCode(t, env.fail(t, "show_hooks", map[string]any{"scope": "session", "target": "nosuch"}), CodeNotFound)
		wantCode(t, env.fail(t, "show_hook", map[string]any{"hook_name": "pane-exited", "scope": "pane", "target": "%99"}), CodeNotFound)
		wantCode(t, env.fail(t, "show_hooks", map[string]any{"target": "hooks"}), CodeInvalidArguments)
	})
}

func hookString(es []HookEntry) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString(e.HookName)
		if e.Index != nil {
			b.WriteString("[" + string(rune('0'+*e.Index)) + "]")
		}
		b.WriteString(" " + e.Command + "; ")
	}
	return b.String()
}
