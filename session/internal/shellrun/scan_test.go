package shellrun

import (
	"strings"
	"testing"
)

func TestMarkerScan(t *testing.T) {
	m := newMarkers("0123456789abcdef")
	echo := "$ printf '\\033]7717;tmux-mcp;0123456789abcdef;S\\007'; eval ...\r\n"
	stream := echo + "\x1b[3A\x1b[3G\x1b[Jecho hi\r\n" + string(m.start) +
		"out 1\r\n\x1b]7717;tmux-mcp;other;E;9\aout 2 \x1b]0;title\a" + string(m.end) + "42\a$ "
	want := "out 1\r\n\x1b]7717;tmux-mcp;other;E;9\aout 2 \x1b]0;title\a"
	// Every split of the stream into two writes, and byte by byte.
	splits := [][]string{}
	for i := 0; i <= len(stream); i++ {
		splits = append(splits, []string{stream[:i], stream[i:]})
	}
	bytewise := []string{}
	for i := range len(stream) {
		bytewise = append(bytewise, stream[i:i+1])
	}
	splits = append(splits, bytewise)
	for _, parts := range splits {
		s := NewScan("0123456789abcdef")
		var got strings.Builder
		for _, p := range parts {
			out, ok := s.Feed([]byte(p))
			if !ok {
				t.Fatalf("%q: malformed", parts)
			}
			got.Write(out)
		}
		if !s.Done() || s.Status() != 42 || got.String() != want {
			t.Fatalf("%q: got done %v status %d output %q", parts, s.Done(), s.Status(), got.String())
		}
	}
	// A command that never started hands nothing on.
	s := NewScan("0123456789abcdef")
	if out, _ := s.Feed([]byte(echo + "> ")); len(out) != 0 || s.Begun() {
		t.Fatalf("before the start marker: got %q begun %v", out, s.Begun())
	}
	// A malformed status is reported.
	s = NewScan("0123456789abcdef")
	if _, ok := s.Feed([]byte(string(m.start) + string(m.end) + "x\a")); ok {
		t.Fatal("malformed status: got ok")
	}
}

// TestScanKeepsWhatFollows: what the pane printed after the end marker (the
// next prompt) is kept, in whatever pieces it came, and DropRest forgets it.
func TestScanKeepsWhatFollows(t *testing.T) {
	m := newMarkers("t")
	s := NewScan("t")
	for _, p := range []string{string(m.start) + "out" + string(m.end) + "0\a$", " "} {
		if _, ok := s.Feed([]byte(p)); !ok {
			t.Fatalf("%q: malformed", p)
		}
	}
	if !s.Done() || s.Status() != 0 || string(s.Rest()) != "$ " {
		t.Fatalf("got done %v status %d rest %q; want done, 0, the prompt", s.Done(), s.Status(), s.Rest())
	}
	s.DropRest()
	if len(s.Rest()) != 0 {
		t.Fatalf("after DropRest: %q", s.Rest())
	}
}

// TestScanAfterLoss: once output was lost (AssumeBegun), the start marker
// still cuts off the echo before it if it comes, and without it the end
// marker closes what came since the loss, in whatever pieces it came.
func TestScanAfterLoss(t *testing.T) {
	m := newMarkers("t")
	for _, tc := range []struct {
		name  string
		parts []string
		want  string
	}{
		{"start marker after the loss", []string{"echo of the line", string(m.start) + "out\n", string(m.end) + "3\a"}, "out\n"},
		{"start marker lost", []string{"out\n", "more", string(m.end) + "3\a$ "}, "out\nmore"},
		{"markers split", []string{"echo" + string(m.start[:3]), string(m.start[3:]) + "out" + string(m.end[:4]), string(m.end[4:]) + "3\a"}, "out"},
	} {
		s := NewScan("t")
		s.AssumeBegun()
		var got strings.Builder
		for _, p := range tc.parts {
			out, ok := s.Feed([]byte(p))
			if !ok {
				t.Fatalf("%s: malformed", tc.name)
			}
			got.Write(out)
		}
		if !s.Done() || s.Status() != 3 || got.String() != tc.want {
			t.Errorf("%s: got done %v status %d output %q, want %q", tc.name, s.Done(), s.Status(), got.String(), tc.want)
		}
	}
}
