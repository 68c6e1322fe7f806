package session

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// TestKeysInModesNeverStallTheClient sends, to a pane in each mode, the
// keys whose default bindings open a prompt on the client that sent them
// (ours), as key names, as text and as literal text, and checks that every
// call answers on the same client. The liveness deadline is off: a stalled
// client shows as a call that never answers, which the per-call watchdog
// fails.
func TestKeysInModesNeverStallTheClient(t *testing.T) {
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "main")
	m := NewManager(&Options{Tmux: fx.Bin, ConfigFile: "/dev/null", SocketDir: testSocketDir(), ReplyDeadline: -1, Logger: testLogger(t)})
	t.Cleanup(func() { m.Close() })
	s := m.Server(Socket{Name: fx.Socket})
	if _, _, err := s.Capture(testCtx(t), PaneRef{SessionName: "main"}, CaptureArgs{}); err != nil {
		t.Fatal(err)
	}
	client := s.ConnStats()

	// call runs one operation with a watchdog: generous, it catches a hang.
	call := func(t *testing.T, what string, f func(ctx context.Context) error) error {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := f(ctx)
		if ctx.Err() != nil {
			t.Fatalf("%s: no answer in 10 s: the control client is stalled (%v)", what, err)
		}
		return err
	}
	emacs := []string{"g", "f", "F", "t", "T", "C-r", "C-s", "M-1", "M-9", ":", "/", "?"}
	vi := []string{":", "/", "?", "g", "f", "F", "t", "T", "1", "9"}
	tree := []string{":", "/", "?", "f", "x", "X", "C-s", "F1", "C-h", "g"}
	for _, mode := range []struct {
		name  string
		want  string   // pane_mode once entered
		enter []string // tmux arguments that put the pane in the mode; %P is the pane
		keys  []string
		table bool // the mode's keys go to the copy-mode tables
	}{
		{"copy-mode emacs", "copy-mode", []string{"copy-mode", "-t", "%P"}, emacs, true},
		{"copy-mode vi", "copy-mode", []string{"copy-mode", "-t", "%P"}, vi, true},
		// run-shell -t prints to the pane, in view mode.
		{"view-mode", "view-mode", []string{"run-shell", "-t", "%P", "echo viewed"}, emacs, true},
		{"tree-mode", "tree-mode", []string{"choose-tree", "-t", "%P"}, tree, false},
		{"clock-mode", "clock-mode", []string{"clock-mode", "-t", "%P"}, []string{"g", ":"}, false},
	} {
		t.Run(mode.name, func(t *testing.T) {
			keys := "emacs"
			if strings.HasSuffix(mode.name, " vi") {
				keys = "vi"
			}
			fx.Tmux(t, "set-option", "-g", "mode-keys", keys)
			pane := fx.Tmux(t, "new-window", "-d", "-P", "-F", "#{pane_id}")
			ref := PaneRef{PaneID: pane}
			enter := func(t *testing.T) {
				t.Helper()
				args := make([]string, len(mode.enter))
				for i, a := range mode.enter {
					args[i] = strings.ReplaceAll(a, "%P", pane)
				}
				fx.Tmux(t, args...)
				if got := fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_mode}"); got != mode.want {
					t.Skipf("%s: pane_mode %q, want %q: this tmux has no such mode here", mode.name, got, mode.want)
				}
			}
			enter(t)
			sends := []SendKeysArgs{}
			for _, k := range mode.keys {
				sends = append(sends, SendKeysArgs{Keys: k})
			}
			sends = append(sends,
				SendKeysArgs{Keys: "go fetch the tea"},           // text, not a key name: a key at a time
				SendKeysArgs{Keys: "got it :/?", Literal: true},  // literal text goes the same way
				SendKeysArgs{Keys: "g", Enter: true},             // and Enter after it
				SendKeysArgs{Keys: "M-1", SuppressHistory: true}) // a space first
			// Keys not meant for the mode are refused in it, whatever
			// they are, on every release; nothing is sent (q would leave
			// copy mode).
			for _, a := range []SendKeysArgs{{Keys: "q"}, {KeyList: []string{"x", "q"}, Enter: true}} {
				err := call(t, "send_keys "+a.Keys, func(ctx context.Context) error {
					_, err := s.SendKeys(ctx, ref, a)
					return err
				})
				var e *Error
				if !errors.As(err, &e) || e.Kind != KindRefused || e.Remedy != RemedyDriveMode || e.Written || !strings.Contains(e.Msg, mode.want) {
					t.Errorf("send_keys %q %q not meant for %s: got %v; want refused, nothing written, naming the mode", a.Keys, a.KeyList, mode.want, err)
				}
				if got := fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_mode}"); got != mode.want {
					t.Fatalf("after a refused send_keys the pane is in %q, want %q", got, mode.want)
				}
			}
			for _, a := range sends {
				a.DriveMode = true
				err := call(t, "send_keys "+a.Keys, func(ctx context.Context) error {
					_, err := s.SendKeys(ctx, ref, a)
					return err
				})
				// From 3.8 a key bound to a prompt in the pane is refused
				// in copy and view mode, with all the keys of its call;
				// before, the prompt cannot open and the key does nothing.
				if refused := s.release().BindsPanePrompts() && mode.table && opensPanePrompt(keys == "vi", a); refused {
					var e *Error
					if !errors.As(err, &e) || e.Kind != KindRefused || e.Remedy != RemedyLeaveMode || e.Written {
						t.Errorf("send_keys %q: got %v; want refused, nothing written, leave the mode", a.Keys, err)
					}
				} else if err != nil {
					t.Errorf("send_keys %q: %v", a.Keys, err)
				}
				if mode.name == "clock-mode" || mode.name == "tree-mode" {
					// A key can end these modes; put the pane back.
					if fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_mode}") != mode.want {
						enter(t)
					}
				}
			}
			if s.release().BindsPanePrompts() && mode.table {
				// A refused call sends none of its keys: q, which
				// leaves the mode, goes with f, and the pane stays.
				if fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_mode}") != mode.want {
					enter(t)
				}
				err := call(t, "send_keys q g", func(ctx context.Context) error {
					_, err := s.SendKeys(ctx, ref, SendKeysArgs{KeyList: []string{"q", "f"}, DriveMode: true})
					return err
				})
				if err == nil || fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_mode}") != mode.want {
					t.Errorf("send_keys q f: got %v, and the pane left %s; want refused, nothing sent", err, mode.want)
				}
			}
			// Every other call still answers.
			if err := call(t, "capture", func(ctx context.Context) error {
				_, _, err := s.Capture(ctx, ref, CaptureArgs{})
				return err
			}); err != nil {
				t.Errorf("capture: %v", err)
			}
			if err := call(t, "list panes", func(ctx context.Context) error {
				_, err := s.Panes(ctx, PaneScope{})
				return err
			}); err != nil {
				t.Errorf("list panes: %v", err)
			}
			if err := call(t, "exit_copy_mode", func(ctx context.Context) error {
				_, err := s.ExitCopyMode(ctx, ref)
				return err
			}); err != nil {
				t.Errorf("exit_copy_mode: %v", err)
			}
		})
	}
	if got := s.ConnStats(); got.Pid != client.Pid || got.Dials != client.Dials {
		t.Errorf("control client pid %d after %d dials; want the first, %d after %d", got.Pid, got.Dials, client.Pid, client.Dials)
	}
}

// opensPanePrompt reports whether a sends a key that tmux 3.8's default
// copy-mode tables (copy-mode-vi with vi) bind to a prompt in the pane: a
// key name, or a character of a text.
func opensPanePrompt(vi bool, a SendKeysArgs) bool {
	set := "g f F t T M-1 M-9"
	if vi {
		set = ": / ? f F t T 1 9"
	}
	keys := append([]string{a.Keys}, a.KeyList...)
	if a.SuppressHistory && a.KeyList == nil {
		keys[0] = " " + keys[0] // text, no longer a key name
	}
	for _, k := range keys {
		if slices.Contains(strings.Fields(set), k) {
			return true
		}
		if a.Literal || len([]rune(k)) > 1 && !strings.Contains(k, "-") {
			for _, r := range k {
				if slices.Contains(strings.Fields(set), string(r)) {
					return true
				}
			}
		}
	}
	return false
}
