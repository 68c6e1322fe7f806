package agentstate

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/session/internal/paneread"
	"github.com/tmux-mcp/tmux-mcp/session/internal/shellrun"
)

// State is what a pane is doing, for whoever supervises it.
type State string

// The states.
const (
	// Idle: a shell at its prompt with nothing run since this process's
	// last input, a REPL or an agent CLI waiting for a prompt.
	Idle State = "idle"
	// Working: a program runs (and prints, or is busy by its own marks).
	Working State = "working"
	// Blocked: a program waits for this pane's keyboard: a question, a
	// menu, a permission prompt, a read, a password.
	Blocked State = "blocked"
	// Done: the pane's program ended (a dead pane), or the shell is back
	// at its prompt after the command this process's last input ran.
	Done State = "done"
	// Unknown: none of the above can be told; Detail says why.
	Unknown State = "unknown"
)

// States lists the states, in the order the docs give them.
var States = []State{Idle, Working, Blocked, Done, Unknown}

// Recent is how lately a pane must have printed for its output to count
// as work: an agent CLI redraws its spinner several times a second.
const Recent = time.Second

// Facts are what was observed of one pane. The zero value of each part
// means it was not observed.
type Facts struct {
	// Command is the foreground program's name (pane_current_command).
	Command string
	// Dead: the pane's program exited and tmux keeps the pane
	// (remain-on-exit); DeadStatus is its status when tmux knows it.
	Dead       bool
	DeadStatus *int
	// Foreground: whether the kernel told (Known) that the foreground
	// program is blocked reading the terminal (Reading).
	Foreground Foreground
	// Output: whether this process follows the pane's output (Followed),
	// and how long ago it last printed (Quiet; never if Printed is false).
	Output Output
	// Input: what this process last sent the pane.
	Input Input
	// Command this process's run_command typed in the pane after its last
	// other input, if any.
	Run Run
	// Marks are tmux's OSC 133 marks (tmux 3.8), when read.
	Marks Marks
	// Screen is the visible screen, when it was read.
	Screen *Screen
	// Agent is the agent CLI identified in this pane before ("" if none):
	// its screen need not show its signature again.
	Agent string
	// Prompt is the prompt this pane's shell was last seen to draw, ""
	// if never.
	Prompt string
}

// Foreground is what the kernel tells of the foreground program.
type Foreground struct{ Known, Reading bool }

// Output is what is known of a pane's output.
type Output struct {
	Followed bool
	Printed  bool
	Quiet    time.Duration
	// SinceInput: it printed after this process's last input.
	SinceInput bool
}

// Input is this process's last input to a pane.
type Input struct {
	Sent  bool
	Enter bool     // it ended with Enter
	Typed []string // the text on the current input line, when no Enter
}

// Run is the last command run_command typed in a pane.
type Run struct {
	Known   bool
	Running bool
	Status  *int // its exit status, when it ended and it is known
}

// Marks are tmux 3.8's OSC 133 marks of a pane: whether a command runs,
// and the last one's exit status.
type Marks struct {
	Known   bool
	Running bool
	Status  *int
	// AfterInput: the last command ended after this process's last input
	// to the pane, or this process sent it none (a person's command).
	AfterInput bool
}

// Screen is a pane's visible screen.
type Screen struct {
	Rows      []string // as read, wrapped rows joined, trailing blanks dropped
	CursorX   int
	CursorY   int  // the cursor's line on the screen
	Alternate bool // a full-screen program's screen
	// Width is the pane's, when Rows are wrapped lines joined (capture-pane
	// -J): the cursor's line is then found in them; 0 when each row is a
	// screen line.
	Width int
}

// cursorRow is the text of the cursor's row left of the cursor.
func (s *Screen) cursorRow() string {
	if s.Width <= 0 {
		return shellrun.CursorRow(s.Rows, shellrun.Screen{CursorX: s.CursorX, CursorY: s.CursorY})
	}
	line := 0
	for i, r := range s.Rows {
		n := paneread.ScreenLines(r, s.Width)
		if s.CursorY < line+n {
			x := (s.CursorY-line)*s.Width + s.CursorX
			return shellrun.CursorRow(s.Rows[i:i+1], shellrun.Screen{CursorX: x, CursorY: 0})
		}
		line += n
	}
	return "" // below the text
}

// lastText is the last row with text on it, trimmed.
func (s *Screen) lastText() string {
	for i := len(s.Rows) - 1; i >= 0; i-- {
		if t := strings.TrimSpace(s.Rows[i]); t != "" {
			return t
		}
	}
	return ""
}

// Result is a pane's state and why.
type Result struct {
	State  State
	Detail string // why, in a few words
	// Agent is the agent CLI the pane runs, "" if none known.
	Agent string
	// Status is the exit status of what ended (Done), when known.
	Status *int
	// Question is the question's text on screen (Blocked), when read.
	Question string
}

// shells are the names of shells as tmux names a foreground program.
var shells = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "fish": true, "dash": true, "ksh": true, "mksh": true,
	"oksh": true, "pdksh": true, "yash": true, "ash": true, "tcsh": true, "csh": true, "nu": true,
	"elvish": true, "xonsh": true, "pwsh": true, "rc": true, "es": true, "busybox": true,
}

// IsShell reports whether a foreground program named command is a shell.
func IsShell(command string) bool {
	return shells[path.Base(strings.TrimPrefix(command, "-"))]
}

// Generic patterns of the cursor's row or the screen.
var (
	// password matches a prompt for a secret.
	password = regexp.MustCompile(`(?i)(password|passphrase|passcode|\bpin\b|token)[^:]*:\s*$|\[sudo\]`)
	// replPrompt matches a REPL's prompt, the program idle at it.
	replPrompt = regexp.MustCompile(`^(>>> |\.\.\. |In \[\d+\]: |irb\([^)]*\):\d+:\d+[>*] |[a-z_]*[=#-]# |sqlite> |\(gdb\) |\(Pdb\) |> |ghci> |λ> |scala> |mysql> |redis[^>]*> |iex\(\d+\)> )$`)
	// question matches rows that ask: a yes/no, a menu's marker.
	question = regexp.MustCompile(`(?i)\[y/n\]|\(y/n\)|\(yes/no\)|\[yes/no\]|press (any key|enter|return)|\?\s*$|^\s*[❯›>●] ?\d+\. `)
)

// Classify decides a pane's state from what was observed of it.
func Classify(f Facts) Result {
	if f.Dead {
		r := Result{State: Done, Status: f.DeadStatus, Detail: "the pane's program exited"}
		if f.DeadStatus != nil {
			r.Detail += fmt.Sprintf(" with status %d", *f.DeadStatus)
		}
		return r
	}
	if a, ok := identify(f); ok {
		return classifyAgent(a, f)
	}
	if IsShell(f.Command) {
		if f.Screen == nil || !f.Screen.Alternate {
			return classifyShell(f)
		}
		// No shell draws on the alternate screen: a full-screen program
		// runs under the shell's name, which tmux gives a foreground group
		// whose first process exited (seq 100 | less).
		f.Command = "a program under " + f.Command
	}
	return classifyProgram(f)
}

// runtimes are foreground programs an agent CLI may run as.
var runtimes = map[string]bool{"node": true, "bun": true, "deno": true, "python": true, "python3": true}

// MayBeAgent reports whether a pane whose foreground program is command,
// where the agent named seen was found before ("" if none), may run an
// agent CLI: its whole screen is then worth reading.
func MayBeAgent(command, seen string) bool {
	name := path.Base(command)
	if seen != "" || runtimes[name] {
		return true
	}
	for _, a := range agents {
		if slices.Contains(a.Commands, name) {
			return true
		}
	}
	return false
}

// identify finds the agent CLI the pane runs: by its foreground program's
// name, the agent seen there before, or a signature on its screen.
func identify(f Facts) (compiled, bool) {
	name := path.Base(f.Command)
	for _, a := range agents {
		for _, c := range a.Commands {
			if c == name {
				return a, true
			}
		}
	}
	if IsShell(f.Command) {
		return compiled{}, false // the agent is gone, if there was one
	}
	for _, a := range agents {
		if a.Name == f.Agent {
			return a, true
		}
	}
	if f.Screen != nil {
		for _, a := range agents {
			if anyRow(f.Screen.Rows, a.signature) {
				return a, true
			}
		}
	}
	return compiled{}, false
}

// recent reports whether the pane printed lately.
func (f Facts) recent() bool {
	return f.Output.Followed && f.Output.Printed && f.Output.Quiet < Recent
}

// classifyAgent reads an agent CLI's screen: a question first, then its
// busy marks, then its ready prompt; without a screen, its output.
func classifyAgent(a compiled, f Facts) Result {
	r := Result{Agent: a.Name}
	if f.Screen == nil {
		if f.recent() {
			r.State, r.Detail = Working, a.Name+" prints"
			return r
		}
		r.State, r.Detail = Unknown, a.Name+": its screen was not read"
		return r
	}
	rows := f.Screen.Rows
	if i, j := firstRow(rows, a.asking); i >= 0 {
		r.State = Blocked
		r.Detail = a.Name + " asks: " + a.Asking[j].Kind
		r.Question = questionText(rows, i, a, j)
		return r
	}
	if anyRow(rows, a.busy) {
		r.State, r.Detail = Working, a.Name+" shows it is busy"
		return r
	}
	if anyRow(rows, a.ready) {
		r.State, r.Detail = Idle, a.Name+" waits for a prompt"
		return r
	}
	if f.recent() {
		r.State, r.Detail = Working, a.Name+" prints"
		return r
	}
	r.State, r.Detail = Unknown, a.Name+": its screen shows none of its known states"
	return r
}

// rule matches a row that is a horizontal rule, or a box's top or bottom
// edge; frame one of solid lines, which frames a question (dashed ones
// divide it).
var (
	rule  = regexp.MustCompile(`^\s*[╭╰┌└]?[─━═╌┄-]{10,}[╮╯┐┘]?\s*$`)
	frame = regexp.MustCompile(`^\s*[─━═]{10,}\s*$`)
)

// questionText is the question around row i, where a's Asking[k]
// matched: from the row its Top names at or above it (without one: below
// the frame above it), at most 10 rows up, down to the row its End names
// (without one: the blank row that ends the menu), without blank rows,
// rules and box edges, at most 12 rows, each trimmed.
func questionText(rows []string, i int, a compiled, k int) string {
	start := i
	if top := a.tops[k]; top != nil {
		for j := i; j >= 0 && i-j <= 10; j-- {
			if top.MatchString(rows[j]) {
				start = j
				break
			}
		}
	} else {
		for start > 0 && i-start < 10 && !frame.MatchString(rows[start-1]) {
			start--
		}
	}
	end := a.ends[k]
	var out []string
	for j := start; j < len(rows) && len(out) < 12; j++ {
		t := strings.TrimSpace(strings.Trim(rows[j], "│ "))
		if j > i && end == nil && (t == "" || anyRow([]string{rows[j]}, a.chrome)) {
			break
		}
		if t != "" && !rule.MatchString(t) {
			out = append(out, t)
		}
		if j >= i && end != nil && end.MatchString(rows[j]) {
			break
		}
	}
	return strings.Join(out, "\n")
}

// classifyShell: the shell is the foreground program.
func classifyShell(f Facts) Result {
	switch {
	case f.Run.Known && f.Run.Running:
		// The shell itself reading the terminal inside our command is a
		// read builtin waiting for this pane's keyboard.
		if !f.recent() && f.Screen != nil && !f.Screen.Alternate {
			switch row := f.Screen.cursorRow(); {
			case f.Foreground.Known && f.Foreground.Reading:
				return blockedOn(f, row, "the shell reads input in our command (read)")
			case !f.Foreground.Known && strings.TrimSpace(row) != "":
				// fish waits on several descriptors: the kernel does
				// not tell, its row does.
				return blockedOn(f, row, "the shell waits for input in our command (a read?)")
			}
		}
		return Result{State: Working, Detail: "our command runs in the shell"}
	case f.Run.Known:
		// Ended, and nothing typed since: the shell may still be on its
		// way to the prompt.
		return shellAtPrompt(f)
	case f.Marks.Known && f.Marks.Running:
		// The shell itself reading the terminal inside a command is a
		// read (or select) waiting for this pane's keyboard, whatever
		// its prompt looks like.
		if f.Foreground.Known && f.Foreground.Reading && !f.recent() && f.Screen != nil && !f.Screen.Alternate {
			return blockedOn(f, f.Screen.cursorRow(), "the shell reads input in a command (read; OSC 133)")
		}
		return Result{State: Working, Detail: "the shell runs a command (OSC 133)"}
	case f.Foreground.Known && !f.Foreground.Reading:
		return Result{State: Working, Detail: f.Command + " runs"}
	}
	if f.Screen != nil && !f.Screen.Alternate {
		row := f.Screen.cursorRow()
		if f.Input.Sent && !f.Input.Enter && len(f.Input.Typed) > 0 {
			row = strings.TrimSuffix(row, f.Input.Typed[len(f.Input.Typed)-1])
		}
		if !atPrompt(row, f.Prompt) {
			switch {
			case f.recent():
				return Result{State: Working, Detail: f.Command + " prints"}
			case password.MatchString(row):
				return blockedOn(f, row, "the shell asks for a password")
			case f.Foreground.Known:
				// Reading: known not reading was Working above.
				return blockedOn(f, row, "the shell reads input (read)")
			case strings.TrimSpace(row) != "":
				// fish waits on several descriptors: the kernel does
				// not tell, its row does.
				return blockedOn(f, row, "the shell waits for input (a read?): its row is no prompt")
			}
		}
	}
	return shellAtPrompt(f)
}

// atPrompt reports whether row, the cursor's row left of the cursor, is
// the shell's prompt: the one seen before, or one that ends as prompts do.
func atPrompt(row, prompt string) bool {
	if prompt != "" && shellrun.SamePrompt(row, prompt) {
		return true
	}
	if shellrun.IsContinuation(row, prompt, false) {
		return false
	}
	t := strings.TrimRight(row, " ")
	if t == "" {
		return false
	}
	if password.MatchString(row) {
		return false
	}
	last := []rune(t)[len([]rune(t))-1]
	if p := []rune(strings.TrimRight(prompt, " ")); len(p) > 0 && strings.ContainsRune(promptChars, p[len(p)-1]) {
		// A shell's prompt ends as it ended before, whatever the
		// directory or status in it: a row that ends otherwise is a
		// question (read -p 'name> ' under a "# " prompt).
		return last == p[len(p)-1]
	}
	return strings.ContainsRune(promptChars, last)
}

// promptChars are the characters a shell's prompt ends with, before a
// space.
const promptChars = "$#%>❯»λ→›"

// shellAtPrompt: idle, or done when this process's last input ran a
// command that has ended.
func shellAtPrompt(f Facts) Result {
	switch {
	case f.Run.Known:
		r := Result{State: Done, Status: f.Run.Status, Detail: "our command ended"}
		if f.Run.Status != nil {
			r.Detail += fmt.Sprintf(" with status %d", *f.Run.Status)
		}
		return r
	case f.Marks.Known && f.Marks.AfterInput:
		r := Result{State: Done, Status: f.Marks.Status, Detail: "the last command ended (OSC 133)"}
		if f.Marks.Status != nil {
			r.Detail += fmt.Sprintf(" with status %d", *f.Marks.Status)
		}
		return r
	case f.Input.Sent && f.Input.Enter && f.Output.SinceInput:
		return Result{State: Done, Detail: "the shell is back at its prompt after the last input; status unknown"}
	}
	return Result{State: Idle, Detail: f.Command + " at its prompt"}
}

// blockedOn is Blocked on the question in row, the cursor's row.
func blockedOn(f Facts, row, detail string) Result {
	q := strings.TrimSpace(row)
	if q == "" && f.Screen != nil {
		q = f.Screen.lastText()
	}
	return Result{State: Blocked, Detail: detail, Question: q}
}

// classifyProgram: another program is the foreground one.
func classifyProgram(f Facts) Result {
	name := f.Command
	if name == "" {
		name = "the program"
	}
	var row string
	if f.Screen != nil {
		row = f.Screen.cursorRow()
		if !f.Screen.Alternate && password.MatchString(row) && (!f.Foreground.Known || f.Foreground.Reading) {
			return blockedOn(f, row, name+" asks for a password")
		}
	}
	switch {
	case f.Run.Known && f.Run.Running && !f.Foreground.Reading:
		return Result{State: Working, Detail: "our command runs: " + name}
	case f.Foreground.Known && f.Foreground.Reading:
		if f.Screen == nil {
			return Result{State: Blocked, Detail: name + " reads the terminal"}
		}
		if f.Screen.Alternate {
			return Result{State: Blocked, Detail: name + " (full screen) waits for keys", Question: f.Screen.lastText()}
		}
		if replPrompt.MatchString(strings.TrimLeft(row, " ")) || replPrompt.MatchString(row) {
			return Result{State: Idle, Detail: name + " at its prompt"}
		}
		return blockedOn(f, row, name+" reads input")
	case f.Foreground.Known:
		if f.recent() {
			return Result{State: Working, Detail: name + " runs and prints"}
		}
		return Result{State: Working, Detail: name + " runs"}
	}
	// The kernel does not tell: an event loop (node, a TUI), or no look.
	if f.recent() {
		return Result{State: Working, Detail: name + " prints"}
	}
	if f.Screen != nil {
		rows := f.Screen.Rows
		if f.Screen.Alternate {
			return Result{State: Unknown, Detail: name + " (full screen) is quiet; whether it waits for keys cannot be told"}
		}
		if question.MatchString(row) || (strings.TrimSpace(row) == "" && len(rows) > 0 && question.MatchString(f.Screen.lastText())) {
			return blockedOn(f, row, name+" asks")
		}
	}
	return Result{State: Unknown, Detail: name + " is quiet; whether it waits for input cannot be told"}
}
