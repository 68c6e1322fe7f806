package main

import (
	"errors"
	"slices"
	"testing"
)

func TestSplitWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{"host", []string{"host"}, false},
		{"  -p 2222\tme@box  ", []string{"-p", "2222", "me@box"}, false},
		{`-o 'ProxyCommand=ssh -W %h:%p jump' box`, []string{"-o", "ProxyCommand=ssh -W %h:%p jump", "box"}, false},
		{`-o "SetEnv=A=\"x y\"" box`, []string{"-o", `SetEnv=A="x y"`, "box"}, false},
		{`-i my\ key box`, []string{"-i", "my key", "box"}, false},
		{`''`, []string{""}, false},
		{`a'b'"c"d`, []string{"abcd"}, false},
		{`"a\b"`, []string{`a\b`}, false},
		{"", nil, false},
		{"'open", nil, true},
		{`"open`, nil, true},
		{`end\`, nil, true},
	}
	for _, tt := range tests {
		got, err := splitWords(tt.in)
		if (err != nil) != tt.err || !slices.Equal(got, tt.want) {
			t.Errorf("splitWords(%q): got %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestParseConfigSSH(t *testing.T) {
	env := map[string]string{"LIBTMUX_SSH": "-p 2222 me@env-box"}
	getenv := func(k string) string { return env[k] }
	c, err := parseConfig(nil, getenv)
	if err != nil || !slices.Equal(c.ssh, []string{"-p", "2222", "me@env-box"}) {
		t.Fatalf("LIBTMUX_SSH: got %q, %v", c.ssh, err)
	}
	c, err = parseConfig([]string{"--ssh", "flag-box", "--socket", "work"}, getenv)
	if err != nil || !slices.Equal(c.ssh, []string{"flag-box"}) || c.socket.Name != "work" {
		t.Fatalf("--ssh: got %q %+v, %v", c.ssh, c.socket, err)
	}
	for _, bad := range []string{"'unterminated", "-v", "box ''"} {
		if _, err := parseConfig([]string{"--ssh", bad}, getenv); !errors.Is(err, errUsage) {
			t.Errorf("--ssh %q: got %v, want a usage error", bad, err)
		}
	}
}
