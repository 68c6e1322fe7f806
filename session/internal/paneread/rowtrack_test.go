package paneread

import "testing"

// TestRowTracker: the output reaches the pane through its tty, which
// turns each line feed into CR LF (a bare LF keeps the column, as a
// terminal's does).
func TestRowTracker(t *testing.T) {
	for _, c := range []struct {
		name             string
		width            int
		out              string
		row, col, maxRow int
		ok               bool
	}{
		{"lines", 80, "a\r\nb\r\nc\r\n", 3, 0, 3, true},
		{"CRLF and a partial line", 80, "a\r\nb\r\n50%", 2, 3, 2, true},
		{"a progress bar redrawn with CR", 80, "\r10%\r50%\r100%\r\n", 1, 0, 1, true},
		{"a block redrawn in place", 80, "a: 1\r\nb: 1\r\n\x1b[2Aa: 2\r\nb: 2\r\n\x1b[2Aa: 3\r\nb: 3\r\n", 2, 0, 2, true},
		{"up to column 0 (CSI F) and erase", 80, "x\r\ny\r\n\x1b[2F\x1b[Kx2\r\n\x1b[Jy2\r\n", 2, 0, 2, true},
		{"a line wraps", 10, "0123456789abc\r\n", 2, 0, 2, true},
		{"at the margin, a line feed is one row", 10, "0123456789\r\n", 1, 0, 1, true},
		{"a bare line feed keeps the column", 80, "ab\ncd", 1, 4, 1, true},
		{"a tab", 80, "a\tb", 0, 9, 0, true},
		{"colours and an OSC title", 80, "\x1b[1;31mred\x1b[0m\x1b]0;title\x07\r\n", 1, 0, 1, true},
		{"the cursor hidden and shown", 80, "\x1b[?25lbar\x1b[?25h\r\n", 1, 0, 1, true},
		{"non-ASCII on a short row", 10, "█ 50%\r\n", 1, 0, 1, true},
		{"non-ASCII on a row that wraps", 4, "██████\r\n", 0, 0, 0, false},
		{"an absolute position", 80, "a\x1b[5;1Hb", 0, 0, 0, false},
		{"the alternate screen", 80, "\x1b[?1049hx", 0, 0, 0, false},
		{"a clear screen", 80, "a\x1b[2J", 0, 0, 0, false},
		{"a scroll region", 80, "\x1b[1;5r", 0, 0, 0, false},
		{"above where it began", 80, "a\r\n\x1b[2A", 0, 0, 0, false},
		{"a saved cursor", 80, "\x1b7a\x1b8", 0, 0, 0, false},
		{"ended above its lowest row", 80, "a\r\nb\r\nc\r\n\x1b[2A", 1, 0, 3, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := RowTracker{Width: c.width}
			tr.Write([]byte(c.out))
			row, col, maxRow, ok := tr.Rows()
			if ok != c.ok || ok && (row != c.row || col != c.col || maxRow != c.maxRow) {
				t.Errorf("got row %d col %d max %d ok %v, want %d %d %d %v", row, col, maxRow, ok, c.row, c.col, c.maxRow, c.ok)
			}
		})
	}
	// Bytes split anywhere are read the same.
	whole := RowTracker{Width: 10}
	whole.Write([]byte("ab\r\ncd\x1b[1Aef\r\n\r\n0123456789xy\x1b[1;32mz"))
	split := RowTracker{Width: 10}
	for _, b := range []byte("ab\r\ncd\x1b[1Aef\r\n\r\n0123456789xy\x1b[1;32mz") {
		split.Write([]byte{b})
	}
	if w, s := fmtRows(&whole), fmtRows(&split); w != s || w != [4]any{3, 3, 3, true} {
		t.Errorf("split writes: got %s, want %s", s, w)
	}
}

func fmtRows(t *RowTracker) [4]any {
	r, c, m, ok := t.Rows()
	return [4]any{r, c, m, ok}
}
