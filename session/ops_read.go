package session

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// Windows and panes are read fresh: tmux sends %layout-change and
// %window-add only for the session a control client is attached to, so a
// split made with -d in another session reaches no notification, and pane
// fields such as the current command change without one. Every read
// installs what it saw into the model, which keeps its lookups current.

// Windows returns the windows of session target ("" for every session),
// read from tmux in one round trip.
func (s *Server) Windows(ctx context.Context, target string) ([]Window, error) {
	args := []string{"-a"}
	if target != "" {
		args = []string{"-t", target}
	}
	rs, err := s.exec(ctx, controlmode.NewCommand("list-windows", append(args, "-F", s.fmts.windows.String())...))
	if err != nil {
		if noServer(err) && target == "" {
			return nil, nil
		}
		return nil, err
	}
	ws, _ := s.fmts.windows.Parse(s.release().DecodeText, rs[0].Lines)
	return ws, nil
}

// PaneScope says which panes [Server.Panes] lists.
type PaneScope struct {
	Session string // every pane of this session
	Window  string // every pane of this window; wins over Session
	Filter  string // a tmux format: only the panes it is true for (list-panes -f)
}

// Panes returns the panes in scope (every pane when it is zero), read from
// tmux in one round trip.
func (s *Server) Panes(ctx context.Context, scope PaneScope) ([]Pane, error) {
	rs, err := s.exec(ctx, controlmode.NewCommand("list-panes", append(scope.args(), "-F", s.fmts.panes.String())...))
	if err != nil {
		if noServer(err) && scope == (PaneScope{}) {
			return nil, nil
		}
		return nil, err
	}
	ps, _ := s.fmts.panes.Parse(s.release().DecodeText, rs[0].Lines)
	return ps, nil
}

// Pane returns one pane, read fresh.
func (s *Server) Pane(ctx context.Context, id string) (Pane, error) {
	rs, err := s.exec(ctx, controlmode.NewCommand("display-message", "-p", "-t", id, "-F", s.fmts.panes.String()))
	if err != nil {
		return Pane{}, err
	}
	// display-message prints empty fields for a pane that is gone.
	ps, ok := s.fmts.panes.Parse(s.release().DecodeText, rs[0].Lines)
	if !ok || len(ps) != 1 || ps[0].ID != id {
		return Pane{}, errorf(KindNotFound, "can't find pane: %s", id)
	}
	return ps[0], nil
}

// PaneAt returns the pane ref names, read fresh in one round trip.
func (s *Server) PaneAt(ctx context.Context, ref PaneRef) (Pane, error) {
	t, err := paneTarget(ref)
	if err != nil {
		return Pane{}, err
	}
	rs, err := s.exec(ctx, s.paneInfoCommand(t))
	if err != nil {
		return Pane{}, err
	}
	return s.paneInfoOf(rs[0], t)
}

// DisplayMessage expands format against the pane ref names and returns
// that pane's id and the expansion's lines. The caller vets format: tmux runs #(...) jobs
// and re-expands #{E:...} values.
func (s *Server) DisplayMessage(ctx context.Context, ref PaneRef, format string) (paneID string, lines []string, err error) {
	t, err := paneTarget(ref)
	if err != nil {
		return "", nil, err
	}
	// Not onPane: display-message prints empty fields for a missing pane
	// instead of failing, so even a pane id is looked up first.
	rs, err := s.exec(ctx, paneIDCommand(t),
		controlmode.NewCommand("display-message", "-p", "-t", t).Text(format))
	if err != nil {
		return "", nil, err
	}
	if paneID, err = paneIDOf(rs[0], t); err != nil {
		return "", nil, err
	}
	lines = rs[1].Lines
	if rel := s.release(); rel.PrintEncoded() {
		for i, line := range lines {
			lines[i] = rel.DecodeLoose(line)
		}
	}
	return paneID, lines, nil
}

// WindowPanes returns the panes of the window w names, read fresh.
func (s *Server) WindowPanes(ctx context.Context, w WindowRef) ([]Pane, error) {
	t, err := s.windowTarget(ctx, w)
	if err != nil {
		return nil, err
	}
	rs, err := s.exec(ctx, controlmode.NewCommand("list-panes", "-t", t, "-F", s.fmts.panes.String()))
	if err != nil {
		return nil, err
	}
	ps, _ := s.fmts.panes.Parse(s.release().DecodeText, rs[0].Lines)
	return ps, nil
}
