package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/engine"
)

func TestKindString(t *testing.T) {
	seen := map[string]Kind{}
	for k := KindInvalid; k <= KindCancelled; k++ {
		name := k.String()
		if name == "" || strings.HasPrefix(name, "Kind(") {
			t.Errorf("kind %d has no name: got %q", int(k), name)
		}
		if prev, ok := seen[name]; ok {
			t.Errorf("kinds %d and %d share the name %q", int(prev), int(k), name)
		}
		seen[name] = k
	}
	for _, k := range []Kind{0, KindCancelled + 1} {
		if got, want := k.String(), fmt.Sprintf("Kind(%d)", int(k)); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

// TestEveryFailureIsClassified runs every kind of failure through the
// classification at the places where I/O happens (a line sent on a client,
// a one-shot tmux, a connect) and through the constructors used before any
// I/O or after a change, and checks its Kind, whether it is Written, and the
// predicates a caller decides on. Written must follow what reached tmux and
// could change it, as WatchEffects records it: "can't find pane" and "can't
// find session" are never written, whatever the line. Every Kind appears.
func TestEveryFailureIsClassified(t *testing.T) {
	cmd := controlmode.NewCommand
	read := []controlmode.Command{cmd("display-message", "-p", "-t", "%1", "#{pane_id}")}
	change := []controlmode.Command{cmd("kill-pane", "-t", "%1")}
	changeThenFail := []controlmode.Command{cmd("new-window"), cmd("kill-pane", "-t", "%9")}
	// failAt is what Exec returns for a line of n commands whose i-th tmux
	// refused with msg: the replies up to it, and its error.
	failAt := func(cmds []controlmode.Command, i int, msg string) ([]controlmode.Command, []controlmode.Reply, error) {
		ce := &controlmode.CommandError{Command: cmds[i].Name(), Msg: msg}
		rs := make([]controlmode.Reply, i+1)
		rs[i].Err = ce
		return cmds, rs, ce
	}
	line := func(cmds []controlmode.Command, rs []controlmode.Reply, err error) error {
		return lineError(cmds, rs, err)
	}
	fail := func(cmds []controlmode.Command, err error) error { return lineError(cmds, nil, err) }
	sentDial := lineError(change, nil, controlmode.ErrClosed) // a dial's error, stamped written by the send that failed it

	unseen := map[Kind]bool{}
	for k := KindInvalid; k <= KindCancelled; k++ {
		unseen[k] = true
	}
	for _, tc := range []struct {
		name      string
		err       error
		kind      Kind
		written   bool
		retryable bool
	}{
		{"invalid command", fail(change, fmt.Errorf("x: %w", controlmode.ErrInvalidCommand)), KindInvalid, false, false},
		{"can't find pane, read", line(failAt(read, 0, "can't find pane: %1")), KindNotFound, false, false},
		{"can't find pane, change", line(failAt(change, 0, "can't find pane: %1")), KindNotFound, false, false},
		{"can't find session, change", line(failAt([]controlmode.Command{cmd("kill-session", "-t", "a")}, 0, "can't find session: a")), KindNotFound, false, false},
		{"can't find pane after a change ran", line(failAt(changeThenFail, 1, "can't find pane: %9")), KindNotFound, true, false},
		{"refused change", line(failAt([]controlmode.Command{cmd("new-session", "-s", "a")}, 0, "duplicate session: a")), KindRefused, true, false},
		{"refused read", line(failAt([]controlmode.Command{cmd("list-keys", "-T", "x")}, 0, "table x doesn't exist")), KindRefused, false, false},
		{"refused repeat count", line(failAt([]controlmode.Command{cmd("send-keys", "-N", "2", "-t", "%1", "q")}, 0, "repeat count: not allowed")), KindRefused, false, false},
		{"not sent", fail(change, fmt.Errorf("x: %w", controlmode.ErrNotSent)), KindConnLost, false, true},
		{"closed during a change", fail(change, controlmode.ErrClosed), KindConnLost, true, false},
		{"closed during a read", fail(read, controlmode.ErrClosed), KindConnLost, false, true},
		{"unresponsive, change sent", fail(change, controlmode.ErrUnresponsive), KindConnLost, true, false},
		{"unresponsive, read sent", fail(read, controlmode.ErrUnresponsive), KindConnLost, false, true},
		{"unresponsive, not sent", fail(change, fmt.Errorf("%w: %w", controlmode.ErrUnresponsive, controlmode.ErrNotSent)), KindConnLost, false, true},
		{"cancelled during a change", fail(change, context.Canceled), KindCancelled, true, false},
		{"cancelled during a read", fail(read, context.Canceled), KindCancelled, false, false},
		{"deadline during a change", fail(change, context.DeadlineExceeded), KindDeadline, true, false},
		{"one-shot: can't find session", ranTmux(context.Background(), []string{"kill-session", "-t", "a"}, &Error{Kind: KindNotFound, Msg: "can't find session: a"}, false), KindNotFound, false, false},
		{"one-shot: refused change", ranTmux(context.Background(), []string{"new-session", "-s", "a"}, &Error{Kind: KindRefused, Msg: "duplicate session: a"}, true), KindRefused, true, false},
		{"one-shot: refused read", ranTmux(context.Background(), []string{"list-sessions"}, &Error{Kind: KindRefused, Msg: "x"}, true), KindRefused, false, false},
		{"one-shot: no server", ranTmux(context.Background(), []string{"new-session"}, &Error{Kind: KindNoServer, Msg: "error creating"}, false), KindNoServer, false, true},
		{"connect: its dial's error", notSent(sentDial), KindConnLost, false, true},
		{"connect: cancelled", notSent(context.Canceled), KindCancelled, false, false},
		{"before I/O: no target", errorf(KindNoTarget, "a pane is needed"), KindNoTarget, false, false},
		{"before I/O: not owned", errorf(KindNotOwned, "not ours"), KindNotOwned, false, false},
		{"before I/O: owned limit", errorf(KindOwnedLimit, "too many"), KindOwnedLimit, false, false},
		{"after a change", afterChange(errorf(KindDeadline, "did not start")), KindDeadline, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e *Error
			if !errors.As(tc.err, &e) {
				t.Fatalf("got %T %v, want *Error", tc.err, tc.err)
			}
			if e.Kind != tc.kind || e.Written != tc.written {
				t.Errorf("got kind %v, written %v; want %v, %v", e.Kind, e.Written, tc.kind, tc.written)
			}
			if Retryable(tc.err) != tc.retryable || Written(tc.err) != tc.written || IsNotFound(tc.err) != (tc.kind == KindNotFound) {
				t.Errorf("got retryable %v, written %v, not found %v; want %v, %v, %v",
					Retryable(tc.err), Written(tc.err), IsNotFound(tc.err), tc.retryable, tc.written, tc.kind == KindNotFound)
			}
			if got, want := e.Effects(), map[bool]string{true: "possible", false: "none"}[tc.written]; got != want {
				t.Errorf("effects %q, want %q", got, want)
			}
		})
		var e *Error
		if errors.As(tc.err, &e) {
			delete(unseen, e.Kind)
		}
	}
	if len(unseen) > 0 {
		t.Errorf("kinds no failure was classified as: %v", unseen)
	}
	if !Written(sentDial) {
		t.Error("notSent changed the dial's shared error in place")
	}
	shared := errorf(KindNoServer, "no server")
	if _ = afterChange(notSent(shared)); Written(shared) {
		t.Error("a connect's error, marked after a change, changed the dial's shared error")
	}
	if _ = afterChange(shared); Written(shared) {
		t.Error("afterChange changed a shared error in place")
	}
	if Written(errors.New("foreign")) != true || Retryable(errors.New("foreign")) {
		t.Error("a foreign error must count as written and not retryable")
	}
}

// TestLineErrorAgreesWithWatchEffects: for each failed line, the error's
// Written is what WatchEffects records as changed.
func TestLineErrorAgreesWithWatchEffects(t *testing.T) {
	cmd := controlmode.NewCommand
	for _, tc := range []struct {
		name string
		cmds []controlmode.Command
		at   int
		msg  string
	}{
		{"missing pane", []controlmode.Command{cmd("kill-pane", "-t", "%9")}, 0, "can't find pane: %9"},
		{"missing session", []controlmode.Command{cmd("kill-session", "-t", "x")}, 0, "can't find session: x"},
		{"refused", []controlmode.Command{cmd("new-session", "-s", "a")}, 0, "duplicate session: a"},
		{"after a change", []controlmode.Command{cmd("new-window"), cmd("kill-pane", "-t", "%9")}, 1, "can't find pane: %9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ce := &controlmode.CommandError{Command: tc.cmds[tc.at].Name(), Msg: tc.msg}
			rs := make([]controlmode.Reply, tc.at+1)
			rs[tc.at].Err = ce
			ctx, effects := WatchEffects(context.Background())
			noteExec(ctx, tc.cmds, rs, ce)
			_, changed := effects()
			if got := Written(lineError(tc.cmds, rs, ce)); got != changed {
				t.Errorf("written %v, WatchEffects changed %v", got, changed)
			}
		})
	}
}

// TestNoTargetRemedies checks that an operation given no target fails
// before any I/O, says in tmux's words what it needed, and names it as a
// Remedy, so a caller can name its own arguments.
func TestNoTargetRemedies(t *testing.T) {
	s := new(Server) // never connected: each call must fail before it needs tmux
	s.Engine = engine.New(engineHost{s}, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		call   func() error
		remedy Remedy
		words  string
	}{
		{"send keys", func() error { _, err := s.SendKeys(ctx, PaneRef{}, SendKeysArgs{Keys: "x"}); return err }, RemedyPane, "a pane, window or session is needed"},
		{"run", func() error { _, err := s.RunCommand(ctx, RunArgs{Command: "true"}); return err }, RemedyPane, "a pane, window or session is needed"},
		{"kill pane", func() error { return s.KillPane(ctx, "") }, RemedyPane, "needs a pane"},
		{"respawn", func() error { _, err := s.RespawnPane(ctx, "", RespawnArgs{}); return err }, RemedyPane, "needs a pane"},
		{"window", func() error { _, err := s.windowTarget(ctx, WindowRef{}); return err }, RemedyWindow, "a window or session is needed"},
		{"window index", func() error { _, err := s.windowTarget(ctx, WindowRef{WindowIndex: "2"}); return err }, RemedySession, "window index 2 needs a session"},
		{"direction", func() error { _, err := s.SelectWindow(ctx, WindowRef{}, "next"); return err }, RemedySession, "direction next needs a session"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e *Error
			if err := tc.call(); !errors.As(err, &e) {
				t.Fatalf("got %v, want *Error", err)
			}
			if e.Kind != KindNoTarget || e.Written || e.Remedy != tc.remedy || !strings.Contains(e.Msg, tc.words) {
				t.Errorf("got %+v, want kind %v, not written, remedy %d, a message with %q", *e, KindNoTarget, tc.remedy, tc.words)
			}
		})
	}
}
