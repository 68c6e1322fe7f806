package controlmode

// visLetters are the C-style escapes of vis(3).
var visLetters = map[byte]byte{'a': '\a', 'b': '\b', 't': '\t', 'n': '\n', 'v': '\v', 'f': '\f', 'r': '\r'}

// Unvis decodes tmux's vis(3) encoding (VIS_OCTAL|VIS_CSTYLE|VIS_TAB,
// with \$ and \" from VIS_DQ, and \ before a lone special character):
// \ooo (one to three octal digits) is a byte, \a \b \t \n \v \f \r the
// control characters, and \ before any other character that character.
// It reports false for a trailing lone backslash, which vis never writes,
// or an octal escape past 0377. tmux vis-encodes %message text and, in
// some releases, what it prints of free text (show-buffer, #{q:}).
func Unvis(s string) ([]byte, bool) {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		if i+1 == len(s) {
			return append(out, c), false
		}
		i++
		c = s[i]
		switch {
		case '0' <= c && c <= '7':
			v := int(c - '0')
			for k := 0; k < 2 && i+1 < len(s) && '0' <= s[i+1] && s[i+1] <= '7'; k++ {
				i++
				v = v<<3 | int(s[i]-'0')
			}
			if v > 0xff {
				return out, false
			}
			out = append(out, byte(v))
		case visLetters[c] != 0:
			out = append(out, visLetters[c])
		default:
			out = append(out, c)
		}
	}
	return out, true
}
