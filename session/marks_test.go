package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/session/internal/engine"
)

func TestParseMarks(t *testing.T) {
	for _, c := range []struct {
		line string
		want CommandMarks
		ok   bool
	}{
		{"%1\t\t\t\t\t", CommandMarks{}, true},  // before 3.8: unknown formats
		{"%1\t0\t\t\t\t", CommandMarks{}, true}, // 3.8, a shell that prints no marks
		{"%1\t0\t\t\t\t1700000000", CommandMarks{Seen: true, Prompted: time.Unix(1700000000, 0)}, true},
		{"%1\t1\t\t1700000001\t\t1700000000", CommandMarks{Seen: true, Running: true,
			Started: time.Unix(1700000001, 0), Prompted: time.Unix(1700000000, 0)}, true},
		{"%1\t0\t3\t1700000001\t1700000002\t1700000000", CommandMarks{Seen: true, Status: 3, HasStatus: true,
			Started: time.Unix(1700000001, 0), Ended: time.Unix(1700000002, 0), Prompted: time.Unix(1700000000, 0)}, true},
		{"\t\t\t\t\t", CommandMarks{}, false}, // the pane is gone
		{"%2\t0\t3\t\t\t", CommandMarks{}, false},
	} {
		got, ok := engine.ParseMarks("%1", c.line)
		if ok != c.ok || got != c.want {
			t.Errorf("engine.ParseMarks(%q) = %+v, %v; want %+v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}

// TestCommandMarks: tmux 3.8 records the OSC 133 marks a pane prints,
// exit status included; before 3.8 the marks read as not seen (absent,
// never a wrong status), and no round trip is spent on them.
func TestCommandMarks(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	id := fx.NewSession(t, "marks", "sh")
	pane := fx.Tmux(t, "display-message", "-p", "-t", id, "#{pane_id}")
	m, err := s.CommandMarks(ctx, pane)
	if err != nil || m.Seen {
		t.Fatalf("a shell that printed no mark: %+v, %v; want not seen", m, err)
	}
	// What a shell's prompt hooks print: A at the prompt, C as a command
	// starts, D with its status as it ends.
	fx.Tmux(t, "send-keys", "-t", pane, `printf '\033]133;A\007\033]133;C\007'; sleep 0; printf '\033]133;D;7\007\033]133;A\007'; echo marks-$((1+1))`, "Enter")
	fixtures.WaitFor(t, 10*time.Second, "the marks to be printed", func() bool {
		return strings.Contains(fx.Tmux(t, "capture-pane", "-p", "-t", pane), "marks-2")
	})
	m, err = s.CommandMarks(ctx, pane)
	if err != nil {
		t.Fatal(err)
	}
	if !fx.AtLeast(t, 3, 8) {
		if m != (CommandMarks{}) {
			t.Fatalf("tmux before 3.8: marks %+v; want none", m)
		}
		return
	}
	if !m.Seen || m.Running || !m.HasStatus || m.Status != 7 || m.Ended.IsZero() || m.Prompted.IsZero() {
		t.Fatalf("tmux 3.8 after D;7: %+v; want seen, ended with status 7", m)
	}
	if _, err := s.CommandMarks(ctx, "%999"); !IsNotFound(err) {
		t.Fatalf("a missing pane: %v; want not found", err)
	}
}

// osc133Bashrc is what a terminal's bash integration does: C as a
// command starts (PS0), D with its status and A as the prompt comes back
// (PROMPT_COMMAND).
const osc133Bashrc = `PS1='$ '
PS0=$'\e]133;C\a'
PROMPT_COMMAND='printf "\033]133;D;%s\007\033]133;A\007" "$?"'
`

// TestWatchMarksPersonsCommand (tmux 3.8): a command a person types in a
// bash that prints OSC 133 marks (straight through tmux, not through a
// tool) is told to this Server as it starts and ends, and its exit status
// is read from what tmux recorded. Before 3.8 nothing is set and the marks
// read as not seen.
func TestWatchMarksPersonsCommand(t *testing.T) {
	fixtures.NeedProgram(t, "bash")
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	rc := filepath.Join(t.TempDir(), "bashrc")
	if err := os.WriteFile(rc, []byte(osc133Bashrc), 0o600); err != nil {
		t.Fatal(err)
	}
	id := fx.NewSession(t, "person", "bash", "--noprofile", "--rcfile", rc, "-i")
	pane := fx.Tmux(t, "display-message", "-p", "-t", id, "#{pane_id}")
	changes := make(chan Change, 64)
	defer s.Subscribe(func(c Change) {
		if c.Marks != "" {
			select {
			case changes <- c:
			default:
			}
		}
	})()
	stop, err := s.WatchMarks(ctx, pane)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if !fx.AtLeast(t, 3, 8) {
		if hooks := fx.Tmux(t, "show-hooks", "-p", "-t", pane); hooks != "" {
			t.Fatalf("tmux before 3.8: hooks %q set", hooks)
		}
		return
	}
	// until waits, on the marks tmux tells, for what it records to satisfy ok.
	until := func(what string, ok func(CommandMarks) bool) CommandMarks {
		t.Helper()
		for {
			m, err := s.CommandMarks(ctx, pane)
			if err != nil {
				t.Fatal(err)
			}
			if ok(m) {
				return m
			}
			select {
			case c := <-changes:
				if c.Marks != pane {
					t.Fatalf("told of %s's marks, want %s", c.Marks, pane)
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("not told of %s; marks %+v", what, m)
			}
		}
	}
	until("the first prompt", func(m CommandMarks) bool { return m.Seen && !m.Prompted.IsZero() })
	fx.Tmux(t, "send-keys", "-t", pane, "read line", "Enter")
	until("the command's start", func(m CommandMarks) bool { return m.Running })
	fx.Tmux(t, "send-keys", "-t", pane, "x", "Enter")
	fx.Tmux(t, "send-keys", "-t", pane, "sh -c 'exit 4'", "Enter")
	m := until("the command's end", func(m CommandMarks) bool { return !m.Running && m.HasStatus && m.Status == 4 })
	if m.Ended.IsZero() || m.Started.IsZero() {
		t.Fatalf("marks %+v: no times", m)
	}
	stop()
	if hooks := fx.Tmux(t, "show-hooks", "-p", "-t", pane); strings.Contains(hooks, engine.MarksMessage) {
		t.Fatalf("hooks left after stop: %q", hooks)
	}
}
