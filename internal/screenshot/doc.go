// Package screenshot draws a terminal screen as tmux draws it into a PNG
// image: it reads the rows capture-pane -e prints (text with SGR escape
// sequences for colours and attributes), lays them on a grid of cells, and
// paints each cell with the Go Mono fonts of golang.org/x/image.
//
// [Parse] builds a [Screen] from the captured rows; [Screen.PNG] paints
// and encodes it. What is drawn: the 16 ANSI colours, the 256-colour
// palette and RGB, as foreground and background; bold, dim, italics,
// underline, strikethrough, overline, reverse and hidden; characters two
// cells wide; and the cursor, as a block in reverse.
//
// # Concurrency
//
// A Screen is not safe for concurrent use. The fonts and glyphs are
// loaded once and shared: any number of Screens may paint at once.
package screenshot
