package modekeys

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func load(t *testing.T, release string) *Table {
	t.Helper()
	read := func(name string) []string {
		b, err := os.ReadFile("testdata/" + name + "-" + release + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	return Parse(read("copy-mode"), read("copy-mode-vi"))
}

// TestParseDefaultTables reads the default tables as tmux 3.7c and 3.8 list
// them: 3.8's prompt keys wait in the pane, 3.7c's prompts are the client's
// (held by tmux-mcp, so they never wait), and incremental search never waits.
func TestParseDefaultTables(t *testing.T) {
	t38 := load(t, "38")
	for _, k := range []string{"g", "f", "F", "t", "T", "M-1", "M-9"} {
		if !t38.emacs[k] {
			t.Errorf("3.8 copy-mode %q: not found waiting", k)
		}
	}
	for _, k := range []string{":", "/", "?", "f", "F", "t", "T", "1", "9"} {
		if !t38.vi[k] {
			t.Errorf("3.8 copy-mode-vi %q: not found waiting", k)
		}
	}
	for _, k := range []string{"C-r", "C-s", "q", "Space", "Enter", "Escape", "n", "r"} {
		if t38.emacs[k] {
			t.Errorf("3.8 copy-mode %q: found waiting, does not wait", k)
		}
	}
	for _, k := range []string{"g", "G", "q", "Enter", "n"} {
		if t38.vi[k] {
			t.Errorf("3.8 copy-mode-vi %q: found waiting, does not wait", k)
		}
	}
	t37 := load(t, "37")
	if len(t37.emacs)+len(t37.vi) != 0 {
		t.Errorf("3.7c: waiting keys %v %v; its prompts are the client's and none waits", t37.emacs, t37.vi)
	}
}

func TestWaits(t *testing.T) {
	for _, c := range []struct {
		command string
		want    bool
	}{
		{`command-prompt -P -p "(goto line)" { send-keys -X goto-line -- "%%" }`, true},
		{`command-prompt -1P -p "(jump backward)" { send-keys -X jump-backward -- "%%" }`, true},
		{`command-prompt -NP -I 1 -p (repeat) { send-keys -N "%%" }`, true},
		{`command-prompt -Pi -I "#{pane_search_string}" -T search -p "(search up)" { x }`, false},
		{`command-prompt -bP -p x { y }`, false},
		{`command-prompt -p "(goto line)" { send-keys -X goto-line -- "%%" }`, false},
		// A value that looks like flags is not read as flags.
		{`command-prompt -p -P { y }`, false},
		{`command-prompt -T -P -p x`, false},
		{`command-prompt -I -b -P -p x`, true},
		{`send-keys -X cancel ; command-prompt -P -p x { y }`, true},
		{`send-keys -X search-again`, false},
		{`display-message command-prompt`, false},
	} {
		if got := Waits(c.command); got != c.want {
			t.Errorf("Waits(%q) = %v, want %v", c.command, got, c.want)
		}
	}
}

func TestGuard(t *testing.T) {
	tb := load(t, "38")
	for _, c := range []struct {
		keys    []string
		count   string // "" for no guard
		waiting []string
	}{
		{[]string{"q"}, "", nil},
		{[]string{"C-r", "Enter"}, "", nil},
		{[]string{"g"}, "#{?#{&&:" + copyMode + ",#{!=:#{mode-keys},vi}},0,1}", []string{"g"}},
		{[]string{":"}, "#{?#{&&:" + copyMode + ",#{==:#{mode-keys},vi}},0,1}", []string{":"}},
		{[]string{"f", "o", "f"}, "#{?#{&&:" + copyMode + ",1},0,1}", []string{"f"}},
	} {
		count, waiting := tb.Guard(c.keys)
		if count != c.count || !slices.Equal(waiting, c.waiting) {
			t.Errorf("Guard(%q) = %q, %q; want %q, %q", c.keys, count, waiting, c.count, c.waiting)
		}
	}
	var none *Table
	if count, _ := none.Guard([]string{"g"}); count != "" {
		t.Errorf("a nil Table guards: %q", count)
	}
}

func TestKeys(t *testing.T) {
	for _, c := range []struct {
		arg              string
		literal, keyName bool
		want             []string
	}{
		{"C-r", false, true, []string{"C-r"}},
		{"C-r", true, true, []string{"C", "-", "r"}},
		{"go fé", false, false, []string{"g", "o", "Space", "f", "é"}},
		{"a\tb\r\x1b\x7f\x01", true, false, []string{"a", "Tab", "b", "Enter", "Escape", "BSpace", "C-a"}},
	} {
		if got := Keys(c.arg, c.literal, c.keyName); !slices.Equal(got, c.want) {
			t.Errorf("Keys(%q, %v, %v) = %q, want %q", c.arg, c.literal, c.keyName, got, c.want)
		}
	}
}

func TestFromListKeys(t *testing.T) {
	lines := []string{
		`bind-key -T copy-mode-vi y                 send-keys -X copy-selection`,
		`bind-key -r -T copy-mode-vi \#             send-keys -FX search-backward "#{copy_cursor_word}"`,
		`bind-key -T copy-mode "\""              send-keys -X copy-selection-no-clear`,
		`bind-key -T copy-mode-vi \;              send-keys -X jump-again`,
	}
	got := FromListKeys(lines)
	want := []string{
		`y send-keys -X copy-selection`,
		`# send-keys -FX search-backward "#{copy_cursor_word}"`,
		`" send-keys -X copy-selection-no-clear`,
		`; send-keys -X jump-again`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	tb := ParseCrashing(got, nil, func(c string) bool { return c == "copy-selection" || c == "copy-selection-no-clear" })
	if c := tb.Crashing([]string{"y", "k", `"`, "y"}); strings.Join(c, ",") != `y,"` {
		t.Errorf("Crashing: got %q, want y and \"", c)
	}
}
