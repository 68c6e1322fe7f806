package engine

import "testing"

// TestWithoutEchoes replaces the echo of a typed line, read from stream
// offset 100, with its command, and maps offsets in the result back to
// the stream's: a cursor after the command's line is the output's start.
func TestWithoutEchoes(t *testing.T) {
	data := []byte("$ printf 'S'; eval 'ls -l'\r\nSls\r\nout\r\n")
	start := int64(100 + len("$ "))
	outAt := int64(100 + len("$ printf 'S'; eval 'ls -l'\r\nS"))
	clean, orig := withoutEchoes(data, 100, []echoSpan{{from: start, to: outAt, command: "ls -l"}})
	if got, want := string(clean), "$ ls -l\r\nls\r\nout\r\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	for _, c := range []struct {
		n    int
		want int64
	}{
		{0, 100},                              // nothing read
		{2, start},                            // the prompt
		{len("$ ls -l\r\n"), outAt},           // the command's line
		{len("$ ls -l\r\nls\r\n"), outAt + 4}, // its first line of output
		{len(clean), 100 + int64(len(data))},  // all of it
	} {
		if got := orig(c.n); got != c.want {
			t.Errorf("orig(%d) = %d, want %d", c.n, got, c.want)
		}
	}
	// A read that starts inside the echo shows the command still.
	clean, _ = withoutEchoes(data[5:], 105, []echoSpan{{from: start, to: outAt, command: "ls -l"}})
	if got, want := string(clean), "ls -l\r\nls\r\nout\r\n"; got != want {
		t.Fatalf("from inside the echo: got %q, want %q", got, want)
	}
}
