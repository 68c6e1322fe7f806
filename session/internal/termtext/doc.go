// Package termtext renders a pane's output bytes, escape sequences and all,
// into the lines a person reading the terminal would see. It is a line
// renderer, not a terminal emulator: it keeps one line and the cursor on it,
// so it does not move between lines, keep a screen, scroll, or know colours,
// and of the alternate screen it notes only whether it is on.
//
// [Lines] is the renderer: write bytes to it as they arrive, take the lines
// it has finished, and read the one still being written. [Scanner] is the
// grammar of escape sequences it reads them with, for any other reader of
// a pane's output that must tell text from sequences.
//
// # Concurrency
//
// A Lines or a Scanner is not safe for concurrent use; each reader of a
// stream keeps its own.
package termtext
