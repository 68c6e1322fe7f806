package session

import "context"

// Placement is where things are on one server, as the model knows it: what
// a caller needs to decide which sessions a target reaches before it sends
// anything (the mcp package's scopes).
type Placement struct {
	Sessions []Session
	Windows  []Window // one row per session a window is linked into
	Panes    []Pane   // one row per session a pane's window is linked into
	// Generation is the server's generation these rows belong to.
	Generation string
}

// Placement returns the model's sessions, windows and panes. It costs no
// tmux call while the model is current; a changed model is resynced first,
// in one read-only round trip, and fresh forces that resync (the model
// learns of a pane split off in a session no client of ours is attached to
// only by reading again). A server that is not running has nothing.
func (s *Server) Placement(ctx context.Context, fresh bool) (Placement, error) {
	if fresh {
		s.model.markDirty()
	}
	if err := s.sync(ctx); err != nil {
		if noServer(err) {
			return Placement{}, nil
		}
		return Placement{}, err
	}
	ss, ws, ps := s.model.snapshot()
	return Placement{Sessions: ss, Windows: ws, Panes: ps, Generation: s.Generation()}, nil
}

// CursorPane returns the pane a capture_since cursor reads, and false when
// c is not a cursor.
func CursorPane(c string) (string, bool) {
	pane, _, _, err := parseCursor(c)
	return pane, err == nil
}
