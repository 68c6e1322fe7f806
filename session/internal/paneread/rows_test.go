package paneread

import (
	"slices"
	"testing"
)

// TestReadable: rows read from tmux's grid lose their trailing spaces
// and blank tail, except the spaces before the cursor where it ends the
// text, so a prompt reads as drawn ("$ ") wherever a wait reads it.
func TestReadable(t *testing.T) {
	for _, tc := range []struct {
		name          string
		rows          []string
		width, cx, cy int
		want          []string
	}{
		{"prompt", []string{"out", "$ "}, 80, 2, 1, []string{"out", "$ "}},
		{"prompt, drawn blanks", []string{"$   "}, 80, 2, 0, []string{"$ "}},
		{"cursor moved right", []string{"[y/N]"}, 80, 6, 0, []string{"[y/N] "}},
		{"cursor below", []string{"$ ls", "a b", "", ""}, 80, 0, 2, []string{"$ ls", "a b"}},
		{"cursor above the end", []string{"$ ", "status  "}, 80, 2, 0, []string{"$", "status"}},
		{"cursor inside the text", []string{"abc  "}, 80, 1, 0, []string{"abc"}},
		{"wrapped row", []string{"0123456789abc "}, 10, 4, 1, []string{"0123456789abc "}},
		{"wrapped, cursor on its first line", []string{"0123456789abc "}, 10, 4, 0, []string{"0123456789abc"}},
		{"row filling its line, cursor on the next", []string{"0123456789", ""}, 10, 0, 1, []string{"0123456789"}},
		{"empty", []string{"", ""}, 80, 0, 0, []string{}},
		{"width unknown", []string{"$ "}, 0, 2, 0, []string{"$"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Readable(slices.Clone(tc.rows), tc.width, tc.cx, tc.cy)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
