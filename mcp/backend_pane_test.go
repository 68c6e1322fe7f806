package mcp

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// paneTestFile polls until the file at path holds at least n bytes, and
// returns its content. The deadline only catches hangs.
func paneTestFile(t *testing.T, path string, n int) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil && len(b) >= n {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s holds %d bytes after 30s, want %d (err %v)", path, len(b), n, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// paneTestProgram polls until the pane's foreground program is program.
// The deadline only catches hangs.
func paneTestProgram(t *testing.T, env *tmuxEnv, pane, program string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for env.fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_current_command}") != program {
		if time.Now().After(deadline) {
			t.Fatalf("pane %s never ran %s", pane, program)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// paneTestLines polls until n lines of the pane, history included, equal
// line. The deadline only catches hangs.
func paneTestLines(t *testing.T, env *tmuxEnv, pane, line string, n int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for paneTestCount(t, env, pane, line) < n {
		if time.Now().After(deadline) {
			t.Fatalf("pane %s never showed %d lines %q; it shows:\n%s", pane, n, line,
				env.fx.Tmux(t, "capture-pane", "-p", "-t", pane, "-S", "-"))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSendKeys(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		_, pane := paneTestSession(t, env, "keys", "exec cat")
		// Until sh has exec'd cat the pane looks like a shell starting, and
		// text for it is held for a prompt (the answer then says so).
		paneTestProgram(t, env, pane, "cat")

		var out Message
		env.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "hello world"}, &out)
		if out.Result != "Keys sent to pane "+pane+", then Enter" {
			t.Fatalf("got %q", out.Result)
		}
		paneTestWait(t, env, pane, "hello world\nhello world")

		// Without enter the text waits on the line; a key name is a key.
		env.ok(t, "send_keys", map[string]any{"session_name": "keys", "keys": "-n half", "enter": false}, nil)
		paneTestWait(t, env, pane, "-n half")
		env.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "Enter", "enter": false}, nil)
		paneTestWait(t, env, pane, "-n half\n-n half")
		env.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "Enter", "literal": true}, nil)
		paneTestWait(t, env, pane, "Enter\nEnter")
		env.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "quiet", "suppress_history": true}, nil)
		paneTestWait(t, env, pane, " quiet\n quiet")

		// A list: key names and texts pressed in order; the string form
		// of the same words types them.
		env.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": []any{"a", "Space", "b", "BSpace", "c", "Enter"}, "enter": false}, &out)
		if out.Result != "6 keys pressed one at a time in pane "+pane+"; the pane printed after each" {
			t.Fatalf("got %q", out.Result)
		}
		paneTestWait(t, env, pane, "a c\na c")
		env.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "a Space b"}, nil)
		paneTestWait(t, env, pane, "a Space b\na Space b")
		env.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": []any{"Enter", "x"}, "literal": true, "suppress_history": true}, nil)
		paneTestWait(t, env, pane, " Enterx\n Enterx")
		env.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": []any{"y"}, "suppress_history": true}, nil)
		paneTestWait(t, env, pane, " y\n y")
		for _, bad := range []any{[]any{}, []any{""}, []any{"a", 1}, 5} {
			wantCode(t, env.fail(t, "send_keys", map[string]any{"pane_id": pane, "keys": bad}), CodeInvalidArguments)
		}

		wantCode(t, env.fail(t, "send_keys", map[string]any{"pane_id": "%999", "keys": "x"}), CodeNotFound)
		wantCode(t, env.fail(t, "send_keys", map[string]any{"keys": "x"}), CodeTargetRequired)
		wantCode(t, env.fail(t, "send_keys", map[string]any{"window_id": "@999", "keys": "x"}), CodeNotFound)
	})
}

// TestSendKeysInjection sends text that tmux's command parser, its format
// expander or a shell would act on. It must arrive as text, and nothing
// may run: the pane runs cat, so a canary file could only come from tmux.
func TestSendKeysInjection(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		_, pane := paneTestSession(t, env, "inj", "exec cat")
		dir := t.TempDir()
		canary := filepath.Join(dir, "CANARY")
		home, _ := os.UserHomeDir()
		attacks := []string{
			"; kill-server",
			`\; kill-server`,
			"#(touch " + canary + ")",
			"$(touch " + canary + ")",
			"`touch " + canary + "`",
			"$HOME ~ ${HOME}",
			`"dq" 'sq' \n {}`,
			"{ kill-server }",
			"%end 1 1 1",
			"# comment",
			"#{pane_id}",
			"-t %0",
		}
		for _, literal := range []bool{true, false} {
			for i, a := range attacks {
				// A marker per line, so each arrival is told apart.
				keys := "L" + strconv.Itoa(i) + strconv.FormatBool(literal) + " " + a
				env.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": keys, "literal": literal}, nil)
				screen := paneTestWait(t, env, pane, keys+"\n"+keys)
				if home != "" && strings.Contains(screen, home) {
					t.Fatalf("$HOME was expanded: %q", screen)
				}
			}
		}
		if _, err := os.Stat(canary); err == nil {
			t.Fatal("the canary file was created")
		}
		if got := env.fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_id}"); got != pane {
			t.Fatalf("server state changed: got %q", got)
		}
	})
}

// TestSendKeysMegabyte sends 1 MiB of text in one call: the control
// channel has no line limit. The pane's program reads it all, raw.
func TestSendKeysMegabyte(t *testing.T) {
	env := newTmuxEnv(t, protocolVersions[len(protocolVersions)-1], nil)
	const n = 1 << 20
	out := filepath.Join(t.TempDir(), "got")
	_, pane := paneTestSession(t, env, "big", "stty raw -echo; echo READY; head -c "+strconv.Itoa(n)+" > "+out+"; exec cat")
	paneTestWait(t, env, pane, "READY") // the tty is raw: no line limit, no echo
	var b strings.Builder
	for b.Len() < n {
		b.WriteString("abcdefghijklmnopqrstuvwxyz0123456789"[b.Len()%36 : b.Len()%36+1])
	}
	keys := b.String()
	env.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": keys, "literal": true, "enter": false}, nil)
	if got := paneTestFile(t, out, n); got != keys {
		t.Fatalf("the pane read %d bytes, not the %d sent", len(got), n)
	}
}

func TestSendKeysBatch(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		_, p1 := paneTestSession(t, env, "b1", "exec cat")
		p2 := paneTestSplit(t, env, p1, "-h", "exec cat")

		var r SendKeysBatchResult
		env.ok(t, "send_keys_batch", map[string]any{"on_error": "continue", "operations": []any{
			map[string]any{"pane_id": p1, "keys": "first", "literal": true},
			map[string]any{"pane_id": "%999", "keys": "lost"},
			map[string]any{"keys": "nowhere"},
			map[string]any{"session_name": "b1", "keys": "second"},
			map[string]any{"pane_id": p2, "keys": "third", "enter": false},
		}}, &r)
		if r.Succeeded != 3 || r.Failed != 2 || r.StoppedAt != nil || len(r.Results) != 5 {
			t.Fatalf("continue: got %+v", r)
		}
		for i, want := range []struct {
			ok   bool
			pane string
			code string
		}{{true, p1, ""}, {false, "", CodeNotFound}, {false, "", CodeTargetRequired}, {true, p1, ""}, {true, p2, ""}} {
			got := r.Results[i]
			if got.Index != i || got.Success != want.ok || got.PaneID != want.pane || !strings.HasPrefix(got.Error, want.code) {
				t.Errorf("row %d: got %+v, want success %v pane %q code %q", i, got, want.ok, want.pane, want.code)
			}
		}
		paneTestLines(t, env, p1, "first", 2)
		paneTestLines(t, env, p1, "second", 2)
		paneTestWait(t, env, p2, "third")

		env.ok(t, "send_keys_batch", map[string]any{"operations": []any{
			map[string]any{"pane_id": p2, "keys": "-A"},
			map[string]any{"pane_id": "%999", "keys": "lost"},
			map[string]any{"pane_id": p2, "keys": "never"},
		}}, &r)
		if r.Succeeded != 1 || r.Failed != 1 || r.StoppedAt == nil || *r.StoppedAt != 1 || len(r.Results) != 2 {
			t.Fatalf("stop: got %+v", r)
		}
		paneTestWait(t, env, p2, "third-A\nthird-A")
		if screen := env.fx.Tmux(t, "capture-pane", "-p", "-t", p2); strings.Contains(screen, "never") {
			t.Fatalf("an op after the stop ran: %q", screen)
		}
	})
}

func TestPasteText(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		_, pane := paneTestSession(t, env, "paste", "exec cat")
		env.fx.Tmux(t, "set-buffer", "-b", "mine", "user's own")

		var out Message
		env.ok(t, "paste_text", map[string]any{"pane_id": pane, "text": "line one\n; kill-server #(x) $HOME\n"}, &out)
		if out.Result != "Text pasted to pane "+pane {
			t.Fatalf("got %q", out.Result)
		}
		paneTestLines(t, env, pane, "line one", 2)
		paneTestLines(t, env, pane, "; kill-server #(x) $HOME", 2)
		env.ok(t, "paste_text", map[string]any{"session_name": "paste", "text": "", "bracket": false}, &out)
		if buffers := env.fx.Tmux(t, "list-buffers", "-F", "#{buffer_name}"); buffers != "mine" {
			t.Fatalf("buffers left: %q, want only the user's", buffers)
		}

		wantCode(t, env.fail(t, "paste_text", map[string]any{"pane_id": "%999", "text": "x"}), CodeNotFound)
		wantCode(t, env.fail(t, "paste_text", map[string]any{"text": "x"}), CodeTargetRequired)
	})
}

func TestPipePane(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		_, pane := paneTestSession(t, env, "pipe", "exec cat")
		// tmux expands formats and strftime in the pipe command.
		path := filepath.Join(t.TempDir(), "out #{pane_id} %H 'q'.log")

		var out Message
		env.ok(t, "pipe_pane", map[string]any{"pane_id": pane, "output_path": path}, &out)
		if out.Result != "Piping pane "+pane+" to "+path {
			t.Fatalf("got %q", out.Result)
		}
		if env.fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_pipe}") != "1" {
			t.Fatal("pane_pipe is not 1")
		}
		env.fx.Tmux(t, "send-keys", "-t", pane, "piped text", "Enter")
		if got := paneTestFile(t, path, len("piped text")); !strings.Contains(got, "piped text") {
			t.Fatalf("file holds %q", got)
		}

		env.ok(t, "pipe_pane", map[string]any{"pane_id": pane}, &out)
		if out.Result != "Piping stopped for pane "+pane || env.fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_pipe}") != "0" {
			t.Fatalf("stop: got %q", out.Result)
		}

		wantCode(t, env.fail(t, "pipe_pane", map[string]any{"pane_id": "%999", "output_path": path}), CodeNotFound)
		wantCode(t, env.fail(t, "pipe_pane", map[string]any{"pane_id": pane, "output_path": "  "}), CodeInvalidArguments)
	})
}

// paneTestActive returns the active pane of window.
func paneTestActive(t *testing.T, env *tmuxEnv, window string) string {
	t.Helper()
	return env.fx.Tmux(t, "display-message", "-p", "-t", window, "#{pane_id}")
}

func TestSelectPane(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		_, left := paneTestSession(t, env, "sel", "exec cat")
		right := paneTestSplit(t, env, left, "-h", "exec cat")
		third := paneTestSplit(t, env, right, "-v", "exec cat")
		win := env.fx.Tmux(t, "display-message", "-p", "-t", left, "#{window_id}")

		var p PaneInfo
		env.ok(t, "select_pane", map[string]any{"pane_id": right}, &p)
		if p.PaneID != right || p.PaneActive != "1" || paneTestActive(t, env, win) != right {
			t.Fatalf("by id: got %+v", p)
		}
		steps := []struct {
			args map[string]any
			want string
		}{
			{map[string]any{"direction": "left", "window_id": win}, left},
			{map[string]any{"direction": "last", "session_name": "sel"}, right},
			{map[string]any{"direction": "down", "window_id": win}, third},
			{map[string]any{"direction": "next", "window_id": win}, left},
			{map[string]any{"direction": "previous", "session_name": "sel", "window_index": "0"}, third},
			{map[string]any{"direction": "previous", "window_id": win}, right},
		}
		for _, s := range steps {
			env.ok(t, "select_pane", s.args, &p)
			if got := paneTestActive(t, env, win); p.PaneID != s.want || got != s.want {
				t.Fatalf("%v: got %s (tmux says %s), want %s", s.args, p.PaneID, got, s.want)
			}
		}

		wantCode(t, env.fail(t, "select_pane", map[string]any{"pane_id": "%999"}), CodeNotFound)
		wantCode(t, env.fail(t, "select_pane", map[string]any{"direction": "up"}), CodeTargetRequired)
		wantCode(t, env.fail(t, "select_pane", map[string]any{"window_id": win}), CodeTargetRequired)
		wantCode(t, env.fail(t, "select_pane", map[string]any{"direction": "up", "window_id": "@999"}), CodeNotFound)
	})
}

func TestSwapPane(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		_, left := paneTestSession(t, env, "swap", "exec cat")
		right := paneTestSplit(t, env, left, "-h", "exec cat")
		var p PaneInfo
		env.ok(t, "swap_pane", map[string]any{"source_pane_id": left, "target_pane_id": right}, &p)
		if p.PaneID != left || p.PaneLeft == nil || *p.PaneLeft == 0 {
			t.Fatalf("got %+v, want %s on the right", p, left)
		}
		if got := env.fx.Tmux(t, "display-message", "-p", "-t", right, "#{pane_left}"); got != "0" {
			t.Fatalf("%s is at column %s, want 0", right, got)
		}
		wantCode(t, env.fail(t, "swap_pane", map[string]any{"source_pane_id": left, "target_pane_id": "%999"}), CodeNotFound)
	})
}

func TestResizePane(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		_, left := paneTestSession(t, env, "size", "exec cat")
		right := paneTestSplit(t, env, left, "-h", "exec cat")
		var p PaneInfo
		env.ok(t, "resize_pane", map[string]any{"pane_id": left, "width": 30}, &p)
		if p.PaneWidth != "30" || env.fx.Tmux(t, "display-message", "-p", "-t", left, "#{pane_width}") != "30" {
			t.Fatalf("got %+v, want width 30", p)
		}
		zoomed := func() string {
			return env.fx.Tmux(t, "display-message", "-p", "-t", right, "#{window_zoomed_flag}")
		}
		for _, z := range []bool{true, true, false, false} {
			env.ok(t, "resize_pane", map[string]any{"pane_id": right, "zoom": z}, &p)
			if want := map[bool]string{true: "1", false: "0"}[z]; zoomed() != want {
				t.Fatalf("zoom %v: window_zoomed_flag %s", z, zoomed())
			}
		}

		e := env.fail(t, "resize_pane", map[string]any{"pane_id": left, "zoom": true, "height": 5})
		wantCode(t, e, CodeInvalidArguments)
		if e.Effects != EffectsNone {
			t.Fatalf("effects %s, want none", e.Effects)
		}
		wantCode(t, env.fail(t, "resize_pane", map[string]any{"pane_id": "%999", "width": 10}), CodeNotFound)
		wantCode(t, env.fail(t, "resize_pane", map[string]any{"pane_id": "%999", "zoom": true}), CodeNotFound)
	})
}

func TestSetPaneTitle(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		_, pane := paneTestSession(t, env, "title", "exec cat")
		canary := filepath.Join(t.TempDir(), "canary")
		title := "t #{pane_id} ## #(touch " + canary + ") %H"
		var p PaneInfo
		env.ok(t, "set_pane_title", map[string]any{"pane_id": pane, "title": title}, &p)
		if p.PaneTitle != title || env.fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_title}") != title {
			t.Fatalf("got %q, want %q", p.PaneTitle, title)
		}
		if _, err := os.Stat(canary); err == nil {
			t.Fatal("the canary file was created")
		}
		wantCode(t, env.fail(t, "set_pane_title", map[string]any{"pane_id": "%999", "title": "x"}), CodeNotFound)
	})
}

func TestClearPane(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		_, pane := paneTestSession(t, env, "clear", "exec cat")
		var lines []string
		for i := range 30 {
			lines = append(lines, "row"+strconv.Itoa(i))
		}
		paneTestShow(t, env, pane, lines...)
		if env.fx.Tmux(t, "display-message", "-p", "-t", pane, "#{history_size}") == "0" {
			t.Fatal("no history to clear")
		}
		var out Message
		env.ok(t, "clear_pane", map[string]any{"pane_id": pane}, &out)
		if out.Result != "Pane cleared: "+pane {
			t.Fatalf("got %q", out.Result)
		}
		if h := env.fx.Tmux(t, "display-message", "-p", "-t", pane, "#{history_size}"); h != "0" {
			t.Fatalf("history_size %s after clear", h)
		}
		if screen := env.fx.Tmux(t, "capture-pane", "-p", "-t", pane, "-S", "-"); strings.Contains(screen, "row") {
			t.Fatalf("text left after clear: %q", screen)
		}
		wantCode(t, env.fail(t, "clear_pane", map[string]any{"pane_id": "%999"}), CodeNotFound)
	})
}

func TestCopyMode(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		_, pane := paneTestSession(t, env, "copy", "exec cat")
		var lines []string
		for i := range 30 {
			lines = append(lines, "row"+strconv.Itoa(i))
		}
		paneTestShow(t, env, pane, lines...)
		state := func() string {
			return env.fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_in_mode} #{pane_mode} #{scroll_position}")
		}

		var p PaneInfo
		env.ok(t, "enter_copy_mode", map[string]any{"pane_id": pane, "scroll_up": 5}, &p)
		if got := state(); got != "1 copy-mode 5" || p.PaneID != pane {
			t.Fatalf("enter: tmux says %q, got %+v", got, p)
		}
		env.ok(t, "exit_copy_mode", map[string]any{"pane_id": pane}, &p)
		if got := state(); got != "0" { // "0  ", trimmed
			t.Fatalf("exit: tmux says %q", got)
		}
		env.ok(t, "exit_copy_mode", map[string]any{"session_name": "copy"}, &p) // not in a mode: no error
		env.ok(t, "enter_copy_mode", map[string]any{"session_name": "copy"}, &p)
		if got := state(); got != "1 copy-mode 0" {
			t.Fatalf("enter without scroll: tmux says %q", got)
		}

		wantCode(t, env.fail(t, "enter_copy_mode", map[string]any{"pane_id": "%999"}), CodeNotFound)
		wantCode(t, env.fail(t, "exit_copy_mode", map[string]any{"pane_id": "%999"}), CodeNotFound)
		wantCode(t, env.fail(t, "enter_copy_mode", map[string]any{}), CodeTargetRequired)
	})
}

func TestRespawnPane(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		_, pane := paneTestSession(t, env, "respawn", "exec cat")
		oldPID := env.fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_pid}")
		dir := filepath.Join(t.TempDir(), "d#{pane_id}")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}

		var p PaneInfo
		env.ok(t, "respawn_pane", map[string]any{
			"pane_id": pane, "shell": `echo "respawned-$X"; exec cat`, "start_directory": dir,
			"environment": map[string]any{"X": "42"},
		}, &p)
		if p.PaneID != pane || p.PanePID == oldPID || p.PanePID == "" {
			t.Fatalf("got %+v, want a new pid (was %s)", p, oldPID)
		}
		paneTestWait(t, env, pane, "respawned-42")
		cwd, err := os.Readlink("/proc/" + env.fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_pid}") + "/cwd")
		if err == nil && cwd != dir {
			t.Fatalf("started in %q, want %q", cwd, dir)
		}

		wantCode(t, env.fail(t, "respawn_pane", map[string]any{"pane_id": pane, "kill": false}), CodeTmuxError)
		wantCode(t, env.fail(t, "respawn_pane", map[string]any{"pane_id": "%999"}), CodeNotFound)
		wantCode(t, env.fail(t, "respawn_pane", map[string]any{"pane_id": pane, "start_directory": filepath.Join(dir, "nope")}), CodeInvalidArguments)
	})
}

func TestKillPane(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		_, pane := paneTestSession(t, env, "kill", "exec cat")
		other := paneTestSplit(t, env, pane, "-h", "exec cat")

		var out Message
		env.ok(t, "kill_pane", map[string]any{"pane_id": other}, &out)
		if out.Result != "Pane killed: "+other {
			t.Fatalf("got %q", out.Result)
		}
		if panes := env.fx.Tmux(t, "list-panes", "-a", "-F", "#{pane_id}"); panes != pane {
			t.Fatalf("panes left: %q, want %s", panes, pane)
		}
		wantCode(t, env.fail(t, "kill_pane", map[string]any{"pane_id": other}), CodeNotFound)
		wantCode(t, env.fail(t, "kill_pane", map[string]any{"pane_id": "%999"}), CodeNotFound)
	})
}

// TestPaneSelfProtection: the pane this process runs in is never killed
// or respawned, and is marked is_caller; the same pane id on another
// server is not it.
func TestPaneSelfProtection(t *testing.T) {
	for _, v := range protocolVersions {
		t.Run(v, func(t *testing.T) {
			env := newTmuxEnv(t, v, nil)
			_, self := paneTestSession(t, env, "self", "exec cat")
			other := paneTestSplit(t, env, self, "-h", "exec cat")
			env.backend.opts.SelfPane = self
			env.backend.opts.SelfSocketPath = env.fx.SocketPath()
			pid := env.fx.Tmux(t, "display-message", "-p", "-t", self, "#{pane_pid}")
			// A pane_id is an id: a target such as "self:0.0" that tmux
			// would resolve to this very pane is refused before any I/O.
			wantCode(t, env.fail(t, "kill_pane", map[string]any{"pane_id": "self:0.0"}), CodeInvalidArguments)

			for _, call := range []struct {
				tool string
				args map[string]any
			}{
				{"kill_pane", map[string]any{"pane_id": self}},
				{"respawn_pane", map[string]any{"pane_id": self}},
			} {
				e := env.fail(t, call.tool, call.args)
				wantCode(t, e, CodeTargetDenied)
				if e.Effects != EffectsNone {
					t.Errorf("%s: effects %s, want none", call.tool, e.Effects)
				}
			}
			if got := env.fx.Tmux(t, "display-message", "-p", "-t", self, "#{pane_pid}"); got != pid {
				t.Fatalf("self pane's process changed: %s, was %s", got, pid)
			}

			var p PaneInfo
			env.ok(t, "get_pane_info", map[string]any{"pane_id": self}, &p)
			if p.IsCaller == nil || !*p.IsCaller {
				t.Fatalf("is_caller of self: got %v", p.IsCaller)
			}
			env.ok(t, "get_pane_info", map[string]any{"pane_id": other}, &p)
			if p.IsCaller == nil || *p.IsCaller {
				t.Fatalf("is_caller of other: got %v", p.IsCaller)
			}

			// On another server, the same pane id is someone else's.
			env.backend.opts.SelfSocketPath = env.fx.SocketPath() + "-elsewhere"
			env.ok(t, "respawn_pane", map[string]any{"pane_id": self}, &p)
			if p.IsCaller == nil || *p.IsCaller {
				t.Fatalf("is_caller elsewhere: got %v", p.IsCaller)
			}
			env.ok(t, "kill_pane", map[string]any{"pane_id": self}, nil)
		})
	}
}
