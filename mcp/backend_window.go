package mcp

import (
	"context"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// The window tools: list_panes, get_window_info, split_window,
// rename_window, kill_window, select_layout, resize_window, move_window.

// windowRef converts the tools' window target group.
func windowRef(t WindowTarget) session.WindowRef {
	return session.WindowRef{WindowID: t.WindowID, WindowIndex: t.WindowIndex, SessionID: t.SessionID, SessionName: t.SessionName}
}

// ListPanes lists the panes of a window, else of a session, else of the
// whole server, a page at a time. Without filters, a session's or the
// server's page is read as such (session.Server.PanesPage): tmux formats
// the rows of the page only.
func (b *TmuxBackend) ListPanes(ctx context.Context, in ListPanesIn) (List[PaneInfo], error) {
	srv := b.server(in.Socket)
	info := func(p session.Pane) PaneInfo { return b.paneInfoOf(srv, p) }
	var scope session.PaneScope
	switch {
	case in.WindowID != "" || in.WindowIndex != "":
		w, err := orDefaultWindow(ctx, srv, session.WindowRef{
			WindowID: in.WindowID, WindowIndex: in.WindowIndex, SessionID: in.SessionID, SessionName: in.SessionName})
		if err != nil {
			return List[PaneInfo]{}, err
		}
		panes, err := srv.WindowPanes(ctx, w)
		if err != nil {
			return List[PaneInfo]{}, err
		}
		return b.filteredPanes(ctx, srv, panes, in)
	case in.SessionID != "" || in.SessionName != "":
		s, err := srv.LookupSession(ctx, in.SessionID, in.SessionName)
		if err != nil {
			return List[PaneInfo]{}, err
		}
		scope.Session = s.ID
	}
	if len(in.Filters) == 0 && in.Limit > 0 {
		panes, total, err := srv.PanesPage(ctx, scope, in.Offset, in.Limit)
		if err != nil {
			return List[PaneInfo]{}, err
		}
		out := withStates(ctx, srv, panes, paged(panes, Paging{}, info))
		out.Total = total
		if next := min(in.Offset, total) + in.Limit; next < total {
			out.NextOffset = &next
		}
		return out, nil
	}
	panes, err := srv.Panes(ctx, scope)
	if err != nil {
		return List[PaneInfo]{}, err
	}
	return b.filteredPanes(ctx, srv, panes, in)
}

// filteredPanes is the page of panes that in's filters and paging select.
// A filter that names agent_state has every pane's state worked out first.
func (b *TmuxBackend) filteredPanes(ctx context.Context, srv *session.Server, panes []session.Pane, in ListPanesIn) (List[PaneInfo], error) {
	var states map[string]session.AgentState
	for key := range in.Filters {
		if strings.HasPrefix(key, "agent_state") || strings.HasPrefix(key, "state_detail") {
			states = srv.ListStates(ctx, panes)
			break
		}
	}
	panes, err := filterList(panes, in.Filters, func(p session.Pane) filterFields {
		f := b.paneFilterFields(srv, p)
		if st, ok := states[p.ID]; ok {
			f["agent_state"] = filterValue{text: st.State, present: true}
			f["state_detail"] = filterValue{text: stateDetail(st), present: true}
		}
		return f
	})
	if err != nil {
		return List[PaneInfo]{}, err
	}
	return withStates(ctx, srv, panes, paged(panes, in.Paging, func(p session.Pane) PaneInfo { return b.paneInfoOf(srv, p) })), nil
}

// paneFilterFields are a PaneInfo's fields, plus the tmux fields of the
// pane that PaneInfo leaves out.
func (b *TmuxBackend) paneFilterFields(srv *session.Server, p session.Pane) filterFields {
	f := resultFields(b.paneInfoOf(srv, p))
	text := func(v string) filterValue { return filterValue{text: v, present: true} }
	flag := func(v bool) filterValue {
		if v {
			return filterValue{text: "1", present: true, flag: true}
		}
		return filterValue{text: "0", present: true, flag: true}
	}
	f["window_index"] = text(p.WindowIndex)
	f["window_name"] = text(p.WindowName)
	f["session_name"] = text(p.SessionName)
	f["pane_dead"] = flag(p.Dead)
	f["pane_in_mode"] = flag(p.InMode)
	f["cursor_x"] = text(strconv.Itoa(p.CursorX))
	f["cursor_y"] = text(strconv.Itoa(p.CursorY))
	return f
}

// GetWindowInfo describes the window named; with no target, the current
// window of the oldest session.
func (b *TmuxBackend) GetWindowInfo(ctx context.Context, in GetWindowInfoIn) (WindowInfo, error) {
	srv := b.server(in.Socket)
	ref, err := orDefaultWindow(ctx, srv, windowRef(in.WindowTarget))
	if err != nil {
		return WindowInfo{}, err
	}
	w, err := srv.Window(ctx, ref)
	if err != nil {
		return WindowInfo{}, err
	}
	return windowInfoFrom(w), nil
}

// SplitWindow splits pane_id, or the active pane of the window named, and
// returns the new pane.
func (b *TmuxBackend) SplitWindow(ctx context.Context, in SplitWindowIn) (PaneInfo, error) {
	srv := b.server(in.Socket)
	p, err := srv.SplitWindow(ctx, in.PaneID, windowRef(in.WindowTarget), session.SplitArgs{
		Direction: in.Direction,
		Size:      string(in.Size),
		Shell:     in.Shell,
		SpawnArgs: spawnArgs(in.StartDirectory, in.Environment, in.SuppressPersistentHistory),
	})
	if err != nil {
		return PaneInfo{}, err
	}
	return b.paneInfoOf(srv, p), nil
}

// RenameWindow renames the window named; its id stays valid.
func (b *TmuxBackend) RenameWindow(ctx context.Context, in RenameWindowIn) (WindowInfo, error) {
	if in.NewName == "" {
		return WindowInfo{}, invalidArguments("new_name must not be empty")
	}
	w, err := b.server(in.Socket).RenameWindow(ctx, windowRef(in.WindowTarget), in.NewName)
	if err != nil {
		return WindowInfo{}, err
	}
	return windowInfoFrom(w), nil
}

// KillWindow kills window_id, unless this process runs in it.
func (b *TmuxBackend) KillWindow(ctx context.Context, in KillWindowIn) (Message, error) {
	if in.WindowID == "" {
		return Message{}, Errorf(CodeTargetRequired, EffectsNone, "kill_window needs a window_id")
	}
	srv := b.server(in.Socket)
	if b.opts.SelfPane != "" && b.selfOn(srv) {
		panes, err := srv.Panes(ctx, session.PaneScope{Window: in.WindowID})
		if err != nil {
			return Message{}, err
		}
		if b.holdsSelf(srv, panes) {
			return Message{}, Errorf(CodeTargetDenied, EffectsNone,
				"refusing to kill window %s: it holds this MCP server's own pane %s", in.WindowID, b.opts.SelfPane)
		}
	}
	if err := srv.KillWindow(ctx, in.WindowID); err != nil {
		return Message{}, err
	}
	return Message{Result: "Window killed: " + in.WindowID}, nil
}

// SelectLayout arranges the panes of the window named.
func (b *TmuxBackend) SelectLayout(ctx context.Context, in SelectLayoutIn) (WindowInfo, error) {
	if in.Layout == "" {
		return WindowInfo{}, invalidArguments("layout must not be empty")
	}
	w, err := b.server(in.Socket).SelectLayout(ctx, windowRef(in.WindowTarget), in.Layout)
	if err != nil {
		return WindowInfo{}, err
	}
	return windowInfoFrom(w), nil
}

// ResizeWindow resizes the window named.
func (b *TmuxBackend) ResizeWindow(ctx context.Context, in ResizeWindowIn) (WindowInfo, error) {
	var width, height int
	if in.Width != nil {
		width = *in.Width
	}
	if in.Height != nil {
		height = *in.Height
	}
	w, err := b.server(in.Socket).ResizeWindow(ctx, windowRef(in.WindowTarget), width, height)
	if err != nil {
		return WindowInfo{}, err
	}
	return windowInfoFrom(w), nil
}

// MoveWindow moves the window named to another index or session.
func (b *TmuxBackend) MoveWindow(ctx context.Context, in MoveWindowIn) (WindowInfo, error) {
	w, err := b.server(in.Socket).MoveWindow(ctx, windowRef(in.WindowTarget), in.DestinationSession, in.DestinationIndex)
	if err != nil {
		return WindowInfo{}, err
	}
	return windowInfoFrom(w), nil
}
