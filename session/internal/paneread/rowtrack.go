package paneread

import (
	"strconv"

	"github.com/tmux-mcp/tmux-mcp/session/internal/termtext"
)

// RowTracker follows where output moves a terminal's cursor, in rows from
// where it started and in columns, for output that moves it by line feeds,
// wrapping and relative moves only (progress bars, a spinner's line, a
// block of lines redrawn in place): enough to know which rows of tmux's
// grid a command's output covers. Output that places the cursor by
// absolute position, scrolls a region, clears the screen or switches to
// the alternate screen makes it lost: [RowTracker.Rows] then reports
// false. It assumes the cursor starts on column 0.
//
// Characters other than ASCII count one column; one on a row that wraps
// makes the tracker lost, since its width is not known here.
type RowTracker struct {
	Width int // the terminal's width; 0 makes any wrap lost

	row, maxRow int
	minRow      int  // the highest row the cursor reached, before it was lost
	col         int  // 0..Width; Width: at the right margin, the next character wraps
	unsure      bool // a character of unknown width is on the cursor's row
	lost        bool
	sc          termtext.Scanner
}

// Rows returns the row the cursor is on, counted from the first, the
// column it is at, and the lowest row the output reached; ok is false
// once the tracker is lost.
func (t *RowTracker) Rows() (row, col, maxRow int, ok bool) {
	return t.row, min(t.col, max(t.Width-1, 0)), t.maxRow, !t.lost
}

// Highest returns the highest row the output moved the cursor to by
// relative moves, counted from the first row (negative: above it), until
// the tracker was lost.
func (t *RowTracker) Highest() int { return t.minRow }

// Write follows b. It always returns len(b) and a nil error.
func (t *RowTracker) Write(b []byte) (int, error) {
	for _, c := range b {
		if t.lost {
			break
		}
		switch t.sc.Scan(c) {
		case termtext.Escape:
			t.esc(c)
			continue
		case termtext.CSI:
			t.csi(c)
			continue
		case termtext.InSequence:
			continue
		}
		switch {
		case c == '\n', c == '\v', c == '\f':
			t.down(1)
		case c == '\r':
			t.col = 0
		case c == '\b':
			t.col = max(min(t.col, t.Width-1)-1, 0)
		case c == '\t':
			t.put(8 - t.col%8)
		case c < 0x20 || c == 0x7f:
		case c < 0x80 || c >= 0xc0:
			// ASCII, or the first byte of a UTF-8 character.
			if c >= 0x80 {
				t.unsure = true
			}
			t.put(1)
		}
	}
	return len(b), nil
}

// put writes a character n columns wide at the cursor.
func (t *RowTracker) put(n int) {
	if t.Width <= 0 {
		t.col += n
		return
	}
	if t.col >= t.Width {
		if t.unsure {
			t.lost = true
			return
		}
		t.down(1)
		t.col = 0
	}
	t.col = min(t.col+n, t.Width)
}

func (t *RowTracker) down(n int) {
	t.row += n
	t.maxRow = max(t.maxRow, t.row)
	t.unsure = false
}

// esc follows ESC and c.
func (t *RowTracker) esc(c byte) {
	switch c {
	case 'D': // index
		t.down(1)
	case 'E': // next line
		t.down(1)
		t.col = 0
	case 'M', '7', '8', 'c':
		// Reverse index (it scrolls at the top), a saved cursor, a reset.
		t.lost = true
	}
}

// csi follows a control sequence ending in final.
func (t *RowTracker) csi(final byte) {
	params := string(t.sc.Params())
	if len(params) > 0 && (params[0] == '?' || params[0] == '>' || params[0] == '=') {
		// Private modes: the alternate screen and the like.
		if final == 'h' || final == 'l' {
			t.lost = t.lost || params != "?25" && params != "?7" && params != "?2004"
		}
		return
	}
	n, err := strconv.Atoi(params)
	if err != nil || n < 1 {
		n = 1
	}
	switch final {
	case 'A': // up
		t.row -= n
		t.minRow = min(t.minRow, t.row)
		t.unsure = false
	case 'B': // down
		t.down(n)
	case 'E': // down, column 0
		t.down(n)
		t.col = 0
	case 'F': // up, column 0
		t.row -= n
		t.minRow = min(t.minRow, t.row)
		t.col, t.unsure = 0, false
	case 'C':
		t.col = min(min(t.col, t.Width-1)+n, max(t.Width-1, 0))
	case 'D':
		t.col = max(min(t.col, t.Width-1)-n, 0)
	case 'G':
		t.col = min(n-1, max(t.Width-1, 0))
	case 'K', 'P', '@', 'X', 'm':
		// Erasing or editing the row, colours: the cursor stays.
	case 'J':
		if params == "2" || params == "3" {
			t.lost = true // tmux may scroll the cleared screen into history
		}
	default:
		// Absolute positions, scroll regions, scrolling, rows inserted or
		// deleted: rows this tracker cannot place.
		t.lost = true
	}
	if t.row < 0 {
		t.lost = true // above where the output began
	}
}
