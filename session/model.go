package session

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strconv"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/engine"
	"github.com/tmux-mcp/tmux-mcp/session/internal/release"
	"github.com/tmux-mcp/tmux-mcp/session/internal/rows"
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
type Pane = engine.Pane

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

var sessionFields = []rows.Field[Session]{
	{Name: "session_id", Set: func(s *Session, v string) { s.ID = v }},
	{Name: "session_windows", Set: func(s *Session, v string) { s.Windows = atoi(v) }},
	{Name: "session_attached", Set: func(s *Session, v string) { s.Attached = v }},
	{Name: "session_created", Set: func(s *Session, v string) { s.Created = v }},
	{Name: "pane_id", Set: func(s *Session, v string) { s.ActivePane = v }},
	{Name: "session_name", Set: func(s *Session, v string) { s.Name = v }},
}

var windowFields = []rows.Field[Window]{
	{Name: "window_id", Set: func(w *Window, v string) { w.ID = v }},
	{Name: "window_index", Set: func(w *Window, v string) { w.Index = v }},
	{Name: "session_id", Set: func(w *Window, v string) { w.SessionID = v }},
	{Name: "window_panes", Set: func(w *Window, v string) { w.Panes = atoi(v) }},
	{Name: "window_layout", Set: func(w *Window, v string) { w.Layout = v }},
	{Name: "window_active", Set: func(w *Window, v string) { w.Active = v == "1" }},
	{Name: "window_width", Set: func(w *Window, v string) { w.Width = atoi(v) }},
	{Name: "window_height", Set: func(w *Window, v string) { w.Height = atoi(v) }},
	{Name: "pane_id", Set: func(w *Window, v string) { w.ActivePane = v }},
	{Name: "session_name", Set: func(w *Window, v string) { w.SessionName = v }},
	{Name: "window_name", Set: func(w *Window, v string) { w.Name = v }},
}

var paneFields = []rows.Field[Pane]{
	{Name: "pane_id", Set: func(p *Pane, v string) { p.ID = v }},
	{Name: "pane_index", Set: func(p *Pane, v string) { p.Index = v }},
	{Name: "pane_width", Set: func(p *Pane, v string) { p.Width = atoi(v) }},
	{Name: "pane_height", Set: func(p *Pane, v string) { p.Height = atoi(v) }},
	{Name: "pane_pid", Set: func(p *Pane, v string) { p.PID = v }},
	{Name: "pane_active", Set: func(p *Pane, v string) { p.Active = v == "1" }},
	{Name: "window_id", Set: func(p *Pane, v string) { p.WindowID = v }},
	{Name: "window_index", Set: func(p *Pane, v string) { p.WindowIndex = v }},
	{Name: "session_id", Set: func(p *Pane, v string) { p.SessionID = v }},
	{Name: "pane_left", Set: func(p *Pane, v string) { p.Left = atoi(v) }},
	{Name: "pane_top", Set: func(p *Pane, v string) { p.Top = atoi(v) }},
	{Name: "pane_right", Set: func(p *Pane, v string) { p.Right = atoi(v) }},
	{Name: "pane_bottom", Set: func(p *Pane, v string) { p.Bottom = atoi(v) }},
	{Name: "pane_at_left", Set: func(p *Pane, v string) { p.AtLeft = v == "1" }},
	{Name: "pane_at_right", Set: func(p *Pane, v string) { p.AtRight = v == "1" }},
	{Name: "pane_at_top", Set: func(p *Pane, v string) { p.AtTop = v == "1" }},
	{Name: "pane_at_bottom", Set: func(p *Pane, v string) { p.AtBottom = v == "1" }},
	{Name: "pane_dead", Set: func(p *Pane, v string) { p.Dead = v == "1" }},
	{Name: "pane_dead_status", Set: func(p *Pane, v string) { p.DeadStatus = v }},
	{Name: "alternate_on", Set: func(p *Pane, v string) { p.Alternate = v == "1" }},
	{Name: "pane_in_mode", Set: func(p *Pane, v string) { p.InMode = v == "1" }},
	{Name: "cursor_x", Set: func(p *Pane, v string) { p.CursorX = atoi(v) }},
	{Name: "cursor_y", Set: func(p *Pane, v string) { p.CursorY = atoi(v) }},
	{Name: "pane_tty", Set: func(p *Pane, v string) { p.TTY = v }},
	{Name: "session_name", Set: func(p *Pane, v string) { p.SessionName = v }},
	{Name: "window_name", Set: func(p *Pane, v string) { p.WindowName = v }},
	{Name: "pane_current_command", Set: func(p *Pane, v string) { p.CurrentCommand = v }},
	{Name: "pane_current_path", Set: func(p *Pane, v string) { p.CurrentPath = v }},
	{Name: "pane_title", Set: func(p *Pane, v string) { p.Title = v }},
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

// newRowFormat returns the row format of fields, with the fields named in
// freeText printed by [release.TextField] behind sep.
func newRowFormat[T any](sep string, fields []rows.Field[T]) rows.Format[T] {
	return rows.New(sep, fields, func(name string) string {
		if freeText[name] {
			return release.TextField(name)
		}
		return ""
	})
}

// formats is the set of row formats of one Server.
type formats struct {
	sep      string // before each free-text field of every row
	sessions rows.Format[Session]
	windows  rows.Format[Window]
	panes    rows.Format[Pane]
}

// newFormats returns the row formats of one Server. Their separator is
// made of random printable bytes, so no name or title can forge a field
// boundary, and it reads the same in every tmux version (command output is vis-encoded in 3.4 and 3.5, which would
// mangle a control byte).
func newFormats() formats {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // never fails
	sep := "~" + hex.EncodeToString(b) + "~"
	return formats{
		sep:      sep,
		sessions: newRowFormat(sep, sessionFields),
		windows:  newRowFormat(sep, windowFields),
		panes:    newRowFormat(sep, paneFields),
	}
}

// listCommands returns the one-round-trip query of the whole server.
func (f *formats) listCommands() []controlmode.Command {
	return []controlmode.Command{
		controlmode.NewCommand("list-sessions", "-F", f.sessions.String()),
		controlmode.NewCommand("list-windows", "-a", "-F", f.windows.String()),
		controlmode.NewCommand("list-panes", "-a", "-F", f.panes.String()),
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
	// renames holds the window renames applied since the last resync, in
	// stream order. A resync's rows may have been read before the newest of
	// them: replace applies them again, so a rename is never lost to it.
	renames []controlmode.WindowRenamed
}

// maxRenames bounds the renames kept for the next resync; past it the
// model is resynced instead.
const maxRenames = 256

// apply updates the model for one notification. It runs on the
// connection's reader goroutine and never blocks on I/O. It reports whether
// a resync is needed.
func (m *model) apply(n controlmode.Notification) (needSync bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch n := n.(type) {
	case controlmode.WindowRenamed:
		m.rename(n)
		if len(m.renames) < maxRenames {
			m.renames = append(m.renames, n)
			return false
		}
		m.renames = nil
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

// rename applies one window rename to the rows. Callers hold mu.
func (m *model) rename(n controlmode.WindowRenamed) {
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
	// The rows were read at some point of the stream; every rename
	// notified since the last resync is as new as they are or newer.
	for _, n := range m.renames {
		m.rename(n)
	}
	m.renames = nil
	m.synced = true
	if m.epoch == epoch {
		m.dirty = false
	}
}

// reset forgets everything: the connection it described is gone.
func (m *model) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sessions, m.windows, m.panes, m.renames = nil, nil, nil, nil
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
