package screenshot

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	lines := []string{
		"\x1b[1m\x1b[31mbold red\x1b[0m\x1b[39m\x1b[49m \x1b[38;5;208morange\x1b[39m \x1b[48;2;10;20;30mrgb\x1b[49m",
		"\x1b[7mrev\x1b[0m \x1b[3;4mul\x1b[0m 日本x",
		"\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\ \x1b[38:2::1:2:3mcolon\x1b[4:0mno",
		"0123456789abcdef", // cut at 10
	}
	s := Parse(lines, 10, 5)
	check := func(x, y int, want Cell) {
		t.Helper()
		if got := *s.At(x, y); got != want {
			t.Errorf("cell %d,%d: got %+v, want %+v", x, y, got, want)
		}
	}
	check(0, 0, Cell{Rune: 'b', Fg: Color{Kind: KindPalette, Index: 1}, Attr: Bold})
	check(8, 0, Cell{Rune: ' '})
	check(9, 0, Cell{Rune: 'o', Fg: Color{Kind: KindPalette, Index: 208}})
	check(0, 1, Cell{Rune: 'r', Attr: Reverse})
	check(4, 1, Cell{Rune: 'u', Attr: Italic | Underline})
	check(7, 1, Cell{Rune: '日', Wide: true})
	check(8, 1, Cell{})
	check(9, 1, Cell{}) // 本 does not fit: cut, and x after it
	check(0, 2, Cell{Rune: 'l'})
	check(5, 2, Cell{Rune: 'c', Fg: Color{Kind: KindRGB, R: 1, G: 2, B: 3}})
	check(9, 3, Cell{Rune: '9'})
	check(0, 4, Cell{})

	s = Parse([]string{"\x1b[48;2;10;20;30mab"}, 4, 1)
	check(1, 0, Cell{Rune: 'b', Bg: Color{Kind: KindRGB, R: 10, G: 20, B: 30}})
}

// TestPNG paints a screen and reads pixels back: backgrounds in their
// colours, ink in the foreground's, the cursor's cell reversed.
func TestPNG(t *testing.T) {
	s := Parse([]string{
		"\x1b[48;2;200;0;0m  \x1b[0m\x1b[38;5;46mX\x1b[0m",
		"\x1b[7m \x1b[0m",
	}, 6, 3)
	s.Cursor, s.CursorX, s.CursorY = true, 4, 2
	b, err := s.PNG()
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	f, _ := loadFonts()
	w, h, _ := Size(6, 3)
	if img.Bounds().Dx() != w || img.Bounds().Dy() != h {
		t.Fatalf("size %v, want %dx%d", img.Bounds(), w, h)
	}
	center := func(x, y int) image.Point {
		return image.Pt(margin+x*f.cellW+f.cellW/2, margin+y*f.cellH+f.cellH/2)
	}
	at := func(p image.Point) color.RGBA {
		r, g, b, _ := img.At(p.X, p.Y).RGBA()
		return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0xff}
	}
	for _, tc := range []struct {
		what string
		p    image.Point
		want color.RGBA
	}{
		{"an RGB background", center(0, 0), color.RGBA{200, 0, 0, 0xff}},
		{"the default background", center(5, 0), DefaultBg},
		{"a reversed blank", center(0, 1), DefaultFg},
		{"the cursor", center(4, 2), DefaultFg},
		{"the margin", image.Pt(1, 1), DefaultBg},
	} {
		if got := at(tc.p); got != tc.want {
			t.Errorf("%s at %v: got %v, want %v", tc.what, tc.p, got, tc.want)
		}
	}
	// Some pixel of the X is in colour 46 (0, 255, 0).
	found := false
	for y := margin; y < margin+f.cellH; y++ {
		for x := margin + 2*f.cellW; x < margin+3*f.cellW; x++ {
			if at(image.Pt(x, y)) == (color.RGBA{0, 255, 0, 0xff}) {
				found = true
			}
		}
	}
	if !found {
		t.Error("no pixel of the X in colour 46")
	}
	if dir := os.Getenv("SCREENSHOT_OUT"); dir != "" {
		_ = os.WriteFile(dir+"/test.png", b, 0o644)
	}
}

func TestPalette(t *testing.T) {
	for i, want := range map[uint8]color.RGBA{1: {0xcd, 0, 0, 0xff}, 16: {0, 0, 0, 0xff}, 196: {255, 0, 0, 0xff},
		231: {255, 255, 255, 0xff}, 232: {8, 8, 8, 0xff}, 255: {238, 238, 238, 0xff}} {
		if got := palette(i); got != want {
			t.Errorf("palette(%d) = %v, want %v", i, got, want)
		}
	}
}

// busyScreen is a screen cols by rows full of coloured text, as a busy
// TUI draws.
func busyScreen(cols, rows int) *Screen {
	lines := make([]string, rows)
	for y := range lines {
		var b strings.Builder
		for x := 0; x < cols; x += 10 {
			fmt.Fprintf(&b, "\x1b[38;5;%dm\x1b[48;5;%dm%-10s\x1b[0m", (x+y)%256, (x*7+y)%256, fmt.Sprintf("w%d.%d", y, x))
		}
		lines[y] = b.String()
	}
	s := Parse(lines, cols, rows)
	s.Cursor = true
	return s
}

// shellScreen is a screen cols by rows of a shell's output: text in the
// default colours, a coloured prompt now and then.
func shellScreen(cols, rows int) *Screen {
	lines := make([]string, rows)
	for y := range lines {
		if y%5 == 0 {
			lines[y] = "\x1b[1;32muser@host\x1b[0m:\x1b[1;34m~/src\x1b[0m$ ls -l"
			continue
		}
		lines[y] = fmt.Sprintf("-rw-r--r-- 1 user user %6d Dec  5 08:%02d file-%d.go", y*1234, y%60, y)
		for len(lines[y]) < cols*2/3 {
			lines[y] += " more text"
		}
	}
	s := Parse(lines, cols, rows)
	s.Cursor = true
	return s
}

// BenchmarkPNG paints and encodes screens of 80x24 and 200x50, a shell's
// and a busy TUI's (every cell coloured), and reports the PNG's size.
func BenchmarkPNG(b *testing.B) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		for kind, screen := range map[string]func(int, int) *Screen{"shell": shellScreen, "busy": busyScreen} {
			b.Run(fmt.Sprintf("%s-%dx%d", kind, size[0], size[1]), func(b *testing.B) {
				s := screen(size[0], size[1])
				var n int
				for b.Loop() {
					p, err := s.PNG()
					if err != nil {
						b.Fatal(err)
					}
					n = len(p)
				}
				b.ReportMetric(float64(n), "png-bytes")
			})
		}
	}
}

// TestBothCanvases: a screen of few colours paints paletted, one of many
// in RGBA, with the same colours.
func TestBothCanvases(t *testing.T) {
	for _, tc := range []struct {
		s        *Screen
		paletted bool
	}{{shellScreen(80, 24), true}, {busyScreen(80, 24), false}} {
		img, err := tc.s.Image()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := img.(*image.Paletted); ok != tc.paletted {
			t.Errorf("%T, want paletted %v", img, tc.paletted)
		}
		f, _ := loadFonts()
		_, bg := cellColors(tc.s.At(79, 1), false)
		r, g, b, _ := img.At(margin+79*f.cellW+1, margin+f.cellH+1).RGBA()
		if got := (color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 0xff}); got != bg {
			t.Errorf("%T: the background of cell 79,1 is %v, want %v", img, got, bg)
		}
		if dir := os.Getenv("SCREENSHOT_OUT"); dir != "" {
			p, _ := tc.s.PNG()
			_ = os.WriteFile(fmt.Sprintf("%s/paletted-%v.png", dir, tc.paletted), p, 0o644)
		}
	}
}
