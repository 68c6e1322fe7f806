package paneread

import (
	"strings"

	"github.com/tmux-mcp/tmux-mcp/session/internal/termtext"
)

// EchoFilter tells the pane's echo of typed input from what a program
// printed. A line is the echo of a typed line when, blanks at its end
// trimmed, it ends with that typed line: a shell echoes the prompt, then
// what was typed. Typed lines are looked for in order; a long typed line
// seen again later (typed ahead, then echoed again by the shell's line
// editor when it read it) is skipped again.
type EchoFilter struct {
	pending []string // typed lines not yet seen echoed
	echoed  []string // long typed lines seen echoed
	skipped int      // lines taken for echo (Skipped)
}

// NewEchoFilter returns a filter for the echo of typed, the lines typed
// in order (blank ones are ignored).
func NewEchoFilter(typed []string) *EchoFilter {
	e := &EchoFilter{}
	for _, t := range typed {
		if t = strings.TrimSpace(t); t != "" {
			e.pending = append(e.pending, t)
		}
	}
	return e
}

// Line reports whether the completed line l is echo.
func (e *EchoFilter) Line(l string) bool {
	if e == nil {
		return false
	}
	l = strings.TrimRight(l, " \t")
	if len(e.pending) > 0 && strings.HasSuffix(l, e.pending[0]) {
		if len([]rune(e.pending[0])) >= longEcho {
			e.echoed = append(e.echoed, e.pending[0])
		}
		e.pending = e.pending[1:]
		e.skipped++
		return true
	}
	for _, t := range e.echoed {
		if strings.HasSuffix(l, t) {
			e.skipped++
			return true
		}
	}
	return false
}

// Partial reports whether the unfinished line l may be echo still being
// written: it ends with the start of the next typed line (or with a long
// typed line already echoed), so its end is not yet known.
func (e *EchoFilter) Partial(l string) bool {
	if e == nil {
		return false
	}
	l = strings.TrimRight(l, " \t")
	if len(e.pending) > 0 {
		t := e.pending[0]
		for k := min(len(t), len(l)); k >= 1; k-- {
			if strings.HasSuffix(l, t[:k]) {
				return true
			}
		}
	}
	for _, t := range e.echoed {
		for k := min(len(t), len(l)); k >= longEcho; k-- {
			if strings.HasSuffix(l, t[:k]) {
				return true
			}
		}
	}
	return false
}

// LastEcho returns the index of the last of rows that is the echo of the
// last typed line, or -1.
func LastEcho(rows []string, typed []string) int {
	var last string
	for _, t := range typed {
		if t = strings.TrimSpace(t); t != "" {
			last = t
		}
	}
	if last == "" {
		return -1
	}
	for i := len(rows) - 1; i >= 0; i-- {
		if strings.HasSuffix(strings.TrimRight(rows[i], " \t"), last) {
			return i
		}
	}
	return -1
}

// Output is a pane's output as lines a person reads, with the echo of
// typed input taken out.
type Output struct {
	Text termtext.Lines
	Echo *EchoFilter // nil: nothing to take out
}

// Prime puts the cursor where b, the start of a line printed before the
// input, leaves it, with that text blanked: it is not output after the
// input, but the column the echo starts at tells where the line wraps.
func (o *Output) Prime(b []byte) {
	o.Text.Write(b)
	o.Text.Take()
	o.Text.Blank()
}

// Write consumes b and returns the completed lines that are not echo, and
// the line still being written ("" when it is empty or may be echo).
func (o *Output) Write(b []byte) (lines []string, partial string) {
	o.Text.Write(b)
	for _, l := range o.Text.Take() {
		if !o.Echo.Line(l) {
			lines = append(lines, l)
		}
	}
	if p := o.Text.Line(); !o.Echo.Partial(p) {
		partial = p
	}
	return lines, partial
}

// Skipped returns how many lines the filter took for echo.
func (e *EchoFilter) Skipped() int {
	if e == nil {
		return 0
	}
	return e.skipped
}

// longEcho is the length from which a typed line is taken to be echoed
// wherever a line ends with it: a program seldom prints a whole command
// line. Shorter typed lines ("y") are skipped once only.
const longEcho = 8
