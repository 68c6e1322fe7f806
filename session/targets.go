package session

import (
	"context"
	"strings"
)

// PaneRef names a pane the way the MCP tools do: by pane id, else the
// active pane of the window or session named. The zero PaneRef names no
// pane.
type PaneRef struct {
	PaneID      string
	WindowID    string
	SessionID   string
	SessionName string
}

// IsZero reports whether ref names nothing.
func (ref PaneRef) IsZero() bool { return ref == PaneRef{} }

// target returns the tmux target for ref.
func (ref PaneRef) target() string {
	switch {
	case ref.PaneID != "":
		return ref.PaneID
	case ref.WindowID != "":
		return ref.WindowID
	case ref.SessionID != "":
		return ref.SessionID
	case ref.SessionName != "":
		// "=" asks for the exact name, never a prefix or pattern; the ":"
		// makes it a session, since a bare "=name" is first looked up as a
		// window of the control client's own session.
		return "=" + ref.SessionName + ":"
	}
	return ""
}

// ResolvePane returns the id of the pane ref names. A zero ref is
// target_required: which pane a call that names none should use is the
// caller's policy (the mcp read tools take the oldest session's active
// pane, through [Server.LookupSession]).
func (s *Server) ResolvePane(ctx context.Context, ref PaneRef) (string, error) {
	if ref.PaneID != "" && strings.HasPrefix(ref.PaneID, "%") && ref.WindowID == "" && ref.SessionID == "" && ref.SessionName == "" {
		if p, ok := s.model.paneByID(ref.PaneID); ok {
			return p.ID, nil
		}
	}
	t, err := paneTarget(ref)
	if err != nil {
		return "", err
	}
	rs, err := s.exec(ctx, paneIDCommand(t))
	if err != nil {
		return "", err
	}
	return paneIDOf(rs[0], t)
}

// formatLiteral returns s for a tmux argument in which formats are expanded
// (new-window -n, rename-window, rename-session, new-session -s and -n):
// every # doubled, so the name is exactly s.
func formatLiteral(s string) string { return strings.ReplaceAll(s, "#", "##") }
