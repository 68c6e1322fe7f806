package termtext

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Lines turns a pane's output bytes into the lines a person would read, as
// a terminal draws them on one line: CR moves to the start of the line and
// what follows overwrites, backspace and cursor movement move along it,
// erase-in-line erases, other escape sequences are dropped, and LF ends the
// line. It keeps its state between writes, so a sequence or a character
// split across %output lines is read whole. It also notices the alternate
// screen being switched on and off.
//
// A finished line holds no control characters but tab, and is valid UTF-8:
// invalid bytes become U+FFFD. A cursor move stops at the widest column a
// tmux pane has, so a line grows no faster than the bytes written. The
// zero value is ready to use, for a terminal of unknown width.
type Lines struct {
	// Width is the terminal's width, 0 if unknown; set it before the first
	// Write. With it a line that wraps is one line of several rows, as tmux
	// draws it: CR, erasing and column moves act on the cursor's row. Line
	// editors that redraw a wrapped command line (zsh) need it.
	Width int

	sc       Scanner
	cur      []rune // the line being written
	col      int    // the cursor's index in cur
	rowStart int    // the index in cur where the cursor's row starts
	partial  []byte // the start of a UTF-8 character split across writes
	lines    []string
	alt      bool // the alternate screen is on
	rowMoves bool // the cursor was moved to another row (Redrawn)
	// altOff is the index in the last write's bytes just after the last
	// sequence that switched the alternate screen off, or -1.
	altOff int
	pos    int // the index of the byte being read in Write
}

// maxColumn bounds how far right of its row's start a cursor move takes
// the cursor: tmux makes no pane wider (WINDOW_MAXIMUM), so only output no
// terminal could draw goes further. Unbounded, a few bytes could make a
// line of any length, or overflow the cursor's index.
const maxColumn = 10000

// Write renders b. It always returns len(b) and a nil error.
func (r *Lines) Write(b []byte) (int, error) {
	r.altOff = -1
	for i, c := range b {
		r.pos = i
		switch r.sc.Scan(c) {
		case Escape:
			if c == 'M' || c == '8' {
				// Reverse index, or restore the cursor: back to a row
				// that is no longer the last.
				r.rowMoves = true
			}
			continue
		case CSI:
			r.csi(c)
			continue
		case InSequence:
			continue
		}
		switch {
		case c == '\n':
			r.lines = append(r.lines, string(r.cur))
			r.cur, r.col, r.rowStart = r.cur[:0], 0, 0
		case c == '\r':
			r.col = r.rowStart
		case c == '\b':
			r.col = max(r.col-1, r.rowStart)
		case c == '\t':
			r.put('\t')
		case c < 0x20 || c == 0x7f:
			// NUL (a pause marker), BEL and other controls show nothing.
		case c < 0x80:
			r.put(rune(c))
		default:
			r.partial = append(r.partial, c)
			if utf8.FullRune(r.partial) {
				ru, _ := utf8.DecodeRune(r.partial)
				r.partial = r.partial[:0]
				r.put(ru)
			}
		}
	}
	return len(b), nil
}

// put draws one character at the cursor.
func (r *Lines) put(c rune) {
	if r.Width > 0 && r.col-r.rowStart >= r.Width {
		// Past the last column: the line wraps onto a new row.
		r.rowStart += r.Width * ((r.col - r.rowStart) / r.Width)
	}
	for len(r.cur) < r.col {
		r.cur = append(r.cur, ' ')
	}
	if r.col < len(r.cur) {
		r.cur[r.col] = c
	} else {
		r.cur = append(r.cur, c)
	}
	r.col++
}

// csi acts on the control sequences that change the text of the line, and
// on the alternate screen.
func (r *Lines) csi(final byte) {
	params := r.sc.Params()
	n, err := strconv.Atoi(string(params))
	if err != nil {
		n = 0
	}
	switch final {
	case 'K': // erase in line: in the cursor's row
		from, to := r.col, len(r.cur) // 0: to the end of the row
		if r.Width > 0 {
			to = min(to, r.rowStart+r.Width)
		}
		switch n {
		case 1:
			from, to = r.rowStart, min(r.col+1, len(r.cur))
		case 2:
			from = r.rowStart
		}
		if from >= len(r.cur) {
			return
		}
		if to >= len(r.cur) && n != 1 {
			r.cur = r.cur[:from] // the last row: what is erased ends the line
			return
		}
		to = min(to, len(r.cur))
		for i := from; i < to; i++ {
			r.cur[i] = ' '
		}
		return
	case 'P', '@', 'X': // delete, insert or erase characters at the cursor
		r.editChars(final, min(max(n, 1), maxColumn))
		return
	case 'C': // cursor forward
		to := r.col + min(max(n, 1), maxColumn)
		r.col = max(r.col, min(to, r.rowStart+maxColumn-1))
		if r.Width > 0 {
			r.col = min(r.col, r.rowStart+r.Width-1)
		}
		return
	case 'D': // cursor back
		r.col = max(r.col-max(n, 1), r.rowStart)
		return
	case 'G': // cursor to column
		r.col = r.rowStart + min(max(n-1, 0), maxColumn-1)
		return
	case 'A', 'B', 'E', 'F', 'H', 'f', 'd', 'e', 'r', 'S', 'T', 'L', 'M':
		// Up, down, to a row, a scroll region, scrolling, rows inserted or
		// deleted: the text goes to rows this reading has closed, or will
		// write over.
		r.rowMoves = true
		return
	}
	if final != 'h' && final != 'l' || !bytes.HasPrefix(params, []byte("?")) {
		return
	}
	for _, p := range strings.Split(string(params[1:]), ";") {
		if p == "1049" || p == "1047" || p == "47" {
			r.alt = final == 'h'
			if !r.alt {
				r.altOff = r.pos + 1
			}
		}
	}
}

// editChars deletes (P: the rest of the row moves left), inserts (@:
// blanks pushed in, the rest moves right) or erases (X: blanks written
// over) n characters at the cursor, within the cursor's row when the width
// is known. The cursor does not move.
func (r *Lines) editChars(op byte, n int) {
	end := len(r.cur) // where the cursor's row ends in cur
	if r.Width > 0 {
		end = min(end, r.rowStart+r.Width)
	}
	if r.col >= end {
		return // nothing right of the cursor on its row
	}
	row := append([]rune(nil), r.cur[r.col:end]...)
	switch op {
	case 'P':
		n = min(n, len(row))
		row = append(row[n:], []rune(strings.Repeat(" ", n))...)
	case '@':
		row = append([]rune(strings.Repeat(" ", n)), row...)
		if end < len(r.cur) || r.Width > 0 {
			// What is pushed past the right margin is gone.
			row = row[:min(len(row), max(end-r.col, r.rowStart+r.Width-r.col))]
		}
	case 'X':
		for i := range min(n, len(row)) {
			row[i] = ' '
		}
	}
	r.cur = append(r.cur[:r.col:r.col], append(row, r.cur[end:]...)...)
	if end == len(r.cur) {
		// The last row: trailing blanks are not text.
		r.cur = []rune(strings.TrimRight(string(r.cur), " "))
		r.cur = append(r.cur, []rune(strings.Repeat(" ", max(0, r.col-len(r.cur))))...)
	}
}

// Take returns the lines finished since the last Take, oldest first.
func (r *Lines) Take() []string {
	l := r.lines
	r.lines = nil
	return l
}

// Line returns the line being written: what follows the last LF.
func (r *Lines) Line() string { return string(r.cur) }

// Cursor returns the cursor's position in the line being written, in
// characters from its start (every row of a wrapped line counts). It may
// be past the line's end.
func (r *Lines) Cursor() int { return r.col }

// BeforeCursor returns the text of the line being written before the
// cursor.
func (r *Lines) BeforeCursor() string { return string(r.cur[:min(r.col, len(r.cur))]) }

// Blank replaces every character of the line being written with a space
// and leaves the cursor where it is: the line's width stays, its text goes.
func (r *Lines) Blank() {
	for i := range r.cur {
		r.cur[i] = ' '
	}
}

// AltScreen reports whether the alternate screen is on: a full-screen
// program draws there, and its output is no line a person reads.
func (r *Lines) AltScreen() bool { return r.alt }

// Redrawn reports whether the output so far moved the cursor to a row
// other than by a line feed (up, down, to a position, a scroll region,
// inserted or deleted rows), as inline TUIs, spinners and progress bars do: what they
// drew there is not in these lines, only on the screen.
func (r *Lines) Redrawn() bool { return r.rowMoves }

// AltScreenExit returns the index in the bytes of the last Write just past
// the last sequence in them that switched the alternate screen off, or -1
// if none did. What follows it is drawn on the normal screen again.
func (r *Lines) AltScreenExit() int { return r.altOff }
