package session

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/session/internal/release"
	"github.com/tmux-mcp/tmux-mcp/session/internal/rows"
)

// fill expands f's format the way tmux would, with values[name] for each
// field.
func fill[T any](f rows.Format[T], values map[string]string) string {
	line := f.String()
	for name, v := range values {
		line = strings.ReplaceAll(line, "#{"+name+"}", v)
		line = strings.ReplaceAll(line, release.TextField(name), fixtures.QuoteShell(v))
	}
	return line
}

func TestRowFormatKeepsFreeTextWhole(t *testing.T) {
	fs := newFormats()
	f := fs.panes
	if strings.Count(f.String(), fs.sep) != len(freeText) {
		t.Errorf("format %q: want the separator once before each of the %d free-text fields", f.String(), len(freeText))
	}
	// Any space in a free-text value must survive: only fields tmux makes
	// up are split on spaces.
	values := map[string]string{
		"pane_id": "%7", "pane_index": "1", "pane_width": "80", "pane_height": "24",
		"pane_pid": "4242", "pane_active": "1", "window_id": "@3", "window_index": "2",
		"session_id": "$1", "pane_left": "0", "pane_top": "0", "pane_right": "79",
		"pane_bottom": "23", "pane_at_left": "1", "pane_at_right": "1", "pane_at_top": "1",
		"pane_at_bottom": "0", "pane_dead": "0", "pane_dead_status": "", "pane_in_mode": "1", "cursor_x": "5",
		"cursor_y": "6", "pane_tty": "/dev/pts/9",
		"session_name":         "a b",
		"window_name":          " w ~x~ ",
		"pane_current_command": "vim",
		"pane_current_path":    "/tmp/dir with  spaces",
		"pane_title":           "~00~ title \t end ",
	}
	rows, ok := f.Parse(release.Of("3.3a").DecodeText, []string{fill(f, values)})
	if !ok || len(rows) != 1 {
		t.Fatalf("parse: %v rows, ok %v", len(rows), ok)
	}
	want := Pane{
		ID: "%7", Index: "1", Width: 80, Height: 24, PID: "4242", Active: true,
		WindowID: "@3", WindowIndex: "2", SessionID: "$1", Right: 79, Bottom: 23,
		AtLeft: true, AtRight: true, AtTop: true, InMode: true, CursorX: 5, CursorY: 6,
		TTY: "/dev/pts/9", SessionName: "a b", WindowName: " w ~x~ ", CurrentCommand: "vim",
		CurrentPath: "/tmp/dir with  spaces", Title: "~00~ title \t end ",
	}
	if rows[0] != want {
		t.Errorf("parse:\n got %+v\nwant %+v", rows[0], want)
	}

	// A row missing a field, or with one too many, is skipped and reported.
	short := strings.Replace(fill(f, values), "80 ", "", 1)
	long := fill(f, values) + fs.sep + "extra"
	rows, ok = f.Parse(release.Of("3.3a").DecodeText, []string{short, fill(f, values), long})
	if ok || len(rows) != 1 || rows[0] != want {
		t.Errorf("parse of a short, a good and a long row: %d rows, ok %v; want the good one, ok false", len(rows), ok)
	}
}

func TestRowFormatsPutFreeTextLast(t *testing.T) {
	fs := newFormats()
	for _, format := range []string{fs.sessions.String(), fs.windows.String(), fs.panes.String()} {
		head, _, _ := strings.Cut(format, fs.sep)
		for name := range freeText {
			if strings.Contains(head, "#{"+name+"}") || strings.Contains(head, release.TextField(name)) {
				t.Errorf("%s is among the space-joined fields of %q", name, format)
			}
		}
	}
}

// TestFreeTextFromTmux reads names, a title and a path full of spaces
// and separator-like text back from a real tmux.
func TestFreeTextFromTmux(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	dir := filepath.Join(t.TempDir(), "a  dir ~ with spaces")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const name, window, title = "one two  three", " w ~x~ y ", " ~ a  title ~ "
	fx.Tmux(t, "new-session", "-d", "-s", name, "-n", window, "-c", dir, "cat")
	fx.Tmux(t, "select-pane", "-t", "="+name+":", "-T", title)

	// tmux reads a pane's path from its foreground process, which it finds
	// empty until the child has started (seen under load): look again until
	// then, as nothing announces it.
	var ps []Pane
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		ps, err = s.Panes(ctx, PaneScope{})
		if err != nil || len(ps) != 1 {
			t.Fatalf("Panes: %v, %v; want one pane", ps, err)
		}
		if ps[0].CurrentPath != "" || time.Now().After(deadline) {
			break
		}
	}
	p := ps[0]
	if p.SessionName != name || p.WindowName != window || p.Title != title || p.CurrentPath != dir {
		t.Errorf("Panes: session %q window %q title %q path %q; want %q %q %q %q",
			p.SessionName, p.WindowName, p.Title, p.CurrentPath, name, window, title, dir)
	}
	height := 24
	if !fx.AtLeast(t, 3, 3) {
		height = 23 // tmux 3.2 sizes the window as the CLI client, less its status line
	}
	if p.Width != 80 || p.Height != height || !strings.HasPrefix(p.ID, "%") || !strings.HasPrefix(p.TTY, "/dev/") {
		t.Errorf("Panes: fixed fields misread: %+v", p)
	}
	ws, err := s.Windows(ctx, "")
	if err != nil || len(ws) != 1 || ws[0].Name != window || ws[0].SessionName != name {
		t.Errorf("Windows: %+v, %v; want one window %q in %q", ws, err, window, name)
	}
	ss, err := s.Sessions(ctx)
	if err != nil || len(ss) != 1 || ss[0].Name != name {
		t.Errorf("Sessions: %+v, %v; want one session %q", ss, err, name)
	}
}

// A window renamed while a resync is in flight is not lost to the rows the
// resync read before it (a race seen once in TestModelTruthUnderChurn).
func TestRenameDuringResync(t *testing.T) {
	var m model
	old := []Window{{ID: "@1", Name: "tmux"}}
	oldPanes := []Pane{{ID: "%1", WindowID: "@1", WindowName: "tmux"}}
	m.replace(0, nil, slices.Clone(old), slices.Clone(oldPanes))
	m.markDirty()
	_, epoch := m.needsSync()
	// The resync's list-* replies were read; then the rename arrived.
	if m.apply(controlmode.WindowRenamed{Window: "@1", Name: "sh"}) {
		t.Fatal("a rename asked for a resync")
	}
	m.replace(epoch, nil, slices.Clone(old), slices.Clone(oldPanes))
	_, w, p := m.snapshot()
	if w[0].Name != "sh" || p[0].WindowName != "sh" {
		t.Fatalf("after a resync that raced a rename: window %q, pane's window %q, want sh", w[0].Name, p[0].WindowName)
	}
	if need, _ := m.needsSync(); need {
		t.Fatal("a rename left the model dirty")
	}
	// Past maxRenames unread renames, the model resyncs instead.
	for i := range maxRenames + 1 {
		m.apply(controlmode.WindowRenamed{Window: "@1", Name: fmt.Sprint("n", i)})
	}
	if need, _ := m.needsSync(); !need {
		t.Fatal("the rename log grew past its bound without a resync")
	}
}
