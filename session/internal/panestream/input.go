package panestream

import (
	"strings"
	"time"
)

// An InputMark is where in a pane's output stream this process last sent
// it input, and what that input typed, so that waits can match only what
// the pane printed after it and tell the echo of the typed text from the
// output of the program.
type InputMark struct {
	Sent   bool      // any input was sent; the other fields are zero if not
	Offset int64     // the stream's end when tmux answered the input
	At     time.Time // when it did
	// Fed reports that a client was delivering the pane's output at that
	// moment, so that the stream from Offset on holds what the pane
	// printed after the input.
	Fed bool
	// Typed is the text typed on the current input line (since the last
	// input that ended with Enter), split into lines; the pane's echo of
	// each ends with it.
	Typed []string
	// Fresh is how many of Typed, the last ones, this input typed text
	// on: the others were typed by earlier inputs, and echoed before
	// Offset.
	Fresh int
	Enter bool // the input ended with Enter
	// Col is the cursor's column when the input was sent, read only when
	// the stream does not hold the start of the line (-1 then if unread).
	Col int
	// Grid is where the cursor was in tmux's grid just before the input
	// went in, when it was read on the same line as the input; for input
	// typed onto a line an earlier input started, where that one went in.
	Grid GridMark
	// Cursor is where the cursor was just before this input, the last.
	Cursor GridMark
}

// A GridMark is a place in a pane's grid as tmux numbers it: rows of
// history first, oldest at 0, then the screen. Row is the history size
// plus the cursor's row; a row keeps its number while output scrolls it
// into history, until tmux drops old history (a tenth of Limit at a time,
// once History reaches Limit).
type GridMark struct {
	Known   bool
	Row     int // the cursor's row
	Col     int // the cursor's column
	History int // rows of history then
	Limit   int // the pane's history limit
}

// NoteInput records input that tmux has just answered: text typed (empty
// for key names such as C-c), then Enter if enter. pre is the stream's end
// before the input was sent. fed reports that the pane's output is being
// delivered to the stream. In a group (GroupInputs), the inputs from the
// first that ends with Enter on are one input.
func (p *Stream) NoteInput(pre int64, col int, fed bool, text string, enter bool, grid GridMark) {
	p.mu.Lock()
	defer p.mu.Unlock()
	g := p.group
	if g == nil || !g.started && !enter {
		p.input = noted(p.input, min(pre, p.end()), col, fed, text, enter, grid)
		return
	}
	if !g.started {
		g.started, g.before = true, p.input
		g.pre, g.col, g.fed, g.grid = min(pre, p.end()), col, fed, grid
	}
	if enter && !strings.HasSuffix(text, "\n") {
		text += "\n" // the Enter after the keys, which their text lacks
	}
	g.text += text
	p.input = noted(g.before, g.pre, g.col, g.fed, strings.TrimSuffix(g.text, "\n"), enter, g.grid)
}

// An inputGroup is the inputs of one call from its first Enter on, noted
// as one input: where that one went in, and the text of them all.
type inputGroup struct {
	started bool      // an input that ended with Enter was noted
	before  InputMark // the input before it
	pre     int64     // its NoteInput arguments
	col     int
	fed     bool
	grid    GridMark
	text    string // what it and the inputs after it typed, a line break for each Enter
}

// GroupInputs groups the inputs of one call (keys pressed one at a time)
// until end is called: up to the first that ends with Enter each is noted
// as ever, so what they typed is a line whose echo was drawn before that
// Enter went in; from that Enter on they are one input, as if sent at
// once. A wait for what the pane printed since the input counts from the
// first Enter, so it finds what the lines typed printed, and tells the
// echo of every line typed after it. A group opened while another is
// replaces it; end ends only its own.
func (p *Stream) GroupInputs() (end func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	g := &inputGroup{}
	p.group = g
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.group == g {
			p.group = nil
		}
	}
}

// noted returns in after an input at pre (see NoteInput).
func noted(in InputMark, pre int64, col int, fed bool, text string, enter bool, grid GridMark) InputMark {
	line := ""
	continuing := in.Sent && !in.Enter && len(in.Typed) > 0
	if continuing {
		// Typed onto the line an earlier input started.
		line = in.Typed[len(in.Typed)-1]
		in.Typed = in.Typed[: len(in.Typed)-1 : len(in.Typed)-1]
	} else {
		in.Typed = nil
	}
	parts := strings.FieldsFunc(line+text, func(r rune) bool { return r == '\n' || r == '\r' })
	in.Typed = append(in.Typed, parts...)
	if len(in.Typed) > 64 {
		in.Typed = in.Typed[len(in.Typed)-64:]
	}
	in.Fresh = min(len(strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' })), len(in.Typed))
	in.Sent, in.Offset, in.At, in.Fed, in.Enter, in.Col = true, pre, time.Now(), fed, enter, col
	if !continuing || !in.Grid.Known {
		// Typing onto a line an earlier input started keeps that line's
		// mark: the answer comes after the line, where it was begun.
		in.Grid = grid
	}
	in.Cursor = grid
	return in
}

// LastInput returns the pane's last input mark.
func (p *Stream) LastInput() InputMark {
	p.mu.Lock()
	defer p.mu.Unlock()
	in := p.input
	in.Typed = append([]string(nil), in.Typed...)
	return in
}

// NoteLook records that a caller was told what the pane printed up to
// offset off: a later question "has it changed?" counts from there.
func (p *Stream) NoteLook(off int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.look = max(p.look, off)
}

// LastLook returns the offset of the last NoteLook, 0 if none.
func (p *Stream) LastLook() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.look
}
