package mcp

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// exactValues hold what tmux releases print differently: ESC, $ before a
// name, backslashes before letters and digits (which 3.4 and 3.5 print
// like their own escapes), tab and UTF-8.
var exactValues = map[string]string{
	"esc":       "a\x1b[1mb\x1b[0m",
	"dollar":    "$HOME ${HOME} $1 $",
	"backslash": `C:\bin\033\$x \\ \`,
	"tab":       "a\tb",
	"utf8":      "é ☃ 日本",
	"all":       "x$HOME\t\x1b[1m\\y\\101 é",
}

// TestExactValuesOnEveryRelease sets values through the tools and reads
// them back byte for byte, on whichever tmux the suite runs against
// (TMUX_MCP_TEST_TMUX): the read tools undo each release's print encoding.
func TestExactValuesOnEveryRelease(t *testing.T) {
	env := newTmuxEnv(t, "2025-11-25", nil)
	sid := env.fx.NewSession(t, "exact")
	for name, v := range exactValues {
		t.Run(name, func(t *testing.T) {
			opt := "@exact_" + name
			env.ok(t, "set_option", map[string]any{"option": opt, "value": v, "global_": true}, nil)
			var show optionOut
			env.ok(t, "show_option", map[string]any{"option": opt, "global_": true}, &show)
			if show.Value != v {
				t.Errorf("show_option: got %q, want %q", show.Value, v)
			}

			variable := "EXACT_" + strings.ToUpper(name)
			env.ok(t, "set_environment", map[string]any{"name": variable, "value": v, "session_id": sid}, nil)
			var envs EnvironmentResult
			env.ok(t, "show_environment", map[string]any{"session_id": sid}, &envs)
			if got := envs.Variables[variable]; got != v {
				t.Errorf("show_environment: got %q, want %q", got, v)
			}

			var msg Message
			env.ok(t, "display_message", map[string]any{"format_string": "#{" + opt + "}", "session_id": sid}, &msg)
			if msg.Result != v && !looseOnThisRelease(t, env, v) {
				t.Errorf("display_message: got %q, want %q", msg.Result, v)
			}
		})
	}
}

// looseOnThisRelease reports whether display_message may misread v here: on
// tmux 3.4 and 3.5 a backslash before a digit or letter in a caller's
// format is printed as tmux prints its own escapes (docs/tmux.md says so).
func looseOnThisRelease(t *testing.T, env *tmuxEnv, v string) bool {
	return env.fx.AtLeast(t, 3, 4) && !env.fx.AtLeast(t, 3, 6) && strings.Contains(v, `\`)
}

// TestNamesOnEveryRelease renames a window and a session to names tmux
// rewrites or refuses, and checks that the tools give back the name tmux
// kept, that it targets the session, and that 3.7's refusal is
// invalid_arguments with nothing written.
func TestNamesOnEveryRelease(t *testing.T) {
	env := newTmuxEnv(t, "2025-11-25", nil)
	var created SessionInfo
	env.ok(t, "create_session", map[string]any{"session_name": "d$x"}, &created)
	// tmux up to 3.4 stores a session name's $x as \$x.
	want := "d$x"
	if !env.fx.AtLeast(t, 3, 5) {
		want = `d\$x`
	}
	if created.SessionName != want {
		t.Errorf("create_session: got name %q, want %q", created.SessionName, want)
	}
	var list List[SessionInfo]
	env.ok(t, "list_sessions", nil, &list)
	if len(list.Result) != 1 || list.Result[0].SessionName != created.SessionName {
		t.Errorf("list_sessions: got %+v, want one session named %q", list.Result, created.SessionName)
	}
	// The returned name targets the session.
	var info SessionInfo
	env.ok(t, "get_session_info", map[string]any{"session_name": created.SessionName}, &info)
	env.ok(t, "set_environment", map[string]any{"name": "BY_NAME", "value": "1", "session_name": created.SessionName}, nil)
	if got := env.fx.Tmux(t, "show-environment", "-t", created.SessionID, "BY_NAME"); got != "BY_NAME=1" {
		t.Errorf("set_environment by the returned name: tmux holds %q", got)
	}

	for name, v := range map[string]string{"printable": "w $HOME é", "tab": "w\there", "esc": "w\x1b[1m"} {
		t.Run(name, func(t *testing.T) {
			args := map[string]any{"new_name": v, "session_id": created.SessionID}
			if printable := !strings.ContainsAny(v, "\t\x1b"); !printable && env.fx.AtLeast(t, 3, 7) {
				e := env.fail(t, "rename_window", args)
				if e.Code != CodeInvalidArguments || e.Effects != "none" || !strings.Contains(e.Message, "refuses") {
					t.Errorf("rename_window %q on 3.7: got %+v, want invalid_arguments, effects none, with the reason", v, e)
				}
				return
			}
			var w WindowInfo
			env.ok(t, "rename_window", args, &w)
			var ws List[WindowInfo]
			env.ok(t, "list_windows", map[string]any{"session_id": created.SessionID}, &ws)
			if len(ws.Result) != 1 || ws.Result[0].WindowName != w.WindowName {
				t.Errorf("list_windows: got %+v, want the name rename_window returned, %q", ws.Result, w.WindowName)
			}
			// What tmux holds, as this release prints it.
			held := env.fx.Tmux(t, "display-message", "-p", "-t", w.WindowID, "#{window_name}")
			if held != env.fx.Printed(t, w.WindowName) {
				t.Errorf("rename_window returned %q; tmux holds %q", w.WindowName, held)
			}
		})
	}
}

// TestPasteDeliversBytes pastes ESC and DEL into a program that reads its
// terminal raw, and checks every byte arrived as given: tmux 3.7 would
// turn them into ^[ and ^? without paste-buffer -S.
func TestPasteDeliversBytes(t *testing.T) {
	env := newTmuxEnv(t, "2025-11-25", nil)
	out := filepath.Join(t.TempDir(), "got")
	const text = "A\x1b[1mB\x7fC\tD$HOME\\x"
	tmux := env.fx.Bin
	script := "stty raw -echo; " + tmux + " wait-for -S raw; head -c " + strconv.Itoa(len(text)) + " > '" + out + "'; " +
		tmux + " wait-for -S pasted; exec cat"
	sid := env.fx.NewSession(t, "paste", "sh", "-c", script)
	pane := env.fx.Tmux(t, "display-message", "-p", "-t", sid, "#{pane_id}")
	env.fx.Tmux(t, "wait-for", "raw") // a paste before stty would be cooked
	env.ok(t, "paste_text", map[string]any{"text": text, "pane_id": pane, "bracket": false}, nil)
	env.fx.Tmux(t, "wait-for", "pasted")
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != text {
		t.Errorf("the pane's program read %q, want %q", got, text)
	}
}
