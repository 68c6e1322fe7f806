package mcp

import (
	"context"
	"slices"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// placement implements scopeSource: the model's placement of the server
// sock names, and which of its sessions this process owns in that
// placement's generation for the caller's identity (session.WithOwner).
func (b *TmuxBackend) placement(ctx context.Context, sock Socket, fresh bool) (session.Placement, func(string) bool, error) {
	srv := b.server(sock)
	pl, err := srv.Placement(ctx, fresh)
	if err != nil {
		return session.Placement{}, nil, err
	}
	gen := pl.Generation
	return pl, func(id string) bool { return gen != "" && srv.Owns(ctx, gen, id) }, nil
}

// sessionsOf implements scopeSource.
func (b *TmuxBackend) sessionsOf(ctx context.Context, sock Socket, ids []string) (map[string][]string, error) {
	return b.server(sock).SessionsOf(ctx, ids)
}

// scopedBackend is the Backend a server under the owned scope calls: the
// listings, searches and counts of the given one, cut to the sessions in
// scope. Every other method is the given one's; the scope check before a
// call (scopePolicy.check) keeps them on targets in scope.
type scopedBackend struct {
	Backend
	p *scopePolicy
}

// keep returns the predicate "session id is in scope" on the server sock
// names, read after the listing it filters.
func (b scopedBackend) keep(ctx context.Context, sock Socket) (func(id string) bool, error) {
	v, err := b.p.newView(ctx, sock)
	if err != nil {
		return nil, err
	}
	return v.inScopeID, nil
}

// scopedList lists every row with list, then cuts the rows outside the
// scope and pages what is left, so that a page holds rows in scope.
func scopedList[T any](ctx context.Context, b scopedBackend, sock Socket, page *Paging,
	list func() (List[T], error), sessionOf func(T) string) (List[T], error) {
	want := *page
	*page = Paging{} // every row: the page is cut from the rows in scope
	l, err := list()
	if err != nil {
		return l, err
	}
	keep, err := b.keep(ctx, sock)
	if err != nil {
		return List[T]{}, err
	}
	return paged(slices.DeleteFunc(l.Result, func(row T) bool { return !keep(sessionOf(row)) }), want, same), nil
}

func (b scopedBackend) ListSessions(ctx context.Context, in ListSessionsIn) (List[SessionInfo], error) {
	return scopedList(ctx, b, in.Socket, &in.Paging, func() (List[SessionInfo], error) { return b.Backend.ListSessions(ctx, in) },
		func(s SessionInfo) string { return s.SessionID })
}

func (b scopedBackend) GetServerInfo(ctx context.Context, in GetServerInfoIn) (ServerInfo, error) {
	info, err := b.Backend.GetServerInfo(ctx, in)
	if err != nil || !info.IsAlive || info.SessionCount == 0 {
		return info, err
	}
	v, err := b.p.newView(ctx, in.Socket)
	if err != nil {
		return ServerInfo{}, err
	}
	info.SessionCount = 0
	for _, s := range v.pl.Sessions {
		if v.inScope(s) {
			info.SessionCount++
		}
	}
	return info, nil
}

func (b scopedBackend) ListWindows(ctx context.Context, in ListWindowsIn) (List[WindowInfo], error) {
	return scopedList(ctx, b, in.Socket, &in.Paging, func() (List[WindowInfo], error) { return b.Backend.ListWindows(ctx, in) },
		func(w WindowInfo) string { return w.SessionID })
}

func (b scopedBackend) ListPanes(ctx context.Context, in ListPanesIn) (List[PaneInfo], error) {
	return scopedList(ctx, b, in.Socket, &in.Paging, func() (List[PaneInfo], error) { return b.Backend.ListPanes(ctx, in) },
		func(p PaneInfo) string { return p.SessionID })
}

// SearchPanes searches every pane, cuts the matches to the scope, and
// pages what is left, so that a page holds limit panes in scope.
func (b scopedBackend) SearchPanes(ctx context.Context, in SearchPanesIn) (SearchPanesResult, error) {
	all := in
	all.Offset, all.Limit = 0, 0
	res, err := b.Backend.SearchPanes(ctx, all)
	if err != nil {
		return res, err
	}
	keep, err := b.keep(ctx, in.Socket)
	if err != nil {
		return SearchPanesResult{}, err
	}
	matches := slices.DeleteFunc(res.Matches, func(m PaneContentMatch) bool { return !keep(m.SessionID) })
	out := searchPage(matches, in.Offset, in.Limit)
	for _, m := range matches {
		// A pane whose matching lines were cut holds as many as were kept.
		out.Truncated = out.Truncated || len(m.MatchedLines) >= in.MaxMatchedLinesPerPane
	}
	return out, nil
}
