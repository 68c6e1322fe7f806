package recording

import (
	"strings"
	"testing"
)

func TestInputLabel(t *testing.T) {
	for _, tc := range []struct {
		text  string
		enter bool
		label string
		want  string
	}{
		{"ls", true, "", "input: ls ⏎"},
		{"\n", true, "", "input: ⏎"},
		{"a\nb", false, "", "input: a ⏎ b"},
		{"", false, "", "input: keys"},
		{" printf ...", true, "command: ls", "input: command: ls"},
		{" printf ...", true, "command: for i in 1; do\n  echo $i\ndone", "input: command: for i in 1; do ⏎   echo $i ⏎ done"},
		{strings.Repeat("é", 200), false, "", "input: " + strings.Repeat("é", 96) + "…"},
	} {
		if got := inputLabel(tc.text, tc.enter, tc.label); got != tc.want {
			t.Errorf("inputLabel(%q, %v, %q) = %q, want %q", tc.text, tc.enter, tc.label, got, tc.want)
		}
	}
}
