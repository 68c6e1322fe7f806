package session

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// TestPausedPaneResumes pauses a pane's output on the main client from
// outside, as tmux does for a client too far behind (pause-after): the
// Server asks for it again and captures the screen it resumed with, and
// what the pane prints afterwards reaches waits.
func TestPausedPaneResumes(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	pane, tty := silentPane(t, fx, s, "p")
	fmt.Fprint(tty, "before-pause\r\n")
	if r, err := s.WaitForText(ctx, WaitArgs{Pane: PaneRef{PaneID: pane}, Patterns: []string{"before-pause"}, Timeout: 10 * time.Second}); err != nil || !r.Found {
		t.Fatalf("before the pause: %+v %v", r, err)
	}
	rs, err := s.exec(ctx, controlmode.NewCommand("display-message", "-p", "#{client_name}"))
	if err != nil {
		t.Fatal(err)
	}
	client := strings.Join(rs[0].Lines, "")
	st := s.streams.Get(pane)
	from, _ := st.Position()
	// From another client, so that %pause reaches the main client as a
	// notification, not inside a reply.
	fx.Tmux(t, "refresh-client", "-t", client, "-A", pane+":pause")
	deadline := time.After(20 * time.Second)
	for {
		_, changed := st.Position()
		if r := st.Read(from); r.Paused && r.Snapshot != nil {
			if !strings.Contains(strings.Join(r.Snapshot, "\n"), "before-pause") {
				t.Fatalf("the screen captured on resuming is %q", r.Snapshot)
			}
			break
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("the pane was paused and never resumed: %+v", st.Read(from))
		}
	}
	following := st.Following()
	go func() {
		<-following
		fmt.Fprint(tty, "after-resume\r\n")
	}()
	r, err := s.WaitForText(ctx, WaitArgs{Pane: PaneRef{PaneID: pane}, Patterns: []string{"after-resume"}, Since: SinceStart, Timeout: 10 * time.Second})
	if err != nil || !r.Found {
		t.Fatalf("output after the resume: %+v %v", r, err)
	}
}
