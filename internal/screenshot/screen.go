package screenshot

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// A Color is a cell's foreground or background: the terminal's default,
// one of the 256 palette colours, or RGB.
type Color struct {
	Kind    ColorKind
	Index   uint8 // palette index, for KindPalette
	R, G, B uint8 // for KindRGB
}

// ColorKind says which of a Color's fields hold it.
type ColorKind uint8

// The kinds of colour.
const (
	KindDefault ColorKind = iota
	KindPalette
	KindRGB
)

// Attr is a set of cell attributes.
type Attr uint16

// The attributes drawn.
const (
	Bold Attr = 1 << iota
	Dim
	Italic
	Underline
	Reverse
	Hidden
	Strike
	Overline
)

// A Cell is one character cell of the screen.
type Cell struct {
	Rune   rune // 0 for a blank cell, and for the right half of a wide character
	Fg, Bg Color
	Attr   Attr
	Wide   bool // the character takes this cell and the next
}

// A Screen is a grid of cells and a cursor.
type Screen struct {
	Cols, Rows int
	Cells      []Cell // row by row
	// CursorX and CursorY are the cursor's cell; Cursor reports whether
	// it is shown.
	CursorX, CursorY int
	Cursor           bool
}

// At returns the cell at column x of row y.
func (s *Screen) At(x, y int) *Cell { return &s.Cells[y*s.Cols+x] }

// Parse lays rows as capture-pane -e prints them (one string per row, with
// SGR sequences; other sequences are skipped) on a screen cols by rows.
// What does not fit is cut.
func Parse(lines []string, cols, rows int) *Screen {
	s := &Screen{Cols: max(cols, 1), Rows: max(rows, 1)}
	s.Cells = make([]Cell, s.Cols*s.Rows)
	for y, line := range lines {
		if y >= s.Rows {
			break
		}
		var pen Cell
		x := 0
		for i := 0; i < len(line); {
			if line[i] == 0x1b {
				i = s.escape(line, i, &pen)
				continue
			}
			r, n := utf8.DecodeRuneInString(line[i:])
			i += n
			if r < 0x20 || r == 0x7f {
				continue
			}
			w := runeWidth(r)
			if w == 0 {
				continue // a combining mark: drawn with nothing
			}
			if x+w > s.Cols {
				x = s.Cols // cut
				continue
			}
			c := pen
			c.Rune, c.Wide = r, w == 2
			*s.At(x, y) = c
			if w == 2 {
				rest := pen
				rest.Rune = 0
				*s.At(x+1, y) = rest
			}
			x += w
		}
	}
	return s
}

// runeWidth is how many cells r takes: 2 for East Asian wide and
// fullwidth characters, 0 for combining marks, else 1.
func runeWidth(r rune) int {
	if unicode.In(r, unicode.Mn, unicode.Me) || r == 0x200b {
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// escape reads the escape sequence at line[i], applying an SGR to pen, and
// returns the index after it.
func (s *Screen) escape(line string, i int, pen *Cell) int {
	if i+1 >= len(line) {
		return len(line)
	}
	switch line[i+1] {
	case '[':
		j := i + 2
		for j < len(line) && (line[j] < 0x40 || line[j] > 0x7e) {
			j++
		}
		if j >= len(line) {
			return len(line)
		}
		if line[j] == 'm' {
			sgr(line[i+2:j], pen)
		}
		return j + 1
	case ']', 'P', '_', '^', 'X':
		// A string sequence (an OSC 8 hyperlink), to BEL or ST.
		for j := i + 2; j < len(line); j++ {
			if line[j] == 0x07 {
				return j + 1
			}
			if line[j] == 0x1b && j+1 < len(line) && line[j+1] == '\\' {
				return j + 2
			}
		}
		return len(line)
	}
	return i + 2
}

// sgr applies the parameters of one SGR sequence to pen.
func sgr(params string, pen *Cell) {
	ps := strings.Split(params, ";")
	for k := 0; k < len(ps); k++ {
		p := ps[k]
		sub := strings.Split(p, ":")
		n, _ := strconv.Atoi(sub[0])
		switch {
		case p == "" || n == 0:
			*pen = Cell{}
		case n == 1:
			pen.Attr |= Bold
		case n == 2:
			pen.Attr |= Dim
		case n == 3:
			pen.Attr |= Italic
		case n == 4:
			if len(sub) > 1 && sub[1] == "0" {
				pen.Attr &^= Underline
			} else {
				pen.Attr |= Underline
			}
		case n == 7:
			pen.Attr |= Reverse
		case n == 8:
			pen.Attr |= Hidden
		case n == 9:
			pen.Attr |= Strike
		case n == 21:
			pen.Attr |= Underline
		case n == 22:
			pen.Attr &^= Bold | Dim
		case n == 23:
			pen.Attr &^= Italic
		case n == 24:
			pen.Attr &^= Underline
		case n == 27:
			pen.Attr &^= Reverse
		case n == 28:
			pen.Attr &^= Hidden
		case n == 29:
			pen.Attr &^= Strike
		case n == 53:
			pen.Attr |= Overline
		case n == 55:
			pen.Attr &^= Overline
		case n >= 30 && n <= 37:
			pen.Fg = Color{Kind: KindPalette, Index: uint8(n - 30)}
		case n == 39:
			pen.Fg = Color{}
		case n >= 40 && n <= 47:
			pen.Bg = Color{Kind: KindPalette, Index: uint8(n - 40)}
		case n == 49:
			pen.Bg = Color{}
		case n >= 90 && n <= 97:
			pen.Fg = Color{Kind: KindPalette, Index: uint8(n - 90 + 8)}
		case n >= 100 && n <= 107:
			pen.Bg = Color{Kind: KindPalette, Index: uint8(n - 100 + 8)}
		case n == 38 || n == 48 || n == 58:
			var c Color
			if len(sub) > 1 {
				c = extendedColor(sub[1:], true)
			} else {
				var used int
				c, used = extendedSemicolon(ps[k+1:])
				k += used
			}
			switch n {
			case 38:
				pen.Fg = c
			case 48:
				pen.Bg = c
			}
		}
	}
}

// extendedSemicolon reads "5;N" or "2;R;G;B" after a 38 or 48, and says how
// many parameters it used.
func extendedSemicolon(ps []string) (Color, int) {
	if len(ps) == 0 {
		return Color{}, 0
	}
	switch ps[0] {
	case "5":
		if len(ps) >= 2 {
			return extendedColor(ps[:2], false), 2
		}
	case "2":
		if len(ps) >= 4 {
			return extendedColor(ps[:4], false), 4
		}
	}
	return Color{}, len(ps)
}

// extendedColor reads the parameters of an extended colour: 5 and an
// index, or 2 and R, G, B (after a colour space id, which may be empty, in
// the colon form).
func extendedColor(sub []string, colon bool) Color {
	num := func(s string) uint8 {
		n, _ := strconv.Atoi(s)
		return uint8(min(max(n, 0), 255))
	}
	switch {
	case len(sub) >= 2 && sub[0] == "5":
		return Color{Kind: KindPalette, Index: num(sub[1])}
	case sub[0] == "2" && colon && len(sub) >= 5:
		return Color{Kind: KindRGB, R: num(sub[2]), G: num(sub[3]), B: num(sub[4])}
	case sub[0] == "2" && len(sub) >= 4:
		return Color{Kind: KindRGB, R: num(sub[1]), G: num(sub[2]), B: num(sub[3])}
	}
	return Color{}
}
