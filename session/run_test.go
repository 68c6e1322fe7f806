package session

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// shellSession starts a session running shell (argv) with a plain prompt
// and returns its pane once the prompt is up.
func shellSession(t *testing.T, shell ...string) (*Server, string) {
	t.Helper()
	if _, err := exec.LookPath(shell[0]); err != nil {
		t.Skipf("%s is not installed", shell[0])
	}
	fx, s := newTestServer(t)
	fx.NewSession(t, "sh", append([]string{"env", "PS1=$ ", "PROMPT=$ "}, shell...)...)
	pane := paneOf(t, s, "sh")
	waitPrompt(t, s, pane)
	return s, pane
}

var testShells = [][]string{{"sh"}, {"bash", "--norc", "--noprofile"}, {"zsh", "-f"}}

func TestRunCommand(t *testing.T) {
	for _, shell := range testShells {
		t.Run(shell[0], func(t *testing.T) {
			s, pane := shellSession(t, shell...)
			ctx := testCtx(t)
			run := func(cmd string) RunResult {
				t.Helper()
				r, err := s.RunCommand(ctx, RunArgs{Pane: PaneRef{PaneID: pane}, Command: cmd, Timeout: 30 * time.Second})
				if err != nil || r.TimedOut {
					t.Fatalf("%q: got %+v, %v", cmd, r, err)
				}
				return r
			}
			for cmd, want := range map[string]int{"true": 0, "false": 1, "(exit 3)": 3} {
				if r := run(cmd); r.ExitStatus != want || len(r.Output) != 0 {
					t.Errorf("%s: got status %d output %q, want %d and no output", cmd, r.ExitStatus, r.Output, want)
				}
			}
			// Longer than any screen: the stream keeps it all.
			r := run("seq 10000")
			if len(r.Output) != 10000 || r.Output[0] != "1" || r.Output[9999] != "10000" || r.OutputTruncated {
				t.Fatalf("seq 10000: got %d lines (first %q), truncated %v", len(r.Output), r.Output[:min(3, len(r.Output))], r.OutputTruncated)
			}
			for i, l := range r.Output {
				if l != strconv.Itoa(i+1) {
					t.Fatalf("line %d: got %q", i, l)
				}
			}
			// The shell itself runs the command: cd persists.
			run("cd /tmp")
			if r := run("pwd"); len(r.Output) != 1 || r.Output[0] != "/tmp" {
				t.Fatalf("pwd after cd: got %q", r.Output)
			}
			// Output without a final newline, and a trailing comment.
			if r := run("printf 'a\\nb' # comment"); fmt.Sprint(r.Output) != "[a b]" {
				t.Fatalf("no final newline: got %q", r.Output)
			}
			// Output shaped like the markers of another call is just output.
			if r := run("echo __tmcp_0000000000000000_E:7; echo ok"); r.ExitStatus != 0 || fmt.Sprint(r.Output) != "[__tmcp_0000000000000000_E:7 ok]" {
				t.Fatalf("fake marker: got %+v", r)
			}
			r, err := s.RunCommand(ctx, RunArgs{Pane: PaneRef{PaneID: pane}, Command: "seq 50", MaxLines: 5, Timeout: 30 * time.Second})
			if err != nil || fmt.Sprint(r.Output) != "[46 47 48 49 50]" || !r.OutputTruncated || r.TruncatedLines != 45 {
				t.Fatalf("max_lines: got %+v %v", r, err)
			}
		})
	}
}

func TestRunCommandRefusals(t *testing.T) {
	s, pane := shellSession(t, "sh")
	ctx := testCtx(t)
	r, err := s.RunCommand(ctx, RunArgs{Pane: PaneRef{PaneID: pane}, Command: "sleep 5", Timeout: 100 * time.Millisecond})
	if err != nil || !r.TimedOut {
		t.Fatalf("timeout: got %+v %v", r, err)
	}
	// Now the pane runs sleep, not a shell at its prompt.
	_, err = s.RunCommand(ctx, RunArgs{Pane: PaneRef{PaneID: pane}, Command: "true", Timeout: time.Second})
	if !isCode(err, CodeTmuxError) || !strings.Contains(err.Error(), "not a shell") {
		t.Fatalf("busy pane: got %v", err)
	}
	if _, err := s.RunCommand(ctx, RunArgs{Command: "true", Timeout: time.Second}); !isCode(err, CodeTargetRequired) {
		t.Fatalf("no target: got %v", err)
	}
	if _, err := s.RunCommand(ctx, RunArgs{Pane: PaneRef{PaneID: pane}, Command: "a\nb", SuppressHistory: true, Timeout: time.Second}); !isCode(err, CodeInvalidArguments) {
		t.Fatalf("multi-line with suppress_history: got %v", err)
	}
}
