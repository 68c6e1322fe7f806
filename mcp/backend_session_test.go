package mcp

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Real-tmux tests of the session tools.

// swWindows returns "index:name" of each window of session, as tmux lists
// them to a separate client.
func swWindows(t *testing.T, env *tmuxEnv, session string) []string {
	t.Helper()
	return strings.Split(env.fx.Tmux(t, "list-windows", "-t", session, "-F", "#{window_index}:#{window_name}"), "\n")
}

// swPaneOf returns the active pane of session's current window.
func swPaneOf(t *testing.T, env *tmuxEnv, target string) string {
	t.Helper()
	return env.fx.Tmux(t, "display-message", "-p", "-t", target, "#{pane_id}")
}

func TestListWindows(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		a := env.fx.NewSession(t, "a")
		env.fx.Tmux(t, "new-window", "-d", "-t", a, "-n", "editor")
		b := env.fx.NewSession(t, "b")

		var got List[WindowInfo]
		env.ok(t, "list_windows", nil, &got)
		if len(got.Result) != 3 {
			t.Fatalf("every window: got %+v", got.Result)
		}
		for _, w := range got.Result {
			want := env.fx.Tmux(t, "display-message", "-p", "-t", w.WindowID,
				"#{window_index} #{window_name} #{session_id} #{window_panes} #{window_layout} #{window_width}x#{window_height} #{pane_id}")
			have := w.WindowIndex + " " + w.WindowName + " " + w.SessionID + " " + strconv.Itoa(w.PaneCount) + " " +
				w.WindowLayout + " " + w.WindowWidth + "x" + w.WindowHeight + " " + w.ActivePaneID
			if have != want {
				t.Errorf("window %s: got %q, want %q", w.WindowID, have, want)
			}
		}

		env.ok(t, "list_windows", map[string]any{"session_name": "a"}, &got)
		if len(got.Result) != 2 || got.Result[0].SessionID != a || got.Result[1].WindowName != "editor" ||
			got.Result[0].WindowActive != "1" || got.Result[1].WindowActive != "0" {
			t.Fatalf("session a: got %+v", got.Result)
		}
		env.ok(t, "list_windows", map[string]any{"session_id": b}, &got)
		if len(got.Result) != 1 || got.Result[0].SessionName != "b" {
			t.Fatalf("session b: got %+v", got.Result)
		}
		env.ok(t, "list_windows", map[string]any{"filters": map[string]any{"window_name__startswith": "edi"}}, &got)
		if len(got.Result) != 1 || got.Result[0].WindowName != "editor" {
			t.Fatalf("filter: got %+v", got.Result)
		}
		env.ok(t, "list_windows", map[string]any{"session_name": "a", "filters": map[string]any{"window_panes": "1", "window_active": "1"}}, &got)
		if len(got.Result) != 1 || got.Result[0].WindowIndex != "0" {
			t.Fatalf("filters in a session: got %+v", got.Result)
		}

		e := env.fail(t, "list_windows", map[string]any{"session_name": "nope"})
		if e.Code != CodeNotFound || e.Effects != EffectsNone {
			t.Fatalf("missing session: got %+v", e)
		}
		wantCode(t, env.fail(t, "list_windows", map[string]any{"filters": map[string]any{"pane_title": "x"}}), CodeInvalidArguments)
	})
}

// swWaitScreen polls the pane's screen, through a separate tmux process,
// until it contains want. The deadline only catches hangs.
func swWaitScreen(t *testing.T, env *tmuxEnv, pane, want string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		out := env.fx.Tmux(t, "capture-pane", "-p", "-J", "-t", pane)
		if strings.Contains(out, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pane %s never showed %q; it shows:\n%s", pane, want, out)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestGetSessionInfo(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		first := env.fx.NewSession(t, "zeta") // oldest, though last by name
		second := env.fx.NewSession(t, "alpha")
		env.fx.Tmux(t, "new-window", "-d", "-t", second)

		var s SessionInfo
		env.ok(t, "get_session_info", map[string]any{"session_name": "alpha"}, &s)
		if s.SessionID != second || s.WindowCount != 2 || s.ActivePaneID != swPaneOf(t, env, second+":") || s.Generation == "" {
			t.Fatalf("by name: got %+v", s)
		}
		env.ok(t, "get_session_info", map[string]any{"session_id": first}, &s)
		if s.SessionName != "zeta" || s.WindowCount != 1 {
			t.Fatalf("by id: got %+v", s)
		}
		env.ok(t, "get_session_info", nil, &s)
		if s.SessionID != first {
			t.Fatalf("no target: got %+v, want the oldest session %s", s, first)
		}

		// A session another client made a moment ago is found.
		third := env.fx.NewSession(t, "fresh")
		env.ok(t, "get_session_info", map[string]any{"session_name": "fresh"}, &s)
		if s.SessionID != third {
			t.Fatalf("fresh session: got %+v, want %s", s, third)
		}

		e := env.fail(t, "get_session_info", map[string]any{"session_id": "$999"})
		if e.Code != CodeNotFound || e.Effects != EffectsNone {
			t.Fatalf("missing session: got %+v", e)
		}
	})
}

func TestCreateWindow(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		sid := env.fx.NewSession(t, "work")
		var w WindowInfo
		env.ok(t, "create_window", map[string]any{"session_name": "work", "window_name": "logs#1"}, &w)
		if w.SessionID != sid || w.WindowName != "logs#1" || w.WindowIndex != "1" || w.PaneCount != 1 || w.WindowActive != "0" {
			t.Fatalf("got %+v", w)
		}
		if got := swWindows(t, env, sid); !slices.Equal(got, []string{"0:" + got[0][2:], "1:logs#1"}) {
			t.Fatalf("tmux lists %v", got)
		}
		if cur := env.fx.Tmux(t, "display-message", "-p", "-t", sid+":", "#{window_index}"); cur != "0" {
			t.Fatalf("attach false changed the current window to %s", cur)
		}

		// attach, and placed before the current window.
		env.ok(t, "create_window", map[string]any{"session_id": sid, "window_name": "first", "attach": true, "direction": "before"}, &w)
		if w.WindowIndex != "0" || w.WindowActive != "1" {
			t.Fatalf("before, attached: got %+v", w)
		}
		if cur := env.fx.Tmux(t, "display-message", "-p", "-t", sid+":", "#{window_id}"); cur != w.WindowID {
			t.Fatalf("current window %s, want %s", cur, w.WindowID)
		}
		if got := swWindows(t, env, sid); len(got) != 3 || got[0] != "0:first" || got[2] != "2:logs#1" {
			t.Fatalf("tmux lists %v", got)
		}
		env.ok(t, "create_window", map[string]any{"session_id": sid, "window_name": "second", "direction": "after"}, &w)
		if w.WindowIndex != "1" {
			t.Fatalf("after the current window: got %+v", w)
		}

		// A start directory and an environment for the new process.
		dir := t.TempDir()
		env.ok(t, "create_window", map[string]any{"session_id": sid, "start_directory": dir,
			"environment": map[string]any{"SW_WIN": "v1"}}, &w)
		pane := w.ActivePaneID
		env.fx.Tmux(t, "send-keys", "-t", pane, "-l", `echo "[$SW_WIN]" "[$(pwd)]"`)
		env.fx.Tmux(t, "send-keys", "-t", pane, "Enter")
		swWaitScreen(t, env, pane, "[v1] ["+dir+"]")

		e := env.fail(t, "create_window", map[string]any{"session_name": "nope"})
		if e.Code != CodeNotFound || e.Effects != EffectsNone {
			t.Fatalf("missing session: got %+v", e)
		}
		wantCode(t, env.fail(t, "create_window", map[string]any{"window_name": "x"}), CodeTargetRequired)
		wantCode(t, env.fail(t, "create_window", map[string]any{"session_id": sid, "direction": "sideways"}), CodeInvalidArguments)
	})
}

func TestRenameSession(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		sid := env.fx.NewSession(t, "old")
		env.fx.NewSession(t, "taken")
		var s SessionInfo
		env.ok(t, "rename_session", map[string]any{"session_name": "old", "new_name": "new#{name}"}, &s)
		if s.SessionID != sid || s.SessionName != "new#{name}" || s.WindowCount != 1 {
			t.Fatalf("got %+v", s)
		}
		if got := env.fx.Tmux(t, "display-message", "-p", "-t", sid+":", "#{session_name}"); got != "new#{name}" {
			t.Fatalf("tmux says %q", got)
		}
		// The model follows: the new name resolves, the old does not.
		env.ok(t, "get_session_info", map[string]any{"session_name": "new#{name}"}, &s)
		wantCode(t, env.fail(t, "get_session_info", map[string]any{"session_name": "old"}), CodeNotFound)

		e := env.fail(t, "rename_session", map[string]any{"session_id": sid, "new_name": "taken"})
		if e.Code != CodeTmuxError || !strings.Contains(e.Message, "duplicate") {
			t.Fatalf("duplicate name: got %+v", e)
		}
		wantCode(t, env.fail(t, "rename_session", map[string]any{"session_name": "nope", "new_name": "x"}), CodeNotFound)
		wantCode(t, env.fail(t, "rename_session", map[string]any{"new_name": "x"}), CodeTargetRequired)
	})
}

func TestKillSession(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		for _, name := range []string{"a", "b", "c"} {
			env.fx.NewSession(t, name)
		}
		// Kill every session but one, each time the one the control client
		// is attached to: the next call must not see a dying connection.
		for range 2 {
			env.ok(t, "list_sessions", nil, nil)
			id := swControlSession(t, env)
			var m Message
			env.ok(t, "kill_session", map[string]any{"session_id": id}, &m)
			if !strings.HasPrefix(m.Result, "Session killed: ") {
				t.Errorf("got %q", m.Result)
			}
			if _, err := env.fx.TryTmux("has-session", "-t", id); err == nil {
				t.Fatalf("session %s survived", id)
			}
			var sessions List[SessionInfo]
			env.ok(t, "list_sessions", nil, &sessions)
			var names []string
			for _, s := range sessions.Result {
				names = append(names, s.SessionName)
			}
			if want := swSessionNames(t, env); !slices.Equal(names, want) {
				t.Fatalf("after kill_session: got %v, want %v", names, want)
			}
		}
		if dials := env.backend.server(Socket{}).ConnStats().Dials; dials != 1 {
			t.Errorf("the control client reconnected (%d connects): it should have moved to another session", dials)
		}
		// By name.
		left := swSessionNames(t, env)[0]
		env.fx.NewSession(t, "d")
		env.ok(t, "kill_session", map[string]any{"session_name": left}, nil)
		if names := swSessionNames(t, env); !slices.Equal(names, []string{"d"}) {
			t.Fatalf("got %v", names)
		}

		e := env.fail(t, "kill_session", map[string]any{"session_name": "nope"})
		if e.Code != CodeNotFound || e.Effects != EffectsNone {
			t.Fatalf("missing session: got %+v", e)
		}
		wantCode(t, env.fail(t, "kill_session", nil), CodeTargetRequired)
	})
}

func TestKillSessionRefusesItsOwnSession(t *testing.T) {
	env := newTmuxEnv(t, protocolVersions[2], nil)
	self := env.fx.NewSession(t, "self")
	env.fx.NewSession(t, "other")
	// The pane sits in a second window: the whole session is protected.
	pane := env.fx.Tmux(t, "new-window", "-d", "-t", self, "-P", "-F", "#{pane_id}")
	swSelf(env, pane)
	e := env.fail(t, "kill_session", map[string]any{"session_name": "self"})
	if e.Code != CodeTargetDenied || e.Effects != EffectsNone {
		t.Fatalf("got %+v, want target_denied, effects none", e)
	}
	if _, err := env.fx.TryTmux("has-session", "-t", self); err != nil {
		t.Fatal("the caller's session was killed")
	}
	env.ok(t, "kill_session", map[string]any{"session_name": "other"}, nil)
	if names := swSessionNames(t, env); !slices.Equal(names, []string{"self"}) {
		t.Fatalf("got %v", names)
	}
}

func TestSelectWindow(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		sid := env.fx.NewSession(t, "s")
		w1 := env.fx.Tmux(t, "new-window", "-d", "-t", sid, "-P", "-F", "#{window_id}")
		w2 := env.fx.Tmux(t, "new-window", "-d", "-t", sid, "-P", "-F", "#{window_id}")
		current := func() string {
			return env.fx.Tmux(t, "display-message", "-p", "-t", sid+":", "#{window_id}")
		}
		w0 := current()

		var w WindowInfo
		env.ok(t, "select_window", map[string]any{"window_id": w2}, &w)
		if w.WindowID != w2 || w.WindowActive != "1" || current() != w2 {
			t.Fatalf("by id: got %+v, tmux current %s", w, current())
		}
		env.ok(t, "select_window", map[string]any{"session_name": "s", "window_index": "1"}, &w)
		if w.WindowID != w1 || current() != w1 {
			t.Fatalf("by index: got %+v, tmux current %s", w, current())
		}
		for _, step := range []struct{ direction, want string }{
			{"next", w2}, {"next", w0}, {"previous", w2}, {"last", w0},
		} {
			env.ok(t, "select_window", map[string]any{"session_id": sid, "direction": step.direction}, &w)
			if w.WindowID != step.want || w.WindowActive != "1" || current() != step.want {
				t.Fatalf("%s: got %+v, tmux current %s, want %s", step.direction, w, current(), step.want)
			}
		}

		e := env.fail(t, "select_window", map[string]any{"session_id": sid, "window_index": "7"})
		if e.Code != CodeNotFound {
			t.Fatalf("missing index: got %+v", e)
		}
		wantCode(t, env.fail(t, "select_window", map[string]any{"window_id": "@999"}), CodeNotFound)
		for _, args := range []map[string]any{{"window_index": "1"}, {"direction": "next"}, {"session_id": sid}} {
			e := env.fail(t, "select_window", args)
			if e.Code != CodeTargetRequired || e.Effects != EffectsNone {
				t.Fatalf("%v: got %+v, want target_required", args, e)
			}
		}
		if current() != w0 {
			t.Fatal("a failed call changed the current window")
		}
	})
}

func TestTeardownSession(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		borrowed := env.fx.NewSession(t, "borrowed")
		var a, b SessionInfo
		env.ok(t, "create_session", map[string]any{"session_name": "mine"}, &a)
		env.ok(t, "create_session", map[string]any{"session_name": "mine2"}, &b)

		var res TeardownSessionResult
		env.ok(t, "teardown_session", map[string]any{"sessionId": a.SessionID, "generation": a.Generation}, &res)
		if res != (TeardownSessionResult{Completed: true, SessionID: a.SessionID, Generation: a.Generation}) {
			t.Fatalf("got %+v", res)
		}
		if _, err := env.fx.TryTmux("has-session", "-t", a.SessionID); err == nil {
			t.Fatal("the owned session survived teardown")
		}
		var sessions List[SessionInfo]
		env.ok(t, "list_sessions", nil, &sessions)
		if len(sessions.Result) != 2 {
			t.Fatalf("after teardown: got %+v", sessions.Result)
		}

		refuse := func(what string, args map[string]any) {
			t.Helper()
			e := env.fail(t, "teardown_session", args)
			if e.Code != CodeOwnershipRequired || e.Effects != EffectsNone || e.Retryable {
				t.Fatalf("%s: got %+v, want ownership_required, effects none", what, e)
			}
		}
		refuse("already torn down", map[string]any{"sessionId": a.SessionID, "generation": a.Generation})
		refuse("borrowed", map[string]any{"sessionId": borrowed, "generation": a.Generation})
		refuse("wrong generation", map[string]any{"sessionId": b.SessionID, "generation": "1:2"})
		for _, id := range []string{borrowed, b.SessionID} {
			if _, err := env.fx.TryTmux("has-session", "-t", id); err != nil {
				t.Fatalf("session %s did not survive a refused teardown", id)
			}
		}

		// Owned, but killed by someone else: tears down as completed.
		env.fx.Tmux(t, "kill-session", "-t", b.SessionID)
		env.ok(t, "teardown_session", map[string]any{"sessionId": b.SessionID, "generation": b.Generation}, &res)
		if !res.Completed {
			t.Fatalf("got %+v", res)
		}
		if names := swSessionNames(t, env); !slices.Equal(names, []string{"borrowed"}) {
			t.Fatalf("got %v", names)
		}
		e := env.fail(t, "teardown_session", map[string]any{"sessionId": a.SessionID})
		wantCode(t, e, CodeInvalidArguments)
	})
}

// TestSessionNamesTmuxWouldChange checks that create_session and
// rename_session refuse a name with "." or ":", which tmux would store as
// "_", before anything reaches tmux, and say what tmux would have made of it.
func TestSessionNamesTmuxWouldChange(t *testing.T) {
	env := newTmuxEnv(t, "", nil)
	sid := env.fx.NewSession(t, "keep")
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"create_session", map[string]any{"session_name": "a.b"}, `session_name "a.b" contains ".", which tmux does not keep in a session name (it would make it "a_b")`},
		{"create_session", map[string]any{"session_name": "host:8080"}, `contains ":"`},
		{"rename_session", map[string]any{"session_id": sid, "new_name": "v1.2"}, `new_name "v1.2" contains "."`},
	} {
		e := env.fail(t, tc.tool, tc.args)
		if e.Code != CodeInvalidArguments || e.Effects != EffectsNone || !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s %v: got %+v, want invalid_arguments, effects none, %q", tc.tool, tc.args, e, tc.want)
		}
	}
	if got := env.fx.Tmux(t, "list-sessions", "-F", "#{session_name}"); got != "keep" {
		t.Errorf("tmux has sessions %q, want keep alone", got)
	}
	// Any other character is kept as given.
	var s SessionInfo
	env.ok(t, "create_session", map[string]any{"session_name": "a_b-c d"}, &s)
	if s.SessionName != "a_b-c d" {
		t.Errorf("got %q", s.SessionName)
	}
}
