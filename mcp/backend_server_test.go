package mcp

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Real-tmux tests of the server tools. Helpers shared by the server,
// session and window tool tests are prefixed with "sw".

// swSessionNames returns the session names tmux itself lists, read by a
// separate tmux process.
func swSessionNames(t *testing.T, env *tmuxEnv) []string {
	t.Helper()
	out, err := env.fx.TryTmux("list-sessions", "-F", "#{session_name}")
	if err != nil {
		return nil
	}
	names := strings.Split(out, "\n")
	slices.Sort(names)
	return names
}

// swNoServer checks that no tmux server runs on the fixture's socket.
func swNoServer(t *testing.T, env *tmuxEnv) {
	t.Helper()
	if out, err := env.fx.TryTmux("list-sessions"); err == nil {
		t.Fatalf("a tmux server runs on the fixture socket; it lists %q", out)
	}
}

// swSelf makes the backend believe it runs in pane on the fixture's server.
// It must be called before the first tool call.
func swSelf(env *tmuxEnv, pane string) {
	env.backend.opts.SelfPane = pane
	env.backend.opts.SelfSocketPath = env.fx.SocketPath()
}

func TestListSessions(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		var got List[SessionInfo]
		alpha := env.fx.NewSession(t, "alpha")
		env.fx.NewSession(t, "beta")
		env.fx.Tmux(t, "new-window", "-d", "-t", "beta")
		gen := env.fx.Tmux(t, "display-message", "-p", "#{pid}:#{start_time}")

		env.ok(t, "list_sessions", nil, &got)
		if len(got.Result) != 2 {
			t.Fatalf("got %+v, want alpha and beta", got.Result)
		}
		for _, s := range got.Result {
			want := env.fx.Tmux(t, "display-message", "-p", "-t", s.SessionID+":", "#{session_name} #{session_windows} #{pane_id}")
			if s.SessionName+" "+strconv.Itoa(s.WindowCount)+" "+s.ActivePaneID != want || s.Generation != gen || s.SessionCreated == "" {
				t.Errorf("got %+v, want %q and generation %s", s, want, gen)
			}
		}

		for _, tc := range []struct {
			filters map[string]any
			want    []string
		}{
			{map[string]any{"session_name__contains": "lph"}, []string{"alpha"}},
			{map[string]any{"session_name": "beta"}, []string{"beta"}},
			{map[string]any{"session_name__iexact": "ALPHA"}, []string{"alpha"}},
			{map[string]any{"session_name__in": `["alpha","gamma"]`}, []string{"alpha"}},
			{map[string]any{"session_name__nin": `["alpha"]`}, []string{"beta"}},
			{map[string]any{"window_count": "2"}, []string{"beta"}},
			{map[string]any{"session_windows__eq": "1"}, []string{"alpha"}},
			{map[string]any{"session_id": alpha}, []string{"alpha"}},
			{map[string]any{"session_name__regex": "^(al|be)", "window_count__startswith": "1"}, []string{"alpha"}},
			{map[string]any{"session_name__iregex": "^B"}, []string{"beta"}},
			{map[string]any{"session_name__endswith": "zz"}, nil},
		} {
			env.ok(t, "list_sessions", map[string]any{"filters": tc.filters}, &got)
			var names []string
			for _, s := range got.Result {
				names = append(names, s.SessionName)
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("filters %v: got %v, want %v", tc.filters, names, tc.want)
			}
		}
		// The JSON-string form of filters, as some clients send it.
		env.ok(t, "list_sessions", map[string]any{"filters": `{"session_name__startswith": "be"}`}, &got)
		if len(got.Result) != 1 || got.Result[0].SessionName != "beta" {
			t.Errorf("string filters: got %+v, want beta", got.Result)
		}

		for _, bad := range []map[string]any{
			{"nosuchfield": "x"},
			{"session_name__containss": "x"},
			{"session_name__regex": "("},
		} {
			e := env.fail(t, "list_sessions", map[string]any{"filters": bad})
			if e.Code != CodeInvalidArguments || e.Effects != EffectsNone {
				t.Errorf("filters %v: got %+v, want invalid_arguments, effects none", bad, e)
			}
		}

		// The model follows what others do to the server. The session the
		// control client is attached to is left alone: killing it from
		// outside makes the client reconnect, which is the session layer's
		// business, not this tool's.
		var other string
		env.ok(t, "list_sessions", nil, &got)
		for _, s := range got.Result {
			if s.SessionID != swControlSession(t, env) {
				other = s.SessionName
			}
		}
		env.fx.Tmux(t, "kill-session", "-t", other)
		env.fx.NewSession(t, "gamma")
		swBarrier(t, env)
		env.ok(t, "list_sessions", nil, &got)
		var names []string
		for _, s := range got.Result {
			names = append(names, s.SessionName)
		}
		if want := swSessionNames(t, env); !slices.Equal(names, want) {
			t.Fatalf("after changes by another client: got %v, want %v", names, want)
		}
	})
}

// swControlSession returns the session the backend's control client is
// attached to, as tmux lists its clients.
func swControlSession(t *testing.T, env *tmuxEnv) string {
	t.Helper()
	for _, line := range strings.Split(env.fx.Tmux(t, "list-clients", "-F", "#{client_control_mode} #{session_id}"), "\n") {
		if id, ok := strings.CutPrefix(line, "1 "); ok {
			return id
		}
	}
	t.Fatal("no control client is attached")
	return ""
}

// swBarrier makes one round trip over the control channel. tmux delivers
// the notifications of what other clients did before the reply, so after
// it the model knows it must look again. list_sessions answers from the
// model, which learns of other clients' changes from notifications that
// are a moment in flight.
func swBarrier(t *testing.T, env *tmuxEnv) {
	t.Helper()
	env.ok(t, "list_windows", nil, nil)
}

func TestGetServerInfo(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		var info ServerInfo
		env.ok(t, "get_server_info", nil, &info)
		if info.IsAlive || info.SessionCount != 0 || info.SocketPath != env.fx.SocketPath() || info.SocketName != env.fx.Socket {
			t.Fatalf("no server: got %+v, want not alive at %s", info, env.fx.SocketPath())
		}
		swNoServer(t, env)

		env.fx.NewSession(t, "one")
		env.fx.NewSession(t, "two")
		env.ok(t, "get_server_info", nil, &info)
		version := env.fx.Tmux(t, "display-message", "-p", "#{version}")
		if !info.IsAlive || info.SessionCount != 2 || info.Version != version ||
			info.SocketPath != env.fx.SocketPath() || info.SocketName != env.fx.Socket {
			t.Fatalf("got %+v, want alive, 2 sessions, version %s, socket %s", info, version, env.fx.SocketPath())
		}

		e := env.fail(t, "get_server_info", map[string]any{"socket_name": "a\nb"})
		wantCode(t, e, CodeInvalidArguments)
	})
}

// swOtherServer starts a tmux server on a socket path outside the socket
// directory, and kills it when the test ends.
func swOtherServer(t *testing.T, env *tmuxEnv) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "swsock")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s")
	run := func(args ...string) error {
		cmd := exec.Command(env.fx.Bin, append([]string{"-S", path, "-f", "/dev/null"}, args...)...)
		cmd.Env = env.fx.Env()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Logf("tmux -S %s %v: %v: %s", path, args, err, out)
		}
		return err
	}
	if err := run("new-session", "-d", "-s", "elsewhere"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = run("kill-server") // Best effort: the test may have killed it.
		_ = os.RemoveAll(dir)
	})
	return path
}

func TestListServers(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		find := func(servers []ServerInfo, path string) []ServerInfo {
			var out []ServerInfo
			for _, s := range servers {
				if s.SocketPath == path {
					out = append(out, s)
				}
			}
			return out
		}
		var got List[ServerInfo]
		env.ok(t, "list_servers", nil, &got)
		if f := find(got.Result, env.fx.SocketPath()); len(f) != 0 {
			t.Fatalf("no server yet: got %+v", f)
		}
		swNoServer(t, env)

		env.fx.NewSession(t, "a")
		env.fx.NewSession(t, "b")
		other := swOtherServer(t, env)
		regular := filepath.Join(t.TempDir(), "plain")
		if err := os.WriteFile(regular, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		env.ok(t, "list_servers", map[string]any{"extra_socket_paths": []string{
			other, env.fx.SocketPath(), regular, filepath.Join(t.TempDir(), "missing")}}, &got)
		version := env.fx.Tmux(t, "display-message", "-p", "#{version}")
		mine := find(got.Result, env.fx.SocketPath())
		if len(mine) != 1 || !mine[0].IsAlive || mine[0].SessionCount != 2 || mine[0].SocketName != env.fx.Socket || mine[0].Version != version {
			t.Fatalf("fixture server: got %+v, want one entry, alive, 2 sessions, version %s", mine, version)
		}
		ext := find(got.Result, other)
		if len(ext) != 1 || !ext[0].IsAlive || ext[0].SessionCount != 1 || ext[0].Version != version {
			t.Fatalf("server at an extra path: got %+v, want alive with 1 session", ext)
		}
		if f := find(got.Result, regular); len(f) != 0 {
			t.Fatalf("a regular file was listed: %+v", f)
		}
		if got.Result[len(got.Result)-1].SocketPath != other {
			t.Errorf("extra paths come last: got %+v", got.Result)
		}

		// Connected already: the count comes from the model, and is current.
		env.ok(t, "list_sessions", nil, nil)
		env.fx.NewSession(t, "c")
		env.ok(t, "list_servers", nil, &got)
		if mine := find(got.Result, env.fx.SocketPath()); len(mine) != 1 || mine[0].SessionCount != 3 {
			t.Fatalf("after a third session: got %+v", mine)
		}

		// A crashed server leaves its socket file, refusing connections:
		// such sockets are skipped, in the directory and at extra paths.
		inDir := filepath.Join(filepath.Dir(env.fx.SocketPath()), "swstale-"+env.fx.Socket)
		outside := filepath.Join(t.TempDir(), "stale")
		swStaleSocket(t, inDir)
		swStaleSocket(t, outside)
		env.ok(t, "list_servers", map[string]any{"extra_socket_paths": []string{outside}}, &got)
		if f := append(find(got.Result, inDir), find(got.Result, outside)...); len(f) != 0 {
			t.Fatalf("stale sockets listed: %+v", f)
		}

		e := env.fail(t, "list_servers", map[string]any{"extra_socket_paths": []string{"a\nb"}})
		wantCode(t, e, CodeInvalidArguments)
	})
}

// swStaleSocket leaves a socket file at path that nobody listens on, as a
// crashed server does, and removes it when the test ends.
func swStaleSocket(t *testing.T, path string) {
	t.Helper()
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(path) })
}

func TestCreateSession(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		// On an empty socket create_session starts the server.
		var s SessionInfo
		env.ok(t, "create_session", map[string]any{
			"session_name": "work#1", "window_name": "main#{x}", "x": 100, "y": 30,
			"environment": map[string]any{"SW_FOO": "bar baz"},
		}, &s)
		env.fx.PID(t)
		gen := env.fx.Tmux(t, "display-message", "-p", "#{pid}:#{start_time}")
		if s.SessionName != "work#1" || s.WindowCount != 1 || s.Generation != gen || !strings.HasPrefix(s.SessionID, "$") ||
			!strings.HasPrefix(s.ActivePaneID, "%") {
			t.Fatalf("got %+v, want work#1 with generation %s", s, gen)
		}
		got := env.fx.Tmux(t, "display-message", "-p", "-t", s.SessionID+":", "#{session_name}|#{window_name}|#{window_width}x#{window_height}|#{pane_id}")
		if want := "work#1|main#{x}|100x30|" + s.ActivePaneID; got != want {
			t.Fatalf("tmux says %q, want %q", got, want)
		}
		if got := env.fx.Tmux(t, "show-environment", "-t", s.SessionID, "SW_FOO"); got != "SW_FOO=bar baz" {
			t.Fatalf("session environment: got %q", got)
		}

		// A second one over the control channel, with history suppressed.
		var s2 SessionInfo
		dir := t.TempDir()
		env.ok(t, "create_session", map[string]any{"start_directory": dir, "suppress_persistent_history": true}, &s2)
		if s2.SessionID == s.SessionID || s2.Generation != gen {
			t.Fatalf("second session: got %+v", s2)
		}
		if got := env.fx.Tmux(t, "show-environment", "-t", s2.SessionID, "HISTFILE"); got != "HISTFILE=" {
			t.Fatalf("suppress_persistent_history: HISTFILE is %q", got)
		}

		e := env.fail(t, "create_session", map[string]any{"session_name": "work#1"})
		if e.Code != CodeTmuxError || e.Effects != EffectsPossible || !strings.Contains(e.Message, "duplicate") {
			t.Fatalf("duplicate name: got %+v", e)
		}
		e = env.fail(t, "create_session", map[string]any{"start_directory": filepath.Join(dir, "missing")})
		if e.Code != CodeInvalidArguments || e.Effects != EffectsNone {
			t.Fatalf("missing directory: got %+v", e)
		}
		if names := swSessionNames(t, env); len(names) != 2 {
			t.Fatalf("failed calls created sessions: %v", names)
		}
	})
}

func TestKillServer(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		e := env.fail(t, "kill_server", nil)
		if e.Code != CodeNotFound || e.Effects != EffectsNone {
			t.Fatalf("no server: got %+v, want not_found, effects none", e)
		}
		env.fx.NewSession(t, "a")
		env.fx.NewSession(t, "b")
		pid := env.fx.PID(t)
		env.ok(t, "list_sessions", nil, nil) // connected before the kill
		var m Message
		env.ok(t, "kill_server", nil, &m)
		if !strings.Contains(m.Result, "killed") {
			t.Errorf("got %q", m.Result)
		}
		// The control client has ended, so the server is on its way out.
		swGone(t, pid)

		// Later calls find no server: empty lists, not errors.
		var sessions List[SessionInfo]
		swRetryable(t, env, "list_sessions", &sessions)
		var windows List[WindowInfo]
		swRetryable(t, env, "list_windows", &windows)
		var panes List[PaneInfo]
		swRetryable(t, env, "list_panes", &panes)
		var info ServerInfo
		env.ok(t, "get_server_info", nil, &info)
		if len(sessions.Result)+len(windows.Result)+len(panes.Result) != 0 || info.IsAlive {
			t.Fatalf("after kill_server: %+v %+v %+v %+v", sessions, windows, panes, info)
		}
	})
}

// swRetryable calls a read-only tool with no arguments until it succeeds,
// as a client does with an error marked retryable; any other error fails
// the test. The session layer starts its control client without tmux's
// -N, so on a socket whose server just died, attaching may start a
// short-lived server of its own and meet "server exited unexpectedly",
// which it answers as server_unavailable, retryable.
func swRetryable(t *testing.T, env *tmuxEnv, tool string, out any) {
	t.Helper()
	for range 50 {
		res := call(t, env.cs, tool, map[string]any{})
		if !res.IsError {
			b, err := json.Marshal(res.StructuredContent)
			if err == nil {
				err = json.Unmarshal(b, out)
			}
			if err != nil {
				t.Fatalf("%s: decoding: %v", tool, err)
			}
			return
		}
		if e := envelopeOf(t, res); !e.Retryable {
			t.Fatalf("%s: got %+v, want success or a retryable error", tool, e)
		}
	}
	t.Fatalf("%s: still failing after 50 retryable errors", tool)
}

// swGone waits until process pid has exited (a zombie counts: the server
// is not our child, and whoever inherited it may reap it late). There is
// nothing to wait on, so it polls; the deadline only catches hangs.
func swGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) || err == nil && swZombie(string(stat)) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("tmux server %d still runs", pid)
		}
		time.Sleep(time.Millisecond)
	}
}

// swZombie reports whether a /proc/<pid>/stat line says the process is a
// zombie: the state follows the parenthesised command name.
func swZombie(stat string) bool {
	i := strings.LastIndexByte(stat, ')')
	return i >= 0 && strings.HasPrefix(stat[i+1:], " Z")
}

func TestKillServerRefusesItsOwnServer(t *testing.T) {
	env := newTmuxEnv(t, protocolVersions[1], nil)
	sid := env.fx.NewSession(t, "self")
	swSelf(env, env.fx.Tmux(t, "display-message", "-p", "-t", sid+":", "#{pane_id}"))
	e := env.fail(t, "kill_server", nil)
	if e.Code != CodeTargetDenied || e.Effects != EffectsNone {
		t.Fatalf("got %+v, want target_denied, effects none", e)
	}
	if names := swSessionNames(t, env); !slices.Equal(names, []string{"self"}) {
		t.Fatalf("the server should be untouched: %v", names)
	}

	// Known pane, unknown socket: every server may be ours; refuse.
	env.backend.opts.SelfSocketPath = ""
	wantCode(t, env.fail(t, "kill_server", nil), CodeTargetDenied)
	if names := swSessionNames(t, env); len(names) != 1 {
		t.Fatalf("the server should be untouched: %v", names)
	}
}
