package controlmode_test

import (
	"testing"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

func TestUnvis(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{`plain`, "plain", true},
		{`a\tb\\c\$HOME`, "a\tb\\c$HOME", true},
		{`\033[1m\001\177\377`, "\x1b[1m\x01\x7f\xff", true},
		{`\0a\0001`, "\x00a\x001", true},
		{`\a\b\v\f\r\n`, "\a\b\v\f\r\n", true},
		{`\"q\" \~ \#`, `"q" ~ #`, true},
		{`trailing\`, `trailing\`, false},
		{`\777`, "", false},
	} {
		got, ok := controlmode.Unvis(tc.in)
		if ok != tc.ok || (ok && string(got) != tc.want) {
			t.Errorf("Unvis(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
