package agentstate

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

func status(n int) *int { return &n }

func screen(cursorX int, rows ...string) *Screen {
	return &Screen{Rows: rows, CursorX: cursorX, CursorY: len(rows) - 1}
}

// claudeReady, claudeBusy and claudeAsking are Claude Code 2.1.332's
// screens as capture-pane read them (cmd/tmux-mcp's agent-state test
// checks them against the real CLI).
var (
	claudeReady = []string{
		" ▐▛███▛█   Claude Code v2.1.332",
		"",
		"❯ please run it",
		"",
		"● ANSWER-2: the fake model answers",
		"  line 2 of ANSWER-2",
		"",
		"✻ Sautéed for 7s · done 8:09 AM",
		"",
		strings.Repeat("─", 40),
		"❯ ",
		strings.Repeat("─", 40),
		"  ⏸ manual mode on · ? for shortcuts",
	}
	claudeBusy = []string{
		"❯ please run it",
		"",
		"✢ Elucidating… (0s · ↓ 2 tokens)",
		"",
		strings.Repeat("─", 40),
		"❯ ",
		strings.Repeat("─", 40),
		"  ⏸ manual mode on · esc to interrupt",
	}
	// claudeTypedAhead: text typed while it works takes "esc to
	// interrupt" off its footer; its spinner still turns.
	claudeTypedAhead = []string{
		"❯ please answer",
		"",
		"✶ Cooking…",
		"",
		strings.Repeat("─", 40),
		"❯ and then",
		strings.Repeat("─", 40),
		"  ⏵⏵ auto mode on (shift+tab to cycle)",
	}
	claudeAsking = []string{
		"❯ please run it",
		"",
		"● Bash(touch made-by-tool)",
		"",
		strings.Repeat("─", 40),
		" Bash command",
		" Tip: auto mode handles these prompts for you — choose \"switch to auto mode\" below",
		" Make a file",
		strings.Repeat("╌", 40),
		" touch made-by-tool",
		strings.Repeat("╌", 40),
		" Do you want to proceed?",
		" ❯ 1. Yes",
		"   2. Yes, and don't ask again for touch commands in /tmp/project",
		"   3. No, and tell Claude what to do differently (esc)",
	}
)

// codexAsking and geminiAsking are Codex 0.171.0's and Gemini CLI
// 0.61.0's permission menus for a shell command, as capture-pane read
// them (blank rows inside, boxes narrowed).
var (
	codexAsking = []string{
		"› please make the file",
		"",
		"• Running touch made-by-tool",
		"",
		"",
		"  Would you like to run the following command?",
		"",
		"  Environment: local",
		"",
		"  Reason: Make a file?",
		"",
		"  $ touch made-by-tool",
		"",
		"",
		"› 1. Yes, proceed (y)",
		"  2. Yes, and don't ask again for commands that start with `touch made-by-tool` (p)",
		"  3. No, and tell Codex what to do differently (esc)",
		"",
		"  Press enter to confirm or esc to cancel",
	}
	geminiAsking = []string{
		" > please make the file",
		"",
		"╭" + strings.Repeat("─", 40) + "╮",
		"│ ? Shell  touch made-by-tool" + strings.Repeat(" ", 12) + "│",
		"│ ╭" + strings.Repeat("─", 36) + "╮ │",
		"│ │ touch made-by-tool" + strings.Repeat(" ", 17) + "│ │",
		"│ ╰" + strings.Repeat("─", 36) + "╯ │",
		"│ Allow execution of [Shell]?" + strings.Repeat(" ", 12) + "│",
		"│" + strings.Repeat(" ", 40) + "│",
		"│ ● 1. Allow once" + strings.Repeat(" ", 24) + "│",
		"│   2. Allow for this session" + strings.Repeat(" ", 12) + "│",
		"│   3. No, suggest changes (esc)" + strings.Repeat(" ", 9) + "│",
		"╰" + strings.Repeat("─", 40) + "╯",
		"",
	}
)

func TestClassify(t *testing.T) {
	reading := Foreground{Known: true, Reading: true}
	running := Foreground{Known: true}
	for _, tc := range []struct {
		name   string
		f      Facts
		state  State
		detail string // a regular expression
		agent  string
		status *int
		ask    string // in Question
	}{
		{name: "dead pane with status", f: Facts{Command: "sh", Dead: true, DeadStatus: status(3)}, state: Done, detail: "exited with status 3", status: status(3)},
		{name: "dead pane", f: Facts{Command: "python3", Dead: true}, state: Done, detail: "exited$"},
		{name: "fresh shell, listing", f: Facts{Command: "bash"}, state: Idle, detail: "bash at its prompt"},
		{name: "login shell", f: Facts{Command: "-zsh", Screen: screen(2, "% "), Foreground: reading}, state: Idle},
		{name: "shell at prompt", f: Facts{Command: "bash", Screen: screen(2, "$ echo hi", "hi", "$ "), Foreground: reading}, state: Idle},
		{name: "fish prompt", f: Facts{Command: "fish", Screen: screen(14, "user@host ~> "), Foreground: reading}, state: Idle},
		{name: "text typed at the prompt", f: Facts{Command: "bash", Screen: screen(9, "$ make te"), Foreground: reading,
			Input: Input{Sent: true, Typed: []string{"make te"}}}, state: Idle},
		{name: "after our command", f: Facts{Command: "bash", Screen: screen(2, "$ ls", "a b", "$ "), Foreground: reading,
			Input: Input{Sent: true, Enter: true}, Output: Output{Followed: true, Printed: true, Quiet: time.Second, SinceInput: true}}, state: Done, detail: "status unknown"},
		{name: "after run_command", f: Facts{Command: "bash", Screen: screen(2, "$ "), Foreground: reading, Run: Run{Known: true, Status: status(1)}},
			state: Done, status: status(1), detail: "status 1"},
		{name: "run_command running", f: Facts{Command: "bash", Run: Run{Known: true, Running: true}}, state: Working},
		{name: "run_command reading", f: Facts{Command: "bash", Screen: screen(10, "$ read -p 'Continue? ' a", "Continue? "), Foreground: reading,
			Run: Run{Known: true, Running: true}}, state: Blocked, detail: `our command \(read\)`, ask: "Continue?"},
		{name: "run_command reading, fish", f: Facts{Command: "fish", Screen: screen(6, "> read -P 'name? ' x", "name? "),
			Run: Run{Known: true, Running: true}}, state: Blocked, detail: "a read", ask: "name?"},
		{name: "run_command just typed, kernel silent", f: Facts{Command: "fish", Screen: screen(0, "> read -P 'name? ' x", ""),
			Run: Run{Known: true, Running: true}}, state: Working},
		{name: "run_command, its loop between children", f: Facts{Command: "bash", Screen: screen(0, "$ while :; do sleep 1; done", ""), Foreground: running,
			Run: Run{Known: true, Running: true}}, state: Working},
		{name: "OSC 133 marks: running", f: Facts{Command: "fish", Marks: Marks{Known: true, Running: true}}, state: Working},
		{name: "OSC 133 marks: read in a command", f: Facts{Command: "bash", Screen: screen(7, "name> "), Foreground: reading,
			Marks: Marks{Known: true, Running: true}}, state: Blocked, detail: `read; OSC 133`, ask: "name>"},
		{name: "OSC 133 marks: loop between children", f: Facts{Command: "bash", Screen: screen(7, "name> "), Foreground: running,
			Marks: Marks{Known: true, Running: true}}, state: Working},
		{name: "OSC 133 marks: read just printed", f: Facts{Command: "bash", Screen: screen(7, "name> "), Foreground: reading,
			Marks: Marks{Known: true, Running: true}, Output: Output{Followed: true, Printed: true, Quiet: 10 * time.Millisecond}}, state: Working},
		{name: "OSC 133 marks: ended", f: Facts{Command: "fish", Screen: screen(2, "> "), Foreground: reading,
			Marks: Marks{Known: true, Status: status(0), AfterInput: true}}, state: Done, status: status(0)},
		{name: "read builtin", f: Facts{Command: "bash", Screen: screen(0, "$ read x", ""), Foreground: reading,
			Input: Input{Sent: true, Enter: true}}, state: Blocked, detail: `\(read\)`, ask: "$ read x"},
		{name: "read -p", f: Facts{Command: "bash", Screen: screen(10, "Continue? "), Foreground: reading}, state: Blocked, ask: "Continue?"},
		{name: "read -p, a prompt's last character", f: Facts{Command: "bash", Screen: screen(6, "# read -p 'name> ' x", "name> "), Foreground: reading,
			Input: Input{Sent: true, Enter: true}, Prompt: "root@host:/work# "}, state: Blocked, ask: "name>"},
		{name: "prompt in another directory", f: Facts{Command: "bash", Screen: screen(16, "# cd /tmp", "root@host:/tmp# "), Foreground: reading,
			Prompt: "root@host:/work/main# "}, state: Idle},
		{name: "prompt ending in >, unknown before", f: Facts{Command: "fish", Screen: screen(11, "me@host ~> "), Foreground: reading}, state: Idle},
		{name: "shell loop", f: Facts{Command: "bash", Foreground: running}, state: Working},
		{name: "sudo password", f: Facts{Command: "sudo", Screen: screen(26, "[sudo] password for user: "), Foreground: reading}, state: Blocked,
			detail: "password", ask: "[sudo] password for user:"},
		{name: "ssh passphrase, kernel silent", f: Facts{Command: "ssh", Screen: screen(43, "Enter passphrase for key '/k/id_ed25519': ")}, state: Blocked, detail: "password"},
		{name: "python REPL", f: Facts{Command: "python3", Screen: screen(4, "Python 3.12", ">>> "), Foreground: reading}, state: Idle, detail: "python3 at its prompt"},
		{name: "python input()", f: Facts{Command: "python3", Screen: screen(12, "Your name?: "), Foreground: reading}, state: Blocked, ask: "Your name?:"},
		{name: "vi", f: Facts{Command: "vi", Screen: &Screen{Rows: []string{"hello", "~", "~", `"f" 1L`}, Alternate: true}, Foreground: reading}, state: Blocked, detail: "full screen"},
		{name: "a pager whose pipeline tmux names the shell", f: Facts{Command: "bash", Screen: &Screen{Rows: []string{"1", "2", ":"}, CursorY: 2, CursorX: 1, Alternate: true},
			Foreground: reading, Input: Input{Sent: true, Enter: true}, Output: Output{Followed: true, Printed: true, Quiet: time.Second, SinceInput: true}},
			state: Blocked, detail: "a program under bash \\(full screen\\) waits for keys", ask: ":"},
		{name: "our command's pager, under the shell's name", f: Facts{Command: "bash", Screen: &Screen{Rows: []string{"1", ":"}, Alternate: true},
			Foreground: reading, Run: Run{Known: true, Running: true}}, state: Blocked, detail: "full screen"},
		{name: "sleep", f: Facts{Command: "sleep", Foreground: running}, state: Working, detail: "sleep runs"},
		{name: "printer", f: Facts{Command: "yes", Foreground: running, Output: Output{Followed: true, Printed: true}}, state: Working, detail: "prints"},
		{name: "event loop printing", f: Facts{Command: "node", Output: Output{Followed: true, Printed: true, Quiet: 100 * time.Millisecond}}, state: Working},
		{name: "event loop asking", f: Facts{Command: "node", Screen: screen(17, "Overwrite? (y/n) ")}, state: Blocked, ask: "Overwrite? (y/n)"},
		{name: "event loop quiet", f: Facts{Command: "node", Screen: screen(0, "listening on 3000", "")}, state: Unknown, detail: "cannot be told"},
		{name: "claude ready", f: Facts{Command: "claude", Screen: screen(2, claudeReady...)}, state: Idle, agent: "claude"},
		{name: "claude busy", f: Facts{Command: "claude", Screen: screen(2, claudeBusy...)}, state: Working, agent: "claude"},
		{name: "claude busy, typed ahead", f: Facts{Command: "claude", Screen: screen(2, claudeTypedAhead...)}, state: Working, agent: "claude"},
		{name: "claude asks", f: Facts{Command: "claude", Screen: screen(2, claudeAsking...)}, state: Blocked, agent: "claude", detail: "permission",
			ask: "Bash command\nTip: auto mode handles these prompts for you — choose \"switch to auto mode\" below\nMake a file\ntouch made-by-tool\nDo you want to proceed?\n❯ 1. Yes"},
		{name: "codex asks", f: Facts{Command: "node", Agent: "codex", Screen: screen(0, codexAsking...)}, state: Blocked, agent: "codex", detail: "permission",
			ask: "Would you like to run the following command?\nEnvironment: local\nReason: Make a file?\n$ touch made-by-tool\n› 1. Yes, proceed (y)\n" +
				"2. Yes, and don't ask again for commands that start with `touch made-by-tool` (p)\n3. No, and tell Codex what to do differently (esc)\n" +
				"Press enter to confirm or esc to cancel"},
		{name: "gemini asks", f: Facts{Command: "node", Agent: "gemini", Screen: screen(0, geminiAsking...)}, state: Blocked, agent: "gemini", detail: "permission",
			ask: "? Shell  touch made-by-tool\ntouch made-by-tool\nAllow execution of [Shell]?\n● 1. Allow once\n2. Allow for this session\n3. No, suggest changes (esc)"},
		{name: "claude listed, printing", f: Facts{Command: "claude", Output: Output{Followed: true, Printed: true, Quiet: 200 * time.Millisecond}}, state: Working, agent: "claude"},
		{name: "claude listed, quiet", f: Facts{Command: "claude"}, state: Unknown, agent: "claude"},
		{name: "agent by signature", f: Facts{Command: "node", Screen: screen(0, "╭──╮", "│ > Type your message or @path/to/file │")}, state: Idle, agent: "gemini"},
		{name: "agent seen before", f: Facts{Command: "node", Agent: "codex", Screen: screen(0, "• Working (3s • esc to interrupt)")}, state: Working, agent: "codex"},
		{name: "agent gone, shell back", f: Facts{Command: "bash", Agent: "claude", Screen: screen(2, "$ "), Foreground: reading}, state: Idle},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Classify(tc.f)
			if r.State != tc.state || r.Agent != tc.agent || !regexp.MustCompile(tc.detail).MatchString(r.Detail) ||
				!strings.Contains(r.Question, tc.ask) || (tc.status == nil) != (r.Status == nil) || (tc.status != nil && *tc.status != *r.Status) {
				t.Errorf("got %+v (status %v), want %s agent %q detail ~%q question ~%q status %v", r, r.Status, tc.state, tc.agent, tc.detail, tc.ask, tc.status)
			}
		})
	}
}

func TestAgentsCompile(t *testing.T) {
	if len(agents) != len(Agents) {
		t.Fatal("every entry compiles")
	}
	for _, a := range Agents {
		if a.Name == "" || len(a.Busy) == 0 || len(a.Ready) == 0 || len(a.Asking) == 0 {
			t.Errorf("%+v: an entry needs a name and what it draws busy, ready and asking", a)
		}
	}
}

func TestAnswer(t *testing.T) {
	got := Answer("claude", claudeReady, "please run it", 0)
	want := []string{"ANSWER-2: the fake model answers", "line 2 of ANSWER-2"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("claude's answer: got %q, want %q", got, want)
	}
	if got := Answer("claude", claudeBusy, "please run it", 0); len(got) != 0 {
		t.Errorf("claude busy: got %q, want no answer yet", got)
	}
	// Codex 0.171.0 and Gemini CLI 0.61.0 after one answer, as drawn.
	codex := []string{
		"› please answer",
		"",
		"• ANSWER-1: the fake model answers",
		"  line 2 of ANSWER-1",
		"  line 3 of ANSWER-1",
		"",
		"  Worked for 1s • 17:47",
		"",
		"› Ask Codex to do anything",
		"  gpt-fake default · /tmp/project · agentapi",
	}
	gemini := []string{
		" > please answer",
		"",
		"✦ ANSWER-1: the fake model answers",
		"  line 2 of ANSWER-1",
		"  line 3 of ANSWER-1",
		"                                                            ? for shortcuts",
		strings.Repeat("─", 40),
		" >   Type your message or @path/to/file",
	}
	for name, rows := range map[string][]string{"codex": codex, "gemini": gemini} {
		want := "ANSWER-1: the fake model answers\nline 2 of ANSWER-1\nline 3 of ANSWER-1"
		if got := Answer(name, rows, "please answer", 0); strings.Join(got, "\n") != want {
			t.Errorf("%s's answer: got %q, want %q", name, got, want)
		}
	}
	if got := Answer("nobody", claudeReady, "", 0); got != nil {
		t.Errorf("an unknown agent: got %q", got)
	}
}

func TestCursorRowOfJoinedRows(t *testing.T) {
	s := &Screen{Rows: []string{"abcdefghij", "user@host:/a/long/path# "}, Width: 10, CursorX: 4, CursorY: 3}
	if got := s.cursorRow(); got != "user@host:/a/long/path# " {
		t.Errorf("got %q", got)
	}
	if got := Classify(Facts{Command: "bash", Screen: s, Foreground: Foreground{Known: true, Reading: true}}); got.State != Idle {
		t.Errorf("a wrapped prompt: %+v", got)
	}
}

func TestClaudeAnswer(t *testing.T) {
	const (
		prompt   = `{"type":"user","message":{"role":"user","content":[{"type":"text","text":"please run it"}]}}`
		toolCall = `{"type":"assistant","message":{"role":"assistant","stop_reason":"tool_use","content":[{"type":"tool_use","name":"Bash","input":{}}]}}`
		result   = `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"ok"}]}}`
		part     = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"ANSWER-2: done"}]}}`
		last     = `{"type":"assistant","message":{"role":"assistant","stop_reason":"end_turn","content":[{"type":"text","text":"line 2"}]}}`
		duration = `{"type":"system","subtype":"turn_duration"}`
	)
	before := `ial line cut by the tail"}
{"type":"user","isMeta":true,"message":{"role":"user","content":"<reminder>"}}
`
	old := `{"type":"user","message":{"role":"user","content":"first prompt"}}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"old answer"}]}}
`
	for _, c := range []struct {
		name  string
		lines []string
		want  string // the answer; "" for none
		ended bool
	}{
		{"the whole turn", []string{prompt, toolCall, result, part, last, duration}, "[Bash]\nANSWER-2: done\nline 2", true},
		{"no duration yet", []string{prompt, toolCall, result, part, last}, "[Bash]\nANSWER-2: done\nline 2", true},
		{"a message in parts, the last not written", []string{prompt, toolCall, result, part}, "[Bash]\nANSWER-2: done", false},
		{"the tool's result, no answer yet", []string{prompt, toolCall, result}, "", false},
		{"the tool call", []string{prompt, toolCall}, "", false},
		{"the prompt alone", []string{prompt}, "", false},
		{"no prompt", []string{`{"type":"system","subtype":"init"}`}, "", true},
	} {
		got := ClaudeAnswer([]byte(before + strings.Join(c.lines, "\n") + "\n"))
		if c.lines[0] == prompt {
			// An earlier turn, not ended in the record, is no matter.
			if again := ClaudeAnswer([]byte(before + old + strings.Join(c.lines, "\n") + "\n")); !reflect.DeepEqual(again, got) {
				t.Errorf("%s: after an earlier turn %+v, alone %+v", c.name, again, got)
			}
		}
		if got.Text != (c.want != "") || (got.Text && strings.Join(got.Lines, "\n") != c.want) || got.Ended != c.ended {
			t.Errorf("%s: got %q, text %v, ended %v; want %q, ended %v", c.name, got.Lines, got.Text, got.Ended, c.want, c.ended)
		}
	}
}
