package paneread

import (
	"strings"
	"unicode/utf8"
)

// TrimBlankTail drops the empty lines at the end of a capture: the unused
// rows below the cursor.
func TrimBlankTail(lines []string) []string {
	n := len(lines)
	for n > 0 && lines[n-1] == "" {
		n--
	}
	return lines[:n]
}

// Readable returns rows of a capture (-J: wrapped lines joined) as a
// person reads them: the blank rows at the end and each row's trailing
// spaces left out, except on the cursor's line when it ends the text,
// which keeps its spaces up to the cursor ("$ ", "Continue? [y/N] "): a
// prompt reads as drawn. width is the pane's, cx and cy the cursor's
// column and its line counted from the first row's first line.
func Readable(rows []string, width, cx, cy int) []string {
	rows = TrimBlankTail(rows)
	line := 0 // the first line of the last row
	for i, r := range rows {
		rows[i] = strings.TrimRight(r, " ")
		if i < len(rows)-1 {
			line += ScreenLines(rows[i], width)
		}
	}
	if len(rows) == 0 || width <= 0 {
		return rows
	}
	last := rows[len(rows)-1]
	n := ScreenLines(last, width)
	if cy != line+n-1 {
		return rows // the cursor is elsewhere: below the text, or above its end
	}
	if pad := cx - (utf8.RuneCountInString(last) - (n-1)*width); pad > 0 {
		rows[len(rows)-1] = last + strings.Repeat(" ", pad)
	}
	return rows
}

// ScreenLines returns how many lines of a pane width wide the joined row
// r takes.
func ScreenLines(r string, width int) int {
	if width <= 0 {
		return 1
	}
	return max(1, (utf8.RuneCountInString(r)+width-1)/width)
}
