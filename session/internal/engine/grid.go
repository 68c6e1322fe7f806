package engine

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/errs"
	"github.com/tmux-mcp/tmux-mcp/session/internal/paneread"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
)

// Places in tmux's grid, read on the line that sends input, so that what
// the pane shows after the input can be read from tmux itself: see
// readRows, below.

// markFormat prints a pane's id and where its cursor is in the grid.
const markFormat = "#{pane_id} #{history_size} #{history_limit} #{cursor_y} #{cursor_x}"

// MarkCommand prints target's pane id and grid mark. It goes first on a
// line that sends input: if the pane is missing it fails, and nothing
// after it runs.
func MarkCommand(target string) controlmode.Command {
	return controlmode.NewCommand("display-message", "-p", "-t", target, markFormat)
}

// MarkOf reads the reply of MarkCommand: the pane's id and where its
// cursor was.
func MarkOf(r controlmode.Reply, target string) (string, panestream.GridMark, error) {
	f := strings.Fields(strings.Join(r.Lines, ""))
	if len(f) != 5 || !IsPaneID(f[0]) {
		return "", panestream.GridMark{}, errs.Errorf(errs.KindNotFound, "can't find pane: %s", target)
	}
	var n [4]int
	for i := range n {
		v, err := strconv.Atoi(f[i+1])
		if err != nil {
			return f[0], panestream.GridMark{}, nil
		}
		n[i] = v
	}
	return f[0], panestream.GridMark{Known: true, History: n[0], Limit: n[1], Row: n[0] + n[2], Col: n[3]}, nil
}

// gridFollow is the part of a pane's grid a wait reads once the pane's
// output has moved its cursor between rows (an inline TUI, a spinner, an
// agent CLI): every row from a mark on, as tmux draws them now. The rows
// are read after output (%output rings; nothing polls), at most once per
// interval while output flows.
type gridFollow struct {
	row    int // the first row read, in tmux's numbering (see GridMark)
	hist   int // the history size when row was last placed
	limit  int // the history limit
	active bool
	last   time.Time // when the rows were last read
}

// followFrom returns a gridFollow from mark m, not yet active.
func followFrom(m panestream.GridMark) gridFollow {
	return gridFollow{row: m.Row, hist: m.History, limit: m.Limit}
}

// readRows reads g's rows of pane: from g.row to the end of the screen,
// wrapped rows joined, blanks at the end left out. It reports the
// alternate screen and a dead pane as tmux says them on the same line.
// Rows tmux has dropped from its history since are gone: the read starts
// at the oldest row left.
//
// From tmux 3.4 capture-pane expands a format in -S: the start is counted
// from the history size as the capture runs, so rows that scrolled into
// history since the last read (output, or a clear with scroll-on-clear)
// cost no second read. Before, the rows are read again from where they
// moved.
func (e *Engine) readRows(ctx context.Context, pane string, g *gridFollow) (rows []string, alternate bool, err error) {
	expands := e.host.Release().ExpandsCaptureRange()
	for try := 0; ; try++ {
		row := g.row
		start := row - g.hist // from the screen's top row; negative in history
		from := strconv.Itoa(start)
		if expands {
			from = "#{e|-:" + strconv.Itoa(row) + ",#{history_size}}"
		}
		e.gridLooks.Add(1)
		rs, err := e.host.Exec(ctx,
			controlmode.NewCommand("display-message", "-p", "-t", pane, "#{pane_id} #{history_size} #{history_limit} #{alternate_on} #{pane_dead} #{pane_width} #{cursor_x} #{cursor_y}"),
			controlmode.NewCommand("capture-pane", "-p", "-J", "-t", pane, "-S", from, "-E", "-"))
		if err != nil {
			return nil, false, err
		}
		f := strings.Fields(strings.Join(rs[0].Lines, ""))
		if len(f) != 8 || f[0] != pane {
			return nil, false, errs.Errorf(errs.KindNotFound, "can't find pane: %s", pane)
		}
		hist, _ := strconv.Atoi(f[1])
		limit, _ := strconv.Atoi(f[2])
		g.limit = limit
		if hist < g.hist {
			// tmux dropped the oldest tenth of its history (at least one
			// row), perhaps more than once: every row moved up as many.
			step := max(limit/10, 1)
			g.row -= (g.hist - hist + step - 1) / step * step
		}
		moved := hist != g.hist
		if expands {
			// The capture started at row, counted from the history as it
			// was then: it needs reading again only if tmux dropped rows.
			start, moved = row-hist, g.row != row
		}
		g.hist = hist
		g.last = time.Now()
		if moved && try == 0 && g.row-g.hist != start {
			continue // the screen scrolled since the mark was placed: read from it again
		}
		width, _ := strconv.Atoi(f[5])
		cx, _ := strconv.Atoi(f[6])
		cy, _ := strconv.Atoi(f[7])
		// The rows start at start, or at the oldest row left in history.
		return paneread.Readable(rs[1].Lines, width, cx, cy-max(start, -hist)), f[3] == "1", nil
	}
}
