package session

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// lineReader turns a pane's output bytes into the lines a person would
// read, as a terminal draws them on one line: CR moves to the start of the
// line and what follows overwrites, backspace and cursor movement move
// along it, erase-in-line erases, other escape sequences are dropped, and
// LF ends the line. It keeps its state between writes, so a sequence or a
// character split across %output lines is read whole. It also notices the
// alternate screen being switched on and off.
type lineReader struct {
	state  escState
	params []byte // CSI parameters so far
	cur    []rune // the line being written
	col    int    // the cursor's index in cur
	// width is the terminal's width, 0 if unknown. With it a line that
	// wraps is one line of several rows, as tmux draws it: CR, erasing and
	// column moves act on the cursor's row. Line editors that redraw a
	// wrapped command line (zsh) need it.
	width    int
	rowStart int    // the index in cur where the cursor's row starts
	partial  []byte // the start of a UTF-8 character split across writes
	lines    []string
	alt      bool // the alternate screen is on
	altSeen  bool // the alternate screen was switched on at some point
	// altOff is the index in the last write's bytes just after the last
	// sequence that switched the alternate screen off, or -1.
	altOff int
	pos    int // the index of the byte being read in write
}

type escState int

const (
	stText      escState = iota
	stEsc                // after ESC
	stCSI                // after ESC [
	stString             // inside OSC, DCS, APC, PM or SOS, until BEL or ST
	stStringEsc          // ESC inside a string: ST is ESC \
)

// write consumes b.
func (r *lineReader) write(b []byte) {
	r.altOff = -1
	for i, c := range b {
		r.pos = i
		switch r.state {
		case stEsc:
			switch c {
			case '[':
				r.state, r.params = stCSI, r.params[:0]
			case ']', 'P', '_', '^', 'X':
				r.state = stString
			default:
				r.state = stText // a two-byte sequence such as ESC = or ESC 7
			}
			continue
		case stCSI:
			if c >= 0x40 && c <= 0x7e {
				r.csi(c)
				r.state = stText
			} else {
				r.params = append(r.params, c)
			}
			continue
		case stString:
			switch c {
			case 0x07:
				r.state = stText
			case 0x1b:
				r.state = stStringEsc
			}
			continue
		case stStringEsc:
			r.state = stString
			if c == '\\' {
				r.state = stText
			}
			continue
		}
		switch {
		case c == 0x1b:
			r.state = stEsc
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
}

// put draws one character at the cursor.
func (r *lineReader) put(c rune) {
	if r.width > 0 && r.col-r.rowStart >= r.width {
		// Past the last column: the line wraps onto a new row.
		r.rowStart += r.width * ((r.col - r.rowStart) / r.width)
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
func (r *lineReader) csi(final byte) {
	n, err := strconv.Atoi(string(r.params))
	if err != nil {
		n = 0
	}
	switch final {
	case 'K': // erase in line: in the cursor's row
		from, to := r.col, len(r.cur) // 0: to the end of the row
		if r.width > 0 {
			to = min(to, r.rowStart+r.width)
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
	case 'C': // cursor forward
		r.col += max(n, 1)
		if r.width > 0 {
			r.col = min(r.col, r.rowStart+r.width-1)
		}
		return
	case 'D': // cursor back
		r.col = max(r.col-max(n, 1), r.rowStart)
		return
	case 'G': // cursor to column
		r.col = r.rowStart + max(n-1, 0)
		return
	}
	if final != 'h' && final != 'l' || !bytes.HasPrefix(r.params, []byte("?")) {
		return
	}
	for _, p := range strings.Split(string(r.params[1:]), ";") {
		if p == "1049" || p == "1047" || p == "47" {
			r.alt = final == 'h'
			r.altSeen = r.altSeen || r.alt
			if !r.alt {
				r.altOff = r.pos + 1
			}
		}
	}
}

// take returns the lines completed since the last take.
func (r *lineReader) take() []string {
	l := r.lines
	r.lines = nil
	return l
}

// line returns the line being written.
func (r *lineReader) line() string { return string(r.cur) }
