package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// TestMakeDemo makes the README's demo with the tool itself: an agent
// finds a failing test, fixes the code in vim and checks the diff, over
// stdio against the built binary, while record_pane records the pane; it
// ends with snapshot_pane's PNG of the screen. It runs only when
// TMUX_MCP_DEMO_OUT names a directory, which gets demo.cast and demo.png:
//
//	TMUX_MCP_DEMO_OUT=$PWD/docs go test ./cmd/tmux-mcp -run TestMakeDemo
//
// The pauses between calls stand for the agent's thinking, so that the
// recording plays at a pace a person can follow.
func TestMakeDemo(t *testing.T) {
	out := os.Getenv("TMUX_MCP_DEMO_OUT")
	if out == "" {
		t.Skip("TMUX_MCP_DEMO_OUT is not set")
	}
	// The pane runs them by name: the recording shows no path of this
	// machine.
	python, vim, git := "python3", "vim", "git"
	for _, p := range []string{python, vim, git} {
		fixtures.NeedProgram(t, p)
	}
	dir := filepath.Join(t.TempDir(), "demo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("calc.py", "def add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n")
	write("test_calc.py", `from calc import add, mul

cases = [(add, 2, 3, 5), (mul, 4, 5, 20), (add, -1, 1, 0)]
failed = 0
for f, a, b, want in cases:
    got = f(a, b)
    if got != want:
        failed += 1
        print(f"\033[1;31mFAIL\033[0m {f.__name__}({a}, {b}) = {got}, want {want}")
if failed:
    print(f"\033[31m{failed} of {len(cases)} failed\033[0m")
else:
    print(f"\033[1;32mok\033[0m {len(cases)} passed")
`)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=demo", "-c", "user.email=demo@example.com", "commit", "-qm", "calc"}} {
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
	}

	fx := fixtures.NewServer(t)
	state := t.TempDir()
	c := startClient(t, fx, "", nil, "SHELL="+fixtures.TestShell, "ENV=", "XDG_STATE_HOME="+state, "PAGER=cat", "GIT_PAGER=cat")
	var made struct {
		ActivePaneID string `json:"active_pane_id"`
	}
	c.ok(t, "create_session", map[string]any{"session_name": "demo", "start_directory": dir, "x": 80, "y": 22}, &made)
	pane := made.ActivePaneID
	c.waitText(t, pane, prompt)
	// A prompt in colour, on a clear screen, before the recording starts.
	c.run(t, pane, `PS1="$(printf '\033[1;32magent\033[0m:\033[1;34mdemo\033[0m$ ')"; clear`)
	rec := c.record(t, pane, "start")
	think := func() { time.Sleep(1200 * time.Millisecond) } // the pace of the recording, not a synchronisation

	think()
	c.run(t, pane, "ls")
	think()
	c.run(t, pane, python+" test_calc.py")
	think()
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": vim + " -u NONE -i NONE -c 'syntax on' -c 'set number' calc.py"}, nil)
	if outcome := c.waitFor(t, pane, "return a - b"); outcome != "matched" && outcome != "alternate_screen" {
		t.Fatalf("vim did not start: %s", outcome)
	}
	think()
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": []string{"2G", "f-"}, "enter": false}, nil)
	think()
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": []string{"r+"}, "enter": false}, nil)
	think()
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": ":wq"}, nil)
	c.waitText(t, pane, `\$\s*$`)
	think()
	c.run(t, pane, python+" test_calc.py")
	think()
	c.run(t, pane, git+" diff --color=always --stat && "+git+" diff --color=always | tail -n +5")
	think()
	res := c.call(t, "snapshot_pane", map[string]any{"pane_id": pane, "png": true})
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("snapshot_pane png: %s", textOf(res))
	}
	end := c.record(t, pane, "stop")
	cast, err := os.ReadFile(end.Path)
	if err != nil {
		t.Fatal(err)
	}
	// The recording names this machine's paths; the demo shows /work/demo.
	cast = []byte(strings.ReplaceAll(string(cast), dir, "/work/demo"))
	if err := os.WriteFile(filepath.Join(out, "demo.cast"), cast, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "demo.png"), res.Content[1].(*sdk.ImageContent).Data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %s: %d bytes, then %s", rec.Path, end.Bytes, filepath.Join(out, "demo.cast"))
}
