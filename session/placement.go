package session

import (
	"context"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

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

// SessionsOf returns the ids of the sessions each pane (%N) or window (@N)
// of ids is in, every session a window is linked into, read fresh from
// tmux in one read-only round trip: what the model says may lag behind a
// move another client made in a session no client of ours is attached to,
// which tmux reports to nobody. An id in no session has no entry.
func (s *Server) SessionsOf(ctx context.Context, ids []string) (map[string][]string, error) {
	var cmds []controlmode.Command
	for _, id := range ids {
		if len(id) < 2 || !isDigits(id[1:]) {
			return nil, errorf(KindInvalid, "not a pane or window id: %q", id)
		}
		switch id[0] {
		case '%':
			cmds = append(cmds, controlmode.NewCommand("list-panes", "-a", "-f", "#{==:#{pane_id},"+id+"}", "-F", "#{session_id}"))
		case '@':
			cmds = append(cmds, controlmode.NewCommand("list-windows", "-a", "-f", "#{==:#{window_id},"+id+"}", "-F", "#{session_id}"))
		default:
			return nil, errorf(KindInvalid, "not a pane or window id: %q", id)
		}
	}
	out := make(map[string][]string, len(ids))
	if len(cmds) == 0 {
		return out, nil
	}
	rs, err := s.exec(ctx, cmds...)
	if err != nil {
		if noServer(err) {
			return out, nil
		}
		return nil, err
	}
	for i, id := range ids {
		for _, l := range rs[i].Lines {
			if l = strings.TrimSpace(l); l != "" {
				out[id] = append(out[id], l)
			}
		}
	}
	return out, nil
}
