package mcp

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// The server tools: list_servers, list_sessions, get_server_info,
// create_session, kill_server. Also here: the conversions of session rows
// to result types and self-protection (the list_* tools' filters are in
// filter.go).

// ListServers reports the live servers in tmux-<uid>/ of tmux's socket directory
// and at extra_socket_paths. It starts, attaches to and kills nothing.
func (b *TmuxBackend) ListServers(ctx context.Context, in ListServersIn) (List[ServerInfo], error) {
	return paged(b.m.ProbeServers(ctx, b.m.SocketDir(), in.ExtraSocketPaths), Paging{}, serverInfoFrom), nil
}

// ListSessions lists the sessions from the model: no tmux call while
// nothing changed. A socket with no server has none.
func (b *TmuxBackend) ListSessions(ctx context.Context, in ListSessionsIn) (List[SessionInfo], error) {
	sessions, err := b.server(in.Socket).Sessions(ctx)
	if err != nil {
		return List[SessionInfo]{}, err
	}
	rows := make([]SessionInfo, len(sessions))
	for i, s := range sessions {
		rows[i] = sessionInfoFrom(s)
	}
	if rows, err = filterList(rows, in.Filters, sessionFilterFields); err != nil {
		return List[SessionInfo]{}, err
	}
	return paged(rows, in.Paging, same), nil
}

// GetServerInfo reports on the server without starting it.
func (b *TmuxBackend) GetServerInfo(ctx context.Context, in GetServerInfoIn) (ServerInfo, error) {
	srv := b.server(in.Socket)
	st, err := srv.Status(ctx)
	if err != nil {
		return ServerInfo{}, err
	}
	info := serverInfoFrom(st)
	if info.SocketPath == "" {
		info.SocketPath = srv.SocketFile()
	}
	return info, nil
}

// CreateSession creates a detached session owned by this process; its
// result carries the generation teardown_session needs.
func (b *TmuxBackend) CreateSession(ctx context.Context, in CreateSessionIn) (SessionInfo, error) {
	if err := checkSessionName("session_name", in.SessionName); err != nil {
		return SessionInfo{}, err
	}
	a := session.CreateSessionArgs{
		// tmux expands formats in both names; double # so they are literal.
		Name:       in.SessionName,
		WindowName: in.WindowName,
		SpawnArgs:  spawnArgs(in.StartDirectory, in.Environment, in.SuppressPersistentHistory),
	}
	if in.X != nil {
		a.Width = *in.X
	}
	if in.Y != nil {
		a.Height = *in.Y
	}
	s, err := b.server(in.Socket).CreateSession(ctx, a)
	if err != nil {
		return SessionInfo{}, err
	}
	return sessionInfoFrom(s), nil
}

// KillServer kills the server, unless this process runs inside it.
func (b *TmuxBackend) KillServer(ctx context.Context, in KillServerIn) (Message, error) {
	srv := b.server(in.Socket)
	if b.selfOn(srv) {
		return Message{}, Errorf(CodeTargetDenied, EffectsNone,
			"refusing to kill tmux server %s: this MCP server runs inside it", srv.Socket())
	}
	if err := srv.KillServer(ctx); err != nil {
		return Message{}, err
	}
	return Message{Result: "Server killed: " + srv.Socket().String()}, nil
}

// serverInfoFrom converts a probe.
func serverInfoFrom(st session.ServerStatus) ServerInfo {
	name := st.Socket.Name
	if name == "" && st.Socket.Path == "" {
		name = "default"
	}
	return ServerInfo{
		IsAlive:      st.Alive,
		SocketName:   name,
		SocketPath:   st.SocketPath,
		SessionCount: st.Sessions,
		Version:      st.Version,
	}
}

// sessionInfoFrom converts a session row.
func sessionInfoFrom(s session.Session) SessionInfo {
	return SessionInfo{
		SessionID:       s.ID,
		SessionName:     s.Name,
		WindowCount:     s.Windows,
		SessionAttached: s.Attached,
		SessionCreated:  s.Created,
		ActivePaneID:    s.ActivePane,
		Generation:      s.Generation,
	}
}

// windowInfoFrom converts a window row.
func windowInfoFrom(w session.Window) WindowInfo {
	active := "0"
	if w.Active {
		active = "1"
	}
	return WindowInfo{
		WindowID:     w.ID,
		WindowName:   w.Name,
		WindowIndex:  w.Index,
		SessionID:    w.SessionID,
		SessionName:  w.SessionName,
		PaneCount:    w.Panes,
		WindowLayout: w.Layout,
		WindowActive: active,
		WindowWidth:  strconv.Itoa(w.Width),
		WindowHeight: strconv.Itoa(w.Height),
		ActivePaneID: w.ActivePane,
	}
}

// selfOn reports whether this process may be running inside srv, for
// self-protection (CONTRACT §4). Like libtmux-mcp it errs toward yes: a
// known pane without a known socket could be on any server, and sockets
// are also compared after resolving symbolic links.
func (b *TmuxBackend) selfOn(srv *session.Server) bool {
	switch {
	case b.opts.SelfSocketPath == "":
		return b.opts.SelfPane != ""
	case b.isSelfServer(srv):
		return true
	}
	a, errA := filepath.EvalSymlinks(srv.SocketFile())
	c, errC := filepath.EvalSymlinks(b.opts.SelfSocketPath)
	return errA == nil && errC == nil && a == c
}

// holdsSelf reports whether panes include this process's own pane on srv.
func (b *TmuxBackend) holdsSelf(srv *session.Server, panes []session.Pane) bool {
	if b.opts.SelfPane == "" || !b.selfOn(srv) {
		return false
	}
	return slices.ContainsFunc(panes, func(p session.Pane) bool { return p.ID == b.opts.SelfPane })
}
