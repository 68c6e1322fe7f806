package session

import (
	"context"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/engine"
	"github.com/tmux-mcp/tmux-mcp/session/internal/paneread"
	"github.com/tmux-mcp/tmux-mcp/session/internal/rows"
)

// Reading panes: their text, their state, and format strings expanded
// against them. Every read is one round trip.
//
// capture-pane output is raw: a pane can show a line such as "%end 1 2 1"
// or "%exit". The control-mode engine closes a reply only on the guard
// that matches its %begin, so such lines arrive here as text.

// Capture returns the text of the pane ref names and that pane's id, in
// one round trip.
// Trailing empty lines are dropped.
func (s *Server) Capture(ctx context.Context, ref PaneRef, a CaptureArgs) (paneID string, lines []string, err error) {
	t, err := paneTarget(ref)
	if err != nil {
		return "", nil, err
	}
	paneID, rs, err := s.onPane(ctx, t, engine.CaptureCommand(a, t))
	if err != nil {
		return "", nil, err
	}
	return paneID, paneread.TrimBlankTail(rs[0].Lines), nil
}

// PaneSnapshot is a pane's screen and state, read at one moment.
type PaneSnapshot = engine.PaneSnapshot

// snapshotFields are the pane fields plus the state a snapshot adds.
func snapshotFields() []rows.Field[PaneSnapshot] {
	fs := make([]rows.Field[PaneSnapshot], 0, len(paneFields)+5)
	for _, f := range paneFields {
		set := f.Set
		fs = append(fs, rows.Field[PaneSnapshot]{Name: f.Name, Set: func(s *PaneSnapshot, v string) { set(&s.Pane, v) }})
	}
	return append(fs,
		rows.Field[PaneSnapshot]{Name: "pane_mode", Set: func(s *PaneSnapshot, v string) { s.Mode = v }},
		rows.Field[PaneSnapshot]{Name: "scroll_position", Set: func(s *PaneSnapshot, v string) {
			if n, err := strconv.Atoi(v); err == nil {
				s.ScrollPosition = &n
			}
		}},
		rows.Field[PaneSnapshot]{Name: "history_size", Set: func(s *PaneSnapshot, v string) { s.HistorySize = atoi(v) }},
		rows.Field[PaneSnapshot]{Name: "cursor_flag", Set: func(s *PaneSnapshot, v string) { s.CursorHidden = v == "0" }},
	)
}

// Snapshot returns the screen, cursor, geometry, mode and history of the
// pane ref names in one round trip.
func (s *Server) Snapshot(ctx context.Context, ref PaneRef) (PaneSnapshot, error) {
	snap, _, err := s.snapshot(ctx, ref, false)
	return snap, err
}

// SnapshotStyled is [Server.Snapshot] that also returns the screen's rows
// with their colours and attributes as SGR escape sequences (capture-pane
// -e), every row, in the same round trip.
func (s *Server) SnapshotStyled(ctx context.Context, ref PaneRef) (PaneSnapshot, []string, error) {
	return s.snapshot(ctx, ref, true)
}

func (s *Server) snapshot(ctx context.Context, ref PaneRef, styled bool) (PaneSnapshot, []string, error) {
	t, err := paneTarget(ref)
	if err != nil {
		return PaneSnapshot{}, nil, err
	}
	f := newRowFormat(s.fmts.sep, snapshotFields())
	cmds := []controlmode.Command{
		controlmode.NewCommand("display-message", "-p", "-t", t, f.String()),
		engine.CaptureCommand(CaptureArgs{}, t),
	}
	if styled {
		cmds = append(cmds, controlmode.NewCommand("capture-pane", "-p", "-e", "-t", t))
	}
	rs, err := s.exec(ctx, cmds...)
	if err != nil {
		return PaneSnapshot{}, nil, err
	}
	rows, ok := f.Parse(s.release().DecodeText, rs[0].Lines)
	if !ok || len(rows) != 1 || !strings.HasPrefix(rows[0].ID, "%") {
		return PaneSnapshot{}, nil, errorf(KindNotFound, "can't find pane: %s", t)
	}
	snap := rows[0]
	snap.AlternateOn = snap.Alternate
	snap.Lines = paneread.TrimBlankTail(rs[1].Lines)
	if styled {
		return snap, rs[2].Lines, nil
	}
	return snap, nil, nil
}

// PaneText is a pane and its captured text.
type PaneText struct {
	Pane
	Lines []string
}

// CapturePanes returns the text of every pane in scope (see
// [Server.Panes]) in two round trips: one to list the panes, one carrying
// a capture-pane for each. A pane that closes in between is left out.
func (s *Server) CapturePanes(ctx context.Context, scope PaneScope, a CaptureArgs) ([]PaneText, error) {
	panes, err := s.Panes(ctx, scope)
	if err != nil {
		return nil, err
	}
	out := make([]PaneText, 0, len(panes))
	for len(panes) > 0 {
		cmds := make([]controlmode.Command, len(panes))
		for i, p := range panes {
			cmds[i] = engine.CaptureCommand(a, p.ID)
		}
		rs, err := s.exec(ctx, cmds...)
		n := 0
		for ; n < len(rs) && rs[n].Err == nil; n++ {
			out = append(out, PaneText{Pane: panes[n], Lines: paneread.TrimBlankTail(rs[n].Lines)})
		}
		if err == nil {
			break
		}
		if !IsNotFound(err) || n >= len(panes) {
			return nil, err
		}
		// tmux dropped the rest of the line after the pane that closed.
		panes = panes[n+1:]
	}
	return out, nil
}
