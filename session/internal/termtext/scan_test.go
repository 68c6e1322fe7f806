package termtext

import (
	"fmt"
	"strings"
	"testing"
)

// scanAll feeds out to a Scanner in pieces of n bytes, a new write for
// each, and describes what each byte completed.
func scanAll(out string, n int) string {
	var sc Scanner
	var b strings.Builder
	for len(out) > 0 {
		piece := out[:min(n, len(out))]
		out = out[len(piece):]
		for i := range len(piece) {
			c := piece[i]
			switch sc.Scan(c) {
			case Text:
				fmt.Fprintf(&b, "t%q ", c)
			case Escape:
				fmt.Fprintf(&b, "esc%q ", c)
			case CSI:
				fmt.Fprintf(&b, "csi%q%q ", sc.Params(), c)
			}
		}
	}
	return strings.TrimSpace(b.String())
}

func TestScanner(t *testing.T) {
	for _, c := range []struct{ name, out, want string }{
		{"text and controls", "a\r\n", `t'a' t'\r' t'\n'`},
		{"a CSI with parameters", "\x1b[1;31mx", `csi"1;31"'m' t'x'`},
		{"a private mode", "\x1b[?1049h", `csi"?1049"'h'`},
		{"a two-byte sequence", "\x1bMa\x1b7", `esc'M' t'a' esc'7'`},
		{"ESC ESC", "\x1b\x1bb", `esc'\x1b' t'b'`},
		{"an OSC title ended by BEL", "\x1b]0;ti\x1btle\x07z", `t'z'`},
		{"a DCS ended by ST, an ESC inside", "\x1bPq\x1bx\x1b\\z", `t'z'`},
		{"APC, PM and SOS strings", "\x1b_a\x07\x1b^b\x07\x1bXc\x07z", `t'z'`},
	} {
		t.Run(c.name, func(t *testing.T) {
			// However the bytes are split across writes, the same.
			for n := 1; n <= len(c.out); n++ {
				if got := scanAll(c.out, n); got != c.want {
					t.Fatalf("in pieces of %d: got %s, want %s", n, got, c.want)
				}
			}
		})
	}
}
