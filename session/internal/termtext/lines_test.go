package termtext_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/session/internal/termtext"
)

// render writes each chunk to a Lines of the given width in turn.
func render(t *testing.T, width int, chunks []string) *termtext.Lines {
	t.Helper()
	r := &termtext.Lines{Width: width}
	for _, c := range chunks {
		if n, err := r.Write([]byte(c)); n != len(c) || err != nil {
			t.Fatalf("Write(%q): got %d, %v, want %d, nil", c, n, err, len(c))
		}
	}
	return r
}

func TestLines(t *testing.T) {
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
		// Line editors edit in place: delete, insert and erase characters.
		{"delete chars", []string{"$ echo XXhi\x1b[4D\x1b[2P\r\n"}, []string{"$ echo hi"}, "", false},
		{"insert chars", []string{"$ ecio\x1b[2D\x1b[1@h\r\n"}, []string{"$ echio"}, "", false},
		{"insert then type", []string{"$ eo\x1b[D\x1b[2@ch\r\n"}, []string{"$ echo"}, "", false},
		{"erase chars", []string{"abcdef\x1b[4D\x1b[2X\r\n"}, []string{"ab  ef"}, "", false},
		{"delete to the end", []string{"abc\x1b[2D\x1b[5P\r\n"}, []string{"a"}, "", false},
		{"cr overwrites", []string{"hello\rab\n"}, []string{"abllo"}, "", false},
		{"split utf-8", []string{"caf\xc3", "\xa9\n"}, []string{"café"}, "", false},
		{"cursor forward", []string{"a\x1b[3Cb\n"}, []string{"a   b"}, "", false},
		{"alternate screen", []string{"\x1b[?1049hvim"}, nil, "vim", true},
		{"alternate screen left", []string{"\x1b[?1049h\x1b[?1049l$ "}, nil, "$ ", false},
		{"pause marker", []string{"a\x00b\n"}, []string{"ab"}, "", false},
		{"erase to the cursor", []string{"abcdef\x1b[3D\x1b[1K\n"}, []string{"    ef"}, "", false},

		{"cr overwrites a wide character", []string{"日本\rx\n"}, []string{"x本"}, "", false},
		{"lf alone ends the line", []string{"a\nb\n"}, []string{"a", "b"}, "", false},
		{"backspace stops at the line's start", []string{"\b\bab\b\b\bc\n"}, []string{"cb"}, "", false},
		{"backspace over a wide character", []string{"€x\b\by\n"}, []string{"yx"}, "", false},
		{"erase from the cursor", []string{"abcdef\x1b[3D\x1b[K\n"}, []string{"abc"}, "", false},
		{"erase from the cursor, then type", []string{"abcdef\x1b[3D\x1b[0Kxy\n"}, []string{"abcxy"}, "", false},
		{"erase the whole line keeps the cursor", []string{"abcdef\x1b[3D\x1b[2Kx\n"}, []string{"   x"}, "", false},
		{"erase past the end does nothing", []string{"ab\x1b[5C\x1b[K\n"}, []string{"ab"}, "", false},
		{"erase to the cursor past the end", []string{"ab\x1b[5C\x1b[1K\n"}, []string{"  "}, "", false},
		{"cursor forward by one by default", []string{"a\x1b[Cb\x1b[0Cc\n"}, []string{"a b c"}, "", false},
		{"cursor forward keeps what it passes", []string{"abcd\r\x1b[2CX\n"}, []string{"abXd"}, "", false},
		{"cursor forward alone adds nothing", []string{"a\x1b[4C\n"}, []string{"a"}, "", false},
		{"cursor back", []string{"abcd\x1b[2DX\x1b[DY\n"}, []string{"abYd"}, "", false},
		{"cursor back stops at the start", []string{"ab\x1b[9DX\n"}, []string{"Xb"}, "", false},
		{"cursor to column", []string{"abcd\x1b[2GX\x1b[GY\n"}, []string{"YXcd"}, "", false},
		{"tab is kept", []string{"a\tb\n"}, []string{"a\tb"}, "", false},
		{"bel and del show nothing", []string{"a\x07b\x7fc\x01\n"}, []string{"abc"}, "", false},
		{"two-byte escapes dropped", []string{"\x1b7a\x1b8\x1b=b\n"}, []string{"ab"}, "", false},
		{"other csi dropped", []string{"\x1b[2J\x1b[H\x1b[?25la\x1b[5;10Hb\n"}, []string{"ab"}, "", false},
		{"dcs dropped", []string{"\x1bPq#0;1\x1b\\a\n"}, []string{"a"}, "", false},
		{"apc, pm and sos dropped", []string{"\x1b_x\x07a\x1b^y\x07b\x1bXz\x07c\n"}, []string{"abc"}, "", false},
		{"esc inside a string is no end", []string{"\x1b]0;a\x1bb\x07c\n"}, []string{"c"}, "", false},

		{"escape split after esc", []string{"a\x1b", "[31mb\n"}, []string{"ab"}, "", false},
		{"escape split in its parameters", []string{"abcd\x1b[", "2", "DX\n"}, []string{"abXd"}, "", false},
		{"osc split", []string{"\x1b]0;ti", "tle\x07ok\n"}, []string{"ok"}, "", false},
		{"st split", []string{"\x1b]0;t\x1b", "\\ok\n"}, []string{"ok"}, "", false},
		{"a line over three writes", []string{"$ ec", "ho h", "i\r\n"}, []string{"$ echo hi"}, "", false},
		{"three-byte character split after one", []string{"\xe2", "\x82\xac\n"}, []string{"€"}, "", false},
		{"three-byte character split after two", []string{"\xe2\x82", "\xac\n"}, []string{"€"}, "", false},
		{"four-byte character a byte a write", []string{"\xf0", "\x9f", "\x98", "\x80\n"}, []string{"😀"}, "", false},

		{"invalid byte", []string{"a\xffb\n"}, []string{"a\uFFFDb"}, "", false},
		{"lone continuation byte", []string{"a\x80b\n"}, []string{"a\uFFFDb"}, "", false},
		{"overlong encoding", []string{"\xc0\xaf\n"}, []string{"\uFFFD\uFFFD"}, "", false},

		{"alternate screen 1047", []string{"\x1b[?1047hless"}, nil, "less", true},
		{"alternate screen 47, left", []string{"\x1b[?47h\x1b[?47l"}, nil, "", false},
		{"alternate screen among other modes", []string{"\x1b[?1;1049;25h"}, nil, "", true},
		{"alternate screen switch split", []string{"\x1b[?10", "49h"}, nil, "", true},
		{"not a private mode", []string{"\x1b[1049h"}, nil, "", false},
		{"another private mode", []string{"\x1b[?1h\x1b[?2004h"}, nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := render(t, 0, tt.chunks)
			if got := r.Take(); !slices.Equal(got, tt.lines) {
				t.Errorf("lines: got %q, want %q", got, tt.lines)
			}
			if got := r.Line(); got != tt.partial {
				t.Errorf("partial: got %q, want %q", got, tt.partial)
			}
			if r.AltScreen() != tt.alt {
				t.Errorf("alt: got %v, want %v", r.AltScreen(), tt.alt)
			}
		})
	}
}

// TestLinesWraps: with the terminal's width, a line that wraps is one
// line, and a line editor's redraw of its last row (zsh's, at the wrap)
// acts on that row only.
func TestLinesWraps(t *testing.T) {
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
		{"backspace stops at the row's start", []string{"0123456789ab\b\b\bX"}, nil, "0123456789Xb"},
		{"cursor back stops at the row's start", []string{"0123456789abcdefghijklm\x1b[5D\x1b[K"}, nil, "0123456789abcdefghij"},
		{"cursor forward stops at the last column", []string{"ab\x1b[50CX\n"}, []string{"ab       X"}, ""},
		{"cr after a full row is on the next row", []string{"0123456789\rX\n"}, []string{"X123456789"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := render(t, 10, tt.chunks)
			if got := r.Take(); !slices.Equal(got, tt.lines) {
				t.Errorf("lines: got %q, want %q", got, tt.lines)
			}
			if got := r.Line(); got != tt.partial {
				t.Errorf("partial: got %q, want %q", got, tt.partial)
			}
		})
	}
}

// TestLinesBoundsCursorMoves: a cursor move with a huge count neither
// overflows the cursor nor draws a line longer than the widest pane.
func TestLinesBoundsCursorMoves(t *testing.T) {
	const widest = 10000 // tmux's WINDOW_MAXIMUM
	tests := []struct {
		name  string
		width int
		in    string
		want  int // the line's length in characters
	}{
		{"forward past the widest column", 0, "a\x1b[9223372036854775807Cb\n", widest},
		{"forward at most to the widest column", 0, "a\x1b[20000Cb\n", widest},
		{"to a column past the widest", 0, "a\x1b[9223372036854775807Gb\n", widest},
		{"to a column on a wrapped row", 10, "0123456789ab\x1b[9223372036854775807Gb\n", 10 + widest},
		{"forward again from past the widest column", 0, strings.Repeat("\x1b[9999Cx", 100) + "\n", widest + 99},
		{"forward within a long line", 0, strings.Repeat("x", 2*widest) + "\r\x1b[5Cy\n", 2 * widest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := render(t, tt.width, []string{tt.in}).Take()
			if len(lines) != 1 {
				t.Fatalf("got %d lines, want 1", len(lines))
			}
			if n := utf8.RuneCountInString(lines[0]); n != tt.want {
				t.Errorf("got a line of %d characters, want %d", n, tt.want)
			}
		})
	}
}

func TestLinesTake(t *testing.T) {
	var r termtext.Lines
	r.Write([]byte("a\nb\nc"))
	if got := r.Take(); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("first Take: got %q, want [a b]", got)
	}
	if got := r.Take(); got != nil {
		t.Fatalf("second Take: got %q, want nothing", got)
	}
	r.Write([]byte("d\n"))
	if got := r.Take(); !slices.Equal(got, []string{"cd"}) {
		t.Fatalf("after more: got %q, want [cd]", got)
	}
}

func TestLinesAltScreenExit(t *testing.T) {
	var r termtext.Lines
	r.Write([]byte("\x1b[?1049hpage\x1b[?1049l$ "))
	if r.AltScreen() || r.AltScreenExit() != len("\x1b[?1049hpage\x1b[?1049l") {
		t.Fatalf("got alt %v, exit %d", r.AltScreen(), r.AltScreenExit())
	}
	r.Write([]byte("x"))
	if r.AltScreenExit() != -1 {
		t.Fatalf("exit %d after a write without the switch, want -1", r.AltScreenExit())
	}
	// The last of two exits counts, and one split across writes counts in
	// the write that ends it.
	r.Write([]byte("\x1b[?1049la\x1b[?1049h\x1b[?47lb\x1b[?10"))
	if r.AltScreen() || r.AltScreenExit() != len("\x1b[?1049la\x1b[?1049h\x1b[?47l") {
		t.Fatalf("two exits: got alt %v, exit %d", r.AltScreen(), r.AltScreenExit())
	}
	r.Write([]byte("49l"))
	if r.AltScreenExit() != 3 {
		t.Fatalf("split exit: got %d, want 3", r.AltScreenExit())
	}
	r.Write([]byte("\x1b[?1049h"))
	if !r.AltScreen() || r.AltScreenExit() != -1 {
		t.Fatalf("entered: got alt %v, exit %d, want true, -1", r.AltScreen(), r.AltScreenExit())
	}
}

func TestLinesCursor(t *testing.T) {
	tests := []struct {
		name   string
		width  int
		in     string
		cursor int
		before string
	}{
		{"at the end", 0, "$ ab", 4, "$ ab"},
		{"moved back", 0, "$ abc\x1b[2D", 3, "$ a"},
		{"past the end", 0, "$ \x1b[3C", 5, "$ "},
		{"on column 0", 0, "ab\r\n", 0, ""},
		{"on a wrapped row", 10, "0123456789ab", 12, "0123456789ab"},
		{"at a wrapped row's start", 10, "0123456789ab\r", 10, "0123456789"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := render(t, tt.width, []string{tt.in})
			if got := r.Cursor(); got != tt.cursor {
				t.Errorf("Cursor: got %d, want %d", got, tt.cursor)
			}
			if got := r.BeforeCursor(); got != tt.before {
				t.Errorf("BeforeCursor: got %q, want %q", got, tt.before)
			}
		})
	}
}

func TestLinesBlank(t *testing.T) {
	var r termtext.Lines
	r.Write([]byte("done\n$ é\x1b[D"))
	r.Take()
	r.Blank()
	if got := r.Line(); got != "   " || r.Cursor() != 2 {
		t.Fatalf("blanked: got %q with the cursor at %d, want 3 spaces and 2", got, r.Cursor())
	}
	r.Write([]byte("ls\n"))
	if got := r.Take(); !slices.Equal(got, []string{"  ls"}) {
		t.Fatalf("typed after: got %q, want [\"  ls\"]", got)
	}
}

func ExampleLines() {
	var r termtext.Lines
	// A progress counter, then a coloured prompt split across two writes.
	r.Write([]byte("10%\r50%\r100%\r\n\x1b[1;3"))
	r.Write([]byte("2m$\x1b[0m "))
	fmt.Printf("%q %q\n", r.Take(), r.Line())
	// Output: ["100%"] "$ "
}

// FuzzLines checks what holds for any input: no line holds an escape or
// another control character but tab, and every line is valid UTF-8;
// rendering is the same whether the bytes come in one write, in two split
// anywhere, or one byte a write.
func FuzzLines(f *testing.F) {
	f.Add([]byte("a\r\n\x1b[31mb\x1b]0;x\x07\r\x08c"), uint(5), uint8(0))
	f.Add([]byte("caf\xc3\xa9 \xe2\x82\xac\xf0\x9f\x98\x80\xff\n"), uint(4), uint8(0))
	f.Add([]byte("$ 0123456789abc\r\x1b[K8\r\x1b[3D\x1b[1K\x1b[5C\x1b[2Gx\n"), uint(9), uint8(10))
	f.Add([]byte("\x1b[?1049hvim\x1b[?1049l$ \x1bPq\x1b\\\x1b_a\x07"), uint(12), uint8(20))
	f.Add([]byte("a\x1b[9223372036854775807Cb\x1b[99999Gc"), uint(3), uint8(7))
	f.Fuzz(func(t *testing.T, b []byte, split uint, width uint8) {
		w := int(width)
		whole := termtext.Lines{Width: w}
		whole.Write(b)
		lines, line := whole.Take(), whole.Line()
		for _, l := range append(slices.Clone(lines), line) {
			if !utf8.ValidString(l) {
				t.Fatalf("invalid UTF-8 in %q", l)
			}
			for _, c := range l {
				if c < 0x20 && c != '\t' || c == 0x7f {
					t.Fatalf("control character %q left in %q", c, l)
				}
			}
		}

		k := int(split % uint(len(b)+1))
		two := termtext.Lines{Width: w}
		two.Write(b[:k])
		got := two.Take()
		two.Write(b[k:])
		got = append(got, two.Take()...)
		if !slices.Equal(got, lines) || two.Line() != line || two.Cursor() != whole.Cursor() || two.AltScreen() != whole.AltScreen() {
			t.Fatalf("split at %d: got %q %q (cursor %d, alt %v), want %q %q (cursor %d, alt %v)",
				k, got, two.Line(), two.Cursor(), two.AltScreen(), lines, line, whole.Cursor(), whole.AltScreen())
		}
		if e := two.AltScreenExit(); e >= 0 && whole.AltScreenExit() != k+e || e < 0 && whole.AltScreenExit() > k {
			t.Fatalf("split at %d: alternate screen left at %d in the second write, at %d in the whole", k, e, whole.AltScreenExit())
		}

		bytewise := termtext.Lines{Width: w}
		got = nil
		for i := range b {
			bytewise.Write(b[i : i+1])
			got = append(got, bytewise.Take()...)
		}
		if !slices.Equal(got, lines) || bytewise.Line() != line || bytewise.Cursor() != whole.Cursor() || bytewise.AltScreen() != whole.AltScreen() {
			t.Fatalf("a byte a write: got %q %q, want %q %q", got, bytewise.Line(), lines, line)
		}
	})
}

func TestRedrawn(t *testing.T) {
	for _, c := range []struct {
		out  string
		want bool
	}{
		{"plain\nlines\r\n", false},
		{"progress 10%\rprogress 20%\x1b[K", false}, // one row, redrawn in place
		{"\x1b[31mred\x1b[0m\x1b[2C x\x1b[3D\n", false},
		{"answer\n\x1b[1A\x1b[2Kspinner", true}, // Ink: up, erase
		{"\x1b[5;1Hat row 5", true},
		{"\x1b[1;20r", true},
		{"\x1bMreverse", true},
		{"\x1b7saved\n\x1b8restored", true},
		{"\x1b[2F", true},
		{"ANSWER\x1b[1B\r\x1b[2Kstatus\n", true}, // down, then erase: the rebuild loses ANSWER
	} {
		var l termtext.Lines
		_, _ = l.Write([]byte(c.out))
		if got := l.Redrawn(); got != c.want {
			t.Errorf("%q: Redrawn %v, want %v", c.out, got, c.want)
		}
	}
}
