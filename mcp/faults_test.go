package mcp

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// TestServerKilledWithCallsInFlight SIGKILLs the tmux server while 100
// calls are in flight: each answers within a second of the kill, with a
// result or connection_lost (or, for calls that started after, no server),
// and the first call after a new server starts on the same socket works,
// over the control channel.
func TestServerKilledWithCallsInFlight(t *testing.T) {
	env := newTmuxEnv(t, "2025-11-25", nil)
	env.fx.NewSession(t, "main", "sh", "-c", "exec cat >/dev/null")
	pane := env.fx.Tmux(t, "display-message", "-p", "-t", "main", "#{pane_id}")
	srv := env.manager.Server(session.Socket{Name: env.fx.Socket})
	env.ok(t, "list_sessions", nil, nil)

	type answer struct {
		res *sdk.CallToolResult
		err error
		at  time.Time
	}
	answers := make(chan answer, 100)
	started := make(chan struct{}, 100)
	for i := range 100 {
		go func() {
			var name string
			var args map[string]any
			switch i % 4 {
			case 0, 1: // waits that only the kill ends
				name, args = "wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"never"}, "timeout": 60}
			case 2:
				name, args = "capture_pane", map[string]any{"pane_id": pane}
			case 3:
				name, args = "list_sessions", map[string]any{}
			}
			started <- struct{}{}
			res, err := env.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
			answers <- answer{res, err, time.Now()}
		}()
	}
	for range 100 {
		<-started
	}
	// Let the waits reach their streams: half the calls block there.
	deadline := time.Now().Add(20 * time.Second)
	for srv.ConnStats().Stats.Calls < 100 && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	env.fx.Kill(t)
	killed := time.Now()
	codes := map[string]int{}
	for range 100 {
		select {
		case a := <-answers:
			if a.err != nil {
				t.Fatalf("protocol error: %v", a.err)
			}
			if d := a.at.Sub(killed); d > time.Second {
				t.Errorf("a call answered %v after the kill", d)
			}
			if !a.res.IsError {
				codes["ok"]++
				continue
			}
			e := envelopeOf(t, a.res)
			codes[e.Code]++
			switch e.Code {
			case CodeConnectionLost, CodeServerUnavailable, CodeNotFound:
			default:
				t.Errorf("got %+v", e)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("calls hung after the kill; answered so far: %v", codes)
		}
	}
	t.Logf("100 calls in flight at SIGKILL: %v", codes)

	// A new server on the same socket: the next call works, over the
	// channel, with a new generation.
	env.fx.NewSession(t, "again")
	var list List[SessionInfo]
	env.ok(t, "list_sessions", nil, &list)
	if len(list.Result) != 1 || list.Result[0].SessionName != "again" {
		t.Fatalf("got %+v", list.Result)
	}
	if st := srv.ConnStats(); !st.Connected {
		t.Fatal("not back on the control channel")
	}
}

// TestAttachedSessionKilledAndDetached kills the session the engine is
// attached to, then detaches it from another client: calls keep working.
func TestAttachedSessionKilledAndDetached(t *testing.T) {
	env := newTmuxEnv(t, "2025-11-25", nil)
	env.fx.NewSession(t, "a")
	env.fx.NewSession(t, "b")
	srv := env.manager.Server(session.Socket{Name: env.fx.Socket})
	env.ok(t, "list_sessions", nil, nil)
	env.fx.Tmux(t, "kill-session", "-t", srv.ConnStats().Attached)
	// list_sessions answers from the model, which hears of another
	// client's change when tmux's notification arrives; a fresh read
	// first makes the order certain.
	env.ok(t, "list_panes", nil, nil)
	var list List[SessionInfo]
	env.ok(t, "list_sessions", nil, &list)
	if len(list.Result) != 1 {
		t.Fatalf("after killing the attached session: got %+v", list.Result)
	}
	env.fx.Tmux(t, "detach-client", "-s", list.Result[0].SessionID)
	env.ok(t, "list_sessions", nil, &list)
	env.ok(t, "list_panes", nil, nil) // read fresh: needs the channel
	if len(list.Result) != 1 || !srv.ConnStats().Connected || srv.ConnStats().Forked != 0 {
		t.Fatalf("after a detach: got %+v, %+v", list.Result, srv.ConnStats())
	}
}

// TestSpoofedProtocolLines has a pane print lines shaped like the
// protocol's: they neither confuse the parser nor the model.
func TestSpoofedProtocolLines(t *testing.T) {
	env := newTmuxEnv(t, "2025-11-25", nil)
	env.fx.NewSession(t, "spoof", "env", "PS1=$ ", "sh")
	pane := env.fx.Tmux(t, "display-message", "-p", "-t", "spoof", "#{pane_id}")
	srv := env.manager.Server(session.Socket{Name: env.fx.Socket})
	env.ok(t, "list_sessions", nil, nil)
	dials := srv.ConnStats().Dials
	lines := `'%begin 1 2 1' '%end 1 2 1' '%error 1 2 1' '%exit' '%window-add @99' '%sessions-changed' '%session-changed $9 evil' '%output %1 x'`
	var run RunCommandResult
	env.ok(t, "run_command", map[string]any{"pane_id": pane, "command": "printf '%s\\n' " + lines}, &run)
	if len(run.Output) != 8 || run.Output[3] != "%exit" {
		t.Fatalf("got %q", run.Output)
	}
	var capture Message
	env.ok(t, "capture_pane", map[string]any{"pane_id": pane}, &capture)
	if !strings.Contains(capture.Result, "%end 1 2 1\n%error 1 2 1\n%exit") {
		t.Fatalf("capture: got %q", capture.Result)
	}
	// A buffer named like a notification, made by someone else. tmux 3.7
	// refuses such a name, so there the line cannot be spoofed that way.
	_, err := env.fx.TryTmux("set-buffer", "-b", "x\n%window-add @98\n%exit", "data")
	if refuses := env.fx.AtLeast(t, 3, 7); (err != nil) != refuses {
		t.Fatalf("set-buffer of a name with newlines: %v; want it refused only from tmux 3.7", err)
	}
	var list List[SessionInfo]
	env.ok(t, "list_sessions", nil, &list)
	if srv.ConnStats().Dials != dials || !srv.ConnStats().Connected {
		t.Fatal("the control connection was disturbed")
	}
	want := env.fx.Tmux(t, "list-sessions", "-F", "#{session_id} #{session_name}")
	var got []string
	for _, s := range list.Result {
		got = append(got, s.SessionID+" "+s.SessionName)
	}
	if strings.Join(got, "\n") != want {
		t.Fatalf("model %q, tmux %q", got, want)
	}
}

// TestConcurrentClients runs 64 clients' worth of mixed calls (reads,
// sends, waits) for a while under -race, then checks that no goroutine and
// no tmux client is left over.
func TestConcurrentClients(t *testing.T) {
	seconds := 60
	if testing.Short() {
		seconds = 5
	}
	if v, err := fmt.Sscan(envOr("TMUX_MCP_SOAK_SECONDS", ""), &seconds); v == 0 || err != nil {
		_ = err // keep the default
	}
	env := newTmuxEnv(t, "2025-11-25", nil)
	before := runtime.NumGoroutine() // the harness's own client is part of the baseline
	env.fx.NewSession(t, "soak", "sh", "-c", "exec cat >/dev/null")
	env.fx.NewSession(t, "other", "sh", "-c", "exec cat >/dev/null")
	pane := env.fx.Tmux(t, "display-message", "-p", "-t", "soak", "#{pane_id}")
	otherPane := env.fx.Tmux(t, "display-message", "-p", "-t", "other", "#{pane_id}")
	srv, err := NewServer(env.backend, &Options{Safety: "mutating"})
	if err != nil {
		t.Fatal(err)
	}
	stop := time.Now().Add(time.Duration(seconds) * time.Second)
	var calls, failures atomic.Int64
	var wg sync.WaitGroup
	for c := range 64 {
		wg.Go(func() {
			st, ct := sdk.NewInMemoryTransports()
			ss, err := srv.Connect(context.Background(), st, nil)
			if err != nil {
				t.Error(err)
				return
			}
			defer ss.Close()
			cl := sdk.NewClient(&sdk.Implementation{Name: "soak", Version: "0"}, nil)
			cs, err := cl.Connect(context.Background(), ct, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Error(err)
				return
			}
			defer cs.Close()
			for i := 0; time.Now().Before(stop); i++ {
				target := pane
				if c%2 == 1 {
					target = otherPane
				}
				var name string
				var args map[string]any
				switch (c + i) % 6 {
				case 0:
					name, args = "list_sessions", map[string]any{}
				case 1:
					name, args = "capture_pane", map[string]any{"pane_id": target}
				case 2:
					name, args = "send_keys", map[string]any{"pane_id": target, "keys": fmt.Sprintf("c%d-%d", c, i), "literal": true}
				case 3:
					name, args = "wait_for_text", map[string]any{"pane_id": target, "timeout": 0.2}
				case 4:
					name, args = "get_pane_info", map[string]any{"pane_id": target}
				case 5:
					name, args = "list_panes", map[string]any{}
				}
				res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
				calls.Add(1)
				if err != nil {
					t.Errorf("%s: protocol error %v", name, err)
					return
				}
				if res.IsError {
					failures.Add(1)
					t.Errorf("%s: %s", name, textOf(res))
					return
				}
			}
		})
	}
	wg.Wait()
	t.Logf("64 clients, %d s: %d calls, %d failed", seconds, calls.Load(), failures.Load())
	env.manager.Close()
	// Only the fixture's own client-free server is left: no tmux client of
	// ours is attached.
	if clients := env.fx.Tmux(t, "list-clients", "-F", "#{client_pid}"); clients != "" {
		t.Errorf("tmux clients left after Close: %q", clients)
	}
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // goroutines end on their own; nothing to wait on
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines left (%d before):\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

func envOr(name, def string) string {
	if v, ok := lookupEnv(name); ok {
		return v
	}
	return def
}

var lookupEnv = os.LookupEnv

// TestTmuxUnavailable: no tmux binary (not retryable: the message names
// --tmux), and a socket in a directory that
// cannot hold one, through the MCP layer.
func TestTmuxUnavailable(t *testing.T) {
	m := session.NewManager(&session.Options{Tmux: "/nonexistent/tmux-binary"})
	t.Cleanup(func() { m.Close() })
	cs := connect(t, NewTmuxBackend(m, &TmuxOptions{Socket: session.Socket{Name: "tmcp-none"}}), &Options{Safety: "destructive"}, "2025-11-25")
	for _, tool := range []string{"list_sessions", "create_session"} {
		e := envelopeOf(t, call(t, cs, tool, map[string]any{}))
		if e.Code != CodeServerUnavailable || !strings.Contains(e.Message, "/nonexistent/tmux-binary") || e.Retryable || !strings.Contains(e.Message, "--tmux") {
			t.Errorf("%s without tmux: got %+v", tool, e)
		}
	}
	env := newTmuxEnv(t, "2025-11-25", nil) // for its tmux binary
	m2 := session.NewManager(&session.Options{Tmux: env.fx.Bin, ConfigFile: "/dev/null", SocketDir: testSocketDir()})
	t.Cleanup(func() { m2.Close() })
	cs2 := connect(t, NewTmuxBackend(m2, &TmuxOptions{Socket: session.Socket{Path: "/proc/tmcp-no-such-dir/sock"}}), &Options{Safety: "destructive"}, "2025-11-25")
	e := envelopeOf(t, call(t, cs2, "create_session", map[string]any{}))
	if e.Code != CodeServerUnavailable || !strings.Contains(e.Message, "/proc/tmcp-no-such-dir/sock") {
		t.Errorf("unusable socket directory: got %+v", e)
	}
}

// TestPaneExitsDuringWait: the wait ends at once with not_found.
func TestPaneExitsDuringWait(t *testing.T) {
	env := newTmuxEnv(t, "2025-11-25", nil)
	env.fx.NewSession(t, "keep") // the server outlives the pane
	env.fx.NewSession(t, "doomed", "env", "PS1=$ ", "sh")
	pane := env.fx.Tmux(t, "display-message", "-p", "-t", "doomed", "#{pane_id}")
	env.ok(t, "wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"$"}, "timeout": 20}, nil)
	go func() { _, _ = env.fx.TryTmux("send-keys", "-t", pane, "sleep 0.2; exit", "Enter") }()
	start := time.Now()
	e := env.fail(t, "wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"never printed"}, "timeout": 60})
	if e.Code != CodeNotFound || time.Since(start) > 20*time.Second {
		t.Fatalf("got %+v after %v", e, time.Since(start))
	}
}
