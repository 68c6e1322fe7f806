package mcp

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// A read-only tool given no target reads the oldest session's active pane,
// or its current window, as libtmux-mcp does; a tool that changes anything
// needs a target. The policy is the tools', so it lives here: session
// resolves only what it is told and answers a zero ref target_required.

// orDefaultPane returns ref, or for a zero ref the active pane of the
// oldest session, read from the model (no tmux call while it is current).
// With no session at all it is not_found.
func orDefaultPane(ctx context.Context, srv *session.Server, ref session.PaneRef) (session.PaneRef, error) {
	if !ref.IsZero() {
		return ref, nil
	}
	s, err := srv.LookupSession(ctx, "", "")
	if err != nil {
		return session.PaneRef{}, err
	}
	return session.PaneRef{PaneID: s.ActivePane}, nil
}

// orDefaultWindow returns ref, or for a ref that names neither a window id
// nor a session, ref placed in the oldest session: its current window, or
// the window at ref's index there. The session comes from the model, as in
// orDefaultPane.
func orDefaultWindow(ctx context.Context, srv *session.Server, ref session.WindowRef) (session.WindowRef, error) {
	if ref.WindowID != "" || ref.SessionID != "" || ref.SessionName != "" {
		return ref, nil
	}
	s, err := srv.LookupSession(ctx, "", "")
	if err != nil {
		return session.WindowRef{}, err
	}
	ref.SessionID = s.ID
	return ref, nil
}
