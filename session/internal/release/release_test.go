package release

import (
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// printLike is what release r does to a line a command prints for a
// control client.
func printLike(r Facts, s string) string {
	return fixtures.PrintEncoded(s, r.PrintEncoded(), r.PrintEscapesDollar())
}

var matrix = []string{"3.2a", "3.3a", "3.4", "3.5a", "3.6b", "3.7c", "next-3.8", "master"}

func TestReleaseFacts(t *testing.T) {
	type facts struct{ encoded, dollar, showBufferEncoded, pasteS, refuses, mirrored, ignoresSize bool }
	want := map[string]facts{
		"3.2a":     {false, false, true, false, false, false, true},
		"3.3a":     {false, false, true, false, false, false, false},
		"3.4":      {true, true, false, false, false, false, false},
		"3.5a":     {true, false, false, false, false, true, false},
		"3.6b":     {false, false, false, false, false, true, false},
		"3.7c":     {false, false, false, true, true, true, false},
		"next-3.8": {false, false, false, true, true, true, false},
		"master":   {false, false, false, true, true, true, false},
	}
	for _, v := range matrix {
		r := Of(v)
		got := facts{r.PrintEncoded(), r.PrintEscapesDollar(), r.ShowBufferEncoded(), len(r.PasteFlags()) > 0,
			r.RefusesUnprintableNames(), r.HasMirroredLayouts(), r.NewSessionIgnoresSize()}
		if got != want[v] {
			t.Errorf("%s: got %+v, want %+v", v, got, want[v])
		}
	}
}

// Values that break a naive decoder: escapes spelled out literally, $ in
// every position, control bytes, invalid UTF-8.
var trickyValues = []string{
	"", "plain", "a b", `C:\bin\new\temp`, `\033[1m`, "\x1b[1m", `$HOME ${HOME} $1 $`, `\$x`, `\\$x`,
	"tab\there", "cr\rlf", "del\x7f", "bell\a", "\xff\xfe invalid", "é ü 日本", `back\`, `\`, `#{x} #(cmd)`,
	`'single' "double"`, "~sep~", `\101`, `\\101`, `a\$b`,
}

func TestDecodeTextIsExactOnEveryRelease(t *testing.T) {
	for _, v := range matrix {
		r := Of(v)
		for _, value := range trickyValues {
			printed := printLike(r, fixtures.QuoteShell(value))
			if got := r.DecodeText(printed); got != value {
				t.Errorf("%s: %q printed as %q decodes to %q", v, value, printed, got)
			}
		}
	}
}

func FuzzDecodeText(f *testing.F) {
	for _, v := range trickyValues {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, value string) {
		if strings.ContainsAny(value, "\x00\n") {
			return // a C string holds no NUL, and a newline ends the line
		}
		for _, v := range matrix {
			r := Of(v)
			if got := r.DecodeText(printLike(r, fixtures.QuoteShell(value))); got != value {
				t.Fatalf("%s: %q decodes to %q", v, value, got)
			}
		}
	})
}

func TestDecodeLoose(t *testing.T) {
	for _, v := range []string{"3.4", "3.5a"} {
		r := Of(v)
		// Exact for text without a backslash before a digit or letter.
		for _, value := range []string{"x$HOME\t\x1b[1m\\y", "a\rb\x7f", "$x ${y}", `C:\temp\new`, "é\xff"} {
			if got := r.DecodeLoose(printLike(r, value)); got != value {
				t.Errorf("%s: %q printed as %q decodes to %q", v, value, printLike(r, value), got)
			}
		}
	}
	if got := Of("3.3a").DecodeLoose(`\033`); got != `\033` {
		t.Errorf("3.3a prints raw: got %q", got)
	}
}
