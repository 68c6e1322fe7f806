package engine

import (
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/session/internal/termtext"
)

// TestWithoutEchoes replaces the echo of a typed line, read from stream
// offset 100, with its command, and maps offsets in the result back to
// the stream's: a cursor after the command's line is the output's start.
func TestWithoutEchoes(t *testing.T) {
	data := []byte("$ printf 'S'; eval 'ls -l'\r\nSls\r\nout\r\n")
	start := int64(100 + len("$ "))
	outAt := int64(100 + len("$ printf 'S'; eval 'ls -l'\r\nS"))
	clean, orig := withoutEchoes(data, 100, []echoSpan{{from: start, to: outAt, command: "ls -l"}})
	if got, want := string(clean), "$ ls -l\x1b[K\r\nls\r\nout\r\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	for _, c := range []struct {
		n    int
		want int64
	}{
		{0, 100},                          // nothing read
		{2, start},                        // the prompt
		{len("$ ls -l\x1b[K\r\n"), outAt}, // the command's line
		{len("$ ls -l\x1b[K\r\nls\r\n"), outAt + 4}, // its first line of output
		{len(clean), 100 + int64(len(data))},        // all of it
	} {
		if got := orig(c.n); got != c.want {
			t.Errorf("orig(%d) = %d, want %d", c.n, got, c.want)
		}
	}
	// The rest of the row the shell drew before (zsh's PROMPT_SP: a mark
	// and spaces to the row's end) is erased after the command, as the
	// line's redraw erases it.
	promptSP := "\x1b[7m%\x1b[0m" + strings.Repeat(" ", 79) + "\r \r$ "
	typed := promptSP + "printf 'S'; eval 'ls'\r\nS"
	c2, _ := withoutEchoes([]byte(typed+"ls\r\n"), 0, []echoSpan{{from: int64(len(promptSP)), to: int64(len(typed)), command: "ls"}})
	lines := termtext.Lines{Width: 80}
	lines.Write(c2)
	if got := lines.Take(); len(got) == 0 || got[0] != "$ ls" {
		t.Fatalf("after a row of spaces: got %q, want \"$ ls\" first", got)
	}
	// A read that starts inside the echo shows the command still.
	clean, _ = withoutEchoes(data[5:], 105, []echoSpan{{from: start, to: outAt, command: "ls -l"}})
	if got, want := string(clean), "ls -l\x1b[K\r\nls\r\nout\r\n"; got != want {
		t.Fatalf("from inside the echo: got %q, want %q", got, want)
	}
}
