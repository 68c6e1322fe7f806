package mcp

import (
	"slices"
	"strings"
	"testing"
)

// Real-tmux tests of the window tools.

// swSplit splits target in a separate tmux process and returns the new
// pane's id.
func swSplit(t *testing.T, env *tmuxEnv, target string, flags ...string) string {
	t.Helper()
	args := append([]string{"split-window", "-d", "-t", target, "-P", "-F", "#{pane_id}"}, flags...)
	return env.fx.Tmux(t, args...)
}

// swPaneIDs lists the pane ids of target (a window) as tmux sees them.
func swPaneIDs(t *testing.T, env *tmuxEnv, target string) []string {
	t.Helper()
	return strings.Split(env.fx.Tmux(t, "list-panes", "-t", target, "-F", "#{pane_id}"), "\n")
}

func paneIDs(ps []PaneInfo) []string {
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.PaneID)
	}
	return ids
}

func TestListPanes(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		sid := env.fx.NewSession(t, "s")
		p0 := swPaneOf(t, env, sid+":")
		p1 := swSplit(t, env, p0, "-h")
		w1 := env.fx.Tmux(t, "new-window", "-d", "-t", sid, "-P", "-F", "#{window_id}")
		other := env.fx.NewSession(t, "other")
		p3 := swPaneOf(t, env, other+":")
		swSelf(env, p1)

		var got List[PaneInfo]
		env.ok(t, "list_panes", map[string]any{"session_id": sid, "window_index": "0"}, &got)
		if ids := paneIDs(got.Result); !slices.Equal(ids, []string{p0, p1}) {
			t.Fatalf("window 0: got %v, want %s %s", ids, p0, p1)
		}
		left, right := got.Result[0], got.Result[1]
		if *left.PaneAtLeft != true || *left.PaneAtRight || *right.PaneAtLeft || !*right.PaneAtRight ||
			*right.PaneLeft <= *left.PaneRight || left.PaneActive != "1" || right.PaneActive != "0" {
			t.Fatalf("geometry: got %+v and %+v", left.PaneGeometry, right.PaneGeometry)
		}
		for _, p := range got.Result {
			want := env.fx.Tmux(t, "display-message", "-p", "-t", p.PaneID,
				"#{pane_index} #{pane_width}x#{pane_height} #{pane_tty} #{pane_pid} #{window_id} #{session_id}")
			have := p.PaneIndex + " " + p.PaneWidth + "x" + p.PaneHeight + " " + p.PaneTTY + " " + p.PanePID + " " + p.WindowID + " " + p.SessionID
			if have != want {
				t.Errorf("pane %s: got %q, want %q", p.PaneID, have, want)
			}
			if p.IsCaller == nil || *p.IsCaller != (p.PaneID == p1) {
				t.Errorf("pane %s: is_caller %v, want %v", p.PaneID, p.IsCaller, p.PaneID == p1)
			}
		}

		env.ok(t, "list_panes", map[string]any{"window_id": w1}, &got)
		if len(got.Result) != 1 || got.Result[0].WindowID != w1 {
			t.Fatalf("window %s: got %+v", w1, got.Result)
		}
		env.ok(t, "list_panes", map[string]any{"session_name": "s"}, &got)
		if len(got.Result) != 3 {
			t.Fatalf("session s: got %v", paneIDs(got.Result))
		}
		env.ok(t, "list_panes", nil, &got)
		if ids := paneIDs(got.Result); len(ids) != 4 || !slices.Contains(ids, p3) {
			t.Fatalf("server: got %v", ids)
		}
		for _, tc := range []struct {
			filters map[string]any
			want    []string
		}{
			{map[string]any{"pane_at_right": "true", "session_name": "s", "window_index": "0"}, []string{p1}},
			{map[string]any{"session_name": "other"}, []string{p3}},
			{map[string]any{"is_caller": "yes"}, []string{p1}},
			{map[string]any{"pane_id__in": `["` + p0 + `","` + p3 + `"]`, "session_name__nin": `["other"]`}, []string{p0}},
		} {
			env.ok(t, "list_panes", map[string]any{"filters": tc.filters}, &got)
			if ids := paneIDs(got.Result); !slices.Equal(ids, tc.want) {
				t.Errorf("filters %v: got %v, want %v", tc.filters, ids, tc.want)
			}
		}

		wantCode(t, env.fail(t, "list_panes", map[string]any{"filters": map[string]any{"pane_at_left__contains": "1"}}), CodeInvalidArguments)
		wantCode(t, env.fail(t, "list_panes", map[string]any{"filters": map[string]any{"pane_at_left": "maybe"}}), CodeInvalidArguments)
		e := env.fail(t, "list_panes", map[string]any{"window_id": "@999"})
		if e.Code != CodeNotFound {
			t.Fatalf("missing window: got %+v", e)
		}
		wantCode(t, env.fail(t, "list_panes", map[string]any{"session_id": sid, "window_index": "9"}), CodeNotFound)
		wantCode(t, env.fail(t, "list_panes", map[string]any{"session_name": "nope"}), CodeNotFound)
	})
}

func TestGetWindowInfo(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		sid := env.fx.NewSession(t, "s")
		w0 := env.fx.Tmux(t, "display-message", "-p", "-t", sid+":", "#{window_id}")
		w1 := env.fx.Tmux(t, "new-window", "-d", "-t", sid, "-n", "second", "-P", "-F", "#{window_id}")
		swSplit(t, env, w1)

		var w WindowInfo
		env.ok(t, "get_window_info", map[string]any{"window_id": w1}, &w)
		want := env.fx.Tmux(t, "display-message", "-p", "-t", w1, "#{window_layout} #{pane_id}")
		if w.WindowID != w1 || w.WindowName != "second" || w.WindowIndex != "1" || w.PaneCount != 2 || w.SessionName != "s" ||
			w.WindowActive != "0" || w.WindowLayout+" "+w.ActivePaneID != want || w.WindowWidth != "80" || w.WindowHeight != "24" {
			t.Fatalf("by id: got %+v, want layout and pane %s", w, want)
		}
		env.ok(t, "get_window_info", map[string]any{"session_name": "s", "window_index": "1"}, &w)
		if w.WindowID != w1 {
			t.Fatalf("by index: got %+v", w)
		}
		env.ok(t, "get_window_info", map[string]any{"session_id": sid}, &w)
		if w.WindowID != w0 || w.WindowActive != "1" {
			t.Fatalf("session only: got %+v, want its current window %s", w, w0)
		}
		env.ok(t, "get_window_info", nil, &w)
		if w.WindowID != w0 {
			t.Fatalf("no target: got %+v, want %s", w, w0)
		}

		for _, args := range []map[string]any{
			{"window_id": "@999"},
			{"session_id": sid, "window_index": "5"},
			{"session_name": "nope", "window_index": "0"},
		} {
			e := env.fail(t, "get_window_info", args)
			if e.Code != CodeNotFound {
				t.Errorf("%v: got %+v, want not_found", args, e)
			}
		}
		wantCode(t, env.fail(t, "get_window_info", map[string]any{"session_id": sid, "window_index": "x"}), CodeInvalidArguments)
	})
}

func TestSplitWindow(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		sid := env.fx.NewSession(t, "s")
		p0 := swPaneOf(t, env, sid+":")

		var p PaneInfo
		env.ok(t, "split_window", map[string]any{"pane_id": p0, "direction": "right", "size": "30%"}, &p)
		if !strings.HasPrefix(p.PaneID, "%") || p.PaneID == p0 || !*p.PaneAtRight || *p.PaneAtLeft || p.PaneActive != "0" {
			t.Fatalf("right of %s: got %+v", p0, p)
		}
		if w := env.fx.Tmux(t, "display-message", "-p", "-t", p.PaneID, "#{pane_width}"); p.PaneWidth != w || w != "24" {
			t.Fatalf("30%% of 80 columns: got %s, tmux says %s", p.PaneWidth, w)
		}
		if active := swPaneOf(t, env, sid+":"); active != p0 {
			t.Fatalf("the new pane took focus: active is %s", active)
		}

		var q PaneInfo
		env.ok(t, "split_window", map[string]any{"pane_id": p0, "direction": "above", "size": 5}, &q)
		if q.PaneHeight != "5" || !*q.PaneAtTop || *q.PaneTop != 0 {
			t.Fatalf("above, 5 rows: got %+v", q)
		}
		var r PaneInfo
		env.ok(t, "split_window", map[string]any{"session_name": "s", "shell": "exec sleep 100"}, &r)
		if ids := swPaneIDs(t, env, sid+":"); len(ids) != 4 || !slices.Contains(ids, r.PaneID) {
			t.Fatalf("tmux lists %v, want 4 panes with %s", ids, r.PaneID)
		}
		if cmd := env.fx.Tmux(t, "display-message", "-p", "-t", r.PaneID, "#{pane_start_command}"); !strings.Contains(cmd, "sleep 100") {
			t.Fatalf("start command %q", cmd)
		}

		w1 := env.fx.Tmux(t, "new-window", "-d", "-t", sid, "-P", "-F", "#{window_id}")
		dir := t.TempDir()
		var s PaneInfo
		env.ok(t, "split_window", map[string]any{"window_id": w1, "direction": "left", "start_directory": dir,
			"environment": map[string]any{"SW_SPLIT": "yes"}}, &s)
		if s.WindowID != w1 || !*s.PaneAtLeft {
			t.Fatalf("left in %s: got %+v", w1, s)
		}
		env.fx.Tmux(t, "send-keys", "-t", s.PaneID, "-l", `echo "[$SW_SPLIT]" "[$(pwd)]"`)
		env.fx.Tmux(t, "send-keys", "-t", s.PaneID, "Enter")
		swWaitScreen(t, env, s.PaneID, "[yes] ["+dir+"]")

		before := len(strings.Split(env.fx.Tmux(t, "list-panes", "-a", "-F", "#{pane_id}"), "\n"))
		wantCode(t, env.fail(t, "split_window", map[string]any{"pane_id": "%999"}), CodeNotFound)
		for _, size := range []any{"abc", "0", "150%", "-3", "5x"} {
			e := env.fail(t, "split_window", map[string]any{"pane_id": p0, "size": size})
			if e.Code != CodeInvalidArguments || e.Effects != EffectsNone {
				t.Errorf("size %v: got %+v", size, e)
			}
		}
		wantCode(t, env.fail(t, "split_window", nil), CodeTargetRequired)
		wantCode(t, env.fail(t, "split_window", map[string]any{"window_index": "0"}), CodeTargetRequired)
		if after := len(strings.Split(env.fx.Tmux(t, "list-panes", "-a", "-F", "#{pane_id}"), "\n")); after != before {
			t.Fatalf("failed splits made panes: %d, then %d", before, after)
		}
	})
}

func TestRenameWindow(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		sid := env.fx.NewSession(t, "s")
		w1 := env.fx.Tmux(t, "new-window", "-d", "-t", sid, "-P", "-F", "#{window_id}")
		var w WindowInfo
		env.ok(t, "rename_window", map[string]any{"session_id": sid, "window_index": "1", "new_name": "build #{pane_id}"}, &w)
		if w.WindowID != w1 || w.WindowName != "build #{pane_id}" {
			t.Fatalf("got %+v", w)
		}
		if got := env.fx.Tmux(t, "display-message", "-p", "-t", w1, "#{window_name}"); got != "build #{pane_id}" {
			t.Fatalf("tmux says %q", got)
		}
		env.ok(t, "rename_window", map[string]any{"window_id": w1, "new_name": "-dash"}, &w)
		if got := env.fx.Tmux(t, "display-message", "-p", "-t", w1, "#{window_name}"); got != "-dash" || w.WindowName != "-dash" {
			t.Fatalf("a name starting with -: got %+v, tmux %q", w, got)
		}

		wantCode(t, env.fail(t, "rename_window", map[string]any{"window_id": "@999", "new_name": "x"}), CodeNotFound)
		wantCode(t, env.fail(t, "rename_window", map[string]any{"window_id": w1, "new_name": ""}), CodeInvalidArguments)
		wantCode(t, env.fail(t, "rename_window", map[string]any{"new_name": "x"}), CodeTargetRequired)
		wantCode(t, env.fail(t, "rename_window", map[string]any{"window_index": "1", "new_name": "x"}), CodeTargetRequired)
	})
}

func TestKillWindow(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		sid := env.fx.NewSession(t, "s")
		env.fx.NewSession(t, "t")
		w1 := env.fx.Tmux(t, "new-window", "-d", "-t", sid, "-P", "-F", "#{window_id}")
		var m Message
		env.ok(t, "kill_window", map[string]any{"window_id": w1}, &m)
		if m.Result != "Window killed: "+w1 {
			t.Errorf("got %q", m.Result)
		}
		if strings.Contains(env.fx.Tmux(t, "list-windows", "-a", "-F", "#{window_id}"), w1) {
			t.Fatalf("window %s survived", w1)
		}

		// The last window of the session the control client is attached
		// to: the session goes, the client moves on.
		env.ok(t, "list_sessions", nil, nil)
		attached := swControlSession(t, env)
		last := env.fx.Tmux(t, "display-message", "-p", "-t", attached+":", "#{window_id}")
		env.ok(t, "kill_window", map[string]any{"window_id": last}, nil)
		var sessions List[SessionInfo]
		env.ok(t, "list_sessions", nil, &sessions)
		if len(sessions.Result) != 1 || sessions.Result[0].SessionID == attached {
			t.Fatalf("after killing %s's last window: got %+v", attached, sessions.Result)
		}
		if dials := env.backend.server(Socket{}).ConnStats().Dials; dials != 1 {
			t.Errorf("the control client reconnected (%d connects)", dials)
		}

		e := env.fail(t, "kill_window", map[string]any{"window_id": "@999"})
		if e.Code != CodeNotFound {
			t.Fatalf("missing window: got %+v", e)
		}
		if e := env.fail(t, "kill_window", map[string]any{"window_id": ""}); e.Effects != EffectsNone ||
			e.Code != CodeTargetRequired && e.Code != CodeInvalidArguments {
			t.Fatalf("empty window_id: got %+v", e)
		}
		wantCode(t, env.fail(t, "kill_window", map[string]any{"session_id": sid}), CodeInvalidArguments)
	})
}

func TestKillWindowRefusesItsOwnWindow(t *testing.T) {
	env := newTmuxEnv(t, protocolVersions[0], nil)
	sid := env.fx.NewSession(t, "s")
	w0 := env.fx.Tmux(t, "display-message", "-p", "-t", sid+":", "#{window_id}")
	self := swSplit(t, env, w0)
	w1 := env.fx.Tmux(t, "new-window", "-d", "-t", sid, "-P", "-F", "#{window_id}")
	swSelf(env, self)
	e := env.fail(t, "kill_window", map[string]any{"window_id": w0})
	if e.Code != CodeTargetDenied || e.Effects != EffectsNone {
		t.Fatalf("got %+v, want target_denied, effects none", e)
	}
	env.ok(t, "kill_window", map[string]any{"window_id": w1}, nil)
	if got := env.fx.Tmux(t, "list-windows", "-t", sid, "-F", "#{window_id}"); got != w0 {
		t.Fatalf("windows left: %q, want %s", got, w0)
	}
}

func TestSelectLayout(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		sid := env.fx.NewSession(t, "s")
		p0 := swPaneOf(t, env, sid+":")
		swSplit(t, env, p0)
		swSplit(t, env, p0)
		tops := func() string {
			return env.fx.Tmux(t, "list-panes", "-t", sid+":", "-F", "#{pane_top}")
		}

		var w WindowInfo
		env.ok(t, "select_layout", map[string]any{"session_id": sid, "window_index": "0", "layout": "even-horizontal"}, &w)
		if got := env.fx.Tmux(t, "display-message", "-p", "-t", sid+":", "#{window_layout}"); w.WindowLayout != got {
			t.Fatalf("result layout %q, tmux %q", w.WindowLayout, got)
		}
		if got := tops(); got != "0\n0\n0" {
			t.Fatalf("even-horizontal: pane tops %q", got)
		}
		env.ok(t, "select_layout", map[string]any{"session_name": "s", "layout": "even-vertical"}, &w)
		if got := tops(); got == "0\n0\n0" {
			t.Fatalf("even-vertical: pane tops %q", got)
		}
		// A layout string, as tmux printed it, restores that layout.
		env.ok(t, "select_layout", map[string]any{"window_id": w.WindowID, "layout": "tiled"}, &w)
		tiled := w.WindowLayout
		env.ok(t, "select_layout", map[string]any{"window_id": w.WindowID, "layout": "main-vertical"}, &w)
		env.ok(t, "select_layout", map[string]any{"window_id": w.WindowID, "layout": tiled}, &w)
		if got := env.fx.Tmux(t, "display-message", "-p", "-t", sid+":", "#{window_layout}"); got != tiled {
			t.Fatalf("custom layout: tmux has %q, want %q", got, tiled)
		}

		// tmux 3.3a crashes on these: they never reach it.
		for _, bad := range []string{"bogus", "tiledx", "main-horizontal-", "even-h"} {
			e := env.fail(t, "select_layout", map[string]any{"window_id": w.WindowID, "layout": bad})
			if e.Code != CodeInvalidArguments || e.Effects != EffectsNone {
				t.Fatalf("layout %q: got %+v", bad, e)
			}
		}
		if version := env.fx.Tmux(t, "display-message", "-p", "#{version}"); version < "3.5" {
			e := env.fail(t, "select_layout", map[string]any{"window_id": w.WindowID, "layout": "main-vertical-mirrored"})
			if e.Code != CodeInvalidArguments || e.Effects != EffectsNone {
				t.Fatalf("a mirrored layout on tmux %s: got %+v", version, e)
			}
		}
		e := env.fail(t, "select_layout", map[string]any{"window_id": w.WindowID, "layout": "ffff,1x1,0,0,0"})
		if e.Code != CodeTmuxError || e.Effects != EffectsPossible {
			t.Fatalf("a layout string tmux refuses: got %+v", e)
		}
		if _, err := env.fx.TryTmux("has-session", "-t", sid); err != nil {
			t.Fatal("the server died")
		}
		wantCode(t, env.fail(t, "select_layout", map[string]any{"window_id": "@999", "layout": "tiled"}), CodeNotFound)
		wantCode(t, env.fail(t, "select_layout", map[string]any{"layout": "tiled"}), CodeTargetRequired)
	})
}

func TestResizeWindow(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		sid := env.fx.NewSession(t, "s")
		var w WindowInfo
		env.ok(t, "resize_window", map[string]any{"session_id": sid, "width": 100, "height": 30}, &w)
		size := func() string {
			return env.fx.Tmux(t, "display-message", "-p", "-t", sid+":", "#{window_width}x#{window_height}")
		}
		if got := size(); got != "100x30" || w.WindowWidth+"x"+w.WindowHeight != got {
			t.Fatalf("got %+v, tmux says %s", w, got)
		}
		env.ok(t, "resize_window", map[string]any{"window_id": w.WindowID, "width": 60}, &w)
		if got := size(); got != "60x30" {
			t.Fatalf("width only: tmux says %s", got)
		}

		e := env.fail(t, "resize_window", map[string]any{"window_id": w.WindowID})
		if e.Code != CodeInvalidArguments || e.Effects != EffectsNone {
			t.Fatalf("no size: got %+v", e)
		}
		wantCode(t, env.fail(t, "resize_window", map[string]any{"window_id": "@999", "width": 50}), CodeNotFound)
		wantCode(t, env.fail(t, "resize_window", map[string]any{"window_id": w.WindowID, "width": 0}), CodeInvalidArguments)
	})
}

func TestMoveWindow(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		a := env.fx.NewSession(t, "a")
		b := env.fx.NewSession(t, "b")
		w1 := env.fx.Tmux(t, "new-window", "-d", "-t", a, "-n", "mover", "-P", "-F", "#{window_id}")

		var w WindowInfo
		env.ok(t, "move_window", map[string]any{"window_id": w1, "destination_index": "5"}, &w)
		if w.WindowID != w1 || w.WindowIndex != "5" || w.SessionID != a {
			t.Fatalf("to index 5: got %+v", w)
		}
		if got := swWindows(t, env, a); got[len(got)-1] != "5:mover" {
			t.Fatalf("tmux lists %v", got)
		}
		env.ok(t, "move_window", map[string]any{"session_id": a, "window_index": "5", "destination_session": "b"}, &w)
		if w.WindowID != w1 || w.SessionID != b || w.WindowIndex != "1" || w.SessionName != "b" {
			t.Fatalf("to session b: got %+v", w)
		}
		if got := swWindows(t, env, b); len(got) != 2 || got[1] != "1:mover" {
			t.Fatalf("tmux lists %v in b", got)
		}
		// Moving away the last window of a session ends it; the moved
		// window lives on.
		env.ok(t, "list_sessions", nil, nil)
		attached := swControlSession(t, env)
		other := a
		if attached == a {
			other = b
		}
		last := env.fx.Tmux(t, "list-windows", "-t", attached, "-F", "#{window_id}")
		for _, id := range strings.Split(last, "\n")[1:] {
			env.ok(t, "move_window", map[string]any{"window_id": id, "destination_session": other}, nil)
		}
		last = env.fx.Tmux(t, "list-windows", "-t", attached, "-F", "#{window_id}")
		env.ok(t, "move_window", map[string]any{"window_id": last, "destination_session": other, "destination_index": "9"}, &w)
		if w.WindowID != last || w.SessionID != other || w.WindowIndex != "9" {
			t.Fatalf("last window to %s: got %+v", other, w)
		}
		var sessions List[SessionInfo]
		env.ok(t, "list_sessions", nil, &sessions)
		if len(sessions.Result) != 1 || sessions.Result[0].SessionID != other || sessions.Result[0].WindowCount != 3 {
			t.Fatalf("after moving the last window: got %+v", sessions.Result)
		}

		e := env.fail(t, "move_window", map[string]any{"window_id": last, "destination_index": "0"})
		if e.Code != CodeTmuxError {
			t.Fatalf("index in use: got %+v", e)
		}
		wantCode(t, env.fail(t, "move_window", map[string]any{"window_id": last, "destination_session": "nope"}), CodeNotFound)
		wantCode(t, env.fail(t, "move_window", map[string]any{"window_id": "@999"}), CodeNotFound)
		wantCode(t, env.fail(t, "move_window", map[string]any{"window_id": last, "destination_index": "x"}), CodeInvalidArguments)
		wantCode(t, env.fail(t, "move_window", map[string]any{"destination_index": "3"}), CodeTargetRequired)
	})
}
