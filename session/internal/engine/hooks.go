package engine

import (
	"context"
	"errors"

	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
)

// Hooks for package session's real-tmux tests, which drive an engine
// through a Server and look at its inner steps only through these.

// CursorPrefixGrid starts a capture_since cursor that carries a grid mark,
// and CursorIssuer ends the cursors this process issued.
const CursorPrefixGrid = cursorPrefixGrid

// CursorIssuer is the last field of the cursors this process issues.
var CursorIssuer = cursorIssuer

// Starting reports whether pane's shell has not drawn its first prompt
// yet (see Engine.starting).
func Starting(ctx context.Context, e *Engine, pane string) (bool, error) {
	st, _, err := e.starting(ctx, pane)
	return st, err
}

// StreamCursor is the capture_since cursor of pane's stream at next, as
// run_command's output_cursor is.
func StreamCursor(ctx context.Context, e *Engine, pane string, next int64) string {
	return e.sinceCursor(ctx, pane, next)
}

// ReadSinceGrid reads pane's grid from the mark cursor carries, as
// capture_since does (readSince): the lines, and whether the grid held
// them.
func ReadSinceGrid(ctx context.Context, e *Engine, pane string, st *panestream.Stream, cursor string) (lines []string, ok bool, err error) {
	_, _, offset, from, err := parseCursor(cursor, "")
	if err != nil {
		return nil, false, err
	}
	if !from.known {
		return nil, false, errors.New("the cursor carries no grid mark")
	}
	g, err := e.readSince(ctx, pane, st, offset, from)
	return g.lines, g.ok, err
}

// ReadRowsFrom reads pane's grid rows from mark, as a wait does
// (readRows).
func ReadRowsFrom(ctx context.Context, e *Engine, pane string, mark panestream.GridMark) ([]string, error) {
	g := followFrom(mark)
	rows, _, err := e.readRows(ctx, pane, &g)
	return rows, err
}

// Unreported is why exit e of a pane on release rel has neither status
// nor signal, "" when either is known (see unreported).
func Unreported(rel Release, e PaneExit) string { return unreported(rel, e) }
