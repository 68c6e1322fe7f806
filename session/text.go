package session

import (
	"bytes"
	"strings"
)

// lineReader turns a pane's output bytes into the lines a person would
// read: escape sequences removed, CR LF ending a line, a lone CR starting
// the line over (as a prompt redraw does), backspace erasing. It keeps its
// state between writes, so a sequence split across %output lines is read
// whole. It also notices the alternate screen being switched on and off.
type lineReader struct {
	state   escState
	params  []byte // CSI parameters so far
	cur     []byte // the line being written
	cr      bool   // a CR was seen and no byte after it yet
	lines   []string
	alt     bool // the alternate screen is on
	altSeen bool // the alternate screen was switched on at some point
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
	for _, c := range b {
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
		if r.cr && c != '\n' {
			// A lone CR: the line is being drawn again from its start.
			r.cur = r.cur[:0]
		}
		r.cr = false
		switch {
		case c == 0x1b:
			r.state = stEsc
		case c == '\n':
			r.lines = append(r.lines, string(r.cur))
			r.cur = r.cur[:0]
		case c == '\r':
			r.cr = true
		case c == '\b':
			if n := len(r.cur); n > 0 {
				// Back over one UTF-8 character.
				i := n - 1
				for i > 0 && r.cur[i]&0xc0 == 0x80 {
					i--
				}
				r.cur = r.cur[:i]
			}
		case c == '\t':
			r.cur = append(r.cur, c)
		case c < 0x20 || c == 0x7f:
			// NUL (a pause marker), BEL and other controls show nothing.
		default:
			r.cur = append(r.cur, c)
		}
	}
}

// csi acts on the one control sequence that matters for reading text:
// the alternate screen.
func (r *lineReader) csi(final byte) {
	if final != 'h' && final != 'l' || !bytes.HasPrefix(r.params, []byte("?")) {
		return
	}
	for _, p := range strings.Split(string(r.params[1:]), ";") {
		if p == "1049" || p == "1047" || p == "47" {
			r.alt = final == 'h'
			r.altSeen = r.altSeen || r.alt
		}
	}
}

// take returns the lines completed since the last take.
func (r *lineReader) take() []string {
	l := r.lines
	r.lines = nil
	return l
}

// partial returns the line being written.
func (r *lineReader) partial() string { return string(r.cur) }
