package session

import (
	"reflect"
	"testing"
)

func TestLineReader(t *testing.T) {
	tests := []struct {
		name    string
		chunks  []string
		lines   []string
		partial string
		alt     bool
	}{
		{"crlf lines", []string{"a\r\nb\r\n$ "}, []string{"a", "b"}, "$ ", false},
		{"sgr removed", []string{"\x1b[1;31mred\x1b[0m\r\n"}, []string{"red"}, "", false},
		{"split escape", []string{"x\x1b[3", "1my\r", "\n"}, []string{"xy"}, "", false},
		{"prompt redraw", []string{"$ ec\r\x1b[K$ echo hi\r\n"}, []string{"$ echo hi"}, "", false},
		{"osc title", []string{"\x1b]0;title\x07ok\x1b]2;t\x1b\\!\n"}, []string{"ok!"}, "", false},
		{"backspace moves back", []string{"ab\bc é\b\n"}, []string{"ac é"}, "", false},
		{"cr cr lf", []string{"wake\r\r\n"}, []string{"wake"}, "", false},
		{"progress bar", []string{"10%\r20%\r100%\r\n"}, []string{"100%"}, "", false},
		{"cr overwrites", []string{"hello\rab\n"}, []string{"abllo"}, "", false},
		{"split utf-8", []string{"caf\xc3", "\xa9\n"}, []string{"café"}, "", false},
		{"cursor forward", []string{"a\x1b[3Cb\n"}, []string{"a   b"}, "", false},
		{"alternate screen", []string{"\x1b[?1049hvim"}, nil, "vim", true},
		{"alternate screen left", []string{"\x1b[?1049h\x1b[?1049l$ "}, nil, "$ ", false},
		{"pause marker", []string{"a\x00b\n"}, []string{"ab"}, "", false},
		{"erase to the cursor", []string{"abcdef\x1b[3D\x1b[1K\n"}, []string{"    ef"}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r lineReader
			for _, c := range tt.chunks {
				r.write([]byte(c))
			}
			if got := r.take(); !reflect.DeepEqual(got, tt.lines) {
				t.Errorf("lines: got %q, want %q", got, tt.lines)
			}
			if got := r.line(); got != tt.partial {
				t.Errorf("partial: got %q, want %q", got, tt.partial)
			}
			if r.alt != tt.alt {
				t.Errorf("alt: got %v, want %v", r.alt, tt.alt)
			}
		})
	}
}

func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\r\n\x1b[31mb\x1b]0;x\x07\r\x08c"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r lineReader
		r.write(b)
		for _, l := range append(r.take(), r.line()) {
			for i := 0; i < len(l); i++ {
				if c := l[i]; c == '\n' || c == '\r' || c == 0x1b || c == 0 {
					t.Fatalf("control byte %q left in %q", c, l)
				}
			}
		}
	})
}

// TestLineReaderWraps: with the terminal's width, a line that wraps is one
// line, and a line editor's redraw of its last row (zsh's, at the wrap)
// acts on that row only.
func TestLineReaderWraps(t *testing.T) {
	tests := []struct {
		name    string
		chunks  []string
		lines   []string
		partial string
	}{
		{"auto-wrap", []string{"$ 0123456789abc\r\n"}, []string{"$ 0123456789abc"}, ""},
		{"zsh redraws the row it wrapped onto", []string{"% 01234567", " \r\x1b[K8\r89abc\r\r\n"}, []string{"% 0123456789abc"}, ""},
		{"cr returns to the row's start", []string{"0123456789ab\rX"}, nil, "0123456789Xb"},
		{"erase the cursor's row only", []string{"0123456789ab\r\x1b[10D\x1b[2K"}, nil, "0123456789"},
		{"column in the row", []string{"0123456789ab\x1b[1GZ\n"}, []string{"0123456789Zb"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := lineReader{width: 10}
			for _, c := range tt.chunks {
				r.write([]byte(c))
			}
			if got := r.take(); !reflect.DeepEqual(got, tt.lines) {
				t.Errorf("lines: got %q, want %q", got, tt.lines)
			}
			if got := r.line(); got != tt.partial {
				t.Errorf("partial: got %q, want %q", got, tt.partial)
			}
		})
	}
}
