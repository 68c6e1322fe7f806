package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/session/internal/engine"
)

// paneOf returns the first pane of session name.
func paneOf(t testing.TB, s *Server, name string) string {
	t.Helper()
	ps, err := s.Panes(testCtx(t), PaneScope{Session: name})
	if err != nil || len(ps) == 0 {
		t.Fatalf("panes of %s: %v %v", name, ps, err)
	}
	return ps[0].ID
}

// typeLine types a shell command line into pane from a separate tmux
// process, after delay, and reports when it was sent.
func typeLine(fx interface {
	TryTmux(args ...string) (string, error)
}, pane, line string, delay time.Duration) <-chan error {
	errc := make(chan error, 1)
	go func() {
		time.Sleep(delay) // the delay under test, not a synchronisation
		_, err := fx.TryTmux("send-keys", "-t", pane, "-l", "--", line)
		if err == nil {
			_, err = fx.TryTmux("send-keys", "-t", pane, "Enter")
		}
		errc <- err
	}()
	return errc
}

// waitPrompt waits until the shell in pane has printed its first prompt,
// so typed lines are not mixed into its start-up.
func waitPrompt(t testing.TB, s *Server, pane string) {
	t.Helper()
	r, err := s.WaitForText(testCtx(t), WaitArgs{Pane: PaneRef{PaneID: pane}, Patterns: []string{"$", "#", ">", "%"}, Timeout: 20 * time.Second})
	if err != nil || r.Outcome != OutcomeMatched {
		t.Fatalf("no prompt in %s: %+v %v", pane, r, err)
	}
}

func TestWaitForTextNeverMisses(t *testing.T) {
	for _, where := range []string{"attached session", "other session"} {
		t.Run(where, func(t *testing.T) {
			fx, s := newTestServer(t)
			ctx := testCtx(t)
			fx.NewSession(t, "main")
			fx.NewSession(t, "other")
			if _, err := s.Sessions(ctx); err != nil {
				t.Fatal(err)
			}
			name := "other"
			if st := s.ConnStats(); where == "attached session" {
				sess, _ := s.Session(ctx, st.Attached)
				name = sess.Name
			} else if other, _ := s.Session(ctx, "other"); st.Attached == other.ID {
				name = "main"
			}
			pane := paneOf(t, s, name)
			waitPrompt(t, s, pane)
			entry := 0
			for i := range 100 {
				delay := time.Duration(i%6) * time.Millisecond
				// The typed line does not contain the token; only its output does.
				sent := typeLine(fx, pane, fmt.Sprintf("printf 'DO%%sNE-%d\\n' ''", i), delay)
				r, err := s.WaitForText(ctx, WaitArgs{Pane: PaneRef{PaneID: pane}, Patterns: []string{fmt.Sprintf("DONE-%d", i)}, Timeout: 20 * time.Second})
				if err := <-sent; err != nil {
					t.Fatal(err)
				}
				if err != nil || r.Outcome != OutcomeMatched || !r.Found {
					t.Fatalf("trial %d (delay %v): got %+v, %v", i, delay, r, err)
				}
				if r.MatchedAtEntry {
					entry++
				}
			}
			t.Logf("100 of 100 matched (%d already on screen at entry)", entry)
			if where == "other session" && s.link.watcherCount() != 1 {
				t.Fatalf("got %d watchers, want 1", s.link.watcherCount())
			}
		})
	}
}

func TestWaitForTextOutcomes(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	fx.NewSession(t, "main")
	pane := paneOf(t, s, "main")
	waitPrompt(t, s, pane)
	ref := PaneRef{PaneID: pane}

	r, err := s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"never-printed"}, Timeout: 50 * time.Millisecond})
	if err != nil || r.Outcome != OutcomeTimeout || r.Found {
		t.Fatalf("timeout: got %+v %v", r, err)
	}

	sent := typeLine(fx, pane, "printf 'ER%sOR: boom\\nOK\\n' R", 0)
	// The typed line holds neither pattern; its output holds both.
	r, err = s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"^ok$"}, Stop: []string{"^error:"}, Regex: true, Timeout: 10 * time.Second})
	<-sent
	if err != nil || r.Outcome != OutcomeStopped || r.MatchedIndex != 0 || len(r.MatchedLines) != 1 || r.MatchedLines[0] != "ERROR: boom" {
		t.Fatalf("stop: got %+v %v", r, err)
	}

	sent = typeLine(fx, pane, "echo", 0)
	r, err = s.WaitForText(ctx, WaitArgs{Pane: ref, Timeout: 10 * time.Second})
	<-sent
	if err != nil || r.Outcome != OutcomeAnyOutput || !r.SawNewOutput {
		t.Fatalf("any output: got %+v %v", r, err)
	}

	if _, err := s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"("}, Regex: true, Timeout: time.Second}); !isKind(err, KindInvalid) {
		t.Fatalf("bad regex: got %v", err)
	}
	if _, err := s.WaitForText(ctx, WaitArgs{Pane: PaneRef{PaneID: "%9999"}, Patterns: []string{"x"}, Timeout: time.Second}); !isKind(err, KindNotFound) {
		t.Fatalf("missing pane: got %v", err)
	}

	// A pane that exits while it is followed ends the wait with not_found.
	sent = typeLine(fx, pane, "sleep 0.2; exit", 0)
	fx.NewSession(t, "keep") // so the server outlives the pane
	_, err = s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"never-printed"}, Timeout: 20 * time.Second})
	<-sent
	if !isKind(err, KindNotFound) || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("pane exit: got %v", err)
	}
}

func isKind(err error, kind Kind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == kind
}

func TestCaptureSince(t *testing.T) {
	s, pane := shellSession(t, "sh")
	ctx := testCtx(t)
	ref := PaneRef{PaneID: pane}
	r, err := s.CaptureSince(ctx, SinceArgs{Pane: ref})
	if err != nil || r.LinesMissed || !strings.HasPrefix(r.Cursor, engine.CursorPrefixGrid) {
		t.Fatalf("start: got %+v %v", r, err)
	}
	cursor := r.Cursor
	if _, err := s.RunCommand(ctx, RunArgs{Pane: ref, Command: "seq 3000", Timeout: 30 * time.Second}); err != nil {
		t.Fatal(err)
	}
	r, err = s.CaptureSince(ctx, SinceArgs{Cursor: cursor})
	if err != nil || r.LinesMissed {
		t.Fatalf("since: got %v, %v", r.LinesMissed, err)
	}
	// Everything after the cursor, exactly once: the typed line's echo,
	// 3,000 lines of output and the next prompt's line.
	joined := strings.Join(r.Lines, "\n") + "\n"
	for _, want := range []string{"\n1\n2\n", "\n2999\n3000\n"} {
		if !strings.Contains(joined, want) {
			t.Fatalf("missing %q in %d lines", want, len(r.Lines))
		}
	}
	if strings.Count(joined, "\n1500\n") != 1 {
		t.Fatal("a line came twice or not at all")
	}
	// Nothing new but the prompt, unfinished: the cursor stays before it.
	// run_command returns on its end marker, before the shell may have
	// printed the prompt (seen under load): read again until it has.
	var r2 SinceResult
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		r2, err = s.CaptureSince(ctx, SinceArgs{Cursor: r.Cursor})
		if err != nil || len(r2.Lines) > 0 || time.Now().After(deadline) {
			break
		}
	}
	if err != nil || len(r2.Lines) != 1 || !r2.LastLineUnfinished {
		t.Fatalf("idle: got %+v %v", r2, err)
	}
	// The cursor stays on the prompt's row: it comes again, and so does
	// the cursor.
	if again, err := s.CaptureSince(ctx, SinceArgs{Cursor: r2.Cursor}); err != nil || !slices.Equal(again.Lines, r2.Lines) || !again.LastLineUnfinished || again.Cursor != r2.Cursor {
		t.Fatalf("idle again: got %+v %v, want %q and the same cursor", again, err, r2.Lines)
	}
	// Limits keep the newest lines.
	if _, err := s.RunCommand(ctx, RunArgs{Pane: ref, Command: "seq 100", Timeout: 30 * time.Second}); err != nil {
		t.Fatal(err)
	}
	r3, err := s.CaptureSince(ctx, SinceArgs{Cursor: r2.Cursor, MaxLines: 10})
	if err != nil || len(r3.Lines) != 10 || !r3.Truncated || r3.TruncatedLines == 0 {
		t.Fatalf("max_lines: got %+v %v", r3, err)
	}
	// A cursor from before a tmux server restart reports the gap.
	if r4, err := s.CaptureSince(ctx, SinceArgs{Cursor: "capture-since-v1:1:2:" + pane + ":0:" + engine.CursorIssuer}); err != nil || !r4.LinesMissed {
		t.Fatalf("a cursor of another generation: got %+v %v, want lines_missed", r4, err)
	}
	// A cursor another process issued (its offsets count another stream)
	// is refused, and so is one of the format without an issuer.
	foreign := strings.TrimSuffix(r2.Cursor, engine.CursorIssuer) + "0123456789ab"
	old := strings.TrimSuffix(r2.Cursor, ":"+engine.CursorIssuer)
	for _, bad := range []string{"x", "capture-since-v1:a", "capture-since-v1:1:2:%0:-4:" + engine.CursorIssuer, foreign, old} {
		if _, err := s.CaptureSince(ctx, SinceArgs{Cursor: bad}); !isKind(err, KindInvalid) {
			t.Errorf("cursor %q: got %v", bad, err)
		}
	}
	// A cursor belongs to the identity it was issued to (a token over
	// HTTP): another one, or the process itself, is refused it.
	alice := WithOwner(ctx, "alice")
	ra, err := s.CaptureSince(alice, SinceArgs{Pane: ref})
	if err != nil {
		t.Fatal(err)
	}
	for _, other := range []context.Context{ctx, WithOwner(ctx, "bob")} {
		if _, err := s.CaptureSince(other, SinceArgs{Cursor: ra.Cursor}); !isKind(err, KindInvalid) || !strings.Contains(err.Error(), "another client") {
			t.Errorf("alice's cursor read by %q: got %v, want invalid, issued to another client", OwnerOf(other), err)
		}
	}
	if _, err := s.CaptureSince(alice, SinceArgs{Cursor: ra.Cursor}); err != nil {
		t.Errorf("alice's cursor read by alice: %v", err)
	}
	if got, ok := CursorPane(ra.Cursor); !ok || got != pane {
		t.Errorf("CursorPane of alice's cursor: got %q %v, want %s", got, ok, pane)
	}
}

func TestCaptureSinceShowsAPromptWaitingForInput(t *testing.T) {
	s, pane := shellSession(t, "sh")
	ctx := testCtx(t)
	ref := PaneRef{PaneID: pane}
	r, err := s.CaptureSince(ctx, SinceArgs{Pane: ref})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: "echo before; read -p 'Continue? [y/N] ' a; echo got=$a", Enter: true}); err != nil {
		t.Fatal(err)
	}
	if w, err := s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"Continue?"}, Timeout: 10 * time.Second}); err != nil || !w.Found {
		t.Fatalf("no prompt: %+v %v", w, err)
	}
	r, err = s.CaptureSince(ctx, SinceArgs{Cursor: r.Cursor})
	if err != nil || !r.LastLineUnfinished || len(r.Lines) == 0 || r.Lines[len(r.Lines)-1] != "Continue? [y/N] " {
		t.Fatalf("prompt: got %+v %v, want the unfinished prompt last", r, err)
	}
	if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: "y", Enter: true}); err != nil {
		t.Fatal(err)
	}
	if w, err := s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"got=y"}, Timeout: 10 * time.Second}); err != nil || !w.Found {
		t.Fatalf("no answer: %+v %v", w, err)
	}
	r, err = s.CaptureSince(ctx, SinceArgs{Cursor: r.Cursor})
	if err != nil || len(r.Lines) < 2 || r.Lines[0] != "Continue? [y/N] y" || r.Lines[1] != "got=y" {
		t.Fatalf("answered: got %+v %v, want the finished prompt line, then got=y", r, err)
	}
}

func TestChannels(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	fx.NewSession(t, "main")
	if err := s.WaitForChannel(ctx, "never", 50*time.Millisecond); !isKind(err, KindDeadline) {
		t.Fatalf("timeout: got %v", err)
	}
	errc := make(chan error, 1)
	go func() { errc <- s.WaitForChannel(ctx, "go", 20*time.Second) }()
	// The shared channel keeps answering while a wait is under way.
	for range 20 {
		if _, err := s.Sessions(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Signal until the waiter has taken it: a signal before the wait starts
	// is kept by tmux for the next waiter, so one is enough.
	forked := s.ConnStats().Forked
	if err := s.SignalChannel(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	if n := s.ConnStats().Forked - forked; n != 0 {
		t.Errorf("signalling forked %d tmux processes, want none: it goes over the control client", n)
	}
	if err := <-errc; err != nil {
		t.Fatalf("wait: %v", err)
	}
}

// TestSignalWithoutServer: signalling a channel on a socket no server
// listens on is refused as no server, having started none.
func TestSignalWithoutServer(t *testing.T) {
	fx := fixtures.NewServer(t)
	m := NewManager(&Options{Tmux: fx.Bin, ConfigFile: "/dev/null", SocketDir: testSocketDir(), Logger: testLogger(t)})
	t.Cleanup(func() { m.Close() })
	sock := filepath.Join(t.TempDir(), "none")
	s := m.Server(Socket{Path: sock})
	if err := s.SignalChannel(testCtx(t), "c"); !isKind(err, KindNoServer) || Written(err) {
		t.Fatalf("got %v, want no server and nothing written", err)
	}
	if _, err := os.Stat(sock); err == nil {
		t.Error("signalling started a server")
	}
}
