package mcp

import (
	"context"
	"slices"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// The session tools: list_windows, get_session_info, create_window,
// rename_session, kill_session, select_window, teardown_session.

// ListWindows lists the windows of the session named, or of every session.
func (b *TmuxBackend) ListWindows(ctx context.Context, in ListWindowsIn) (List[WindowInfo], error) {
	srv := b.server(in.Socket)
	target := ""
	if in.SessionID != "" || in.SessionName != "" {
		s, err := srv.LookupSession(ctx, in.SessionID, in.SessionName)
		if err != nil {
			return List[WindowInfo]{}, err
		}
		target = s.ID
	}
	ws, err := srv.Windows(ctx, target)
	if err != nil {
		return List[WindowInfo]{}, err
	}
	rows := make([]WindowInfo, len(ws))
	for i, w := range ws {
		rows[i] = windowInfoFrom(w)
	}
	if rows, err = filterList(rows, in.Filters, windowFilterFields); err != nil {
		return List[WindowInfo]{}, err
	}
	return paged(rows, in.Paging, same), nil
}

// windowFilterFields are a WindowInfo's fields, plus tmux's name for the
// pane count.
func windowFilterFields(w WindowInfo) filterFields {
	f := resultFields(w)
	f["window_panes"] = f["pane_count"]
	return f
}

// GetSessionInfo describes the session named, or the oldest session.
func (b *TmuxBackend) GetSessionInfo(ctx context.Context, in GetSessionInfoIn) (SessionInfo, error) {
	s, err := b.server(in.Socket).LookupSession(ctx, in.SessionID, in.SessionName)
	if err != nil {
		return SessionInfo{}, err
	}
	return sessionInfoFrom(s), nil
}

// CreateWindow creates a window in the session named.
func (b *TmuxBackend) CreateWindow(ctx context.Context, in CreateWindowIn) (WindowInfo, error) {
	srv := b.server(in.Socket)
	s, err := srv.LookupSession(ctx, in.SessionID, in.SessionName)
	if err != nil {
		return WindowInfo{}, err
	}
	w, err := srv.NewWindow(ctx, s.ID, session.NewWindowArgs{
		Name:      in.WindowName,
		Attach:    in.Attach,
		Where:     in.Direction,
		SpawnArgs: spawnArgs(in.StartDirectory, in.Environment, in.SuppressPersistentHistory),
	})
	if err != nil {
		return WindowInfo{}, err
	}
	return windowInfoFrom(w), nil
}

// RenameSession renames the session named; its id stays valid.
func (b *TmuxBackend) RenameSession(ctx context.Context, in RenameSessionIn) (SessionInfo, error) {
	if in.NewName == "" {
		return SessionInfo{}, invalidArguments("new_name must not be empty")
	}
	if err := checkSessionName("new_name", in.NewName); err != nil {
		return SessionInfo{}, err
	}
	srv := b.server(in.Socket)
	s, err := srv.LookupSession(ctx, in.SessionID, in.SessionName)
	if err != nil {
		return SessionInfo{}, err
	}
	s, err = srv.RenameSession(ctx, s.ID, in.NewName)
	if err != nil {
		return SessionInfo{}, err
	}
	return sessionInfoFrom(s), nil
}

// KillSession kills the session named, unless this process runs in it.
func (b *TmuxBackend) KillSession(ctx context.Context, in KillSessionIn) (Message, error) {
	srv := b.server(in.Socket)
	s, err := srv.LookupSession(ctx, in.SessionID, in.SessionName)
	if err != nil {
		return Message{}, err
	}
	if b.opts.SelfPane != "" && b.selfOn(srv) {
		panes, err := srv.Panes(ctx, session.PaneScope{Session: s.ID})
		if err != nil {
			return Message{}, err
		}
		if b.holdsSelf(srv, panes) {
			return Message{}, Errorf(CodeTargetDenied, EffectsNone,
				"refusing to kill session %s (%s): it holds this MCP server's own pane %s", s.ID, s.Name, b.opts.SelfPane)
		}
	}
	if err := srv.KillSession(ctx, s.ID); err != nil {
		return Message{}, err
	}
	name := s.Name
	if name == "" {
		name = s.ID
	}
	return Message{Result: "Session killed: " + name}, nil
}

// SelectWindow makes a window current: by id, by index in the session
// named, or by moving next, previous or last in it.
func (b *TmuxBackend) SelectWindow(ctx context.Context, in SelectWindowIn) (WindowInfo, error) {
	ref := session.WindowRef{WindowID: in.WindowID, WindowIndex: in.WindowIndex, SessionID: in.SessionID, SessionName: in.SessionName}
	direction := in.Direction
	if in.WindowID != "" || in.WindowIndex != "" {
		direction = "" // an explicit window wins, as in libtmux-mcp
	}
	w, err := b.server(in.Socket).SelectWindow(ctx, ref, direction)
	if err != nil {
		return WindowInfo{}, err
	}
	return windowInfoFrom(w), nil
}

// TeardownSession destroys a session this process created, named by id
// and generation. Anything else is refused before any tmux I/O with
// ownership_required. The tool names no socket: the server is the one on
// which this process owns that session, else the default one (which
// refuses).
func (b *TmuxBackend) TeardownSession(ctx context.Context, in TeardownSessionIn) (TeardownSessionResult, error) {
	srv := b.server(Socket{})
	for _, s := range b.m.Servers() {
		if s.Owns(ctx, in.Generation, in.SessionID) {
			srv = s
			break
		}
		if s.Generation() == in.Generation && slices.Contains(s.Owned(), in.SessionID) {
			srv = s // another identity's: that server refuses with who owns it
		}
	}
	if err := srv.TeardownSession(ctx, in.SessionID, in.Generation); err != nil {
		return TeardownSessionResult{}, err
	}
	return TeardownSessionResult{Completed: true, SessionID: in.SessionID, Generation: in.Generation}, nil
}

// checkSessionName refuses a session name tmux would not keep: tmux
// replaces "." and ":" with "_" (they separate a session from a window and
// a pane in a target), so "a.b" would silently become "a_b" and the name
// asked for would target nothing. libtmux refuses such names too.
func checkSessionName(arg, name string) *ToolError {
	i := strings.IndexAny(name, ".:")
	if i < 0 {
		return nil
	}
	kept := strings.NewReplacer(".", "_", ":", "_").Replace(name)
	return invalidArguments("%s %q contains %q, which tmux does not keep in a session name (it would make it %q): "+
		"\".\" and \":\" separate a session from a window and a pane in a target; use another character such as \"-\" or \"_\"",
		arg, name, name[i:i+1], kept)
}
