package shellrun

import (
	"strconv"
	"strings"
)

// oscMarker is the OSC number of the markers.
const oscMarker = "7717"

// markers are the byte strings that open the markers of one call.
type markers struct {
	start []byte // the whole start marker
	end   []byte // the end marker up to its exit status
}

func newMarkers(tag string) markers {
	p := "\x1b]" + oscMarker + ";tmux-mcp;" + tag + ";"
	return markers{start: []byte(p + "S\a"), end: []byte(p + "E;")}
}

// Screen is where the cursor of a pane is and how big the pane is, when
// the line is typed.
type Screen struct {
	CursorX, CursorY int
	Width, Height    int
}

// longCommand is the length past which Line carries the command once,
// in the form for the shell tmux names, instead of once per form: line
// editors slow down with the square of a line's length, and a tty in canonical mode (dash)
// cuts lines at 4 KB. The caller has waited for a new pane's prompt
// before it reads the name, so the name is the shell's.
const longCommand = 1024

// Line is the line that runs command in shell (as tmux names the pane's
// program), between the markers of tag (see the package doc). lead is
// prefixed (a space to keep the line out of the history, or nothing). It
// reports whether the line erases its own echo.
func Line(shell, tag, command, lead string, at Screen) (line string, erases bool) {
	return LineKeeping(shell, tag, command, lead, at, false)
}

// keptStatus is the variable a line that keeps the command's status
// holds it in.
const keptStatus = "__tmux_mcp_status"

// LineKeeping is [Line], and with keep the line ends with the command's
// exit status as its own (POSIX shells, bash and zsh; fish's line is
// Line's): a shell that reports each line's status as it draws its next
// prompt (OSC 133's end mark, which tmux 3.8 records) reports the
// command's, not the end marker's printf's. It leaves the status in
// __tmux_mcp_status, and forks a subshell when it is not 0.
func LineKeeping(shell, tag, command, lead string, at Screen, keep bool) (line string, erases bool) {
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
	tail := ""
	if keep && shell != "fish" {
		tail = `; [ "$` + keptStatus + `" = 0 ] || (exit "$` + keptStatus + `")`
		run, status = run+"; "+keptStatus+`="$?"`, `"$`+keptStatus+`"`
	}
	build := func(erase string) string {
		return lead + "printf '" + erase + osc + `S\007'; ` + run + "; printf '" + osc + `E;%d\007' ` + status + tail
	}
	plain := build("")
	if at.Width <= 0 || at.Height <= 0 || at.CursorX == 0 {
		// No geometry, or the cursor on column 0: a prompt not drawn yet
		// would move the echo.
		return plain, false
	}
	// The erase sequence holds the number of rows the echo takes, which
	// depends on the line's length: iterate until the digits settle.
	reprint := f + `\n`
	rows := 1
	for range 4 {
		line := build(eraseSeq(rows, at.CursorX) + reprint)
		n := at.CursorX + len(line)
		pad := ""
		if n%at.Width == 0 {
			// At the exact end of a row, terminals and line editors differ
			// on whether the cursor is still on that row: one more space
			// leaves no doubt.
			pad, n = " ", n+1
		}
		r := n/at.Width + 1
		if r == rows {
			// The echo takes rows rows and Enter moves to the next one,
			// which must be on the screen too for the move up to reach the
			// echo's first row.
			if rows+1 > at.Height {
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

// Quote quotes s as one word for sh.
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ReprintRows returns how many rows the command takes where a line that
// erases its own echo (see Line) prints it again: from column cursorX of
// the prompt's row, each further line of it from column 0, on a pane
// width wide. The command's output starts on the row after them. ok is
// false when the command holds a character whose width is not known here
// (not printable ASCII), so its rows are not certain.
func ReprintRows(command string, cursorX, width int) (rows int, ok bool) {
	if width <= 0 {
		return 0, false
	}
	col := cursorX
	for _, l := range strings.Split(command, "\n") {
		for i := 0; i < len(l); i++ {
			if l[i] < 0x20 || l[i] >= 0x7f {
				return 0, false
			}
		}
		rows += max(1, (col+len(l)+width-1)/width)
		col = 0
	}
	return rows, true
}
