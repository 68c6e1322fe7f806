package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

func testLogger(t testing.TB) *slog.Logger {
	if os.Getenv("TMUX_MCP_TEST_LOG") == "" {
		return nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// testSocketDir is where the fixtures' tmux puts its named sockets: the
// tests read the environment that cmd would.
func testSocketDir() string { return SocketDir(os.Getenv("TMUX_TMPDIR"), os.Getuid()) }

// testCtx is the context of a call in a test: it ends after callBound.
// Under -short, where no test of this package takes more than about 5 s
// (load 8), the bound is 20 s and a watchdog armed at the test's first
// testCtx panics, naming the test and showing every goroutine, when the
// test still runs stallBound later: a loop that spins without looking at
// its context (a follower that lost a pane's end, review 3's M3) then
// fails in half a minute, not at go test's 10 minutes.
func testCtx(t testing.TB) context.Context {
	bound := 120 * time.Second
	if testing.Short() {
		bound = 20 * time.Second
		armWatchdog(t, bound+10*time.Second)
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	t.Cleanup(cancel)
	return ctx
}

// watchdogs holds the tests whose watchdog is armed.
var watchdogs sync.Map // testing.TB -> struct{}

// armWatchdog panics, once, if t is still running after d.
func armWatchdog(t testing.TB, d time.Duration) {
	if _, armed := watchdogs.LoadOrStore(t, struct{}{}); armed {
		return
	}
	done := make(chan struct{})
	t.Cleanup(func() {
		close(done)
		watchdogs.Delete(t)
	})
	go func() {
		select {
		case <-done:
		case <-time.After(d): // only catches a hang
			buf := make([]byte, 4<<20)
			buf = buf[:runtime.Stack(buf, true)]
			panic(fmt.Sprintf("%s: still running %v after its first call began: a loop that ignores its context?\n\n%s", t.Name(), d, buf))
		}
	}()
}

// newTestServer returns a Server for a fresh private tmux socket (no tmux
// server started yet) and the fixture that cleans it up.
func newTestServer(t testing.TB) (*fixtures.Server, *Server) {
	t.Helper()
	fx := fixtures.NewServer(t)
	m := NewManager(&Options{Tmux: fx.Bin, ConfigFile: "/dev/null", SocketDir: testSocketDir(), Logger: testLogger(t)})
	t.Cleanup(func() { m.Close() })
	return fx, m.Server(Socket{Name: fx.Socket})
}

// silentPane starts a session called name whose pane reads its input and
// prints nothing (cat), and returns the pane and its terminal opened for
// writing: what a test writes there is the pane's output, byte for byte.
// It is closed when the test ends.
func silentPane(t testing.TB, fx *fixtures.Server, s *Server, name string) (string, *os.File) {
	t.Helper()
	fx.NewSession(t, name, "sh", "-c", "exec cat >/dev/null")
	pane := paneOf(t, s, name)
	p, err := s.Pane(context.Background(), pane)
	if err != nil {
		t.Fatal(err)
	}
	tty, err := os.OpenFile(p.TTY, os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("cannot write to the pane's terminal: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return pane, tty
}

// waitFor waits for cond on the Server's own state, which changes on
// tmux's notifications and reconnects.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	fixtures.WaitFor(t, 20*time.Second, what, cond)
}

func TestNoServerThenCreate(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	got, err := s.Sessions(ctx)
	if err != nil || len(got) != 0 {
		t.Fatalf("Sessions on an empty socket: got %v, %v; want none, no error", got, err)
	}
	sess, err := s.CreateSession(ctx, CreateSessionArgs{Name: "work", Width: 100, Height: 30})
	if err != nil {
		t.Fatal(err)
	}
	if sess.ID == "" || sess.Name != "work" || sess.Windows != 1 || sess.Generation == "" || sess.ActivePane == "" {
		t.Fatalf("got %+v", sess)
	}
	if !s.Owns(ctx, sess.Generation, sess.ID) {
		t.Fatal("created session not owned")
	}
	pid := fx.Tmux(t, "display-message", "-p", "#{pid}:#{start_time}")
	if sess.Generation != pid {
		t.Fatalf("generation %q, want %q", sess.Generation, pid)
	}
	forked := s.ConnStats().Forked
	// Later calls go over the control channel, not by forking.
	for range 5 {
		if _, err := s.CreateSession(ctx, CreateSessionArgs{}); err != nil {
			t.Fatal(err)
		}
	}
	list, err := s.Sessions(ctx)
	if err != nil || len(list) != 6 {
		t.Fatalf("got %d sessions, %v; want 6", len(list), err)
	}
	st := s.ConnStats()
	if !st.Connected || st.Forked != forked {
		t.Fatalf("got %+v: want connected, no more forks than %d", st, forked)
	}
}

func TestCreateSessionRefusesBadInputBeforeIO(t *testing.T) {
	_, s := newTestServer(t)
	ctx := testCtx(t)
	for _, a := range []CreateSessionArgs{
		{Name: "a\x00b"},
		{SpawnArgs: SpawnArgs{StartDirectory: "/nonexistent/dir"}},
		{SpawnArgs: SpawnArgs{Environment: map[string]string{"A=B": "x"}}},
		{SpawnArgs: SpawnArgs{Environment: map[string]string{"HISTFILE": "x"}, SuppressHistory: true}},
	} {
		_, err := s.CreateSession(ctx, a)
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindInvalid || e.Written {
			t.Errorf("%+v: got %v, want invalid_arguments with nothing written", a, err)
		}
	}
	if st := s.ConnStats(); st.Forked != 0 || st.Dials != 0 {
		t.Fatalf("bad input reached tmux: %+v", st)
	}
}

func TestTeardownOwnership(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	borrowed := fx.NewSession(t, "borrowed")
	own, err := s.CreateSession(ctx, CreateSessionArgs{Name: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	gen := own.Generation
	refused := func(err error) bool {
		var e *Error
		return errors.As(err, &e) && e.Kind == KindNotOwned && !e.Written
	}
	// Quiesce: a round trip puts the notifications of the create through
	// the model and a listing resyncs it, so no background resync is
	// counted below.
	if _, err := s.exec(ctx, controlmode.NewCommand("display-message", "-p", "x")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sessions(ctx); err != nil {
		t.Fatal(err)
	}
	before := s.ConnStats().Stats
	if err := s.TeardownSession(ctx, borrowed, gen); !refused(err) {
		t.Fatalf("borrowed: got %v", err)
	}
	if err := s.TeardownSession(ctx, own.ID, "1:2"); !refused(err) {
		t.Fatalf("wrong generation: got %v", err)
	}
	// Another identity (another token over HTTP) owns nothing of ours.
	bob := WithOwner(ctx, "bob")
	if s.Owns(bob, gen, own.ID) {
		t.Fatal("Owns: another identity owns the process's session")
	}
	if err := s.TeardownSession(bob, own.ID, gen); !refused(err) || !strings.Contains(err.Error(), "another client") {
		t.Fatalf("another identity's teardown: got %v, want not owned, created by another client", err)
	}
	if after := s.ConnStats().Stats; after.Calls != before.Calls {
		t.Fatalf("refused teardowns wrote to tmux: %+v -> %+v", before, after)
	}
	if err := s.TeardownSession(ctx, own.ID, gen); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.TryTmux("has-session", "-t", own.ID); err == nil {
		t.Fatal("owned session still exists after teardown")
	}
	if err := s.TeardownSession(ctx, own.ID, gen); !refused(err) {
		t.Fatalf("second teardown: got %v", err)
	}
	// Killed by someone else: still completes.
	other, err := s.CreateSession(ctx, CreateSessionArgs{})
	if err != nil {
		t.Fatal(err)
	}
	fx.Tmux(t, "kill-session", "-t", other.ID)
	if err := s.TeardownSession(ctx, other.ID, gen); err != nil {
		t.Fatalf("teardown of an owned session killed elsewhere: %v", err)
	}
	if _, err := fx.TryTmux("has-session", "-t", borrowed); err != nil {
		t.Fatal("the borrowed session was harmed")
	}
	// A session created for an identity is that identity's alone.
	alice := WithOwner(ctx, "alice")
	hers, err := s.CreateSession(alice, CreateSessionArgs{})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Owns(alice, gen, hers.ID) || s.Owns(ctx, gen, hers.ID) {
		t.Fatal("Owns: a session created for alice is not hers alone")
	}
	if got := s.OwnedSessions(); len(got) != 1 || got[0] != (OwnedSession{ID: hers.ID, Owner: "alice"}) {
		t.Fatalf("OwnedSessions: got %+v, want %s owned by alice", got, hers.ID)
	}
	if err := s.TeardownSession(ctx, hers.ID, gen); !refused(err) {
		t.Fatalf("the process's teardown of alice's session: got %v", err)
	}
	if err := s.TeardownSession(alice, hers.ID, gen); err != nil {
		t.Fatalf("alice's teardown of her session: %v", err)
	}
}

func TestHealsAfterAttachedSessionKilled(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	fx.NewSession(t, "a")
	fx.NewSession(t, "b")
	if _, err := s.Sessions(ctx); err != nil {
		t.Fatal(err)
	}
	st := s.ConnStats()
	fx.Tmux(t, "kill-session", "-t", st.Attached)
	waitFor(t, "a reconnect", func() bool { st2 := s.ConnStats(); return st2.Dials > st.Dials && st2.Connected })
	list, err := s.Sessions(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("got %v, %v; want the one session left", list, err)
	}
	if got := s.ConnStats(); got.Forked != 0 || got.Attached == st.Attached {
		t.Fatalf("got %+v, want the channel attached elsewhere, no forks", got)
	}
}

func TestHealsAfterDetach(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	fx.NewSession(t, "a")
	if _, err := s.Sessions(ctx); err != nil {
		t.Fatal(err)
	}
	st := s.ConnStats()
	fx.Tmux(t, "detach-client", "-s", st.Attached)
	waitFor(t, "a reconnect", func() bool { st2 := s.ConnStats(); return st2.Dials > st.Dials && st2.Connected })
	if _, err := s.exec(ctx, controlmode.NewCommand("display-message", "-p", "x")); err != nil {
		t.Fatal(err)
	}
	if s.ConnStats().Forked != 0 {
		t.Fatal("forked instead of using the channel")
	}
}

func TestHealsAfterServerRestart(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	own, err := s.CreateSession(ctx, CreateSessionArgs{Name: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	fx.Kill(t)
	// A call right now either fails cleanly or finds no server.
	if _, err := s.Sessions(ctx); err != nil {
		var e *Error
		if !errors.As(err, &e) || (e.Kind != KindConnLost && e.Kind != KindNoServer) {
			t.Fatalf("got %v, want connection_lost or server_unavailable", err)
		}
	}
	fx.NewSession(t, "fresh")
	var list []Session
	// Until the client sees the old server's end, the model may still
	// answer its session (with its generation): wait for the new one.
	waitFor(t, "the new server's sessions", func() bool {
		list, err = s.Sessions(ctx)
		return err == nil && len(list) == 1 && list[0].Name == "fresh"
	})
	if list[0].Generation == own.Generation {
		t.Fatalf("got %+v, want fresh with a new generation", list[0])
	}
	if s.Owns(ctx, own.Generation, own.ID) || len(s.Owned()) != 0 {
		t.Fatal("ownership of the old generation survived the restart")
	}
	if err := s.TeardownSession(ctx, own.ID, own.Generation); err == nil {
		t.Fatal("teardown of an old generation's session succeeded")
	}
	if st := s.ConnStats(); !st.Connected {
		t.Fatal("not connected over the channel after the restart")
	}
}

// TestModelTruthUnderChurn drives random structural operations from a
// second, ordinary tmux client and checks, after each burst settles, that
// the model equals what list-* says.
func TestModelTruthUnderChurn(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	fx, s := newTestServer(t)
	// Each round gets its own deadline: 2,000 forked tmux commands take
	// minutes on a loaded machine, and the whole run is go test's to bound.
	ctx := testCtx(t)
	// The anchor is never a target, so the server always has a session.
	anchor := fx.NewSession(t, "anchor")
	for _, n := range []string{"s0", "s1", "s2"} {
		fx.NewSession(t, n)
	}
	// Names that change on tmux's own timer (automatic-rename follows the
	// pane's program) would land between the two reads compared below.
	fx.Tmux(t, "set-option", "-g", "automatic-rename", "off")
	if _, err := s.Sessions(ctx); err != nil {
		t.Fatal(err)
	}
	// The churn takes the gate as another tmux-mcp process would: it
	// kills the session our client is attached to, and a notification
	// its commands queue while the client attaches again crashes tmux
	// (docs/internals.md, "Two tmux crashes"; ungated, 1 run in 5 on
	// 3.2a), which this test does not measure.
	churn := func(args ...string) {
		defer enter(s.gate, holdFor(args[0]))()
		_, _ = fx.TryTmux(args...) // targets may be gone; failures are churn too
	}
	rng := rand.New(rand.NewPCG(7, 11))
	const total, burst = 2000, 40
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	ops := 0
	for ops < total {
		ctx := testCtx(t)
		targets := strings.Fields(fx.Tmux(t, "list-panes", "-a", "-F", "#{session_id} #{window_id} #{pane_id}"))
		var sessions, windows, panes []string
		for i := 0; i+2 < len(targets); i += 3 {
			if targets[i] == anchor {
				continue
			}
			sessions, windows, panes = append(sessions, targets[i]), append(windows, targets[i+1]), append(panes, targets[i+2])
		}
		if len(sessions) == 0 {
			churn("new-session", "-d")
			continue
		}
		for range burst {
			ops++
			var args []string
			switch rng.IntN(12) {
			case 0:
				args = []string{"new-session", "-d"}
			case 1:
				if len(uniq(sessions)) > 2 {
					args = []string{"kill-session", "-t", pick(sessions)}
				}
			case 2:
				args = []string{"rename-session", "-t", pick(sessions), fmt.Sprint("r", ops)}
			case 3:
				args = []string{"new-window", "-d", "-t", pick(sessions) + ":"}
			case 4:
				args = []string{"new-window", "-t", pick(sessions) + ":", "-n", fmt.Sprint("w", ops)}
			case 5:
				args = []string{"kill-window", "-t", pick(windows)}
			case 6:
				args = []string{"rename-window", "-t", pick(windows), fmt.Sprint("n", ops)}
			case 7:
				args = []string{"split-window", "-t", pick(panes)}
			case 8:
				args = []string{"split-window", "-d", "-t", pick(panes)}
			case 9:
				args = []string{"kill-pane", "-t", pick(panes)}
			case 10:
				args = []string{"swap-pane", "-s", pick(panes), "-t", pick(panes)}
			case 11:
				args = []string{"move-window", "-s", pick(windows), "-t", pick(sessions) + ":"}
			}
			if args != nil {
				churn(args...)
			}
		}
		// Settle: a round trip on the channel puts every notification sent
		// before it through the model; then the model answers.
		if _, err := s.exec(ctx, controlmode.NewCommand("display-message", "-p", "sync")); err != nil {
			// The attached session was killed: the next call connects anew.
			if _, err := s.exec(ctx, controlmode.NewCommand("display-message", "-p", "sync")); err != nil {
				if fx.Died() {
					t.Skipf("after %d operations the tmux server died (a segfault of tmux itself; "+
						"the kernel log shows them): inconclusive: %v", ops, err)
				}
				t.Fatal(err)
			}
		}
		if err := s.sync(ctx); err != nil {
			t.Fatal(err)
		}
		if fx.Died() {
			// A new-session of the churn started a new server, with
			// automatic-rename on: its names change on tmux's timer.
			t.Skipf("after %d operations the tmux server died and the churn started another "+
				"(a segfault of tmux itself; the kernel log shows them): inconclusive", ops)
		}
		compareModel(t, fx, s, ops)
	}
}

func uniq(xs []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// compareModel checks the model against list-* output read by a separate
// tmux process: sessions field for field, and the windows and panes of the
// attached session, the one whose structure tmux notifies. It also checks
// that the fresh reads of windows and panes agree with list-*.
func compareModel(t *testing.T, fx *fixtures.Server, s *Server, ops int) {
	t.Helper()
	ctx := testCtx(t)
	sessions, windows, panes := s.model.snapshot()
	attached := s.ConnStats().Attached
	f := s.fmts
	read := func(args ...string) []string {
		out := fx.Tmux(t, args...)
		if out == "" {
			return nil
		}
		return strings.Split(out, "\n")
	}
	wantS, _ := f.sessions.Parse(s.release().DecodeText, read("list-sessions", "-F", f.sessions.String()))
	wantW, _ := f.windows.Parse(s.release().DecodeText, read("list-windows", "-a", "-F", f.windows.String()))
	wantP, _ := f.panes.Parse(s.release().DecodeText, read("list-panes", "-a", "-F", f.panes.String()))
	for i := range sessions {
		sessions[i].Generation = ""
	}
	if fmt.Sprint(sessions) != fmt.Sprint(wantS) {
		t.Fatalf("after %d ops, sessions differ:\nmodel %+v\ntmux  %+v", ops, sessions, wantS)
	}
	inAttached := func(w Window) bool { return w.SessionID == attached }
	if got, want := filter(windows, inAttached), filter(wantW, inAttached); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after %d ops, windows of %s differ:\nmodel %+v\ntmux  %+v", ops, attached, got, want)
	}
	paneIn := func(p Pane) bool { return p.SessionID == attached }
	if got, want := strip(filter(panes, paneIn)), strip(filter(wantP, paneIn)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after %d ops, panes of %s differ:\nmodel %+v\ntmux  %+v", ops, attached, got, want)
	}
	// Windows and panes are read fresh, so a difference there is a parse
	// bug, which a second pair of reads shows again, or tmux changing
	// something by itself between the two reads (a window name changed
	// from "tmux" to "sh" once here, automatic-rename off notwithstanding),
	// which it does not.
	for try := 1; ; try++ {
		gotW, err := s.Windows(ctx, "")
		if err == nil && fmt.Sprint(gotW) == fmt.Sprint(wantW) {
			break
		}
		if try == 2 {
			t.Fatalf("after %d ops, Windows: %v\ngot  %+v\nwant %+v", ops, err, gotW, wantW)
		}
		wantW, _ = f.windows.Parse(s.release().DecodeText, read("list-windows", "-a", "-F", f.windows.String()))
	}
	for try := 1; ; try++ {
		gotP, err := s.Panes(ctx, PaneScope{})
		if err == nil && fmt.Sprint(strip(gotP)) == fmt.Sprint(strip(wantP)) {
			break
		}
		if try == 2 {
			t.Fatalf("after %d ops, Panes: %v\ngot  %+v\nwant %+v", ops, err, gotP, wantP)
		}
		wantP, _ = f.panes.Parse(s.release().DecodeText, read("list-panes", "-a", "-F", f.panes.String()))
	}
}

func filter[T any](xs []T, keep func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if keep(x) {
			out = append(out, x)
		}
	}
	return out
}

// strip clears the pane fields that change without a notification; the
// operations that return them read them fresh.
func strip(ps []Pane) []Pane {
	for i := range ps {
		ps[i].CurrentCommand, ps[i].CurrentPath, ps[i].Title, ps[i].CursorX, ps[i].CursorY = "", "", "", 0, 0
	}
	return ps
}

func TestTmuxMissingOrSocketUnusable(t *testing.T) {
	ctx := testCtx(t)
	m := NewManager(&Options{Tmux: "/nonexistent/tmux-binary"})
	defer m.Close()
	s := m.Server(Socket{Name: "tmcp-never"})
	for _, err := range []error{
		func() error { _, err := s.Sessions(ctx); return err }(),
		func() error { _, err := s.CreateSession(ctx, CreateSessionArgs{}); return err }(),
	} {
		if !isKind(err, KindNoServer) || !strings.Contains(err.Error(), "/nonexistent/tmux-binary") {
			t.Errorf("missing binary: got %v, want server_unavailable naming it", err)
		}
	}
	// A socket in a directory that cannot hold one.
	fx := fixtures.NewServer(t)
	m2 := NewManager(&Options{Tmux: fx.Bin, ConfigFile: "/dev/null", SocketDir: testSocketDir()})
	defer m2.Close()
	_, err := m2.Server(Socket{Path: "/proc/tmcp-no-such-dir/sock"}).CreateSession(ctx, CreateSessionArgs{})
	if !isKind(err, KindNoServer) || !strings.Contains(err.Error(), "/proc/tmcp-no-such-dir/sock") {
		t.Fatalf("unusable socket directory: got %v", err)
	}
	t.Logf("%v", err)
}
