package mcp

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// paneTestSession starts a detached 80x24 session running command (the
// default shell if none) and returns its id and its pane's id.
func paneTestSession(t *testing.T, env *tmuxEnv, name string, command ...string) (sid, pane string) {
	t.Helper()
	sid = env.fx.NewSession(t, name, command...)
	return sid, env.fx.Tmux(t, "display-message", "-p", "-t", sid+":", "#{pane_id}")
}

// paneTestSplit splits pane (-h side by side, else -v) running command and
// returns the new pane's id.
func paneTestSplit(t *testing.T, env *tmuxEnv, pane, dir string, command ...string) string {
	t.Helper()
	args := append([]string{"split-window", dir, "-d", "-t", pane, "-P", "-F", "#{pane_id}"}, command...)
	return env.fx.Tmux(t, args...)
}

// paneTestWait polls the pane's screen, through a separate tmux process,
// until it contains want, and returns it. The deadline only catches hangs.
func paneTestWait(t *testing.T, env *tmuxEnv, pane, want string) string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		out := env.fx.Tmux(t, "capture-pane", "-p", "-J", "-t", pane)
		// tmux 3.2 pads joined lines to the pane's width.
		out = regexp.MustCompile(`(?m) +$`).ReplaceAllString(out, "")
		if strings.Contains(out, want) {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("pane %s never showed %q; it shows:\n%s", pane, want, out)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// paneTestShow types lines into a pane running cat, one at a time, each
// once cat has echoed the one before, so they show in order: each twice
// (the terminal's echo, then cat's copy).
func paneTestShow(t *testing.T, env *tmuxEnv, pane string, lines ...string) {
	t.Helper()
	for _, l := range lines {
		before := paneTestCount(t, env, pane, l)
		env.fx.Tmux(t, "send-keys", "-t", pane, "-l", "--", l)
		env.fx.Tmux(t, "send-keys", "-t", pane, "Enter")
		deadline := time.Now().Add(15 * time.Second)
		for paneTestCount(t, env, pane, l) < before+2 {
			if time.Now().After(deadline) {
				t.Fatalf("cat in %s never echoed %q", pane, l)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
}

// paneTestCount counts the lines of a pane, history included, equal to l.
func paneTestCount(t *testing.T, env *tmuxEnv, pane, l string) int {
	t.Helper()
	n := 0
	for _, x := range strings.Split(env.fx.Tmux(t, "capture-pane", "-p", "-t", pane, "-S", "-"), "\n") {
		if x == l {
			n++
		}
	}
	return n
}

func TestCapturePane(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		_, pane := paneTestSession(t, env, "cap", "exec cat")
		paneTestShow(t, env, pane, "alpha", "beta", "gamma")

		t.Run("by id", func(t *testing.T) {
			var out Message
			env.ok(t, "capture_pane", map[string]any{"pane_id": pane}, &out)
			want := "alpha\nalpha\nbeta\nbeta\ngamma\ngamma"
			if out.Result != want {
				t.Fatalf("got %q, want %q", out.Result, want)
			}
		})
		t.Run("max_lines keeps the newest", func(t *testing.T) {
			var out Message
			env.ok(t, "capture_pane", map[string]any{"pane_id": pane, "max_lines": 2}, &out)
			if want := "[... truncated 4 lines ...]\ngamma\ngamma"; out.Result != want {
				t.Fatalf("got %q, want %q", out.Result, want)
			}
		})
		t.Run("start and end", func(t *testing.T) {
			var out Message
			env.ok(t, "capture_pane", map[string]any{"pane_id": pane, "start": 2, "end": 3}, &out)
			if want := "beta\nbeta"; out.Result != want {
				t.Fatalf("got %q, want %q", out.Result, want)
			}
		})
		t.Run("fallback says which pane", func(t *testing.T) {
			var out Message
			env.ok(t, "capture_pane", map[string]any{}, &out)
			first, rest, _ := strings.Cut(out.Result, "\n")
			if !strings.Contains(first, "pane "+pane) || !strings.HasPrefix(rest, "alpha") {
				t.Fatalf("got %q, want a first line naming %s, then the text", out.Result, pane)
			}
		})
		t.Run("by session name", func(t *testing.T) {
			var out Message
			env.ok(t, "capture_pane", map[string]any{"session_name": "cap"}, &out)
			if !strings.HasPrefix(out.Result, "alpha") {
				t.Fatalf("got %q", out.Result)
			}
		})
		t.Run("missing pane", func(t *testing.T) {
			wantCode(t, env.fail(t, "capture_pane", map[string]any{"pane_id": "%999"}), CodeNotFound)
		})
		t.Run("missing session", func(t *testing.T) {
			wantCode(t, env.fail(t, "capture_pane", map[string]any{"session_name": "nope"}), CodeNotFound)
		})
		// Last: it scrolls the screen.
		t.Run("history", func(t *testing.T) {
			var more []string
			for i := range 15 {
				more = append(more, "h"+strconv.Itoa(i))
			}
			paneTestShow(t, env, pane, more...)
			var out Message
			env.ok(t, "capture_pane", map[string]any{"pane_id": pane, "start": -3, "end": -1}, &out)
			want := env.fx.Tmux(t, "capture-pane", "-p", "-t", pane, "-S", "-3", "-E", "-1")
			if out.Result != want || strings.Count(out.Result, "\n") != 2 {
				t.Fatalf("got %q, want %q", out.Result, want)
			}
		})
	})
}

// TestCapturePaneProtocolLookalikes shows a pane whose text looks like the
// control protocol's guards and notifications: it comes back as text.
func TestCapturePaneProtocolLookalikes(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		_, pane := paneTestSession(t, env, "fake", "exec cat")
		fake := []string{"%begin 1 2 1", "%end 1 2 1", "%error 1 2 1", "%exit", "%output %1 hi"}
		paneTestShow(t, env, pane, fake...)
		var out Message
		env.ok(t, "capture_pane", map[string]any{"pane_id": pane}, &out)
		var want []string
		for _, l := range fake {
			want = append(want, l, l)
		}
		if got := strings.Split(out.Result, "\n"); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("got %q, want %q", got, want)
		}
		// The connection survived: another call works.
		var info PaneInfo
		env.ok(t, "get_pane_info", map[string]any{"pane_id": pane}, &info)
	})
}

func TestSnapshotPane(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		_, pane := paneTestSession(t, env, "snap", "exec cat")
		paneTestShow(t, env, pane, "one", "two")

		var s PaneSnapshot
		env.ok(t, "snapshot_pane", map[string]any{"pane_id": pane}, &s)
		if s.PaneID != pane || s.Content != "one\none\ntwo\ntwo" || s.CursorX != 0 || s.CursorY != 4 ||
			s.PaneWidth != 80 || s.PaneHeight != 24 || s.PaneInMode || s.PaneMode != "" || s.ScrollPosition != nil ||
			s.PaneCurrentCommand != "cat" || s.PaneDead == nil || *s.PaneDead || s.AlternateOn == nil || *s.AlternateOn ||
			s.PaneLeft == nil || *s.PaneLeft != 0 || s.PaneAtRight == nil || !*s.PaneAtRight || s.ContentTruncated {
			t.Fatalf("got %+v", s)
		}
		if want := env.fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_tty} #{pane_pid} #{history_size}"); s.PaneTTY+" "+s.PanePID+" "+strconv.Itoa(s.HistorySize) != want {
			t.Fatalf("tty, pid, history %s %s %d; want %s", s.PaneTTY, s.PanePID, s.HistorySize, want)
		}
		if s.IsCaller != nil {
			t.Fatalf("is_caller %v, want absent outside tmux", *s.IsCaller)
		}

		env.ok(t, "snapshot_pane", map[string]any{"pane_id": pane, "max_lines": 1}, &s)
		if s.Content != "two" || !s.ContentTruncated || s.ContentTruncatedLines != 3 {
			t.Fatalf("max_lines 1: got content %q truncated %v %d", s.Content, s.ContentTruncated, s.ContentTruncatedLines)
		}

		// Copy mode, scrolled: one screen of history first.
		var many []string
		for i := range 30 {
			many = append(many, "line"+strconv.Itoa(i))
		}
		paneTestShow(t, env, pane, many...)
		env.fx.Tmux(t, "copy-mode", "-t", pane)
		env.fx.Tmux(t, "send-keys", "-t", pane, "-X", "-N", "3", "scroll-up")
		env.ok(t, "snapshot_pane", map[string]any{"session_name": "snap"}, &s)
		if !s.PaneInMode || s.PaneMode != "copy-mode" || s.ScrollPosition == nil || *s.ScrollPosition != 3 || s.HistorySize == 0 {
			t.Fatalf("in copy mode: got %+v", s)
		}

		wantCode(t, env.fail(t, "snapshot_pane", map[string]any{"pane_id": "%999"}), CodeNotFound)
	})
}

func TestSearchPanes(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		_, p1 := paneTestSession(t, env, "s1", "exec cat")
		p2 := paneTestSplit(t, env, p1, "-h", "exec cat")
		_, p3 := paneTestSession(t, env, "s2", "exec cat")
		paneTestShow(t, env, p1, "Needle one", "hay")
		paneTestShow(t, env, p2, "needle two")
		paneTestShow(t, env, p3, "NEEDLE three", "error 42")

		search := func(args map[string]any) SearchPanesResult {
			t.Helper()
			var r SearchPanesResult
			env.ok(t, "search_panes", args, &r)
			return r
		}
		ids := func(r SearchPanesResult) string {
			var s []string
			for _, m := range r.Matches {
				s = append(s, m.PaneID)
			}
			return strings.Join(s, ",")
		}

		r := search(map[string]any{"pattern": "needle"})
		if ids(r) != strings.Join([]string{p1, p2, p3}, ",") || r.TotalPanesMatched != 3 || r.Truncated || r.Limit == nil || *r.Limit != 500 {
			t.Fatalf("case-insensitive: got %+v", r)
		}
		if m := r.Matches[0]; strings.Join(m.MatchedLines, "|") != "Needle one|Needle one" || m.SessionName != "s1" || m.WindowID == "" || m.PaneCurrentCommand != "cat" {
			t.Fatalf("first match %+v", m)
		}

		r = search(map[string]any{"pattern": "needle", "match_case": true})
		if ids(r) != p2 {
			t.Fatalf("match_case: got %s, want %s", ids(r), p2)
		}
		r = search(map[string]any{"pattern": `error \d+`, "regex": true})
		if ids(r) != p3 || r.Matches[0].MatchedLines[0] != "error 42" {
			t.Fatalf("regex: got %+v", r)
		}
		r = search(map[string]any{"pattern": `error \d+`})
		if len(r.Matches) != 0 {
			t.Fatalf("literal pattern matched as a regex: %+v", r)
		}
		r = search(map[string]any{"pattern": "needle", "session_name": "s2"})
		if ids(r) != p3 {
			t.Fatalf("session scope: got %s, want %s", ids(r), p3)
		}
		r = search(map[string]any{"pattern": "needle", "limit": 1, "offset": 1})
		if ids(r) != p2 || !r.Truncated || strings.Join(r.TruncatedPanes, ",") != p3 || r.TotalPanesMatched != 3 || r.Offset != 1 {
			t.Fatalf("page: got %+v", r)
		}
		r = search(map[string]any{"pattern": "needle", "limit": 0})
		if r.Limit != nil || len(r.Matches) != 3 {
			t.Fatalf("no limit: got %+v", r)
		}
		r = search(map[string]any{"pattern": "needle", "max_matched_lines_per_pane": 1, "session_id": env.fx.Tmux(t, "display-message", "-p", "-t", p1, "#{session_id}")})
		if ids(r) != p1+","+p2 || len(r.Matches[0].MatchedLines) != 1 || !r.Truncated {
			t.Fatalf("per-pane cap: got %+v", r)
		}

		wantCode(t, env.fail(t, "search_panes", map[string]any{"pattern": "(", "regex": true}), CodeInvalidArguments)
		wantCode(t, env.fail(t, "search_panes", map[string]any{"pattern": "x", "session_name": "nope"}), CodeNotFound)
	})
}

func TestGetPaneInfo(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		// Two arguments, so tmux execs the program itself: no moment in
		// which the pane's command is sh. tmux's own child is named tmux
		// until the exec, so the program says when it runs (seen in CI:
		// pane_current_command "tmux").
		sid, pane := paneTestSession(t, env, "info", "cat", "-u")
		right := paneTestSplit(t, env, pane, "-h", "awk", `BEGIN { print "awk-runs"; fflush() } { print }`)
		paneTestWait(t, env, right, "awk-runs")

		var p PaneInfo
		env.ok(t, "get_pane_info", map[string]any{"pane_id": right}, &p)
		want := env.fx.Tmux(t, "display-message", "-p", "-t", right,
			"#{pane_id} #{pane_index} #{pane_width} #{pane_height} #{pane_left} #{pane_tty} #{pane_pid} #{pane_active} #{window_id} #{session_id}")
		got := strings.Join([]string{p.PaneID, p.PaneIndex, p.PaneWidth, p.PaneHeight, strconv.Itoa(*p.PaneLeft), p.PaneTTY, p.PanePID, p.PaneActive, p.WindowID, p.SessionID}, " ")
		if got != want || p.PaneCurrentCommand != "awk" || p.PaneAtLeft == nil || *p.PaneAtLeft || !*p.PaneAtRight {
			t.Fatalf("got %q %+v, want %q", got, p, want)
		}

		// A session target reads its active pane; no target, the default.
		env.ok(t, "get_pane_info", map[string]any{"session_id": sid}, &p)
		if p.PaneID != pane || p.PaneActive != "1" {
			t.Fatalf("by session: got %+v, want active pane %s", p, pane)
		}
		env.ok(t, "get_pane_info", map[string]any{}, &p)
		if p.PaneID != pane {
			t.Fatalf("fallback: got %s, want %s", p.PaneID, pane)
		}

		wantCode(t, env.fail(t, "get_pane_info", map[string]any{"pane_id": "%999"}), CodeNotFound)
		wantCode(t, env.fail(t, "get_pane_info", map[string]any{"window_id": "@999"}), CodeNotFound)
	})
}

func TestFindPaneByPosition(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		_, tl := paneTestSession(t, env, "grid", "exec cat")
		tr := paneTestSplit(t, env, tl, "-h", "exec cat")
		bl := paneTestSplit(t, env, tl, "-v", "exec cat")
		br := paneTestSplit(t, env, tr, "-v", "exec cat")
		win := env.fx.Tmux(t, "display-message", "-p", "-t", tl, "#{window_id}")

		for corner, want := range map[string]string{"top-left": tl, "top-right": tr, "bottom-left": bl, "bottom-right": br} {
			var p PaneInfo
			env.ok(t, "find_pane_by_position", map[string]any{"corner": corner, "window_id": win}, &p)
			if p.PaneID != want {
				t.Errorf("%s: got %s, want %s", corner, p.PaneID, want)
			}
		}
		var p PaneInfo
		env.ok(t, "find_pane_by_position", map[string]any{"corner": "bottom-right", "session_name": "grid", "window_index": "0"}, &p)
		if p.PaneID != br {
			t.Errorf("by index: got %s, want %s", p.PaneID, br)
		}
		env.ok(t, "find_pane_by_position", map[string]any{"corner": "top-right"}, &p)
		if p.PaneID != tr {
			t.Errorf("fallback: got %s, want %s", p.PaneID, tr)
		}

		wantCode(t, env.fail(t, "find_pane_by_position", map[string]any{"corner": "top-left", "window_id": "@999"}), CodeNotFound)
		wantCode(t, env.fail(t, "find_pane_by_position", map[string]any{"corner": "middle"}), CodeInvalidArguments)
	})
}

func TestDisplayMessage(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		_, pane := paneTestSession(t, env, "disp", "exec cat")

		var out Message
		env.ok(t, "display_message", map[string]any{"pane_id": pane, "format_string": "id=#{pane_id} w=#{pane_width} -x"}, &out)
		if want := "id=" + pane + " w=80 -x"; out.Result != want {
			t.Fatalf("got %q, want %q", out.Result, want)
		}
		env.ok(t, "display_message", map[string]any{"format_string": "#{session_name}"}, &out)
		if first, rest, _ := strings.Cut(out.Result, "\n"); !strings.Contains(first, pane) || rest != "disp" {
			t.Fatalf("fallback: got %q", out.Result)
		}

		// Refused before anything is written: no call reaches tmux.
		srv := env.manager.Server(session.Socket{Name: env.fx.Socket})
		canary := filepath.Join(t.TempDir(), "canary")
		env.ok(t, "list_sessions", nil, nil) // resyncs the model now, not during the count
		before := srv.ConnStats().Calls
		for _, f := range []string{
			"#(touch " + canary + ")",
			"x #{E:status-left}",
			"#{?pane_active,#(touch " + canary + "),}",
			"#{T:status-right}",
			"## #",
		} {
			env := env.fail(t, "display_message", map[string]any{"pane_id": pane, "format_string": f})
			wantCode(t, env, CodeInvalidArguments)
			if env.Effects != EffectsNone {
				t.Errorf("%q: effects %s, want none", f, env.Effects)
			}
		}
		if after := srv.ConnStats().Calls; after != before {
			t.Fatalf("refused calls reached tmux: %d calls before, %d after", before, after)
		}
		if _, err := os.Stat(canary); err == nil {
			t.Fatal("the canary file was created")
		}

		wantCode(t, env.fail(t, "display_message", map[string]any{"pane_id": "%999", "format_string": "#{pane_id}"}), CodeNotFound)
	})
}

func TestKeepTail(t *testing.T) {
	long := strings.Repeat("é", 100) // 200 bytes, 200 in JSON
	for _, c := range []struct {
		name     string
		lines    []string
		max, bud int
		kept     []string
		dropped  int
		cut      int
	}{
		{"all", []string{"a", "b"}, 0, 100, []string{"a", "b"}, 0, 0},
		{"max_lines", []string{"a", "b", "c"}, 2, 100, []string{"b", "c"}, 1, 0},
		{"budget", []string{"aaaa", "bbbb", "cccc"}, 0, 12, []string{"bbbb", "cccc"}, 1, 0},
		{"json escapes count", []string{"\x01\x01", "cc"}, 0, 8, []string{"cc"}, 1, 0},
		{"one line over budget", []string{"x", long}, 0, 60, []string{strings.Repeat("é", 5)}, 1, 190},
		{"empty", nil, 5, 10, nil, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			kept, dropped, cut := keepTail(c.lines, c.max, c.bud)
			if strings.Join(kept, "|") != strings.Join(c.kept, "|") || dropped != c.dropped || cut != c.cut {
				t.Fatalf("got %q, %d dropped, %d cut; want %q, %d, %d", kept, dropped, cut, c.kept, c.dropped, c.cut)
			}
		})
	}
}
