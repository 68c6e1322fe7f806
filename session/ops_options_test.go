package session

import (
	"reflect"
	"testing"
)

func TestParseOption(t *testing.T) {
	for _, tc := range []struct {
		name           string
		query          string
		listed, values []string
		want           OptionValue
	}{
		{"unset", "history-limit", nil, nil, OptionValue{}},
		{"scalar", "history-limit", []string{"history-limit 2000"}, []string{"2000"}, OptionValue{Set: true, Value: "2000"}},
		{"inherited", "history-limit", []string{"history-limit* 2000"}, []string{"2000"}, OptionValue{Set: true, Value: "2000", Inherited: true}},
		{"multi-line string", "@m", []string{`@m "a\nb"`}, []string{"a", "b"}, OptionValue{Set: true, Value: "a\nb"}},
		{"empty string", "@e", []string{"@e ''"}, []string{""}, OptionValue{Set: true, Value: ""}},
		{"empty array", "user-keys", []string{"user-keys"}, nil, OptionValue{}},
		{"array", "command-alias",
			[]string{"command-alias[0] split-pane=split-window", `command-alias[5] "info=show-messages -JT"`},
			[]string{"split-pane=split-window", "info=show-messages -JT"},
			OptionValue{Set: true, Array: map[int]string{0: "split-pane=split-window", 5: "info=show-messages -JT"}}},
		{"array item spanning lines", "@a",
			[]string{`@a[0] "x\ny"`, "@a[1] z"},
			[]string{"x", "y", "z"},
			OptionValue{Set: true, Array: map[int]string{0: "x\ny", 1: "z"}}},
		{"one item", "command-alias[5]", []string{`command-alias[5] "info=show-messages -JT"`}, []string{"info=show-messages -JT"},
			OptionValue{Set: true, Value: "info=show-messages -JT"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseOption(tc.query, tc.listed, tc.values); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestUnescapeArg(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:                        "plain",
		`''`:                           "",
		`"a \"b\" 'c' \$HOME #{x} \\"`: `a "b" 'c' $HOME #{x} \`,
		`'say "hi"'`:                   `say "hi"`,
		`\~`:                           "~",
		`"tab\there\nnl"`:              "tab\there\nnl",
	} {
		if got := unescapeArg(in); got != want {
			t.Errorf("unescapeArg(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestParseShellEnv(t *testing.T) {
	text := "A=\"1\"; export A;\nunset GONE;\nFOO=\"multi\nline \\\"q\\\" \\$x \\`bt\\` \\\\bs\"; export FOO;\nE=\"\"; export E;"
	got, ok := parseShellEnv(text)
	want := []EnvVar{{Name: "A", Value: "1"}, {Name: "GONE", Removed: true},
		{Name: "FOO", Value: "multi\nline \"q\" $x `bt` \\bs"}, {Name: "E"}}
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, %v; want %+v", got, ok, want)
	}
	for _, bad := range []string{"A=1", "A=\"1\"; export B;", "unset X", "A=\"x"} {
		if _, ok := parseShellEnv(bad); ok {
			t.Errorf("parseShellEnv(%q) accepted", bad)
		}
	}
}

func TestParseHooks(t *testing.T) {
	got := parseHooks([]string{"after-new-window", "session-renamed[0] display-message \"hi there\"", "pane-exited[3] display x"})
	want := []Hook{
		{Name: "session-renamed", Index: 0, Indexed: true, Command: `display-message "hi there"`},
		{Name: "pane-exited", Index: 3, Indexed: true, Command: "display x"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestOptionTableFlags(t *testing.T) {
	for _, tc := range []struct {
		t    OptionTable
		want []string
		err  bool
	}{
		{OptionTable{}, nil, false},
		{OptionTable{Global: true}, []string{"-g"}, false},
		{OptionTable{Scope: ScopeServer, Target: "ignored"}, []string{"-s"}, false},
		{OptionTable{Scope: ScopeSession, Target: "work"}, []string{"-t", "=work:"}, false},
		{OptionTable{Scope: ScopeSession, Target: "$3"}, []string{"-t", "$3"}, false},
		{OptionTable{Scope: ScopeWindow, Target: "@2", Global: true}, []string{"-g", "-w", "-t", "@2"}, false},
		{OptionTable{Scope: ScopePane, Target: "%1"}, []string{"-p", "-t", "%1"}, false},
		{OptionTable{Target: "work"}, nil, true},
		{OptionTable{Scope: "client"}, nil, true},
	} {
		got, err := tc.t.flags()
		if (err != nil) != tc.err || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%+v: got %q, %v; want %q, error %v", tc.t, got, err, tc.want, tc.err)
		}
	}
}
