package paneread

import (
	"slices"
	"strings"
	"testing"
)

func TestMatcher(t *testing.T) {
	lines := []string{"$ make", "Build OK", "error: disk full", "$ "}
	for _, c := range []struct {
		name             string
		patterns         []string
		regex, matchCase bool
		index            int
		hit              []string
	}{
		{"substring, any case", []string{"build ok"}, false, false, 0, []string{"Build OK"}},
		{"substring, case kept", []string{"build ok"}, false, true, -1, nil},
		{"the first pattern that matches wins", []string{"nothing", "$"}, false, false, 1, []string{"$ make", "$ "}},
		{"regex anchored", []string{`^\$ $`}, true, true, 0, []string{"$ "}},
		{"regex, any case", []string{`^ERROR:`}, true, false, 0, []string{"error: disk full"}},
		{"regex metacharacters are text without regex", []string{`$ (`}, false, false, -1, nil},
		{"no patterns", nil, false, false, -1, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := Compile(c.patterns, c.regex, c.matchCase)
			if err != nil {
				t.Fatal(err)
			}
			i, hit := m.First(lines)
			if i != c.index || !slices.Equal(hit, c.hit) {
				t.Errorf("got %d %q, want %d %q", i, hit, c.index, c.hit)
			}
		})
	}
	if _, err := Compile([]string{"ok", "(unclosed"}, true, false); err == nil || !strings.Contains(err.Error(), "(unclosed") {
		t.Errorf("a bad regular expression: got %v, want an error naming it", err)
	}
}

func TestTail(t *testing.T) {
	var tl Tail
	for i := range 30 {
		tl.Add(strings.Repeat("x", i))
	}
	if len(tl) != TailLines || tl[0] != strings.Repeat("x", 10) {
		t.Fatalf("30 short lines: kept %d from %q, want the last %d", len(tl), tl[0], TailLines)
	}
	tl = nil
	tl.Add("first", strings.Repeat("y", 1500), strings.Repeat("z", 1000))
	if len(tl) != 1 || tl[0] != strings.Repeat("z", 1000) {
		t.Fatalf("over %d bytes: kept %d lines, want the last one", TailBytes, len(tl))
	}
	tl.Add(strings.Repeat("w", 1046)) // 1,001 + 1,047 bytes: exactly the bound
	if len(tl) != 2 {
		t.Fatalf("at the bound: kept %d lines, want 2", len(tl))
	}
}
