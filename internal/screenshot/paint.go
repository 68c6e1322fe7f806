package screenshot

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/gofont/gomonobolditalic"
	"golang.org/x/image/font/gofont/gomonoitalic"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// FontSize is the size of the font in pixels; a cell is about 0.6 of it
// wide and 1.2 of it high.
const FontSize = 14

// margin is the border around the screen, in the default background.
const margin = 4

// The default colours: those of a dark terminal theme.
var (
	DefaultFg = color.RGBA{0xd0, 0xd0, 0xd0, 0xff}
	DefaultBg = color.RGBA{0x1c, 0x1c, 0x1c, 0xff}
)

// fonts are the four faces and the cell's size, loaded once.
type fonts struct {
	faces         [4]font.Face // by style: regular, bold, italic, bold italic
	cellW, cellH  int
	ascent        int
	mu            sync.Mutex
	glyphs        map[glyphKey]*glyph
	loadErr       error
	underlineDrop int
}

type glyphKey struct {
	r     rune
	style int
}

// glyph is a rasterised glyph: its coverage mask and where it goes,
// relative to its cell's top left corner.
type glyph struct {
	mask *image.Alpha
	at   image.Rectangle
	ok   bool
}

var (
	fontsOnce sync.Once
	theFonts  fonts
)

// loadFonts parses the Go Mono fonts once.
func loadFonts() (*fonts, error) {
	fontsOnce.Do(func() {
		f := &theFonts
		f.glyphs = make(map[glyphKey]*glyph)
		for i, ttf := range [][]byte{gomono.TTF, gomonobold.TTF, gomonoitalic.TTF, gomonobolditalic.TTF} {
			ft, err := opentype.Parse(ttf)
			if err != nil {
				f.loadErr = err
				return
			}
			face, err := opentype.NewFace(ft, &opentype.FaceOptions{Size: FontSize, DPI: 72, Hinting: font.HintingFull})
			if err != nil {
				f.loadErr = err
				return
			}
			f.faces[i] = face
		}
		m := f.faces[0].Metrics()
		adv, _ := f.faces[0].GlyphAdvance('0')
		f.cellW = adv.Ceil()
		f.ascent = m.Ascent.Ceil()
		f.cellH = f.ascent + m.Descent.Ceil()
		f.underlineDrop = min(2, m.Descent.Ceil()-1)
	})
	return &theFonts, theFonts.loadErr
}

// glyph returns r rasterised in style, from the cache.
func (f *fonts) glyph(r rune, style int) *glyph {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := glyphKey{r, style}
	if g, ok := f.glyphs[k]; ok {
		return g
	}
	g := &glyph{}
	face := f.faces[style]
	if _, has := face.GlyphAdvance(r); has {
		dr, mask, mp, _, ok := face.Glyph(fixed.P(0, f.ascent), r)
		if ok && !dr.Empty() {
			// The face reuses its mask: keep a copy.
			a := image.NewAlpha(image.Rect(0, 0, dr.Dx(), dr.Dy()))
			draw.Draw(a, a.Bounds(), mask, mp, draw.Src)
			g.mask, g.at, g.ok = a, dr, true
		}
	}
	if len(f.glyphs) < 1<<14 {
		f.glyphs[k] = g
	}
	return g
}

// Size returns the size in pixels of the image of a screen cols by rows.
func Size(cols, rows int) (w, h int, err error) {
	f, err := loadFonts()
	if err != nil {
		return 0, 0, err
	}
	return cols*f.cellW + 2*margin, rows*f.cellH + 2*margin, nil
}

// levels is how many steps of coverage the edges of glyphs get in a
// paletted image.
const levels = 8

// cellColors returns the colours a cell is painted in.
func cellColors(c *Cell, cursor bool) (fg, bg color.RGBA) {
	fg, bg = resolve(c.Fg, DefaultFg), resolve(c.Bg, DefaultBg)
	if c.Attr&Bold != 0 && c.Fg.Kind == KindPalette && c.Fg.Index < 8 {
		fg = palette(c.Fg.Index + 8) // as most terminals draw bold
	}
	if c.Attr&Reverse != 0 {
		fg, bg = bg, fg
	}
	if cursor {
		fg, bg = bg, fg
	}
	if c.Attr&Dim != 0 {
		fg = mix(fg, bg, 1, 2)
	}
	return fg, bg
}

// Image paints the screen: an 8-bit paletted image when its colours fit in
// 256 (edges of glyphs in 8 steps between a cell's two colours), which
// encodes three to four times smaller and faster; else RGBA.
func (s *Screen) Image() (image.Image, error) {
	f, err := loadFonts()
	if err != nil {
		return nil, fmt.Errorf("loading the Go Mono fonts: %w", err)
	}
	w, h, _ := Size(s.Cols, s.Rows)
	bounds := image.Rect(0, 0, w, h)
	type pair struct{ fg, bg color.RGBA }
	pairs := map[pair]bool{{DefaultFg, DefaultBg}: true}
	for y := range s.Rows {
		for x := range s.Cols {
			fg, bg := cellColors(s.At(x, y), s.Cursor && x == s.CursorX && y == s.CursorY)
			pairs[pair{fg, bg}] = true
		}
		if len(pairs)*levels > 256 {
			break
		}
	}
	var c canvas
	if len(pairs)*levels <= 256 {
		pal := &paletted{img: image.NewPaletted(bounds, nil), index: make(map[color.RGBA]uint8)}
		pal.color(DefaultBg)
		c = pal
	} else {
		c = &rgba{image.NewRGBA(bounds)}
	}
	c.fill(bounds, DefaultBg)
	for y := range s.Rows {
		for x := 0; x < s.Cols; x++ {
			cell := s.At(x, y)
			cells := 1
			if cell.Wide && x+1 < s.Cols {
				cells = 2
			}
			f.paint(c, image.Pt(margin+x*f.cellW, margin+y*f.cellH), cells, cell, s.Cursor && x == s.CursorX && y == s.CursorY)
			x += cells - 1
		}
	}
	return c.image(), nil
}

// PNG paints the screen and encodes it as PNG.
func (s *Screen) PNG() ([]byte, error) {
	img, err := s.Image()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, img); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// A canvas is what cells are painted on.
type canvas interface {
	fill(r image.Rectangle, c color.RGBA)
	// glyph draws mask, placed at r, in fg over bg.
	glyph(r image.Rectangle, mask *image.Alpha, fg, bg color.RGBA)
	image() image.Image
}

// rgba paints in full colour.
type rgba struct{ img *image.RGBA }

func (c *rgba) fill(r image.Rectangle, col color.RGBA) {
	draw.Draw(c.img, r, image.NewUniform(col), image.Point{}, draw.Src)
}

func (c *rgba) glyph(r image.Rectangle, mask *image.Alpha, fg, _ color.RGBA) {
	draw.DrawMask(c.img, r, image.NewUniform(fg), image.Point{}, mask, image.Point{}, draw.Over)
}

func (c *rgba) image() image.Image { return c.img }

// paletted paints with at most 256 colours.
type paletted struct {
	img   *image.Paletted
	index map[color.RGBA]uint8
}

// color returns col's index in the palette, adding it.
func (c *paletted) color(col color.RGBA) uint8 {
	if i, ok := c.index[col]; ok {
		return i
	}
	if len(c.img.Palette) >= 256 {
		return 0 // not reached: Image counted the colours first
	}
	i := uint8(len(c.img.Palette))
	c.img.Palette = append(c.img.Palette, col)
	c.index[col] = i
	return i
}

func (c *paletted) fill(r image.Rectangle, col color.RGBA) {
	r = r.Intersect(c.img.Rect)
	i := c.color(col)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := c.img.Pix[c.img.PixOffset(r.Min.X, y):c.img.PixOffset(r.Max.X, y)]
		for x := range row {
			row[x] = i
		}
	}
}

func (c *paletted) glyph(r image.Rectangle, mask *image.Alpha, fg, bg color.RGBA) {
	var steps [levels]uint8
	for l := 1; l < levels; l++ {
		steps[l] = c.color(mix(fg, bg, l, levels-1))
	}
	clip := r.Intersect(c.img.Rect)
	for y := clip.Min.Y; y < clip.Max.Y; y++ {
		for x := clip.Min.X; x < clip.Max.X; x++ {
			a := int(mask.Pix[mask.PixOffset(x-r.Min.X, y-r.Min.Y)])
			if l := (a*(levels-1) + 127) / 255; l > 0 {
				c.img.Pix[c.img.PixOffset(x, y)] = steps[l]
			}
		}
	}
}

func (c *paletted) image() image.Image { return c.img }

// paint draws cell c, cells wide, with its top left corner at p.
func (f *fonts) paint(img canvas, p image.Point, cells int, c *Cell, cursor bool) {
	fg, bg := cellColors(c, cursor)
	r := image.Rect(p.X, p.Y, p.X+cells*f.cellW, p.Y+f.cellH)
	if bg != DefaultBg {
		img.fill(r, bg)
	}
	if c.Attr&Hidden != 0 {
		return
	}
	if c.Rune > ' ' {
		style := 0
		if c.Attr&Bold != 0 {
			style |= 1
		}
		if c.Attr&Italic != 0 {
			style |= 2
		}
		g := f.glyph(c.Rune, style)
		if g.ok {
			img.glyph(g.at.Add(p), g.mask, fg, bg)
		} else {
			// No glyph in Go Mono (CJK, most emoji): a box in its place.
			box := r.Inset(2)
			box.Min.Y += f.cellH / 6
			outline(img, box, fg)
		}
	}
	line := func(y int) { img.fill(image.Rect(r.Min.X, y, r.Max.X, y+1), fg) }
	if c.Attr&Underline != 0 {
		line(p.Y + f.ascent + f.underlineDrop)
	}
	if c.Attr&Strike != 0 {
		line(p.Y + f.ascent*2/3)
	}
	if c.Attr&Overline != 0 {
		line(p.Y)
	}
}

// outline draws the edges of r.
func outline(img canvas, r image.Rectangle, c color.RGBA) {
	for _, e := range []image.Rectangle{
		{r.Min, image.Pt(r.Max.X, r.Min.Y+1)}, {image.Pt(r.Min.X, r.Max.Y-1), r.Max},
		{r.Min, image.Pt(r.Min.X+1, r.Max.Y)}, {image.Pt(r.Max.X-1, r.Min.Y), r.Max},
	} {
		img.fill(e, c)
	}
}

// mix is n/d of the way from b to a.
func mix(a, b color.RGBA, n, d int) color.RGBA {
	m := func(x, y uint8) uint8 { return uint8((int(x)*n + int(y)*(d-n)) / d) }
	return color.RGBA{m(a.R, b.R), m(a.G, b.G), m(a.B, b.B), 0xff}
}

// resolve turns c into RGB, def for the default colour.
func resolve(c Color, def color.RGBA) color.RGBA {
	switch c.Kind {
	case KindPalette:
		return palette(c.Index)
	case KindRGB:
		return color.RGBA{c.R, c.G, c.B, 0xff}
	}
	return def
}

// ansi are xterm's 16 colours.
var ansi = [16]color.RGBA{
	{0x00, 0x00, 0x00, 0xff}, {0xcd, 0x00, 0x00, 0xff}, {0x00, 0xcd, 0x00, 0xff}, {0xcd, 0xcd, 0x00, 0xff},
	{0x00, 0x00, 0xee, 0xff}, {0xcd, 0x00, 0xcd, 0xff}, {0x00, 0xcd, 0xcd, 0xff}, {0xe5, 0xe5, 0xe5, 0xff},
	{0x7f, 0x7f, 0x7f, 0xff}, {0xff, 0x00, 0x00, 0xff}, {0x00, 0xff, 0x00, 0xff}, {0xff, 0xff, 0x00, 0xff},
	{0x5c, 0x5c, 0xff, 0xff}, {0xff, 0x00, 0xff, 0xff}, {0x00, 0xff, 0xff, 0xff}, {0xff, 0xff, 0xff, 0xff},
}

// palette returns xterm's colour i of 256: the 16, a 6×6×6 cube, 24 greys.
func palette(i uint8) color.RGBA {
	switch {
	case i < 16:
		return ansi[i]
	case i < 232:
		levels := [6]uint8{0, 95, 135, 175, 215, 255}
		n := i - 16
		return color.RGBA{levels[n/36], levels[n/6%6], levels[n%6], 0xff}
	}
	g := 8 + 10*(i-232)
	return color.RGBA{g, g, g, 0xff}
}
