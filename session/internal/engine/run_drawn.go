package engine

import (
	"context"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// A command's output as tmux draws it.
//
// run_command's output is rebuilt from the pane's bytes, which hold every
// frame of a block of lines a program draws again in place (a progress
// display of several bars, moved up and redrawn): a person sees the last
// frame only. When the output moved the cursor between rows, and every
// row it covers is known, the rows are read from tmux's grid at the end.

// readDrawn replaces the output of a command that ended, having redrawn
// rows, by the rows tmux shows. It leaves the output rebuilt from the
// bytes when a row is not certain: the command's first row unknown (see
// typeCommand), output that placed the cursor other than by line feeds
// and relative moves, ended above its lowest row, was cut to the call's
// bounds or partly lost, or rows tmux no longer holds.
func (f *follower) readDrawn(ctx context.Context) {
	c := f.c
	row, _, lowest, ok := f.rows.Rows()
	if !f.text.Redrawn() || !c.drawn.known || !ok || row != lowest || row == 0 {
		return
	}
	c.mu.Lock()
	whole := c.out.dropped == 0 && !c.out.cut && !c.out.lost && !c.blind
	c.mu.Unlock()
	if !whole {
		return
	}
	lines, ok := f.e.drawnRows(ctx, c.pane, c.drawn, row, c.lastLine)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	out := outputLines{max: c.out.max, maxBytes: c.out.maxBytes}
	for _, l := range lines {
		out.add(l)
	}
	c.out = out
}

// drawnRows reads n rows of pane's grid from start, as tmux draws them
// now (wrapped rows joined), in two round trips: where the rows are now,
// then the rows with the one above them, which must end with above (the
// command's last line, printed again), else the rows are not the
// command's. It reports false when they cannot be read whole.
func (e *Engine) drawnRows(ctx context.Context, pane string, start gridAt, n int, above string) ([]string, bool) {
	rs, err := e.host.Exec(ctx, markNowCommand(pane))
	if err != nil {
		return nil, false
	}
	at, err := markNowOf(rs[0], pane)
	if err != nil || !at.known {
		return nil, false
	}
	hist := at.hist
	// Near a full history, tmux may have dropped rows since: how many is
	// not known here, so the rows are not read (rowNow's -1).
	first, ok := start.rowNow(hist, at.limit, at.width, func() int64 { return -1 })
	if !ok || first < 1 {
		return nil, false
	}
	rs, err = e.host.Exec(ctx, markNowCommand(pane), controlmode.NewCommand("capture-pane", "-p", "-J", "-t", pane,
		"-S", strconv.Itoa(first-1-hist), "-E", strconv.Itoa(first+n-1-hist)))
	if err != nil {
		return nil, false
	}
	if now, err := markNowOf(rs[0], pane); err != nil || now.hist != hist || len(rs[1].Lines) < 2 {
		return nil, false // the pane scrolled meanwhile
	}
	lines := rs[1].Lines
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	top, above := lines[0], strings.TrimRight(above, " ")
	if top == "" && above != "" || top != "" && !strings.HasSuffix(top, above) && !strings.HasSuffix(above, top) {
		return nil, false
	}
	return lines[1:], true
}
