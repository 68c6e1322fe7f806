package rows

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

type pane struct {
	ID     string
	Width  int
	Active bool
	Title  string
	Window string
}

// The free-text fields sit among the others, as in session's lists, so
// the tests see New move them behind the separator.
var paneFields = []Field[pane]{
	{Name: "pane_id", Set: func(p *pane, v string) { p.ID = v }},
	{Name: "pane_title", Set: func(p *pane, v string) { p.Title = v }},
	{Name: "pane_width", Set: func(p *pane, v string) { p.Width, _ = strconv.Atoi(v) }},
	{Name: "pane_active", Set: func(p *pane, v string) { p.Active = v == "1" }},
	{Name: "window_name", Set: func(p *pane, v string) { p.Window = v }},
}

const sep = "~5e9a~"

// quoted prints the two free-text fields through #{q:}.
func quoted(name string) string {
	if name == "pane_title" || name == "window_name" {
		return "#{q:" + name + "}"
	}
	return ""
}

// unquote undoes quote.
func unquote(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// expand prints format for one pane the way tmux would.
func expand(format string, p pane) string {
	active := "0"
	if p.Active {
		active = "1"
	}
	return strings.NewReplacer(
		"#{pane_id}", p.ID,
		"#{pane_width}", strconv.Itoa(p.Width),
		"#{pane_active}", active,
		"#{q:pane_title}", fixtures.QuoteShell(p.Title),
		"#{q:window_name}", fixtures.QuoteShell(p.Window),
	).Replace(format)
}

func TestNewPutsFreeTextLast(t *testing.T) {
	got := New(sep, paneFields, quoted).String()
	want := "#{pane_id} #{pane_width} #{pane_active}~5e9a~#{q:pane_title}~5e9a~#{q:window_name}"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestNewRefusesOnlyFreeText(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New of free-text fields only did not panic")
		}
	}()
	New(sep, paneFields[1:2], quoted)
}

func TestParseRoundTrip(t *testing.T) {
	f := New(sep, paneFields, quoted)
	tests := []struct {
		name string
		p    pane
	}{
		{"plain", pane{ID: "%1", Width: 80, Active: true, Title: "host", Window: "zsh"}},
		{"empty text", pane{ID: "%2", Width: 0, Title: "", Window: ""}},
		{"spaces", pane{ID: "%3", Width: 132, Title: "  a  title ", Window: "one two"}},
		{"escaped bytes", pane{ID: "%4", Width: 9, Title: `C:\new\temp $HOME "q" 'q'`, Window: "#{x} #(cmd) 50%"}},
		{"tab and trailing backslash", pane{ID: "%5", Width: 1, Title: "a\tb", Window: `back\`}},
		{"separator-like", pane{ID: "%6", Width: 2, Title: "~5e9b~", Window: "~5e9a ~ 5e9a~"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, ok := f.Parse(unquote, []string{expand(f.String(), tt.p)})
			if !ok || len(rows) != 1 {
				t.Fatalf("got %d rows, ok %v; want 1 row, ok true", len(rows), ok)
			}
			if rows[0] != tt.p {
				t.Errorf("got %+v, want %+v", rows[0], tt.p)
			}
		})
	}

	// Every line of a reply is one row, in order.
	var lines []string
	var want []pane
	for _, tt := range tests {
		lines = append(lines, expand(f.String(), tt.p))
		want = append(want, tt.p)
	}
	rows, ok := f.Parse(unquote, lines)
	if !ok || !slices.Equal(rows, want) {
		t.Errorf("all lines: got %+v, ok %v; want %+v, ok true", rows, ok, want)
	}
}

func TestParseRefusesWrongFieldCount(t *testing.T) {
	f := New(sep, paneFields, quoted)
	good := pane{ID: "%1", Width: 80, Active: true, Title: "t", Window: "w"}
	line := expand(f.String(), good)
	tests := []struct {
		name, line string
	}{
		{"a fixed field missing", strings.Replace(line, "80 ", "", 1)},
		{"a fixed field too many", strings.Replace(line, "80 ", "80 81 ", 1)},
		{"a text field missing", line[:strings.LastIndex(line, sep)]},
		{"a text field too many", line + sep + "extra"},
		{"the separator inside a value", expand(f.String(), pane{ID: "%1", Width: 80, Title: "a" + sep + "b", Window: "w"})},
		{"a blank line", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The bad line is skipped; the good ones around it are kept.
			rows, ok := f.Parse(unquote, []string{line, tt.line, line})
			if ok || !slices.Equal(rows, []pane{good, good}) {
				t.Errorf("got %+v, ok %v; want the two good rows, ok false", rows, ok)
			}
		})
	}
}

func TestParseDecodesFreeTextOnly(t *testing.T) {
	f := New(sep, paneFields, quoted)
	var decoded []string
	mark := func(s string) string {
		decoded = append(decoded, s)
		return "<" + s + ">"
	}
	rows, ok := f.Parse(mark, []string{`%7 120 1~5e9a~a\ b~5e9a~w\\`})
	want := pane{ID: "%7", Width: 120, Active: true, Title: `<a\ b>`, Window: `<w\\>`}
	if !ok || len(rows) != 1 || rows[0] != want {
		t.Fatalf("got %+v, ok %v; want [%+v], ok true", rows, ok, want)
	}
	if !slices.Equal(decoded, []string{`a\ b`, `w\\`}) {
		t.Errorf("decoded %q, want the two free-text fields as printed", decoded)
	}

	// Without a decoder, free text stays as tmux printed it.
	rows, ok = f.Parse(nil, []string{`%7 120 0~5e9a~a\ b~5e9a~w\\`})
	want = pane{ID: "%7", Width: 120, Title: `a\ b`, Window: `w\\`}
	if !ok || len(rows) != 1 || rows[0] != want {
		t.Errorf("nil decoder: got %+v, ok %v; want [%+v], ok true", rows, ok, want)
	}
}

func TestParseEmptyReply(t *testing.T) {
	f := New(sep, paneFields, quoted)
	for _, lines := range [][]string{nil, {}} {
		rows, ok := f.Parse(unquote, lines)
		if !ok || len(rows) != 0 {
			t.Errorf("Parse(%q): got %+v, ok %v; want no rows, ok true", lines, rows, ok)
		}
	}
}
