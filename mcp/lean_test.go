package mcp

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestLeanWait(t *testing.T) {
	pad := strings.Repeat(" ", 1129)
	for _, c := range []struct {
		name                  string
		matched, tail         []string
		wantMatched, wantTail []string
	}{
		{"padding and repeats go",
			[]string{pad + "$ "}, []string{"", "  ✢ F  m", "────────", pad + "$ ", "│ > │", "done 42  "},
			[]string{"$"}, []string{"✢ F  m", "done 42"}},
		{"a matched line of punctuation stays", []string{"  >>> "}, []string{">>>", "ok"},
			[]string{">>>"}, []string{"ok"}},
		{"nothing", nil, nil, nil, nil},
	} {
		m, tl := leanWait(c.matched, c.tail)
		if !slices.Equal(m, c.wantMatched) || !slices.Equal(tl, c.wantTail) {
			t.Errorf("%s: got %q, %q; want %q, %q", c.name, m, tl, c.wantMatched, c.wantTail)
		}
	}
}

// TestLeanWaitStaysSmall: a wait's answer on a screen of junk and long
// lines stays under 2 KB, keeping the newest tail lines.
func TestLeanWaitStaysSmall(t *testing.T) {
	var tail []string
	for i := range 40 {
		tail = append(tail, strings.Repeat("x", 300)+" line "+strings.Repeat("y", i))
	}
	matched := slices.Repeat([]string{strings.Repeat("m", 1000)}, 20)
	m, tl := leanWait(matched, tail)
	if len(m) == 0 || len(tl) == 0 || tl[len(tl)-1] != clip(tail[len(tail)-1], leanLineBytes) {
		t.Fatalf("got %d matched, tail %q", len(m), tl)
	}
	b, err := json.Marshal(WaitForTextResult{Found: true, Outcome: "matched", MatchedLines: m, Tail: tl, PaneID: "%12", ElapsedSeconds: seconds(1234567891 * time.Nanosecond), Since: "input", MatchedIn: "output"})
	if err != nil {
		t.Fatal(err)
	}
	if len(b) >= 2048 {
		t.Errorf("the answer is %d bytes, want under 2 KB", len(b))
	}
	if !strings.Contains(string(b), `"elapsed_seconds":1.235`) {
		t.Errorf("elapsed_seconds not to the millisecond: %s", b)
	}
}

func TestClip(t *testing.T) {
	if got := clip("héllo", 4); got != "h…" {
		t.Errorf("clip: got %q", got)
	}
	if got := clip("abc", 3); got != "abc" {
		t.Errorf("clip: got %q", got)
	}
}
