package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// What the kernel tells of a pane's foreground program, as an agent reads
// it: snapshot_pane's and get_pane_info's reading_input, and
// wait_for_content_change's until_reading.

// paneState is what these tests read of snapshot_pane and get_pane_info.
type paneState struct {
	Command string `json:"pane_current_command"`
	Reading *bool  `json:"reading_input"`
}

func (p paneState) String() string { return p.Command + " reading_input=" + show(p.Reading) }

// show is reading_input as the answer has it.
func show(b *bool) string {
	if b == nil {
		return "absent"
	}
	return map[bool]string{true: "true", false: "false"}[*b]
}

// states returns what snapshot_pane and get_pane_info say of pane.
func states(t *testing.T, c *client, pane string) (snap, info paneState) {
	t.Helper()
	c.ok(t, "snapshot_pane", map[string]any{"pane_id": pane}, &snap)
	c.ok(t, "get_pane_info", map[string]any{"pane_id": pane}, &info)
	return snap, info
}

// untilState waits (there is no event for a program entering a read)
// until both tools say pane runs command and ok accepts what they say of
// it.
func untilState(t *testing.T, c *client, pane, command string, ok func(*bool) bool) {
	t.Helper()
	var last [2]paneState
	if !pollFor(20*time.Second, func() bool {
		snap, info := states(t, c, pane)
		last = [2]paneState{snap, info}
		return snap.Command == command && info.Command == command && ok(snap.Reading) && ok(info.Reading)
	}) {
		t.Fatalf("pane %s: snapshot_pane says %v, get_pane_info %v; want %s", pane, last[0], last[1], command)
	}
}

// pollFor reports whether cond held within d, looking every 20 ms.
func pollFor(d time.Duration, cond func() bool) bool {
	end := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func isTrue(b *bool) bool   { return b != nil && *b }
func isFalse(b *bool) bool  { return b != nil && !*b }
func isAbsent(b *bool) bool { return b == nil }

// foregroundKnown skips where this machine's kernel cannot tell: the
// tests below read what Linux's /proc says.
func foregroundKnown(t *testing.T) {
	t.Helper()
	if _, err := os.Stat("/proc/self/wchan"); err != nil {
		t.Skip("no /proc/PID/wchan here")
	}
}

// TestReadingInput: a program blocked reading the terminal reads true
// (the shell at its prompt, cat, sh's read, python3's input()); one that
// sleeps or computes reads false; an event loop (node) is absent.
func TestReadingInput(t *testing.T) {
	t.Parallel()
	foregroundKnown(t)
	c, _, pane := workflow(t)
	atPrompt(t, c, pane)
	untilState(t, c, pane, "sh", isTrue)

	type step struct {
		program, command string
		want             func(*bool) bool
		stop             []string // keys that end it
		started          string   // what it prints once it runs, if anything
	}
	steps := []step{
		{"cat", "cat", isTrue, []string{"C-d"}, ""},
		// The same name as the prompt's shell: its output tells that the
		// shell now waits for it, so the read is its.
		{"sh", "sh -c 'echo start''ed; read x'", isTrue, []string{"Enter"}, "started"},
		{"sleep", "sleep 60", isFalse, []string{"C-c"}, ""},
		{"yes", "yes >/dev/null", isFalse, []string{"C-c"}, ""},
	}
	if _, err := exec.LookPath("python3"); err == nil {
		steps = append(steps, step{"python3", "python3 -c 'input()'", isTrue, []string{"Enter"}, ""})
	}
	if _, err := exec.LookPath("node"); err == nil {
		steps = append(steps, step{"node", "node -e 'setInterval(() => {}, 1000)'", isAbsent, []string{"C-c"}, ""})
	}
	for _, s := range steps {
		t.Run(s.program, func(t *testing.T) {
			c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": s.command}, nil)
			if s.started != "" {
				c.waitText(t, pane, "^"+s.started)
			}
			untilState(t, c, pane, s.program, s.want)
			c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": s.stop, "enter": false}, nil)
			untilState(t, c, pane, "sh", isTrue)
		})
	}
}

// quietResult is wait_for_content_change's answer as an agent reads it.
type quietResult struct {
	Changed  bool    `json:"changed"`
	Quiet    bool    `json:"quiet"`
	TimedOut bool    `json:"timed_out"`
	Elapsed  float64 `json:"elapsed_seconds"`
	Reading  *bool   `json:"reading_input"`
}

// TestWaitUntilReading: with until_reading, a pane that is quiet while its
// program sleeps or computes is not done; the wait ends once the shell is
// back reading its next line. An event loop ends it at quiet, with
// reading_input absent.
func TestWaitUntilReading(t *testing.T) {
	t.Parallel()
	foregroundKnown(t)
	c, _, pane := workflow(t)
	atPrompt(t, c, pane)

	t.Run("sleep then prompt", func(t *testing.T) {
		c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "sleep 2; echo slept"}, nil)
		var r quietResult
		c.ok(t, "wait_for_content_change", map[string]any{"pane_id": pane, "quiet_ms": 300, "until_reading": true, "timeout": 30}, &r)
		if !r.Quiet || !isTrue(r.Reading) || r.Elapsed < 1.8 {
			t.Fatalf("got %+v (reading_input %s), want quiet with the shell reading after the 2 s sleep", r, show(r.Reading))
		}
		if screen := c.screen(t, pane); !strings.Contains(screen, "slept") {
			t.Fatalf("the wait ended before the command did; the pane shows:\n%s", screen)
		}
	})

	t.Run("busy and silent", func(t *testing.T) {
		c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "yes >/dev/null"}, nil)
		var r quietResult
		c.ok(t, "wait_for_content_change", map[string]any{"pane_id": pane, "quiet_ms": 300, "until_reading": true, "timeout": 2}, &r)
		if r.Quiet || !r.TimedOut || !isFalse(r.Reading) {
			t.Fatalf("got %+v (reading_input %s), want a timeout with reading_input false", r, show(r.Reading))
		}
		c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "C-c", "enter": false}, nil)
		untilState(t, c, pane, "sh", isTrue)
	})

	t.Run("an event loop cannot tell", func(t *testing.T) {
		fixtures.NeedProgram(t, "node")
		c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "node -e 'setInterval(() => {}, 1000)'"}, nil)
		untilState(t, c, pane, "node", isAbsent)
		var r quietResult
		c.ok(t, "wait_for_content_change", map[string]any{"pane_id": pane, "quiet_ms": 300, "until_reading": true, "timeout": 10}, &r)
		if !r.Quiet || r.Reading != nil {
			t.Fatalf("got %+v (reading_input %s), want quiet with reading_input absent", r, show(r.Reading))
		}
		c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "C-c", "enter": false}, nil)
		untilState(t, c, pane, "sh", isTrue)
	})

	t.Run("needs quiet_ms", func(t *testing.T) {
		if env := c.fail(t, "wait_for_content_change", map[string]any{"pane_id": pane, "until_reading": true, "timeout": 1}); env.Code != "invalid_arguments" || env.Effects != "none" || !strings.Contains(env.Message, "quiet_ms") {
			t.Fatalf("until_reading without quiet_ms: got %+v, want invalid_arguments", env)
		}
	})
}

// TestSSHReadingInput: over ssh the same answers come from the remote
// host (the script the ssh host runs there, not this process's /proc).
func TestSSHReadingInput(t *testing.T) {
	foregroundKnown(t)
	sshd := fixtures.NewSSHD(t)
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "remote", "env", "PS1=$ ", "ENV=", fixtures.TestShell)
	pane := paneOfSession(t, fx, "remote")
	// The ssh host's control socket lands in TMPDIR: a short path, since
	// t.TempDir's would make it longer than a Unix socket path may be.
	tmp, err := os.MkdirTemp("", "fg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(tmp) })
	cmd := exec.Command(binary(t), "--ssh", shellWords(sshd.ClientArgs(sshd.Port)), "--socket", fx.Socket)
	cmd.Env = childEnv(fx, "TMPDIR="+tmp)
	c := startClientCmd(t, cmd, "")
	t.Cleanup(func() { _ = c.close() })

	untilState(t, c, pane, "sh", isTrue)
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "sleep 60"}, nil)
	untilState(t, c, pane, "sleep", isFalse)
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "C-c", "enter": false}, nil)
	untilState(t, c, pane, "sh", isTrue)

	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "sleep 2; echo slept"}, nil)
	var r quietResult
	c.ok(t, "wait_for_content_change", map[string]any{"pane_id": pane, "quiet_ms": 300, "until_reading": true, "timeout": 30}, &r)
	if !r.Quiet || !isTrue(r.Reading) || r.Elapsed < 1.8 {
		t.Fatalf("got %+v (reading_input %s), want quiet with the shell reading after the 2 s sleep", r, show(r.Reading))
	}
}
