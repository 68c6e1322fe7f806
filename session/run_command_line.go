package session

import (
	"bytes"
	"strconv"
	"strings"
)

// The pure parts of [Server.RunCommand]: the line it types into a shell,
// and the reading of the markers that line makes the shell print.
//
// The command is typed as one line of printable ASCII whatever it holds
// (newlines, quotes, tabs, non-ASCII bytes become printf escapes), and run
// by eval in the shell itself:
//
//	 printf '<erase><command>\n<start>'; case ${BASH_VERSION-}${ZSH_VERSION-} in
//	 ?*) eval $'<command>';; *) command eval "$(printf '<command>')";; esac; printf '<end>' "$?"
//
//   - eval runs it in the shell (cd, export, functions persist), and parses
//     it only when it runs: an unterminated quote or a missing "done" is a
//     syntax error with a status, never a continuation prompt that would
//     swallow the next call. A multi-line command (a loop, a here-document)
//     is still one typed line, so a leading space keeps all of it out of
//     the history where the shell ignores lines starting with a space.
//   - The shell is told apart when the line runs, not before: the program
//     tmux names for a pane just made may still be the sh -c that starts
//     the real shell (past longCommand bytes the name is trusted). bash and zsh eval $'...'. Other POSIX shells (dash)
//     get "command eval": a syntax error in eval, a special builtin, would
//     drop the rest of the line there, end marker included, and command
//     takes that away (zsh's command runs only external programs, so it
//     cannot be used everywhere). A plain command is single-quoted there;
//     one with newlines or other bytes goes through printf, one fork.
//   - The start and end markers are OSC sequences with a number no
//     terminal and no tmux from 3.2 to 3.7 knows: tmux drops them from the
//     screen (a person and capture-pane never see them) but %output carries
//     every byte the pane printed, so the stream holds them. The echo of
//     the typed line shows "\033" as four characters, never the escape
//     byte, so it cannot forge a marker; the tag is unique per call.
//   - <erase> moves the cursor back to where the echo of the typed line
//     began and clears to the end of the screen, and the command is printed
//     there instead, so the pane reads as if a person had typed it: prompt,
//     command, output, prompt. Readline, zle and the tty all wrap an
//     ASCII line at the pane's width, so the rows the echo took are known
//     before typing; where they are not (the echo would not fit on the
//     screen, the cursor is on column 0 as before a prompt is drawn), the
//     line is typed without <erase> and the echo stays.

// oscMarker is the OSC number of RunCommand's markers.
const oscMarker = "7717"

// runMarkers are the byte strings that open the markers of one call.
type runMarkers struct {
	start []byte // the whole start marker
	end   []byte // the end marker up to its exit status
}

func newRunMarkers(tag string) runMarkers {
	p := "\x1b]" + oscMarker + ";tmux-mcp;" + tag + ";"
	return runMarkers{start: []byte(p + "S\a"), end: []byte(p + "E;")}
}

// screenAt is where the cursor of a pane is and how big the pane is, when
// the line is typed.
type screenAt struct {
	cursorX, cursorY int
	width, height    int
}

// longCommand is the length past which runLine carries the command once,
// in the form for the shell tmux names, instead of once per form: line
// editors slow down with the square of a line's length, and a tty in canonical mode (dash)
// cuts lines at 4 KB. RunCommand has waited for a new pane's prompt
// before it reads the name, so the name is the shell's.
const longCommand = 1024

// runLine is the line RunCommand types (see above). lead is prefixed (a
// space to keep the line out of the history, or nothing). It reports
// whether the line erases its own echo.
func runLine(shell, tag, command, lead string, at screenAt) (string, bool) {
	osc := `\033]` + oscMarker + ";tmux-mcp;" + tag + ";"
	f := printfFormat(command)
	// Other POSIX shells: a plain line needs no printf, and no fork.
	posix := `command eval "$(printf '` + f + `')"`
	if plainASCII(command) {
		posix = `command eval '` + strings.ReplaceAll(command, "'", `'\''`) + `'`
	}
	ansi := `eval $'` + ansiC(command) + `'`
	var run string
	switch {
	case len(command) <= longCommand:
		run = `case ${BASH_VERSION-}${ZSH_VERSION-} in ?*) ` + ansi + `;; *) ` + posix + `;; esac`
	case shell == "bash" || shell == "zsh":
		run = ansi
	default:
		run = posix
	}
	status := `"$?"`
	if shell == "fish" {
		// fish's single quotes turn \\ into \: double them again.
		f = strings.ReplaceAll(f, `\\`, `\\\\`)
		run, status = "eval (printf '"+f+"' | string collect)", "$status"
	}
	build := func(erase string) string {
		return lead + "printf '" + erase + osc + `S\007'; ` + run + "; printf '" + osc + `E;%d\007' ` + status
	}
	plain := build("")
	if at.width <= 0 || at.height <= 0 || at.cursorX == 0 {
		// No geometry, or the cursor on column 0: a prompt not drawn yet
		// would move the echo.
		return plain, false
	}
	// The erase sequence holds the number of rows the echo takes, which
	// depends on the line's length: iterate until the digits settle.
	reprint := f + `\n`
	rows := 1
	for range 4 {
		line := build(eraseSeq(rows, at.cursorX) + reprint)
		n := at.cursorX + len(line)
		pad := ""
		if n%at.width == 0 {
			// At the exact end of a row, terminals and line editors differ
			// on whether the cursor is still on that row: one more space
			// leaves no doubt.
			pad, n = " ", n+1
		}
		r := n/at.width + 1
		if r == rows {
			// The echo takes rows rows and Enter moves to the next one,
			// which must be on the screen too for the move up to reach the
			// echo's first row.
			if rows+1 > at.height {
				return plain, false
			}
			return line + pad, true
		}
		rows = r
	}
	return plain, false
}

// eraseSeq moves the cursor up rows rows to column col (0-based) and
// erases from there to the end of the screen, as printf format text.
func eraseSeq(rows, col int) string {
	return `\033[` + strconv.Itoa(rows) + `A\033[` + strconv.Itoa(col+1) + `G\033[J`
}

// plainASCII reports whether s is one line of printable ASCII.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// ansiC quotes s for the inside of $'...' (bash, zsh): printable ASCII
// stays, but for the backslash, and every other byte, the quote included,
// becomes an octal escape. With no quote inside, a POSIX shell parses the
// same text as an ordinary quoted word, so the line parses everywhere.
func ansiC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b.WriteString(`\\`)
		case c >= 0x20 && c < 0x7f && c != '\'':
			b.WriteByte(c)
		default:
			octal(&b, c)
		}
	}
	return b.String()
}

// printfFormat makes s a printf format, inside single quotes, that prints
// s: one line of printable ASCII.
func printfFormat(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '%':
			b.WriteString("%%")
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\'':
			b.WriteString(`'\''`)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		default:
			octal(&b, c)
		}
	}
	return b.String()
}

func octal(b *strings.Builder, c byte) {
	b.WriteByte('\\')
	b.WriteByte('0' + c>>6)
	b.WriteByte('0' + c>>3&7)
	b.WriteByte('0' + c&7)
}

// markerScan finds a call's markers in a pane's output bytes, which may
// split a marker anywhere. Before the start marker everything is the echo
// of the typed line; after it, the command's output up to the end marker.
type markerScan struct {
	m      runMarkers
	begun  bool
	pend   []byte // bytes not yet handed on: they may begin a marker; once done, what came after
	done   bool
	status int
}

// feed consumes b and returns the output bytes it holds, all of them
// after the start marker and before the end marker. It reports false if
// the end marker is malformed.
func (s *markerScan) feed(b []byte) ([]byte, bool) {
	s.pend = append(s.pend, b...)
	if s.done {
		return nil, true
	}
	if !s.begun {
		i := bytes.Index(s.pend, s.m.start)
		if i < 0 {
			if keep := len(s.m.start) - 1; len(s.pend) > keep {
				s.pend = append(s.pend[:0], s.pend[len(s.pend)-keep:]...)
			}
			return nil, true
		}
		s.begun = true
		s.pend = s.pend[i+len(s.m.start):]
	}
	if i := bytes.Index(s.pend, s.m.end); i >= 0 {
		out := s.pend[:i]
		rest := s.pend[i+len(s.m.end):]
		j := bytes.IndexByte(rest, '\a')
		if j < 0 {
			if len(rest) > 12 {
				return nil, false
			}
			s.pend = append([]byte(nil), s.pend[i:]...)
			return out, true
		}
		n, err := strconv.Atoi(string(rest[:j]))
		if err != nil {
			return nil, false
		}
		s.done, s.status = true, n
		s.pend = append([]byte(nil), rest[j+1:]...) // what follows: the next prompt
		return out, true
	}
	// Hold back a tail that may be the start of the end marker.
	hold := len(s.pend)
	for k := max(0, len(s.pend)-len(s.m.end)+1); k < len(s.pend); k++ {
		if bytes.HasPrefix(s.m.end, s.pend[k:]) {
			hold = k
			break
		}
	}
	out := s.pend[:hold]
	s.pend = append([]byte(nil), s.pend[hold:]...)
	return out, true
}
