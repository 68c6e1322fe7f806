package session

import (
	"context"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// PanesPage is [Server.Panes] from offset on, at most limit panes (limit >
// 0), with the number of panes in scope. On a big server most of what
// list-panes costs is tmux expanding the format, field by field, pane by
// pane; so it reads the ids of every pane in scope first, then every
// field of the page's panes only, picked by a filter that matches their
// ids: two round trips, in which tmux formats one field of every pane and
// all fields of limit of them. Both are read fresh; a pane that went away
// in between is left out of the page. A server whose panes all fit in the
// first page is read in one round trip.
func (s *Server) PanesPage(ctx context.Context, scope PaneScope, offset, limit int) ([]Pane, int, error) {
	if offset == 0 && s.model.paneCount() <= limit {
		// The whole server fits in the page (as the model last saw it), so
		// any scope does: one round trip, as an unpaged listing.
		ps, err := s.Panes(ctx, scope) // no server: no panes, as Panes says
		if err != nil {
			return nil, 0, err
		}
		return ps[:min(limit, len(ps))], len(ps), nil
	}
	rs, err := s.exec(ctx, controlmode.NewCommand("list-panes", append(scope.args(), "-F", "#{pane_id}")...))
	if err != nil {
		if noServer(err) && scope == (PaneScope{}) {
			return nil, 0, nil
		}
		return nil, 0, err
	}
	ids := rs[0].Lines
	total := len(ids)
	start := min(offset, total)
	end := min(start+limit, total)
	if start == end {
		return nil, total, nil
	}
	if end-start < total {
		// Pane ids are % and digits: nothing fnmatch or a format reads
		// specially, so the page's ids, each between bars, are a pattern
		// list as they are. They passed scope.Filter already.
		scope.Filter = "#{m:*|#{pane_id}|*,|" + strings.Join(ids[start:end], "|") + "|}"
	}
	ps, err := s.Panes(ctx, scope)
	return ps, total, err
}

// args are the list-panes arguments that select the panes in scope.
func (p PaneScope) args() []string {
	var args []string
	switch {
	case p.Window != "":
		args = []string{"-t", p.Window}
	case p.Session != "":
		args = []string{"-s", "-t", p.Session}
	default:
		args = []string{"-a"}
	}
	if p.Filter != "" {
		args = append(args, "-f", p.Filter)
	}
	return args
}
