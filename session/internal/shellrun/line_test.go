package shellrun

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// hardCommands are commands whose bytes the encoders must carry intact.
var hardCommands = []string{
	"echo hi",
	`printf '%s\n' "a b" 'c'\''d' \\ %d %%`,
	"for i in 1 2 3; do\n  echo \"$i\"\ndone",
	"cat <<'EOF'\n\tindented $HOME `x`\nEOF",
	"echo 'unterminated",
	"echo héllo ☃ \x1b[1m \x01 \x7f end",
	"# only a comment",
	"trailing newline\n\n",
}

func TestEncodersArePrintableASCII(t *testing.T) {
	printable := regexp.MustCompile(`^[\x20-\x7e]*$`)
	for _, c := range hardCommands {
		if got := printfFormat(c); !printable.MatchString(got) {
			t.Errorf("printfFormat(%q) = %q: not one line of printable ASCII", c, got)
		}
		if got := ansiC(c); !printable.MatchString(got) || strings.Contains(got, "'") {
			t.Errorf("ansiC(%q) = %q: not one line of printable ASCII without a quote", c, got)
		}
	}
	if got, want := ansiC("a'b\\c\nd"), `a\047b\\c\012d`; got != want {
		t.Errorf("ansiC: got %q, want %q", got, want)
	}
	if got, want := printfFormat("50% a'b\\c\td"), `50%% a'\''b\\c\011d`; got != want {
		t.Errorf("printfFormat: got %q, want %q", got, want)
	}
}

// TestEncodersRoundTrip has real shells decode what the encoders made:
// what eval would run must be the command, byte for byte.
func TestEncodersRoundTrip(t *testing.T) {
	for _, sh := range []string{"sh", "bash", "zsh"} {
		if _, err := exec.LookPath(sh); err != nil {
			t.Logf("%s is not installed", sh)
			continue
		}
		t.Run(sh, func(t *testing.T) {
			for _, c := range hardCommands {
				// A trailing x keeps a command substitution from eating final
				// newlines.
				scripts := map[string]string{"printf": "printf '" + printfFormat(c) + "x'"}
				if sh != "sh" {
					scripts["ansiC"] = "printf '%sx' $'" + ansiC(c) + "'"
				}
				for name, script := range scripts {
					out, err := exec.Command(sh, "-c", script).Output()
					if err != nil {
						t.Fatalf("%s %q: %v", name, script, err)
					}
					if got := strings.TrimSuffix(string(out), "x"); got != c {
						t.Errorf("%s: %q decoded as %q", name, c, got)
					}
				}
			}
		})
	}
}

func TestRunLineErasesItsEcho(t *testing.T) {
	rowsRe := regexp.MustCompile(`^ ?printf '\\033\[([0-9]+)A\\033\[([0-9]+)G\\033\[J`)
	for _, width := range []int{20, 40, 80, 81, 200} {
		for cx := 1; cx < width; cx += 7 {
			for _, c := range append(hardCommands, strings.Repeat("x", 300)) {
				at := Screen{CursorX: cx, Width: width, Height: 50}
				line, erases := Line("bash", "0123456789abcdef", c, " ", at)
				n := cx + len(line)
				rows := n/width + 1
				if !erases {
					// The erasing line is at least this one, the command
					// again and the erase sequence long.
					if (n+len(printfFormat(c))+len(eraseSeq(1, 0)))/width+2 <= at.Height {
						t.Fatalf("width %d cx %d %q: does not erase an echo that fits", width, cx, c)
					}
					continue
				}
				if rows+1 > at.Height {
					t.Fatalf("width %d cx %d %q: erases an echo of %d rows on a screen of %d", width, cx, c, rows, at.Height)
				}
				m := rowsRe.FindStringSubmatch(line)
				if m == nil {
					t.Fatalf("no erase sequence at the start of %q", line)
				}
				if got, _ := strconv.Atoi(m[1]); got != rows {
					t.Errorf("width %d cx %d len %d: moves up %d rows, the echo takes %d", width, cx, len(line), got, rows)
				}
				if got, _ := strconv.Atoi(m[2]); got != cx+1 {
					t.Errorf("width %d cx %d: column %d, want %d", width, cx, got, cx+1)
				}
				if n%width == 0 {
					t.Errorf("width %d cx %d: the echo ends at the exact end of a row", width, cx)
				}
			}
		}
	}
	// No geometry, or too little room: the line is typed without the erase.
	for _, at := range []Screen{{}, {CursorX: 2, Width: 10, Height: 3}, {CursorX: 0, Width: 80, Height: 24}} {
		if line, erases := Line("zsh", "t", "echo hi", "", at); erases || strings.Contains(line, `A\033[`) {
			t.Errorf("%+v: got %q %v, want no erase", at, line, erases)
		}
	}
}

// TestLineForms: a short command carries both forms and lets the shell
// choose; past longCommand bytes only the named shell's form is typed;
// fish gets its own.
func TestLineForms(t *testing.T) {
	long := strings.Repeat("x", longCommand+1)
	for _, c := range []struct {
		name, shell, command string
		has, hasNot          []string
	}{
		{"short", "dash", "echo hi", []string{"case ${BASH_VERSION-}", "eval $'echo hi'", "command eval 'echo hi'"}, nil},
		{"short, not plain", "sh", "echo 'a\nb'", []string{`command eval "$(printf '`}, nil},
		{"long in bash", "bash", long, []string{"eval $'x"}, []string{"case ", "command eval"}},
		{"long in dash", "dash", long, []string{"command eval 'x"}, []string{"case ", "eval $'"}},
		{"fish", "fish", "echo hi", []string{"eval (printf 'echo hi' | string collect)", "$status"}, []string{`"$?"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			line, _ := Line(c.shell, "tag", c.command, " ", Screen{})
			if !strings.HasPrefix(line, " printf '") || !strings.Contains(line, `7717;tmux-mcp;tag;S\007`) || !strings.Contains(line, `7717;tmux-mcp;tag;E;%d\007`) {
				t.Errorf("%q: not the lead and both markers", line)
			}
			for _, s := range c.has {
				if !strings.Contains(line, s) {
					t.Errorf("%q: want %q in it", line, s)
				}
			}
			for _, s := range c.hasNot {
				if strings.Contains(line, s) {
					t.Errorf("%q: want no %q in it", line, s)
				}
			}
		})
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"":        "''",
		"a b":     "'a b'",
		"it's":    `'it'\''s'`,
		"$HOME *": "'$HOME *'",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestReprintRows(t *testing.T) {
	for _, c := range []struct {
		command    string
		cursorX, w int
		rows       int
		ok         bool
	}{
		{"ls", 2, 80, 1, true},
		{strings.Repeat("x", 78), 2, 80, 1, true}, // fills the row: Enter moves to the next
		{strings.Repeat("x", 79), 2, 80, 2, true},
		{"for i in 1 2\ndo echo $i; done", 2, 80, 2, true},
		{"a\n\nb", 2, 80, 3, true},
		{strings.Repeat("y", 150) + "\nz", 2, 80, 3, true},
		{"echo é", 2, 80, 0, false},
		{"printf 'a\tb'", 2, 80, 0, false},
		{"ls", 2, 0, 0, false},
	} {
		rows, ok := ReprintRows(c.command, c.cursorX, c.w)
		if ok != c.ok || rows != c.rows {
			t.Errorf("ReprintRows(%.20q, %d, %d): got %d %v, want %d %v", c.command, c.cursorX, c.w, rows, ok, c.rows, c.ok)
		}
	}
}

// TestLineKeepingStatus: a line that keeps the status ends with the
// command's exit status as its own ($? after it), and still prints it in
// the end marker; long commands (one form) too.
func TestLineKeepingStatus(t *testing.T) {
	for _, sh := range []string{"sh", "bash", "dash", "zsh"} {
		if _, err := exec.LookPath(sh); err != nil {
			continue
		}
		for _, c := range []struct {
			command string
			status  string
		}{{"true", "0"}, {"false", "1"}, {"(exit 7)", "7"}, {"echo " + strings.Repeat("x", longCommand) + " >/dev/null; (exit 9)", "9"}} {
			line, _ := LineKeeping(sh, "tag", c.command, "", Screen{}, true)
			out, err := exec.Command(sh, "-c", line+"\necho \" after=$?\"").Output()
			if err != nil {
				t.Fatalf("%s: %v", sh, err)
			}
			if !strings.Contains(string(out), "tag;E;"+c.status+"\a") || !strings.HasSuffix(string(out), " after="+c.status+"\n") {
				t.Errorf("%s, %q: printed %q; want the end marker and $? both %s", sh, c.command, out, c.status)
			}
			plain, _ := Line(sh, "tag", c.command, "", Screen{})
			if strings.Contains(plain, keptStatus) {
				t.Errorf("Line keeps the status: %q", plain)
			}
		}
	}
}
