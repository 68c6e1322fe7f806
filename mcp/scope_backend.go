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

// The cuts of the listing tools under the owned scope (cutToScope): each
// runs the handler, then keeps the rows in scope. Every other tool is
// kept on targets in scope by the check before it runs (scopePolicy.check).

// cutList lists every row with list, then cuts the rows outside the scope
// (as keep, on the scope read after the listing, says) and pages what is
// left, so that a page holds rows in scope.
func cutList[T any](ctx context.Context, p *scopePolicy, sock Socket, page *Paging,
	list func() (List[T], error), keep func(v *view, row T) bool) (List[T], error) {
	want := *page
	*page = Paging{} // every row: the page is cut from the rows in scope
	l, err := list()
	if err != nil {
		return l, err
	}
	v, err := p.newView(ctx, sock)
	if err == nil {
		err = v.readAllTags(ctx)
	}
	if err != nil {
		return List[T]{}, err
	}
	return paged(slices.DeleteFunc(l.Result, func(row T) bool { return !keep(v, row) }), want, same), nil
}

func cutSessions(ctx context.Context, p *scopePolicy, in ListSessionsIn, run func(ListSessionsIn) (List[SessionInfo], error)) (List[SessionInfo], error) {
	return cutList(ctx, p, in.Socket, &in.Paging, func() (List[SessionInfo], error) { return run(in) },
		func(v *view, s SessionInfo) bool { return v.inScopeID(s.SessionID) })
}

func cutWindows(ctx context.Context, p *scopePolicy, in ListWindowsIn, run func(ListWindowsIn) (List[WindowInfo], error)) (List[WindowInfo], error) {
	return cutList(ctx, p, in.Socket, &in.Paging, func() (List[WindowInfo], error) { return run(in) },
		func(v *view, w WindowInfo) bool { return v.windowIn(w.WindowID, w.SessionID) })
}

func cutPanes(ctx context.Context, p *scopePolicy, in ListPanesIn, run func(ListPanesIn) (List[PaneInfo], error)) (List[PaneInfo], error) {
	return cutList(ctx, p, in.Socket, &in.Paging, func() (List[PaneInfo], error) { return run(in) },
		func(v *view, p PaneInfo) bool { return v.paneIn(p.PaneID, p.WindowID, p.SessionID) })
}

// cutServerInfo counts only the sessions in scope.
func cutServerInfo(ctx context.Context, p *scopePolicy, in GetServerInfoIn, run func(GetServerInfoIn) (ServerInfo, error)) (ServerInfo, error) {
	info, err := run(in)
	if err != nil || !info.IsAlive || info.SessionCount == 0 {
		return info, err
	}
	v, err := p.newView(ctx, in.Socket)
	if err == nil {
		err = v.readTags(ctx, session.Placement{Sessions: v.pl.Sessions})
	}
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

// cutSearch searches every pane, cuts the matches to the scope, and pages
// what is left, so that a page holds limit panes in scope.
func cutSearch(ctx context.Context, p *scopePolicy, in SearchPanesIn, run func(SearchPanesIn) (SearchPanesResult, error)) (SearchPanesResult, error) {
	all := in
	all.Offset, all.Limit = 0, 0
	res, err := run(all)
	if err != nil {
		return res, err
	}
	v, err := p.newView(ctx, in.Socket)
	if err == nil {
		err = v.readAllTags(ctx)
	}
	if err != nil {
		return SearchPanesResult{}, err
	}
	matches := slices.DeleteFunc(res.Matches, func(m PaneContentMatch) bool { return !v.paneIn(m.PaneID, m.WindowID, m.SessionID) })
	out := searchPage(matches, in.Offset, in.Limit)
	for _, m := range matches {
		// A pane whose matching lines were cut holds as many as were kept.
		out.Truncated = out.Truncated || len(m.MatchedLines) >= in.MaxMatchedLinesPerPane
	}
	return out, nil
}

// tagsOf implements tagSource.
func (b *TmuxBackend) tagsOf(ctx context.Context, sock Socket, pl session.Placement) (session.Tags, error) {
	return b.server(sock).Tags(ctx, pl, TagOption)
}
