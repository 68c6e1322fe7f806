package session

import (
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
		if got := typedOf(tc.a); got != tc.want {
			t.Errorf("%+v: typed %q, want %q", tc.a, got, tc.want)
		}
	}
}
