package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/session"
)

// newScopeEnv is newTmuxEnv with a scope and --allow-session globs.
func newScopeEnv(t *testing.T, scope string, allow []string) *tmuxEnv {
	t.Helper()
	fx := fixtures.NewServer(t)
	m := session.NewManager(&session.Options{Tmux: fx.Bin, ConfigFile: "/dev/null", SocketDir: testSocketDir()})
	t.Cleanup(func() { m.Close() })
	b := NewTmuxBackend(m, &TmuxOptions{Socket: session.Socket{Name: fx.Socket}})
	cs := connect(t, b, &Options{Safety: "destructive", Scope: scope, AllowSessions: allow}, "2025-11-25")
	return &tmuxEnv{fx: fx, manager: m, backend: b, cs: cs}
}

// scopeIDs are the ids of one session, its first pane and window.
type scopeIDs struct{ session, window, pane string }

func idsOf(t *testing.T, env *tmuxEnv, target string) scopeIDs {
	t.Helper()
	f := strings.Fields(env.fx.Tmux(t, "display-message", "-p", "-t", target, "#{session_id} #{window_id} #{pane_id}"))
	return scopeIDs{session: f[0], window: f[1], pane: f[2]}
}

// targetKeys are the arguments that name what a call acts on; a sweep
// replaces them all with one form of target.
var targetKeys = []string{"pane_id", "window_id", "window_index", "session_id", "session_name", "direction",
	"source_pane_id", "target_pane_id", "destination_session", "cursor", "operations", "scope", "target", "global_"}

// targetForms are the ways a call can name the borrowed session b (whose
// second window has index 1), given the agent's own ids and a
// capture_since cursor of b's pane.
func targetForms(b, own scopeIDs, cursor string) []map[string]any {
	op := func(k, v string) map[string]any {
		return map[string]any{"operations": []any{map[string]any{"keys": "x", k: v}}}
	}
	return []map[string]any{
		{"pane_id": b.pane}, {"window_id": b.window}, {"session_id": b.session}, {"session_name": "borrowed"},
		{"window_index": "1", "session_name": "borrowed"}, {"window_index": "1", "session_id": b.session},
		{"window_index": "0"}, {}, // the default session: borrowed is the oldest
		{"pane_id": own.pane, "session_name": "borrowed"}, // every target named is checked
		{"source_pane_id": own.pane, "target_pane_id": b.pane}, {"source_pane_id": b.pane, "target_pane_id": own.pane},
		{"window_id": own.window, "destination_session": "borrowed"},
		{"window_id": own.window, "destination_session": b.session},
		{"cursor": cursor},
		op("pane_id", b.pane), op("window_id", b.window), op("session_id", b.session), op("session_name", "borrowed"),
		{"operations": []any{map[string]any{"keys": "x", "pane_id": own.pane}, map[string]any{"keys": "x", "pane_id": b.pane}}},
		{"scope": "session", "target": "borrowed"}, {"scope": "session", "target": b.session},
		{"scope": "window", "target": b.window}, {"scope": "pane", "target": b.pane},
		{"scope": "window", "target": "borrowed:0"}, {"scope": "server"}, {"global_": true}, {"scope": "session"},
		{"direction": "next"}, {"direction": "next", "session_name": "borrowed"},
	}
}

// formArgs returns d's minimal arguments with their targets replaced by
// form, or false when d takes no such arguments or form leaves out one d
// requires.
func formArgs(t *testing.T, d *toolDef, form map[string]any) (map[string]any, bool) {
	args := minimalArgs(t, d.name)
	for _, k := range targetKeys {
		delete(args, k)
	}
	props := d.spec().schema.Properties
	for k, v := range form {
		if props[k] == nil {
			return nil, false
		}
		if k == "direction" {
			v = props[k].Enum[0]
		}
		args[k] = v
	}
	for _, r := range d.spec().schema.Required {
		if _, ok := args[r]; !ok {
			return nil, false
		}
	}
	for k, v := range map[string]any{"timeout": 0.05, "output_path": filepath.Join(t.TempDir(), "pipe")} {
		if props[k] != nil {
			args[k] = v
		}
	}
	return args, true
}

// refuses reports whether a call of d with a form of target aimed at the
// borrowed session must be refused. Every form but the bare default names
// the borrowed session; under owned, the default of a read is the agent's
// own session (except for the tables that have no default there: options,
// hooks, the global environment), and a listing's is cut to the scope.
func refuses(p *scopePolicy, d *toolDef, a access, form map[string]any) bool {
	switch {
	case !p.checks(a):
		return false
	case a == accessWrite || a == accessServer:
		return true
	}
	if len(form) == 0 || (len(form) == 1 && form["window_index"] != nil) {
		_, table := d.spec().schema.Properties["global_"]
		return a == accessRead && (table || d.name == "show_environment")
	}
	return true
}

// TestScopeHostile: under owned and owned-write, an agent calls every tool
// of the catalogue against a borrowed session through every form of
// target. Every attempt to change it is refused as target_denied (or
// target_required) with effects none and nothing written to the control
// channel; the borrowed panes receive no byte; under owned, nothing the
// agent reads (results, resources) reveals the borrowed session, and
// reads of it are refused too.
func TestScopeHostile(t *testing.T) {
	scopes := []Scope{ScopeOwnedWrite, ScopeOwned}
	if testing.Short() {
		// owned refuses what owned-write does and reads too, and checks
		// that nothing leaks: the quick loop sweeps it alone (1 s).
		scopes = scopes[1:]
	}
	for _, scope := range scopes {
		t.Run(scope.String(), func(t *testing.T) { scopeHostile(t, scope) })
	}
}

func scopeHostile(t *testing.T, scope Scope) {
	env := newScopeEnv(t, scope.String(), nil)
	dir := t.TempDir()
	heard := filepath.Join(dir, "borrowed.out")
	// The borrowed pane shows a secret (split so that the command line
	// itself does not), then records any byte it is sent.
	env.fx.NewSession(t, "borrowed", "sh", "-c", "echo SEC''RET-42; exec cat >"+heard)
	env.fx.Tmux(t, "new-window", "-d", "-t", "borrowed:", "sh", "-c", "exec cat >>"+heard)
	b := idsOf(t, env, "borrowed:0")
	var info SessionInfo
	env.ok(t, "create_session", map[string]any{"session_name": "agent"}, &info)
	own := idsOf(t, env, info.SessionID)
	srv := env.manager.Server(session.Socket{Name: env.fx.Socket})
	policy := &scopePolicy{scope: scope}
	// A real cursor of the borrowed pane, issued past the scope (the
	// backend itself), as an agent might keep one from an earlier server.
	since, err := env.backend.CaptureSince(t.Context(), CaptureSinceIn{PaneTarget: PaneTarget{PaneID: b.pane}})
	if err != nil {
		t.Fatal(err)
	}

	// leaks reports whether text names the borrowed session.
	leaks := func(text string) bool {
		for _, s := range []string{`"` + b.pane + `"`, `"` + b.window + `"`, `"` + b.session + `"`, "borrowed", "SECRET-42"} {
			if strings.Contains(text, s) {
				return true
			}
		}
		return false
	}
	quiesce := func() uint64 {
		t.Helper()
		if _, err := srv.Pane(t.Context(), own.pane); err != nil {
			t.Fatal(err)
		}
		if _, err := srv.Sessions(t.Context()); err != nil {
			t.Fatal(err)
		}
		return srv.ConnStats().Stats.Calls
	}
	var refused, allowed int
	for _, d := range catalogue() {
		a := d.access
		if d.batch || a == accessNone {
			continue // batch rows are calls of their own; accessNone names no session
		}
		for _, form := range targetForms(b, own, since.Cursor) {
			args, ok := formArgs(t, d, form)
			if !ok {
				continue
			}
			before := quiesce()
			res := call(t, env.cs, d.name, args)
			written := srv.ConnStats().Stats.Calls - before
			text := textOf(res)
			mustRefuse := refuses(policy, d, a, form)
			if !mustRefuse {
				allowed++
				if scope == ScopeOwned && !res.IsError && leaks(text) {
					t.Errorf("%s %v: the result names the borrowed session: %s", d.name, args, text)
				}
				continue
			}
			refused++
			if !res.IsError {
				t.Errorf("%s %v: accepted under %s: %s", d.name, args, scope, text)
				continue
			}
			e := envelopeOf(t, res)
			if (e.Code != CodeTargetDenied && e.Code != CodeTargetRequired) || e.Effects != EffectsNone {
				t.Errorf("%s %v: got %+v, want target_denied with effects none", d.name, args, e)
			}
			if e.Code == CodeTargetDenied && !strings.Contains(e.Message, "scope "+scope.String()) {
				t.Errorf("%s %v: the refusal does not name the scope: %s", d.name, args, e.Message)
			}
			for _, s := range []string{b.pane, b.window, b.session, "borrowed"} {
				if scope == ScopeOwned && strings.Contains(e.Message, s) && !strings.Contains(fmt.Sprint(form), s) {
					t.Errorf("%s %v: the refusal names the borrowed session (%s): %s", d.name, args, s, e.Message)
				}
			}
			if written != 0 {
				t.Errorf("%s %v: refused, but %d commands reached tmux", d.name, args, written)
			}
		}
	}
	if scope == ScopeOwned {
		scopeResources(t, env, b, own, leaks)
		// The secret is on the borrowed pane's screen (the agent may read
		// it under owned-write), but no search or default read finds it.
		if got := env.fx.Tmux(t, "capture-pane", "-p", "-t", b.pane); !strings.Contains(got, "SECRET-42") {
			t.Fatalf("the borrowed pane shows %q, want the secret", got)
		}
		for _, tool := range []string{"search_panes", "capture_pane", "snapshot_pane"} {
			args := map[string]any{"pattern": "SECRET"}
			if tool != "search_panes" {
				args = nil
			}
			if res := call(t, env.cs, tool, args); leaks(textOf(res)) {
				t.Errorf("%s %v: got %s, which reveals the borrowed pane", tool, args, textOf(res))
			}
		}
	}
	// The borrowed panes heard nothing: a byte to either would be in heard.
	if got, err := os.ReadFile(heard); err != nil || len(got) != 0 {
		t.Fatalf("the borrowed panes received %q (%v)", got, err)
	}
	if _, err := env.fx.TryTmux("has-session", "-t", b.session); err != nil {
		t.Fatalf("the borrowed session is gone: %v", err)
	}
	t.Logf("%s: %d calls refused with nothing written, %d allowed", scope, refused, allowed)
}

// scopeResources checks, under owned, that the tmux:// resources and
// subscriptions neither show nor watch the borrowed session.
func scopeResources(t *testing.T, env *tmuxEnv, b, own scopeIDs, leaks func(string) bool) {
	t.Helper()
	res, err := env.cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: "tmux://sessions"})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Contents[0].Text; leaks(text) || !strings.Contains(text, "agent") {
		t.Errorf("tmux://sessions: got %s, want the agent's session only", text)
	}
	for _, uri := range []string{"tmux://sessions/borrowed", "tmux://sessions/borrowed/windows",
		"tmux://sessions/borrowed/windows/0", "tmux://panes/" + b.pane, "tmux://panes/" + b.pane + "/content",
		"tmux://panes/" + strings.TrimPrefix(b.pane, "%"), "tmux://panes/" + strings.ReplaceAll(b.pane, "%", "%25")} {
		if res, err := env.cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: uri}); err == nil {
			t.Errorf("%s: read %v", uri, res.Contents[0].Text)
		} else if !strings.Contains(err.Error(), CodeTargetDenied) {
			t.Errorf("%s: got %v, want target_denied", uri, err)
		}
		if err := env.cs.Subscribe(t.Context(), &sdk.SubscribeParams{URI: uri}); err == nil {
			t.Errorf("subscribe %s: accepted", uri)
		}
	}
	for _, uri := range []string{"tmux://sessions/agent", "tmux://sessions/agent/windows/0", "tmux://panes/" + own.pane} {
		if _, err := env.cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: uri}); err != nil {
			t.Errorf("%s: %v", uri, err)
		}
		if err := env.cs.Subscribe(t.Context(), &sdk.SubscribeParams{URI: uri}); err != nil {
			t.Errorf("subscribe %s: %v", uri, err)
		}
	}
}

// TestScopeOwnSessionsWork: under owned, the tools that the hostile test
// sees refused work on the agent's own session, at once after
// create_session: no tool refuses it, and the listings show it.
func TestScopeOwnSessionsWork(t *testing.T) {
	env := newScopeEnv(t, "owned", nil)
	env.fx.NewSession(t, "borrowed", "sh", "-c", "exec cat >/dev/null")
	dir := t.TempDir()
	var info SessionInfo
	env.ok(t, "create_session", map[string]any{"session_name": "agent", "start_directory": dir}, &info)
	// In scope at once: the first call after create_session acts on it.
	env.ok(t, "send_keys", map[string]any{"pane_id": info.ActivePaneID, "keys": "true", "enter": false}, nil)
	var split PaneInfo
	env.ok(t, "split_window", map[string]any{"session_id": info.SessionID}, &split)
	own := idsOf(t, env, info.SessionID)
	forms := []map[string]any{{"pane_id": own.pane}, {"window_id": own.window}, {"session_id": own.session},
		{"session_name": "agent"}, {}, {"source_pane_id": own.pane, "target_pane_id": split.PaneID},
		{"window_id": own.window, "destination_session": "agent"}, {"scope": "session", "target": "agent"},
		{"scope": "pane", "target": own.pane}, {"operations": []any{map[string]any{"keys": "x", "pane_id": split.PaneID}}}}
	if testing.Short() {
		forms = forms[:5] // one form a kind of target, and the default
	}
	destroys := []string{"kill_session", "kill_window", "kill_pane", "respawn_pane", "kill_server", "signal_channel",
		"show_environment", "set_environment"}
	for _, d := range catalogue() {
		if d.batch || d.access == accessNone || slices.Contains(destroys, d.name) {
			continue
		}
		for _, form := range forms {
			args, ok := formArgs(t, d, form)
			_, table := d.spec().schema.Properties["global_"]
			if !ok || (len(form) == 0 && (d.access == accessWrite || table)) {
				continue // a write with no target acts on the oldest session, borrowed; a table on tmux's current one
			}
			res := call(t, env.cs, d.name, args)
			if res.IsError && envelopeOf(t, res).Code == CodeTargetDenied {
				t.Errorf("%s %v: refused on the agent's own session: %s", d.name, args, textOf(res))
			}
			if !res.IsError && strings.Contains(textOf(res), "borrowed") {
				t.Errorf("%s %v: names the borrowed session: %s", d.name, args, textOf(res))
			}
		}
	}
	var panes List[PaneInfo]
	env.ok(t, "list_panes", nil, &panes)
	for _, p := range panes.Result {
		if p.SessionID != own.session {
			t.Errorf("list_panes: got a pane of session %s, want the agent's (%s) only", p.SessionID, own.session)
		}
	}
	if len(panes.Result) < 2 {
		t.Errorf("list_panes: got %d panes, want the agent's (at least 2)", len(panes.Result))
	}
	env.ok(t, "set_environment", map[string]any{"session_id": info.SessionID, "name": "X", "value": "1"}, nil)
	env.ok(t, "respawn_pane", map[string]any{"pane_id": split.PaneID}, nil)
	env.ok(t, "kill_pane", map[string]any{"pane_id": split.PaneID}, nil)
	var w WindowInfo
	env.ok(t, "create_window", map[string]any{"session_id": info.SessionID}, &w)
	env.ok(t, "kill_window", map[string]any{"window_id": w.WindowID}, nil)
	var second SessionInfo
	env.ok(t, "create_session", map[string]any{"session_name": "agent2"}, &second)
	env.ok(t, "kill_session", map[string]any{"session_id": second.SessionID}, nil)
	// The default of a read is the agent's session, though borrowed is older.
	var snap PaneSnapshot
	env.ok(t, "snapshot_pane", nil, &snap)
	if snap.PaneID != own.pane && snap.PaneID != split.PaneID {
		t.Errorf("snapshot_pane with no target read %s, want a pane of the agent's session", snap.PaneID)
	}
}

// TestScopeAllowSession: a borrowed session named by --allow-session is in
// scope, for reads and changes; another borrowed one is not.
func TestScopeAllowSession(t *testing.T) {
	env := newScopeEnv(t, "owned", []string{"lent-*"})
	dir := t.TempDir()
	heard := filepath.Join(dir, "lent.out")
	env.fx.NewSession(t, "other", "sh", "-c", "exec cat >/dev/null")
	env.fx.NewSession(t, "lent-1", "sh", "-c", "exec cat >"+heard)
	lent, other := idsOf(t, env, "lent-1"), idsOf(t, env, "other")

	env.ok(t, "send_keys", map[string]any{"pane_id": lent.pane, "keys": "hello", "literal": true, "enter": false}, nil)
	env.ok(t, "rename_window", map[string]any{"session_name": "lent-1", "new_name": "w"}, nil)
	var sessions List[SessionInfo]
	env.ok(t, "list_sessions", nil, &sessions)
	if len(sessions.Result) != 1 || sessions.Result[0].SessionID != lent.session {
		t.Errorf("list_sessions: got %+v, want lent-1 only", sessions.Result)
	}
	e := env.fail(t, "send_keys", map[string]any{"pane_id": other.pane, "keys": "x"})
	wantCode(t, e, CodeTargetDenied)
	var got Message
	env.ok(t, "capture_pane", map[string]any{"pane_id": lent.pane}, &got)
	e = env.fail(t, "capture_pane", map[string]any{"pane_id": other.pane})
	wantCode(t, e, CodeTargetDenied)
}

// TestScopeCreatedSessionInScopeAtOnce: under both owned scopes, the call
// right after create_session may change the new session, by every form of
// target, with no wait between.
func TestScopeCreatedSessionInScopeAtOnce(t *testing.T) {
	for _, scope := range []string{"owned-write", "owned"} {
		t.Run(scope, func(t *testing.T) {
			env := newScopeEnv(t, scope, nil)
			env.fx.NewSession(t, "borrowed", "sh", "-c", "exec cat >/dev/null")
			for i, form := range []string{"pane_id", "session_id", "session_name"} {
				var info SessionInfo
				name := fmt.Sprintf("agent%d", i)
				env.ok(t, "create_session", map[string]any{"session_name": name}, &info)
				args := map[string]any{"keys": "x", "enter": false}
				switch form {
				case "pane_id":
					args[form] = info.ActivePaneID
				case "session_id":
					args[form] = info.SessionID
				default:
					args[form] = name
				}
				env.ok(t, "send_keys", args, nil)
				var p PaneInfo
				env.ok(t, "split_window", map[string]any{"session_id": info.SessionID}, &p)
				env.ok(t, "send_keys", map[string]any{"pane_id": p.PaneID, "keys": "x", "enter": false}, nil)
			}
		})
	}
}

// TestScopeBatchRows: a batch row is a call of its own, checked as one:
// rows aimed at a borrowed session fail target_denied, nothing of them
// reaches tmux, the rows aimed at the agent's session run, and under owned
// a read-only batch's listings hold the agent's session only.
func TestScopeBatchRows(t *testing.T) {
	env := newScopeEnv(t, "owned", nil)
	dir := t.TempDir()
	heard := filepath.Join(dir, "borrowed.out")
	if err := os.WriteFile(heard, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	env.fx.NewSession(t, "borrowed", "sh", "-c", "exec cat >>"+heard)
	b := idsOf(t, env, "borrowed")
	var info SessionInfo
	env.ok(t, "create_session", map[string]any{"session_name": "agent"}, &info)
	row := func(tool string, args map[string]any) map[string]any {
		return map[string]any{"tool": tool, "arguments": args}
	}
	var res ToolCallBatchResult
	env.ok(t, "call_destructive_tools_batch", map[string]any{"on_error": "continue", "operations": []any{
		row("send_keys", map[string]any{"pane_id": b.pane, "keys": "x"}),
		row("kill_session", map[string]any{"session_name": "borrowed"}),
		row("set_option", map[string]any{"option": "status", "value": "off", "global_": true}),
		row("send_keys", map[string]any{"pane_id": info.ActivePaneID, "keys": "true", "enter": false}),
		row("list_sessions", nil),
	}}, &res)
	for i, r := range res.Results[:3] {
		if r.Success || !strings.HasPrefix(r.Error, CodeTargetDenied) {
			t.Errorf("row %d (%s): got %+v, want target_denied", i, r.Tool, r)
		}
	}
	if !res.Results[3].Success || !res.Results[4].Success {
		t.Errorf("rows on the agent's session: got %+v", res.Results[3:])
	}
	if s := string(res.Results[4].StructuredContent); strings.Contains(s, "borrowed") || !strings.Contains(s, "agent") {
		t.Errorf("list_sessions row: got %s, want the agent's session only", s)
	}
	// What the pane received is in the file once cat has read a line sent after the
	// batch (cat may start after the batch ran: the pty keeps what came before). No
	// event says when cat wrote it: the file is read again for a while.
	env.fx.Tmux(t, "send-keys", "-t", b.pane, "after-the-batch", "Enter")
	var got []byte
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(string(got), "after-the-batch"); time.Sleep(20 * time.Millisecond) {
		var err error
		if got, err = os.ReadFile(heard); err != nil || time.Now().After(deadline) {
			t.Fatalf("the borrowed pane's cat wrote %q (%v), want the line sent after the batch", got, err)
		}
	}
	if string(got) != "after-the-batch\n" {
		t.Fatalf("the borrowed pane received %q before the line sent after the batch", strings.TrimSuffix(string(got), "after-the-batch\n"))
	}
	if _, err := env.fx.TryTmux("has-session", "-t", b.session); err != nil {
		t.Fatalf("the borrowed session is gone: %v", err)
	}
}

// TestScopeLinkedWindow: a window linked into the agent's session and a
// borrowed one is in scope only if every session it is in is: its panes
// are refused by pane id and by window id, and the agent's other windows
// still work.
func TestScopeLinkedWindow(t *testing.T) {
	for _, scope := range []string{"owned-write", "owned"} {
		t.Run(scope, func(t *testing.T) {
			env := newScopeEnv(t, scope, nil)
			env.fx.NewSession(t, "borrowed", "sh", "-c", "exec cat >/dev/null")
			var info SessionInfo
			env.ok(t, "create_session", map[string]any{"session_name": "agent"}, &info)
			var w WindowInfo
			env.ok(t, "create_window", map[string]any{"session_id": info.SessionID}, &w)
			own := idsOf(t, env, info.SessionID+":0")
			// The user links the agent's first window into their session.
			env.fx.Tmux(t, "link-window", "-d", "-s", own.window, "-t", "borrowed:7")
			for _, args := range []map[string]any{{"pane_id": own.pane}, {"window_id": own.window}} {
				args["keys"] = "x"
				wantCode(t, env.fail(t, "send_keys", args), CodeTargetDenied)
			}
			wantCode(t, env.fail(t, "kill_window", map[string]any{"window_id": own.window}), CodeTargetDenied)
			env.ok(t, "send_keys", map[string]any{"window_id": w.WindowID, "keys": "x", "enter": false}, nil)
		})
	}
}

// TestScopeServerOptions: tmux files a server option in the server's table
// whatever target set-option is given, so under owned-write set_option of
// one is refused even on the agent's own session, and nothing changes; a
// session option of its own session is set. The running tmux has no
// server option the check does not know.
func TestScopeServerOptions(t *testing.T) {
	env := newScopeEnv(t, "owned-write", nil)
	var info SessionInfo
	env.ok(t, "create_session", map[string]any{"session_name": "agent"}, &info)
	listed := env.fx.Tmux(t, "show-options", "-s")
	if !strings.Contains(listed, "escape-time") {
		t.Fatalf("show-options -s: got %q, want the server options", listed)
	}
	for _, line := range strings.Split(listed, "\n") {
		name, _, _ := strings.Cut(strings.Fields(line + " x")[0], "[")
		if line != "" && !serverOptions[name] {
			t.Errorf("tmux has server option %q, which serverOptions lacks", name)
		}
	}
	before := env.fx.Tmux(t, "show-options", "-s", "escape-time")
	for _, option := range []string{"escape-time", "command-alias[9]"} {
		e := env.fail(t, "set_option", map[string]any{"option": option, "value": "7", "scope": "session", "target": "agent"})
		wantCode(t, e, CodeTargetDenied)
	}
	if after := env.fx.Tmux(t, "show-options", "-s", "escape-time"); after != before {
		t.Errorf("escape-time: got %q, want %q", after, before)
	}
	env.ok(t, "set_option", map[string]any{"option": "status-left", "value": "x", "scope": "session", "target": "agent"}, nil)
}

// TestScopeAfterServerRestart: ownership belongs to one generation of the
// tmux server. After a restart, a session with the same id and name as the
// agent's old one is borrowed: refused, and under owned not listed.
func TestScopeAfterServerRestart(t *testing.T) {
	env := newScopeEnv(t, "owned", nil)
	var info SessionInfo
	env.ok(t, "create_session", map[string]any{"session_name": "agent"}, &info)
	env.ok(t, "send_keys", map[string]any{"session_id": info.SessionID, "keys": "x", "enter": false}, nil)
	env.fx.Kill(t)
	heard := filepath.Join(t.TempDir(), "heard")
	env.fx.NewSession(t, "agent", "sh", "-c", "exec cat >"+heard)
	if got := idsOf(t, env, "agent"); got.session != info.SessionID {
		t.Skipf("the new server numbered its session %s, not %s", got.session, info.SessionID)
	}
	srv := env.manager.Server(session.Socket{Name: env.fx.Socket})
	deadline := time.Now().Add(20 * time.Second)
	for {
		// The engine reconnects on the next call once it has seen its old
		// client end; that end is its own state, with no event to wait on.
		list, err := srv.Sessions(t.Context())
		if err == nil && len(list) == 1 && list[0].Generation != info.Generation {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the engine never saw the new server: %v %v", list, err)
		}
		time.Sleep(time.Millisecond)
	}
	e := env.fail(t, "send_keys", map[string]any{"session_id": info.SessionID, "keys": "x"})
	wantCode(t, e, CodeTargetDenied)
	var sessions List[SessionInfo]
	env.ok(t, "list_sessions", nil, &sessions)
	if len(sessions.Result) != 0 {
		t.Errorf("list_sessions: got %+v, want none in scope", sessions.Result)
	}
	if got, err := os.ReadFile(heard); (err != nil && !os.IsNotExist(err)) || len(got) != 0 {
		t.Fatalf("the new server's pane received %q (%v)", got, err)
	}
}

// TestScopePagedListings: under owned, a listing is paged after it is cut
// to the scope, so a page holds rows in scope only, and its total and next
// offset count those alone. (It needs the listings' limit and offset.)
func TestScopePagedListings(t *testing.T) {
	if lookupTool("list_sessions").spec().schema.Properties["limit"] == nil {
		t.Skip("list_sessions takes no limit here")
	}
	env := newScopeEnv(t, "owned", nil)
	env.fx.NewSession(t, "borrowed", "sh", "-c", "exec cat >/dev/null")
	for _, name := range []string{"a1", "a2", "a3"} {
		env.ok(t, "create_session", map[string]any{"session_name": name}, nil)
	}
	env.fx.NewSession(t, "borrowed2", "sh", "-c", "exec cat >/dev/null")
	for _, tool := range []string{"list_sessions", "list_windows", "list_panes"} {
		var seen []string
		for offset := 0; ; {
			var page struct {
				Result []struct {
					SessionID   string `json:"session_id"`
					SessionName string `json:"session_name"`
				} `json:"result"`
				Total      int  `json:"total"`
				NextOffset *int `json:"next_offset"`
			}
			env.ok(t, tool, map[string]any{"limit": 2, "offset": offset}, &page)
			if page.Total != 3 || len(page.Result) > 2 {
				t.Fatalf("%s offset %d: got total %d and %d rows, want total 3, at most 2 rows", tool, offset, page.Total, len(page.Result))
			}
			for _, r := range page.Result {
				seen = append(seen, r.SessionID)
			}
			if page.NextOffset == nil {
				break
			}
			offset = *page.NextOffset
		}
		if len(seen) != 3 {
			t.Errorf("%s: the pages held %q, want the agent's three sessions once each", tool, seen)
		}
	}
}
