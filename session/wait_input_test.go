package session

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// attachedAndOther returns a pane of the session the main client is
// attached to and one of a session it is not attached to.
func attachedAndOther(t *testing.T) (*Server, string, string) {
	t.Helper()
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	fx.NewSession(t, "main")
	fx.NewSession(t, "other")
	if _, err := s.Sessions(ctx); err != nil {
		t.Fatal(err)
	}
	sess, err := s.Session(ctx, s.ConnStats().Attached)
	if err != nil {
		t.Fatal(err)
	}
	other := "other"
	if sess.Name == "other" {
		other = "main"
	}
	return s, paneOf(t, s, sess.Name), paneOf(t, s, other)
}

func TestWaitAfterInputSkipsEchoAndOldLines(t *testing.T) {
	s, attached, other := attachedAndOther(t)
	for _, c := range []struct{ name, pane string }{{"attached session", attached}, {"other session", other}} {
		t.Run(c.name, func(t *testing.T) {
			ctx := testCtx(t)
			ref := PaneRef{PaneID: c.pane}
			waitPrompt(t, s, c.pane)
			// An old READY on screen, printed by an earlier command.
			if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: "printf 'REA%sDY\\n' ''", Enter: true}); err != nil {
				t.Fatal(err)
			}
			if r, err := s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"READY"}, Timeout: 10 * time.Second}); err != nil || !r.Found {
				t.Fatalf("first READY: got %+v %v", r, err)
			}
			for i := range 3 {
				// Type at the prompt: typed ahead, the prompt can be drawn
				// inside the echo ("sleep#  0.3; ...", seen on 3.6b), which
				// no echo filter can tell from output.
				waitPrompt(t, s, c.pane)
				token := fmt.Sprintf("DONE_%d", 42+i)
				if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: "sleep 0.3; echo READY " + token, Enter: true}); err != nil {
					t.Fatal(err)
				}
				r, err := s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{token}, Timeout: 10 * time.Second})
				if err != nil || r.Outcome != OutcomeMatched {
					t.Fatalf("trial %d: got %+v %v", i, r, err)
				}
				// The shell may print its prompt before the output, on the
				// same line, when the line was typed ahead.
				if r.MatchedAtEntry || len(r.MatchedLines) != 1 || !strings.HasSuffix(r.MatchedLines[0], "READY "+token) || strings.Contains(r.MatchedLines[0], "echo") {
					t.Fatalf("trial %d: got %+v, want the program's line %q matched after the wait began", i, r, "READY "+token)
				}
				if r.Since != SinceInput || r.Elapsed < 200*time.Millisecond {
					t.Fatalf("trial %d: got since %q after %v, want input and about 300 ms", i, r.Since, r.Elapsed)
				}
				t.Logf("trial %d: matched in %s after %v, %d echo lines skipped", i, r.MatchedIn, r.Elapsed, r.EchoSkipped)
			}
			// Pasted text and a batch of keys are input too.
			if _, err := s.PasteText(ctx, ref, "sleep 0.3; echo PASTED\n", false); err != nil {
				t.Fatal(err)
			}
			r, err := s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"PASTED"}, Timeout: 10 * time.Second})
			if err != nil || !r.Found || r.MatchedAtEntry || strings.Contains(r.MatchedLines[0], "echo") || r.Elapsed < 200*time.Millisecond {
				t.Fatalf("paste: got %+v %v", r, err)
			}
			outs, _ := s.SendKeysBatch(ctx, []SendKeysOp{{Ref: ref, SendKeysArgs: SendKeysArgs{Keys: "sleep 0.3; echo BATCHED", Enter: true}}}, true)
			if len(outs) != 1 || outs[0].Err != nil {
				t.Fatalf("batch: %+v", outs)
			}
			r, err = s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"BATCHED"}, Timeout: 10 * time.Second})
			if err != nil || !r.Found || r.MatchedAtEntry || strings.Contains(r.MatchedLines[0], "echo") || r.Elapsed < 200*time.Millisecond {
				t.Fatalf("batch: got %+v %v", r, err)
			}
			// Asking for the screen still finds what is there.
			r, err = s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"DONE_42"}, Since: SinceScreen, Timeout: 5 * time.Second})
			if err != nil || !r.Found || !r.MatchedAtEntry || r.MatchedIn != InScreen {
				t.Fatalf("since screen: got %+v %v", r, err)
			}
		})
	}
}

// TestWaitAfterLinesSkipsEveryEcho types two command lines in one input,
// a key at a time (send_keys with a key list): the shell echoes the second
// after its prompt, below the first's output. A wait for what the input
// printed takes that echo for echo too, short as it is: "B" matches the
// second command's output, not its command line. (A long line was echo
// there already, as a line editor may echo it twice.)
func TestWaitAfterLinesSkipsEveryEcho(t *testing.T) {
	fx, s := newTestServer(t)
	fx.NewSession(t, "sh", "env", "PS1=$ ", "sh")
	pane := paneOf(t, s, "sh")
	waitPrompt(t, s, pane)
	ctx := testCtx(t)
	ref := PaneRef{PaneID: pane}
	keys := []string{"echo ONE", "Enter", "echo B", "Enter"}
	if _, err := s.PressKeys(ctx, ref, SendKeysArgs{KeyList: keys}, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	r, err := s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"B"}, MatchCase: true, Timeout: 10 * time.Second})
	// The input counts from the first Enter: the first line's echo was
	// drawn before it, the second's after ONE.
	if err != nil || r.Outcome != OutcomeMatched || strings.Join(r.MatchedLines, "|") != "B" || strings.Join(r.EchoLines, "|") != "$ echo B" {
		t.Fatalf("got %+v, %v; want the output line B, the second command line skipped as echo", r, err)
	}
}

func TestWaitInFullScreenProgram(t *testing.T) {
	fixtures.NeedProgram(t, "less")
	s, pane, _ := attachedAndOther(t)
	ctx := testCtx(t)
	ref := PaneRef{PaneID: pane}
	waitPrompt(t, s, pane)
	file := filepath.Join(t.TempDir(), "text")
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "line %03d\n", i)
	}
	b.WriteString("THE-END\n")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: "less " + file, Enter: true}); err != nil {
		t.Fatal(err)
	}
	r, err := s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"line 003"}, Timeout: 10 * time.Second})
	// Found, from the screen or from the page's output: 1 run in 10 to
	// 20, on every release, the wait meets the page as output before it
	// has seen less enter the alternate screen (not understood yet).
	if err != nil || !r.Found || !slices.Equal(r.MatchedLines, []string{"line 003"}) {
		t.Fatalf("less drawing its first page: got %+v %v", r, err)
	}
	// On screen already: a full-screen program's screen is its state.
	r, err = s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"line 003"}, Timeout: 10 * time.Second})
	if err != nil || !r.Found || !r.MatchedAtEntry || r.Outcome != OutcomeMatched {
		t.Fatalf("text on screen in less: got %+v %v", r, err)
	}
	if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: "G"}); err != nil {
		t.Fatal(err)
	}
	// No stop pattern from the old page: a screen read before less redraws
	// can still show it, and would stop the wait (seen on every release,
	// 1 run in 4 to 10; docs/tools.md names the limit).
	r, err = s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"THE-END"}, Timeout: 10 * time.Second})
	if err != nil || r.Outcome != OutcomeMatched || r.MatchedIn != InScreen {
		t.Fatalf("less at the end: got %+v %v", r, err)
	}
	if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: "q"}); err != nil {
		t.Fatal(err)
	}
	r, err = s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{`[$#] $`}, Regex: true, Timeout: 10 * time.Second})
	if err != nil || !r.Found {
		t.Fatalf("the prompt after less: got %+v %v", r, err)
	}
}

// TestInterruptRecipe follows the interrupt_gracefully prompt: C-c, then a
// wait for a shell prompt. Only a prompt printed after the C-c answers it;
// a program that ignores SIGINT leaves it to time out.
func TestInterruptRecipe(t *testing.T) {
	s, pane, _ := attachedAndOther(t)
	ctx := testCtx(t)
	ref := PaneRef{PaneID: pane}
	waitPrompt(t, s, pane)
	prompt := WaitArgs{Pane: ref, Patterns: []string{`\$ $`, `# $`, `% $`}, Regex: true, Stop: []string{"Interrupt"}}
	for _, c := range []struct {
		name, command string
		stops         bool
	}{
		{"stops", "sleep 30", true},
		{"ignores SIGINT", "(trap '' INT; exec sleep 30)", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: c.command, Enter: true}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.WaitQuiet(ctx, QuietArgs{Pane: ref, Quiet: 200 * time.Millisecond, Timeout: 10 * time.Second}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: "C-c"}); err != nil {
				t.Fatal(err)
			}
			a := prompt
			a.Timeout = 2 * time.Second
			if !c.stops {
				a.Timeout = 500 * time.Millisecond
			}
			r, err := s.WaitForText(ctx, a)
			// The prompt may be there when the wait starts, but printed
			// after the C-c: the tail starts with its echo.
			if err != nil || r.Found != c.stops || c.stops && (r.MatchedIn != InOutput || len(r.Tail) == 0 || r.Tail[0] != "^C") {
				t.Fatalf("got %+v %v, want found %v, after ^C", r, err, c.stops)
			}
			if !c.stops {
				if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: "C-\\"}); err != nil {
					t.Fatal(err)
				}
				a.Timeout = 10 * time.Second
				if r, err := s.WaitForText(ctx, a); err != nil || !r.Found {
					t.Fatalf("after SIGQUIT: got %+v %v", r, err)
				}
			}
		})
	}
}
