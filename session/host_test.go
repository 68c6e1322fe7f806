package session

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostsDoTheirOwnWork checks, without tmux or ssh, what each kind of
// host answers where the two differ: the crash gate's directory, a path,
// a one-shot's failure on the way to the host, and a blocking one-shot's
// input.
func TestHostsDoTheirOwnWork(t *testing.T) {
	exit := func(code string) error {
		err := exec.Command("sh", "-c", "exit "+code).Run()
		if err == nil {
			t.Fatalf("exit %s: no error", code)
		}
		return err
	}
	ssh := &sshHost{dest: "build-box"}
	abs, err := filepath.Abs("rel")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		host      Host
		lockDir   string
		path      string // what "rel" becomes; "": asked of the host (cmd/tmux-mcp's TestAttackPipePaneFile)
		failure   Kind   // of a one-shot that exited 255; 0 for none
		heldInput bool   // a blocking one-shot is given an input of its own
	}{
		{"this machine", localHost{}, "/run/tmux-1", abs, 0, false},
		{"ssh", ssh, "", "", KindConnLost, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.host.lockDir("/run/tmux-1/default"); got != tc.lockDir {
				t.Errorf("lockDir: got %q, want %q", got, tc.lockDir)
			}
			if got := tc.host.lockDir(""); got != "" {
				t.Errorf("lockDir of no socket file: got %q, want none", got)
			}
			if tc.path != "" {
				if p, err := tc.host.path(t.Context(), &Options{}, "rel"); p != tc.path || err != nil {
					t.Errorf("path: got %q, %v; want %q", p, err, tc.path)
				}
			}
			var e *Error
			err := tc.host.failure(exit("255"), "connection refused")
			if got := errors.As(err, &e); got != (tc.failure != 0) || got && (e.Kind != tc.failure || e.Written || !strings.Contains(e.Msg, "connection refused")) {
				t.Errorf("failure of status 255: got %v, want kind %v", err, tc.failure)
			}
			if err := tc.host.failure(exit("1"), "no server running"); err != nil {
				t.Errorf("failure of status 1 (tmux's own): got %v, want none", err)
			}
			cmd := exec.Command("true")
			cleanup, err := tc.host.prepareOneShot(cmd, true)
			if err != nil {
				t.Fatal(err)
			}
			if got := cmd.Stdin != nil; got != tc.heldInput {
				t.Errorf("blocking one-shot: input held %v, want %v", got, tc.heldInput)
			}
			cleanup()
		})
	}
}
