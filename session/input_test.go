package session

import (
	"slices"
	"strings"
	"testing"
)

func TestIsKeyName(t *testing.T) {
	for k, want := range map[string]bool{
		"C-c": true, "M-x": true, "C-M-a": true, "S-Left": true, "Enter": true, "Escape": true,
		"F5": true, "F12": true, "^C": true, "BSpace": true, "KPEnter": true, "Up": true,
		"": false, "q": false, "ls": false, "ls -la": false, "echo C-c": false, "Fix": false,
		"make test": false, "Cc": false, "C-": false, "sleep 2; echo DONE": false,
	} {
		if got := isKeyName(k); got != want {
			t.Errorf("isKeyName(%q): got %v, want %v", k, got, want)
		}
	}
	if got := typedText("C-c", true); got != "C-c" {
		t.Errorf("typedText literal C-c: got %q, want the text", got)
	}
	if got := typedText("C-c", false); got != "" {
		t.Errorf("typedText key C-c: got %q, want nothing typed", got)
	}
}

func TestEchoFilter(t *testing.T) {
	cases := []struct {
		name    string
		typed   []string
		lines   []string // completed lines, in order
		program []string // those that are not echo
	}{
		{"command then output", []string{"sleep 2; echo DONE_42"},
			[]string{"$ sleep 2; echo DONE_42", "DONE_42", "$ "}, []string{"DONE_42", "$ "}},
		{"echo from mid-line", []string{"sleep 2; echo DONE_42"},
			[]string{"sleep 2; echo DONE_42", "DONE_42"}, []string{"DONE_42"}},
		{"suppressed history", []string{" ls"},
			[]string{"$  ls", "a b c"}, []string{"a b c"}},
		{"typed ahead, echoed twice", []string{"make test all"},
			[]string{"make test all", "old output", "$ make test all", "ok"}, []string{"old output", "ok"}},
		{"short input skipped once", []string{"y"},
			[]string{"Continue? [y/N] y", "ready, honestly", "done by"}, []string{"ready, honestly", "done by"}},
		{"several lines", []string{"for i in 1 2", "do echo $i; done"},
			[]string{"$ for i in 1 2", "> do echo $i; done", "1", "2"}, []string{"1", "2"}},
		{"no echo (a password)", []string{"hunter2secret"},
			[]string{"ok"}, []string{"ok"}},
		{"nothing typed", nil,
			[]string{"^C", "$ "}, []string{"^C", "$ "}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEchoFilter(c.typed)
			var got []string
			for _, l := range c.lines {
				if !e.line(l) {
					got = append(got, l)
				}
			}
			if !slices.Equal(got, c.program) {
				t.Fatalf("got %q, want %q", got, c.program)
			}
			if want := len(c.lines) - len(c.program); e.skipped != want {
				t.Fatalf("skipped %d, want %d", e.skipped, want)
			}
		})
	}
}

func TestEchoFilterPartial(t *testing.T) {
	e := newEchoFilter([]string{"sleep 2; echo DONE_42"})
	for l, want := range map[string]bool{
		"$ sleep 2; ec":           true, // the echo, half written
		"$ sleep 2; echo DONE_42": true, // written, the newline still to come
		"Password: ":              false,
		"":                        false,
	} {
		if got := e.partial(l); got != want {
			t.Errorf("partial(%q): got %v, want %v", l, got, want)
		}
	}
	if (*echoFilter)(nil).partial("x") || (*echoFilter)(nil).line("x") {
		t.Error("a nil filter took a line for echo")
	}
}

func TestLastEcho(t *testing.T) {
	rows := []string{"$ make", "old", "$ make", "building", "$ "}
	if got := lastEcho(rows, []string{"make"}); got != 2 {
		t.Fatalf("got %d, want 2", got)
	}
	if got := lastEcho(rows, []string{"deploy"}); got != -1 {
		t.Fatalf("got %d, want -1", got)
	}
}

func TestOutputTextLeavesEchoOut(t *testing.T) {
	o := outputText{echo: newEchoFilter([]string{"sleep 1; echo READY"})}
	// The echo arrives in two pieces: neither may be taken for output.
	lines, partial := o.write([]byte("$ sleep 1; echo RE"))
	if len(lines) != 0 || partial != "" {
		t.Fatalf("half the echo: got %q %q, want nothing", lines, partial)
	}
	lines, partial = o.write([]byte("ADY\r\n"))
	if len(lines) != 0 || partial != "" {
		t.Fatalf("the rest of the echo: got %q %q, want nothing", lines, partial)
	}
	lines, partial = o.write([]byte("READY\r\n$ "))
	if !slices.Equal(lines, []string{"READY"}) || partial != "$ " {
		t.Fatalf("output: got %q %q, want READY, then the prompt", lines, partial)
	}
}

func TestMayWrap(t *testing.T) {
	for _, c := range []struct {
		text  string
		width int
		want  bool
	}{
		{"q", 80, false},
		{":wq", 80, false},
		{"make test", 80, false},
		{"sleep 0.5; echo " + strings.Repeat("x", 30), 80, true},
		{"short\n" + strings.Repeat("x", 50), 80, true},
		{"q", 0, true}, // width unknown
		{"", 80, false},
	} {
		if got := mayWrap(c.text, c.width); got != c.want {
			t.Errorf("mayWrap(%d bytes, %d): got %v, want %v", len(c.text), c.width, got, c.want)
		}
	}
}

func TestTypedOfAKeyList(t *testing.T) {
	for _, tc := range []struct {
		a    SendKeysArgs
		want string
	}{
		{SendKeysArgs{Keys: "echo hi"}, "echo hi"},
		{SendKeysArgs{Keys: "C-c"}, ""},
		{SendKeysArgs{KeyList: []string{"Escape", ":wq"}}, ":wq"},
		{SendKeysArgs{KeyList: []string{"def f(x):", "Enter", "    return x", "Enter"}}, "def f(x):\n    return x\n"},
		{SendKeysArgs{KeyList: []string{"Enter", "C-c"}, Literal: true}, "EnterC-c"},
	} {
		if got := tc.a.typed(); got != tc.want {
			t.Errorf("%+v: typed %q, want %q", tc.a, got, tc.want)
		}
	}
}
