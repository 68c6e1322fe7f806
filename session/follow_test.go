package session

import (
	"strings"
	"testing"
	"time"
)

// TestWaitsGoOnAfterTheirClientEnds detaches the control client that
// delivers a waited-on pane's output: each wait follows the pane on the
// next client, as the run_command follower does, and answers the line
// printed after, instead of failing or taking the client's end for output.
func TestWaitsGoOnAfterTheirClientEnds(t *testing.T) {
	waits := map[string]func(s *Server, pane string) (string, error){
		"wait_for_text": func(s *Server, pane string) (string, error) {
			r, err := s.WaitForText(testCtx(t), WaitArgs{Pane: PaneRef{PaneID: pane}, Patterns: []string{"after-detach"}, Since: SinceStart, Timeout: 30 * time.Second})
			return strings.Join(r.MatchedLines, "|"), err
		},
		"first output": func(s *Server, pane string) (string, error) {
			r, err := s.WaitQuiet(testCtx(t), QuietArgs{Pane: PaneRef{PaneID: pane}, Timeout: 30 * time.Second})
			if !r.Changed || r.Bytes == 0 {
				return "", err
			}
			return "changed", err
		},
	}
	want := map[string]string{"wait_for_text": "after-detach", "first output": "changed"}
	for name, wait := range waits {
		t.Run(name, func(t *testing.T) {
			fx, s := newTestServer(t)
			fx.NewSession(t, "sh", "env", "PS1=$ ", "sh")
			pane := paneOf(t, s, "sh")
			waitPrompt(t, s, pane)
			st := s.streams.Get(pane)
			type answer struct {
				got string
				err error
			}
			answers := make(chan answer, 1)
			following := st.Following()
			go func() {
				got, err := wait(s, pane)
				answers <- answer{got, err}
			}()
			<-following
			conn := s.ConnStats()
			following = nil
			fx.Tmux(t, "detach-client", "-s", conn.Attached)
			waitFor(t, "a new client", func() bool { c := s.ConnStats(); return c.Dials > conn.Dials && c.Connected })
			// The wait follows the pane again: it blocks on its stream
			// once more, having answered nothing.
			select {
			case a := <-answers:
				t.Fatalf("the wait answered at its client's end: %q, %v", a.got, a.err)
			case <-st.Following():
			}
			fx.Tmux(t, "send-keys", "-t", pane, "printf 'after-%s\\n' detach", "Enter")
			a := <-answers
			if a.err != nil || a.got != want[name] {
				t.Fatalf("got %q, %v; want %q", a.got, a.err, want[name])
			}
		})
	}
}

// TestPressKeysIntoAPaneThatExits: a key list pressed one key at a time
// into a shell that exits on its second key answers not_found, saying the
// pane exited and how many keys went first, unless the exit came with the
// last key.
func TestPressKeysIntoAPaneThatExits(t *testing.T) {
	for _, keys := range [][]string{{"exit", "Enter", "x"}, {"exit", "Enter"}} {
		t.Run(strings.Join(keys, "-"), func(t *testing.T) {
			fx, s := newTestServer(t)
			fx.NewSession(t, "keep") // the server outlives the pane
			fx.NewSession(t, "sh", "env", "PS1=$ ", "sh")
			pane := paneOf(t, s, "sh")
			waitPrompt(t, s, pane)
			p, err := s.PressKeys(testCtx(t), PaneRef{PaneID: pane}, SendKeysArgs{KeyList: keys}, 5*time.Second)
			if len(keys) == 2 {
				if err != nil || len(p.Keys) != 2 {
					t.Fatalf("got %+v, %v; want both keys pressed and no error", p, err)
				}
				return
			}
			if !IsNotFound(err) || !strings.Contains(err.Error(), "first 2 of 3 keys") || !strings.Contains(err.Error(), "exited") {
				t.Fatalf("got %v, want not_found: the pane exited after the first 2 of 3 keys", err)
			}
		})
	}
}

// TestPressedKeysAreOneInput presses a key list one key at a time, with an
// Enter among the keys and another after them, as send_keys does with
// pace_ms: a wait for what the pane printed since the input counts from
// the first key, as after the same keys sent in one line, so it finds the
// command's output between the two Enters, and not its echo.
func TestPressedKeysAreOneInput(t *testing.T) {
	fx, s := newTestServer(t)
	fx.NewSession(t, "sh", "env", "PS1=$ ", "sh")
	pane := paneOf(t, s, "sh")
	waitPrompt(t, s, pane)
	ctx := testCtx(t)
	p, err := s.PressKeys(ctx, PaneRef{PaneID: pane}, SendKeysArgs{KeyList: []string{"echo", " one", "Enter"}, Enter: true}, 5*time.Second)
	if err != nil || len(p.Keys) != 4 {
		t.Fatalf("got %+v, %v; want 4 keys pressed", p, err)
	}
	r, err := s.WaitForText(ctx, WaitArgs{Pane: PaneRef{PaneID: pane}, Patterns: []string{"one"}, Timeout: 5 * time.Second})
	if err != nil || r.Outcome != OutcomeMatched || strings.Join(r.MatchedLines, "|") != "one" {
		t.Fatalf("got %+v, %v; want the output line one, matched", r, err)
	}
}
