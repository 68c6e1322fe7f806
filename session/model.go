package session

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// Session is one tmux session as list-sessions describes it.
type Session struct {
	ID         string // "$1"
	Name       string
	Windows    int
	Attached   string // number of attached clients, as tmux prints it
	Created    string // Unix seconds, as tmux prints it
	ActivePane string // active pane of the current window
	Generation string // the server's generation when this was read
}

// Window is one window linked into one session. A window linked into two
// sessions is two Windows with the same ID.
type Window struct {
	ID          string // "@1"
	Name        string
	Index       string
	SessionID   string
	SessionName string
	Panes       int
	Layout      string
	Active      bool // the session's current window
	Width       int
	Height      int
	ActivePane  string
}

// Pane is one pane. The command, path, title and cursor fields change
// without notifications; operations read them fresh.
type Pane struct {
	ID             string // "%1"
	Index          string
	Width, Height  int
	TTY            string
	CurrentCommand string
	CurrentPath    string
	PID            string
	Title          string
	Active         bool
	WindowID       string
	WindowIndex    string
	WindowName     string
	SessionID      string
	SessionName    string
	Left, Top      int
	Right, Bottom  int
	AtLeft         bool
	AtRight        bool
	AtTop          bool
	AtBottom       bool
	Dead           bool
	InMode         bool
	CursorX        int
	CursorY        int
}

// field maps one tmux format variable onto a struct field.
type field[T any] struct {
	name string
	set  func(*T, string)
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

var sessionFields = []field[Session]{
	{"session_id", func(s *Session, v string) { s.ID = v }},
	{"session_windows", func(s *Session, v string) { s.Windows = atoi(v) }},
	{"session_attached", func(s *Session, v string) { s.Attached = v }},
	{"session_created", func(s *Session, v string) { s.Created = v }},
	{"pane_id", func(s *Session, v string) { s.ActivePane = v }},
	{"session_name", func(s *Session, v string) { s.Name = v }},
}

var windowFields = []field[Window]{
	{"window_id", func(w *Window, v string) { w.ID = v }},
	{"window_index", func(w *Window, v string) { w.Index = v }},
	{"session_id", func(w *Window, v string) { w.SessionID = v }},
	{"window_panes", func(w *Window, v string) { w.Panes = atoi(v) }},
	{"window_layout", func(w *Window, v string) { w.Layout = v }},
	{"window_active", func(w *Window, v string) { w.Active = v == "1" }},
	{"window_width", func(w *Window, v string) { w.Width = atoi(v) }},
	{"window_height", func(w *Window, v string) { w.Height = atoi(v) }},
	{"pane_id", func(w *Window, v string) { w.ActivePane = v }},
	{"session_name", func(w *Window, v string) { w.SessionName = v }},
	{"window_name", func(w *Window, v string) { w.Name = v }},
}

var paneFields = []field[Pane]{
	{"pane_id", func(p *Pane, v string) { p.ID = v }},
	{"pane_index", func(p *Pane, v string) { p.Index = v }},
	{"pane_width", func(p *Pane, v string) { p.Width = atoi(v) }},
	{"pane_height", func(p *Pane, v string) { p.Height = atoi(v) }},
	{"pane_pid", func(p *Pane, v string) { p.PID = v }},
	{"pane_active", func(p *Pane, v string) { p.Active = v == "1" }},
	{"window_id", func(p *Pane, v string) { p.WindowID = v }},
	{"window_index", func(p *Pane, v string) { p.WindowIndex = v }},
	{"session_id", func(p *Pane, v string) { p.SessionID = v }},
	{"pane_left", func(p *Pane, v string) { p.Left = atoi(v) }},
	{"pane_top", func(p *Pane, v string) { p.Top = atoi(v) }},
	{"pane_right", func(p *Pane, v string) { p.Right = atoi(v) }},
	{"pane_bottom", func(p *Pane, v string) { p.Bottom = atoi(v) }},
	{"pane_at_left", func(p *Pane, v string) { p.AtLeft = v == "1" }},
	{"pane_at_right", func(p *Pane, v string) { p.AtRight = v == "1" }},
	{"pane_at_top", func(p *Pane, v string) { p.AtTop = v == "1" }},
	{"pane_at_bottom", func(p *Pane, v string) { p.AtBottom = v == "1" }},
	{"pane_dead", func(p *Pane, v string) { p.Dead = v == "1" }},
	{"pane_in_mode", func(p *Pane, v string) { p.InMode = v == "1" }},
	{"cursor_x", func(p *Pane, v string) { p.CursorX = atoi(v) }},
	{"cursor_y", func(p *Pane, v string) { p.CursorY = atoi(v) }},
	{"pane_tty", func(p *Pane, v string) { p.TTY = v }},
	{"session_name", func(p *Pane, v string) { p.SessionName = v }},
	{"window_name", func(p *Pane, v string) { p.WindowName = v }},
	{"pane_current_command", func(p *Pane, v string) { p.CurrentCommand = v }},
	{"pane_current_path", func(p *Pane, v string) { p.CurrentPath = v }},
	{"pane_title", func(p *Pane, v string) { p.Title = v }},
}

// freeText names the fields whose values a user or a program in a pane
// chooses: names, titles, commands and paths, which may hold spaces and
// anything a separator could be made of.
var freeText = map[string]bool{
	"session_name":         true,
	"window_name":          true,
	"pane_title":           true,
	"pane_current_command": true,
	"pane_current_path":    true,
}

// rowFormat reads rows of one kind. Fields tmux makes up itself (ids,
// numbers, flags, tty paths) never hold a space, so they come first,
// joined by one; each free-text field follows behind a separator made of
// random printable bytes, so no name or title can forge a field boundary,
// and the separator reads the same in every tmux version (command output
// is vis-encoded in 3.4 and 3.5, which would mangle a control byte).
//
// Short formats matter: tmux lexes a command a byte at a time, and a
// list-panes row costs it about as much per byte of format as per field
// looked up.
type rowFormat[T any] struct {
	fixed  []field[T] // in format order
	text   []field[T]
	sep    string
	format string
}

func newRowFormat[T any](sep string, fields []field[T]) rowFormat[T] {
	f := rowFormat[T]{sep: sep}
	for _, fl := range fields {
		if freeText[fl.name] {
			f.text = append(f.text, fl)
		} else {
			f.fixed = append(f.fixed, fl)
		}
	}
	if len(f.fixed) == 0 {
		panic("session: a row format needs a field tmux makes up to lead it")
	}
	var b strings.Builder
	for i, fl := range f.fixed {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("#{" + fl.name + "}")
	}
	for _, fl := range f.text {
		b.WriteString(sep + textField(fl.name))
	}
	f.format = b.String()
	return f
}

// parse reads one row per line; a line with the wrong number of fields is
// skipped, and reported through ok.
func (f rowFormat[T]) parse(rel release, lines []string) (rows []T, ok bool) {
	ok = true
	for _, line := range lines {
		texts := strings.Split(line, f.sep)
		fixed := strings.Split(texts[0], " ")
		if len(texts) != 1+len(f.text) || len(fixed) != len(f.fixed) {
			ok = false
			continue
		}
		var r T
		for i, fl := range f.fixed {
			fl.set(&r, fixed[i])
		}
		for i, fl := range f.text {
			fl.set(&r, rel.decodeText(texts[1+i]))
		}
		rows = append(rows, r)
	}
	return rows, ok
}

// formats is the set of row formats of one Server.
type formats struct {
	sessions rowFormat[Session]
	windows  rowFormat[Window]
	panes    rowFormat[Pane]
}

func newFormats() formats {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // never fails
	sep := "~" + hex.EncodeToString(b) + "~"
	return formats{
		sessions: newRowFormat(sep, sessionFields),
		windows:  newRowFormat(sep, windowFields),
		panes:    newRowFormat(sep, paneFields),
	}
}

// listCommands returns the one-round-trip query of the whole server.
func (f *formats) listCommands() []controlmode.Command {
	return []controlmode.Command{
		controlmode.NewCommand("list-sessions", "-F", f.sessions.format),
		controlmode.NewCommand("list-windows", "-a", "-F", f.windows.format),
		controlmode.NewCommand("list-panes", "-a", "-F", f.panes.format),
	}
}

// model is the live picture of one server. It is a cache with a truth
// test: whatever it answers equals what list-* would say once the
// notifications tmux has sent are applied.
//
// Structural notifications mark it dirty; a dirty model is resynced in one
// round trip before it answers. Window renames are applied directly; a
// session rename is structural, since tmux orders sessions, and so every
// listing, by name.
type model struct {
	mu       sync.Mutex
	dirty    bool // something changed that only a resync can tell
	synced   bool // it has been filled at least once on this connection
	sessions []Session
	windows  []Window
	panes    []Pane
	// epoch counts the notifications that marked the model dirty, so a
	// resync that raced with one does not clear its mark.
	epoch uint64
}

// apply updates the model for one notification. It runs on the
// connection's reader goroutine and never blocks on I/O. It reports whether
// a resync is needed.
func (m *model) apply(n controlmode.Notification) (needSync bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch n := n.(type) {
	case controlmode.WindowRenamed:
		for i := range m.windows {
			if m.windows[i].ID == n.Window {
				m.windows[i].Name = n.Name
			}
		}
		for i := range m.panes {
			if m.panes[i].WindowID == n.Window {
				m.panes[i].WindowName = n.Name
			}
		}
		return false
	case controlmode.Output, controlmode.Pause, controlmode.Continue, controlmode.PaneModeChanged,
		controlmode.PasteBufferChanged, controlmode.Message, controlmode.Stray, controlmode.HookOutput,
		controlmode.Unknown, controlmode.Lost, controlmode.SubscriptionChanged, controlmode.ConfigError:
		return false
	}
	// Everything else (windows and sessions added or closed, layouts,
	// active windows and panes, clients attaching) is looked at again.
	m.dirty = true
	m.epoch++
	return true
}

// markDirty records that an operation of ours changed the structure.
func (m *model) markDirty() {
	m.mu.Lock()
	m.dirty = true
	m.epoch++
	m.mu.Unlock()
}

// needsSync reports whether the model must be resynced, and the epoch a
// resync started now would satisfy.
func (m *model) needsSync() (bool, uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.dirty || !m.synced, m.epoch
}

// replace installs a full resync read at epoch.
func (m *model) replace(epoch uint64, s []Session, w []Window, p []Pane) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sessions, m.windows, m.panes = s, w, p
	m.synced = true
	if m.epoch == epoch {
		m.dirty = false
	}
}

// reset forgets everything: the connection it described is gone.
func (m *model) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sessions, m.windows, m.panes = nil, nil, nil
	m.synced, m.dirty = false, true
	m.epoch++
}

// paneCount returns how many panes the model holds, without copying them.
func (m *model) paneCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.panes)
}

// snapshot returns copies of the model's rows.
func (m *model) snapshot() ([]Session, []Window, []Pane) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.sessions), slices.Clone(m.windows), slices.Clone(m.panes)
}

// sessionByID returns the session with id.
func (m *model) sessionByID(id string) (Session, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, s := range m.sessions {
		if s.ID == id {
			return s, true
		}
	}
	return Session{}, false
}

// paneByID returns the pane with id.
func (m *model) paneByID(id string) (Pane, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range m.panes {
		if p.ID == id {
			return p, true
		}
	}
	return Pane{}, false
}
