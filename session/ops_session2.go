package session

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// LookupSession returns a session from the model: the one with id when id
// is given, else the one named exactly name, else (both empty) the oldest
// session, the one with the lowest id, which no rename or activity can
// change. It costs no tmux call while the model is current. A miss is
// checked once more against a fresh listing: the model learns of another
// client's new session from a notification that may still be in flight.
func (s *Server) LookupSession(ctx context.Context, id, name string) (Session, error) {
	for fresh := false; ; fresh = true {
		sessions, err := s.Sessions(ctx)
		if err != nil {
			return Session{}, err
		}
		if x, ok := pickSession(sessions, id, name); ok {
			return x, nil
		}
		if fresh || len(sessions) == 0 {
			break // no server: nothing a notification could be about
		}
		s.model.markDirty()
	}
	switch {
	case id != "":
		return Session{}, errorf(CodeNotFound, false, "can't find session: %s", id)
	case name != "":
		return Session{}, errorf(CodeNotFound, false, "can't find session: %s", name)
	}
	return Session{}, errorf(CodeNotFound, false, "no tmux sessions on socket %s", s.sock)
}

// pickSession is LookupSession's choice among sessions.
func pickSession(sessions []Session, id, name string) (Session, bool) {
	switch {
	case id != "":
		i := slices.IndexFunc(sessions, func(x Session) bool { return x.ID == id })
		return sessionAt(sessions, i)
	case name != "":
		i := slices.IndexFunc(sessions, func(x Session) bool { return x.Name == name })
		return sessionAt(sessions, i)
	case len(sessions) == 0:
		return Session{}, false
	}
	return slices.MinFunc(sessions, func(a, b Session) int { return compareIDs(a.ID, b.ID) }), true
}

func sessionAt(sessions []Session, i int) (Session, bool) {
	if i < 0 {
		return Session{}, false
	}
	return sessions[i], true
}

// compareIDs orders tmux ids ($N, @N, %N) by number, so $10 is newer than
// $9.
func compareIDs(a, b string) int {
	na, errA := strconv.Atoi(strings.TrimLeft(a, "$@%"))
	nb, errB := strconv.Atoi(strings.TrimLeft(b, "$@%"))
	switch {
	case errA == nil && errB == nil:
		return na - nb
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}

// RenameSession renames session id and returns it as it is now, in one
// round trip. The name is taken literally: tmux expands formats in it, so
// every # is doubled.
func (s *Server) RenameSession(ctx context.Context, id, newName string) (Session, error) {
	if err := s.checkName(ctx, "a session", newName); err != nil {
		return Session{}, err
	}
	rs, err := s.change(ctx,
		controlmode.NewCommand("rename-session", "-t", id).Text(formatLiteral(newName)),
		controlmode.NewCommand("display-message", "-p", "-t", id, "-F", s.fmts.sessions.format))
	if err != nil {
		return Session{}, err
	}
	rows, ok := s.fmts.sessions.parse(s.release(), rs[1].Lines)
	if !ok || len(rows) != 1 || rows[0].ID == "" {
		return Session{}, errorf(CodeNotFound, true, "can't find session: %s", id)
	}
	rows[0].Generation = s.Generation()
	return rows[0], nil
}

// formatLiteral returns s for a tmux argument in which formats are expanded
// (new-window -n, rename-window, rename-session, new-session -s and -n):
// every # doubled, so the name is exactly s.
func formatLiteral(s string) string { return strings.ReplaceAll(s, "#", "##") }

// Leave moves the control client to another session when it is attached
// to session id, so that destroying id leaves the client connected instead
// of ending it. An ended client would have to reconnect, and every new
// control client is a risk: tmux 3.3a can crash when another client
// creates a session while a control client is still identifying itself.
// It prefers a session this process owns. It does nothing when the client
// is elsewhere, or when id is the only session (the server ends with it).
// A failure is not reported: the client then ends and reconnects, as it
// would have anyway.
func (s *Server) Leave(ctx context.Context, id string) {
	s.mu.Lock()
	attached, c := s.attached, s.conn
	s.mu.Unlock()
	if attached == "" || attached != id || c == nil || c.Err() != nil {
		return
	}
	s.model.markDirty() // a fresh list: another client's new session will do
	sessions, err := s.Sessions(ctx)
	if err != nil {
		return
	}
	owned := s.owned.list(s.Generation())
	other := ""
	for _, x := range sessions {
		if x.ID != id && (other == "" || slices.Contains(owned, x.ID)) {
			other = x.ID
		}
	}
	if other == "" {
		return
	}
	_, _ = s.send(ctx, c, controlmode.NewCommand("switch-client", "-t", other)) // Best effort, see above.
}

// leaveIfLast is Leave for an operation that removes window id from its
// session (kill-window, move-window to another session): the session ends
// with its last window.
func (s *Server) leaveIfLast(ctx context.Context, window string) {
	s.mu.Lock()
	attached := s.attached
	s.mu.Unlock()
	if attached == "" {
		return
	}
	rs, err := s.exec(ctx, controlmode.NewCommand("list-windows", "-t", attached, "-F", "#{window_id}"))
	if err == nil && len(rs[0].Lines) == 1 && rs[0].Lines[0] == window {
		s.Leave(ctx, attached)
	}
}
