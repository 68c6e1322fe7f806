package paneread

import (
	"strings"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/session/internal/termtext"
)

// EchoFilter tells the pane's echo of typed input from what a program
// printed. A line is the echo of a typed line when, blanks at its end
// trimmed, it ends with that typed line: a shell echoes the prompt, then
// what was typed.
//
// The echo is where the input was typed, not any later line with the same
// text: the lines the input typed (fresh) are looked for in order among
// the first lines read, before the program printed a line of its own; a
// line the program prints later with that text (fzf printing the 42 it
// was given, a script printing "got:" and the line it read) is output,
// unless a prompt is before it: a shell given several lines reads each
// once the command before has printed, and echoes it after its prompt. A
// long typed line (a command line, longEcho runes or more) may be echoed
// once more, later, by a shell's line editor when it reads a line typed
// ahead (the terminal echoed it first): such a line is echo again when
// what comes before the typed text is nothing or looks like a prompt
// (it ends with one of promptEnds).
//
// Input that typed nothing (an Enter after a long typed line) starts the
// read on the typed line's row: a line editor that held back drawing the
// line while keys were pending (zsh) draws its rest then, and one still
// drawing it when the Enter went in (fish, on a loaded machine) draws
// pieces of it, or all of it again. That row (see drawing) is echo, and
// so is what it holds before it ends.
type EchoFilter struct {
	rest    string   // the long typed line the read starts on the row of, if any
	read    bool     // a line was read
	pending []string // fresh typed lines not yet seen echoed, in order
	again   []string // long typed lines a line editor may echo after a prompt
	output  bool     // a line of the program's own was read
	skipped int      // lines taken for echo (Skipped)
	lines   []string // the last lines taken for echo (Lines)
}

// NewEchoFilter returns a filter for the echo of typed, the lines typed
// in order (blank ones are ignored), of which the last fresh were typed by
// the input the read starts at. The others were typed before it, and
// echoed there: of those only long ones are looked for, after a prompt (a
// line editor's second echo).
func NewEchoFilter(typed []string, fresh int) *EchoFilter {
	e := &EchoFilter{}
	if n := len(typed); fresh == 0 && n > 0 && long(strings.TrimSpace(typed[n-1])) {
		e.rest = strings.TrimSpace(typed[n-1])
	}
	for i, t := range typed {
		t = strings.TrimSpace(t)
		switch {
		case t == "":
		case i >= len(typed)-fresh:
			e.pending = append(e.pending, t)
		case long(t):
			e.again = append(e.again, t)
		}
	}
	return e
}

// long reports whether typed line t is long enough to be echoed again by
// a line editor, and looked for there.
func long(t string) bool { return utf8.RuneCountInString(t) >= longEcho }

// promptEnds are the characters a prompt is taken to end with (blanks
// after them aside), for a line editor's second echo of a line.
const promptEnds = "$#%>❯»λ→›"

// afterPrompt reports whether l is typed line t echoed after a prompt, or
// alone.
func afterPrompt(l, t string) bool {
	if !strings.HasSuffix(l, t) {
		return false
	}
	before := strings.TrimRight(l[:len(l)-len(t)], " \t")
	if before == "" {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(before)
	return strings.ContainsRune(promptEnds, r)
}

// Line reports whether the completed line l is echo.
func (e *EchoFilter) Line(l string) bool {
	if e == nil {
		return false
	}
	l = strings.TrimRight(l, " \t")
	first := !e.read
	e.read = true
	if first && e.rest != "" && drawing(l, e.rest, true) {
		// The row the Enter went in on, drawn on after it: the rest of the
		// typed line (a line editor that held back while keys were
		// pending, zsh), or pieces of it or all of it again (one still
		// drawing when the Enter went in, fish).
		e.skip(l)
		return true
	}
	if !e.output && len(e.pending) > 0 && strings.HasSuffix(l, e.pending[0]) {
		if long(e.pending[0]) {
			e.again = append(e.again, e.pending[0])
		}
		e.pending = e.pending[1:]
		e.skip(l)
		return true
	}
	for k, t := range e.pending {
		if e.output && behindPrompt(l, t) {
			// A shell reads the next typed line once the last command has
			// printed, and echoes it after its prompt.
			e.pending = e.pending[k+1:]
			e.skip(l)
			return true
		}
	}
	for _, t := range e.again {
		if afterPrompt(l, t) {
			e.skip(l)
			return true
		}
	}
	if strings.TrimSpace(l) != "" && !e.output {
		// The program has printed: typed lines not seen echoed by now
		// were not echoed where they were typed (a password), or are read
		// by a shell after the command before them (behindPrompt); a line
		// editor may still echo a long one.
		e.output = true
		for _, t := range e.pending {
			if long(t) {
				e.again = append(e.again, t)
			}
		}
	}
	return false
}

// behindPrompt reports whether l is typed line t echoed after a prompt,
// something before it that ends with one of promptEnds: a line a program
// prints back alone, or after words of its own, is output.
func behindPrompt(l, t string) bool {
	return afterPrompt(l, t) && strings.TrimSpace(l) != t
}

// keptEcho is how many lines taken for echo Lines keeps, the last ones.
const keptEcho = 5

// skip counts l as echo and keeps it for Lines.
func (e *EchoFilter) skip(l string) {
	e.skipped++
	if len(e.lines) == keptEcho {
		e.lines = append(e.lines[:0], e.lines[1:]...)
	}
	e.lines = append(e.lines, l)
}

// Lines returns the last lines taken for echo (at most keptEcho), oldest
// first: an answer that left lines out shows which.
func (e *EchoFilter) Lines() []string {
	if e == nil {
		return nil
	}
	return append([]string(nil), e.lines...)
}

// Partial reports whether the unfinished line l may be echo still being
// written: it ends with the start of the next typed line (or with a long
// typed line already echoed), so its end is not yet known.
func (e *EchoFilter) Partial(l string) bool {
	if e == nil {
		return false
	}
	l = strings.TrimRight(l, " \t")
	if !e.read && e.rest != "" && drawing(l, e.rest, false) {
		// The line editor is drawing the typed line still, or again, on
		// its row: the Enter went in before it was done (fish, loaded).
		return true
	}
	if len(e.pending) > 0 {
		t := e.pending[0]
		for k := min(len(t), len(l)); k >= 1; k-- {
			if strings.HasSuffix(l, t[:k]) {
				return true
			}
		}
	}
	for _, t := range e.again {
		for k := min(len(t), len(l)); k >= longEcho; k-- {
			if strings.HasSuffix(l, t[:k]) {
				return true
			}
		}
	}
	return false
}

// drawing reports whether l, the row an Enter that typed nothing went
// in on, is a line editor drawing typed line t on after the Enter: the
// end of t (zsh drew the rest it held back), pieces of t in their places
// after the prompt (fish, still drawing when the Enter went in), or a
// piece of t and then t again from its start. A finished row (ended) has
// t drawn to its end.
func drawing(l, t string, ended bool) bool {
	l = strings.TrimRight(l, " \t")
	r := strings.TrimLeft(l, " \t")
	switch {
	case r == "":
		return false
	case strings.HasSuffix(t, r):
		return true
	}
	least := 1 // the start of t drawn again, as much of it as is there yet
	if ended {
		least = len(t) // all of it
	}
	for k := min(len(r), len(t)); k >= least; k-- {
		if strings.HasSuffix(r, t[:k]) && strings.Contains(t, r[:len(r)-k]) {
			return true
		}
	}
	if len(r) == len(l) {
		// Drawn from the row's start: a program's line, not the typed
		// line redrawn after its prompt.
		return false
	}
	for _, f := range strings.Fields(r) {
		if !strings.Contains(t, f) {
			return false
		}
	}
	return true
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

// EchoRows takes the echo of typed (the lines typed, in order) out of
// rows of tmux's grid, where the echo is at its place: the first typed
// line on rows[at], from column col on, the next ones on the rows after
// it (after a continuation prompt). Rows above at were drawn after the
// input, and are output whatever they hold; rows after the echo are echo
// only as a line editor's second echo of a long line (after a prompt). It
// returns the rows left and those taken for echo.
func EchoRows(rows []string, at, col int, typed []string) (kept, echo []string) {
	var lines, again []string
	for _, t := range typed {
		if t = strings.TrimSpace(t); t != "" {
			lines = append(lines, t)
			if long(t) {
				again = append(again, t)
			}
		}
	}
	for i, r := range rows {
		r = strings.TrimRight(r, " \t")
		j := i - at
		isEcho := false
		switch {
		case j < 0 || len(lines) == 0:
		case j == 0:
			rs := []rune(r)
			isEcho = col >= 0 && col <= len(rs) && strings.HasPrefix(strings.TrimSpace(string(rs[col:])), lines[0])
		case j < len(lines):
			isEcho = strings.HasSuffix(r, lines[j])
		default:
			for _, t := range again {
				isEcho = isEcho || afterPrompt(r, t)
			}
		}
		if isEcho {
			echo = append(echo, r)
		} else {
			kept = append(kept, rows[i])
		}
	}
	return kept, echo
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
