package session

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestWaitSkipsTheEchoOfALongCommandLine: a command line longer than the
// pane is wide wraps, and line editors echo it in their own ways (zsh
// redraws the row it wraps onto): none of it may answer the wait, typed
// at a prompt the stream saw only part of.
func TestWaitSkipsTheEchoOfALongCommandLine(t *testing.T) {
	for _, sh := range []string{"sh", "bash --norc --noprofile", "zsh -f"} {
		t.Run(strings.Fields(sh)[0], func(t *testing.T) {
			argv := strings.Fields(sh)
			if _, err := exec.LookPath(argv[0]); err != nil {
				t.Skipf("%s is not installed", argv[0])
			}
			fx, s := newTestServer(t)
			ctx := testCtx(t)
			fx.NewSession(t, "main", argv...)
			pane := paneOf(t, s, "main")
			ref := PaneRef{PaneID: pane}
			waitPrompt(t, s, pane)
			long := "sleep 0.5; echo " + strings.Repeat("x", 100) + " TOKEN_" + "77"
			if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: long, Enter: true}); err != nil {
				t.Fatal(err)
			}
			r, err := s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"TOKEN_77"}, Timeout: 10 * time.Second})
			if err != nil || !r.Found || r.MatchedAtEntry || r.Elapsed < 300*time.Millisecond ||
				len(r.MatchedLines) != 1 || strings.Contains(r.MatchedLines[0], "echo") {
				t.Fatalf("got %+v %v, want the output, about 500 ms later", r, err)
			}
		})
	}
}
