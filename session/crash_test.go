package session

import (
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// TestKeysBoundToCrashingCommandsAreRefused binds y, in both copy-mode
// tables, to copy-selection, which crashes tmux before 3.4, and sends it
// with drive_mode to a pane in copy mode with a selection: refused there,
// the pane and the server as they were; sent on later releases. Keys bound
// to nothing that crashes are sent everywhere.
func TestKeysBoundToCrashingCommandsAreRefused(t *testing.T) {
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "main")
	// Bound before the client connects: the tables are read then.
	fx.Tmux(t, "bind-key", "-T", "copy-mode-vi", "y", "send-keys", "-X", "copy-selection")
	fx.Tmux(t, "bind-key", "-T", "copy-mode", "y", "send-keys", "-X", "copy-selection-and-cancel")
	fx.Tmux(t, "set-option", "-g", "mode-keys", "vi")
	m := NewManager(&Options{Tmux: fx.Bin, ConfigFile: "/dev/null", SocketDir: testSocketDir(), Logger: testLogger(t)})
	t.Cleanup(func() { m.Close() })
	s := m.Server(Socket{Name: fx.Socket})
	ctx := testCtx(t)
	if _, _, err := s.Capture(ctx, PaneRef{SessionName: "main"}, CaptureArgs{}); err != nil {
		t.Fatal(err)
	}
	// Decided from the version here, not by the code under test.
	crashes := !s.release().AtLeast(3, 4)
	pane := fx.Tmux(t, "new-window", "-d", "-P", "-F", "#{pane_id}")
	fx.Tmux(t, "copy-mode", "-t", pane)
	fx.Tmux(t, "send-keys", "-t", pane, "-X", "begin-selection")
	buffers := func() string { return fx.Tmux(t, "list-buffers", "-F", "#{buffer_name}") }

	_, err := s.SendKeys(ctx, PaneRef{PaneID: pane}, SendKeysArgs{KeyList: []string{"y"}, DriveMode: true})
	outs, _ := s.SendKeysBatch(ctx, []SendKeysOp{{Ref: PaneRef{PaneID: pane}, SendKeysArgs: SendKeysArgs{Keys: "y", DriveMode: true}}}, true)
	if len(outs) != 1 {
		t.Fatalf("batch: got %d outcomes, want 1", len(outs))
	}
	if crashes {
		for what, err := range map[string]error{"send_keys": err, "batch": outs[0].Err} {
			if err == nil || !strings.Contains(err.Error(), "crashes tmux") {
				t.Errorf("%s on tmux %s: got %v, want a refusal naming the crash", what, s.release().Version(), err)
			}
		}
		if got := fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_mode}"); got != "copy-mode" {
			t.Errorf("pane mode after the refusal: got %q, want copy-mode (nothing sent)", got)
		}
		if got := buffers(); got != "" {
			t.Errorf("buffers after the refusal: got %q, want none", got)
		}
	} else {
		if err != nil || outs[0].Err != nil {
			t.Errorf("on tmux %s: got %v and %v, want the keys sent", s.release().Version(), err, outs[0].Err)
		}
		if buffers() == "" {
			t.Errorf("on tmux %s: no buffer after copy-selection: the key was not sent", s.release().Version())
		}
	}
	// A key bound to nothing that crashes goes through everywhere.
	if _, err := s.SendKeys(ctx, PaneRef{PaneID: pane}, SendKeysArgs{KeyList: []string{"k"}, DriveMode: true}); err != nil {
		t.Errorf("k with drive_mode: got %v, want it sent", err)
	}
}
