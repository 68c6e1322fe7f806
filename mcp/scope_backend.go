package mcp

import (
	"context"
	"reflect"
	"slices"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// placement implements scopeSource: the model's placement of the server
// sock names, and which of its sessions this process owns in that
// placement's generation.
func (b *TmuxBackend) placement(ctx context.Context, sock Socket, fresh bool) (session.Placement, func(string) bool, error) {
	srv := b.server(sock)
	pl, err := srv.Placement(ctx, fresh)
	if err != nil {
		return session.Placement{}, nil, err
	}
	gen := pl.Generation
	return pl, func(id string) bool { return gen != "" && srv.Owns(gen, id) }, nil
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

func (b scopedBackend) ListSessions(ctx context.Context, in ListSessionsIn) (List[SessionInfo], error) {
	limit, offset, paged := unpage(&in)
	l, err := b.Backend.ListSessions(ctx, in)
	if err != nil {
		return l, err
	}
	keep, err := b.keep(ctx, in.Socket)
	if err != nil {
		return List[SessionInfo]{}, err
	}
	return cut(l, func(s SessionInfo) bool { return keep(s.SessionID) }, limit, offset, paged), nil
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
	limit, offset, paged := unpage(&in)
	l, err := b.Backend.ListWindows(ctx, in)
	if err != nil {
		return l, err
	}
	keep, err := b.keep(ctx, in.Socket)
	if err != nil {
		return List[WindowInfo]{}, err
	}
	return cut(l, func(w WindowInfo) bool { return keep(w.SessionID) }, limit, offset, paged), nil
}

func (b scopedBackend) ListPanes(ctx context.Context, in ListPanesIn) (List[PaneInfo], error) {
	limit, offset, paged := unpage(&in)
	l, err := b.Backend.ListPanes(ctx, in)
	if err != nil {
		return l, err
	}
	keep, err := b.keep(ctx, in.Socket)
	if err != nil {
		return List[PaneInfo]{}, err
	}
	return cut(l, func(p PaneInfo) bool { return keep(p.SessionID) }, limit, offset, paged), nil
}

// unpage asks a listing input (a pointer) for every row, so that the rows
// in scope can be paged after the cut, and returns the page it asked for.
// paged is false for an input that takes no limit and offset.
func unpage(in any) (limit, offset int, paged bool) {
	f := inputFields(in)
	l, okL := f["limit"]
	o, okO := f["offset"]
	if !okL || !okO || !l.CanSet() || !o.CanSet() || !l.CanInt() || !o.CanInt() {
		return 0, 0, false
	}
	limit, offset = int(l.Int()), int(o.Int())
	l.SetInt(0) // 0: every row
	o.SetInt(0)
	return limit, offset, true
}

// cut keeps the rows of l in scope and, when paged, the page of them that
// limit (0: all) and offset select, with the listing's total and next
// offset (where List has them) counting rows in scope only.
func cut[T any](l List[T], keep func(T) bool, limit, offset int, paged bool) List[T] {
	rows := slices.DeleteFunc(l.Result, func(r T) bool { return !keep(r) })
	total := len(rows)
	var next *int
	if paged {
		rows = rows[min(offset, len(rows)):]
		if limit > 0 && len(rows) > limit {
			rows = rows[:limit]
			n := offset + limit
			next = &n
		}
	}
	l.Result = rows
	v := reflect.ValueOf(&l).Elem()
	if f := v.FieldByName("Total"); f.IsValid() && f.CanSet() && f.CanInt() {
		f.SetInt(int64(total))
	}
	if f := v.FieldByName("NextOffset"); f.IsValid() && f.CanSet() && f.Type() == reflect.TypeOf(next) {
		f.Set(reflect.ValueOf(next))
	}
	return l
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
