package main

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSnapshotPanePNG asks snapshot_pane for a picture of a pane that
// prints in colour, and reads the PNG back: its size is the pane's in
// cells, a red background is red, the text is there as ink.
func TestSnapshotPanePNG(t *testing.T) {
	t.Parallel()
	c, _, pane := workflow(t)
	c.run(t, pane, `printf '\033[48;2;200;0;0m    \033[0m \033[1;38;5;46mGREEN\033[0m\n'`)
	res := c.call(t, "snapshot_pane", map[string]any{"pane_id": pane, "png": true})
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("snapshot_pane png: got error %v, %d contents: %s", res.IsError, len(res.Content), textOf(res))
	}
	im, ok := res.Content[1].(*sdk.ImageContent)
	if !ok || im.MIMEType != "image/png" {
		t.Fatalf("the second content is %T, want a PNG image", res.Content[1])
	}
	img, err := png.Decode(bytes.NewReader(im.Data))
	if err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("SCREENSHOT_OUT"); dir != "" {
		_ = os.WriteFile(dir+"/snapshot.png", im.Data, 0o644)
	}
	// The pane is 100x40 cells (Go Mono at 14 px makes them 8x17), with
	// a 4 px margin.
	b := img.Bounds()
	if b.Dx()%100 != 8 || b.Dy()%40 != 8 || b.Dx() < 100*6 || b.Dy() < 40*12 {
		t.Fatalf("the image is %v, want 100x40 cells and a margin", b)
	}
	cellW, cellH := (b.Dx()-8)/100, (b.Dy()-8)/40
	// The red cells are on the row after the command line: find the row
	// whose first cell is red.
	red := color.RGBA{200, 0, 0, 255}
	row := -1
	for y := range 40 {
		if rgba(img, 4+cellW/2, 4+y*cellH+cellH/2) == red {
			row = y
			break
		}
	}
	if row < 0 {
		t.Fatalf("no row starts with a red background")
	}
	green := false
	for y := 4 + row*cellH; y < 4+(row+1)*cellH; y++ {
		for x := 4 + 5*cellW; x < 4+10*cellW; x++ {
			if rgba(img, x, y) == (color.RGBA{0, 255, 0, 255}) {
				green = true
			}
		}
	}
	if !green {
		t.Fatalf("no ink of colour 46 where GREEN is printed (row %d)", row)
	}
	// Without png, the answer is text alone.
	if res := c.call(t, "snapshot_pane", map[string]any{"pane_id": pane}); len(res.Content) != 1 {
		t.Fatalf("snapshot_pane without png: %d contents", len(res.Content))
	}
}

func rgba(img image.Image, x, y int) color.RGBA {
	r, g, b, _ := img.At(x, y).RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 255}
}
