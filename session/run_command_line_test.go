package session

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
				at := screenAt{cursorX: cx, width: width, height: 50}
				line, erases := runLine("bash", "0123456789abcdef", c, " ", at)
				n := cx + len(line)
				rows := n/width + 1
				if !erases {
					// The erasing line is at least this one, the command
					// again and the erase sequence long.
					if (n+len(printfFormat(c))+len(eraseSeq(1, 0)))/width+2 <= at.height {
						t.Fatalf("width %d cx %d %q: does not erase an echo that fits", width, cx, c)
					}
					continue
				}
				if rows+1 > at.height {
					t.Fatalf("width %d cx %d %q: erases an echo of %d rows on a screen of %d", width, cx, c, rows, at.height)
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
	for _, at := range []screenAt{{}, {cursorX: 2, width: 10, height: 3}, {cursorX: 0, width: 80, height: 24}} {
		if line, erases := runLine("zsh", "t", "echo hi", "", at); erases || strings.Contains(line, `A\033[`) {
			t.Errorf("%+v: got %q %v, want no erase", at, line, erases)
		}
	}
}

func TestMarkerScan(t *testing.T) {
	m := newRunMarkers("0123456789abcdef")
	echo := "$ printf '\\033]7717;tmux-mcp;0123456789abcdef;S\\007'; eval ...\r\n"
	stream := echo + "\x1b[3A\x1b[3G\x1b[Jecho hi\r\n" + string(m.start) +
		"out 1\r\n\x1b]7717;tmux-mcp;other;E;9\aout 2 \x1b]0;title\a" + string(m.end) + "42\a$ "
	want := "out 1\r\n\x1b]7717;tmux-mcp;other;E;9\aout 2 \x1b]0;title\a"
	// Every split of the stream into two writes, and byte by byte.
	splits := [][]string{}
	for i := 0; i <= len(stream); i++ {
		splits = append(splits, []string{stream[:i], stream[i:]})
	}
	bytewise := []string{}
	for i := range len(stream) {
		bytewise = append(bytewise, stream[i:i+1])
	}
	splits = append(splits, bytewise)
	for _, parts := range splits {
		s := markerScan{m: m}
		var got strings.Builder
		for _, p := range parts {
			out, ok := s.feed([]byte(p))
			if !ok {
				t.Fatalf("%q: malformed", parts)
			}
			got.Write(out)
		}
		if !s.done || s.status != 42 || got.String() != want {
			t.Fatalf("%q: got done %v status %d output %q", parts, s.done, s.status, got.String())
		}
	}
	// A command that never started hands nothing on.
	s := markerScan{m: m}
	if out, _ := s.feed([]byte(echo + "> ")); len(out) != 0 || s.begun {
		t.Fatalf("before the start marker: got %q begun %v", out, s.begun)
	}
	// A malformed status is reported.
	s = markerScan{m: m}
	if _, ok := s.feed([]byte(string(m.start) + string(m.end) + "x\a")); ok {
		t.Fatal("malformed status: got ok")
	}
}

func TestIsContinuation(t *testing.T) {
	for _, c := range []struct {
		row, last string
		typed     bool
		want      bool
	}{
		{"quote> ", "", false, true},
		{"for dquote> ", "$ ", false, true},
		{"heredoc> ", "% ", false, true},
		{"dev> ", "", false, false}, // a prompt, not a parser state
		{"> ", "$ ", false, true},
		{"> ", "> ", false, false}, // the pane's prompt is "> "
		{"> ", "", false, false},   // never seen: typing is allowed
		{"$ ", "$ ", false, false},
		// A command typed and not started: the shell waits for more.
		{"> ", "", true, true},
		{"> ", "> ", true, true},
		{"dev> ", "", true, true},
		{"$ ", "$ ", true, false},
		{"$ echo hi", "$ ", true, false},
	} {
		if got := isContinuation(c.row, c.last, c.typed); got != c.want {
			t.Errorf("isContinuation(%q, %q, %v) = %v, want %v", c.row, c.last, c.typed, got, c.want)
		}
	}
}
