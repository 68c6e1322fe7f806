package engine

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/errs"
	"github.com/tmux-mcp/tmux-mcp/session/internal/paneread"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
)

// capture_since reads tmux's grid from where the pane's cursor was at the
// previous call: see readSince.

// A gridAt is a row of a pane's grid in tmux's numbering (history first,
// oldest at 0, then the screen; see panestream.GridMark), with what tells
// whether the row still has that number later: the history size and limit
// then, and the pane's width (a resize rewraps the rows). Its height then
// says where the screen's last row was, past which output scrolls: the
// mark's own, as tmux printed it with the row, since the model's may be
// behind tmux (a pane resized in a session no client of ours is attached
// to sends no notification).
type gridAt struct {
	known                           bool
	row, hist, limit, width, height int
}

// paneAt is where a pane's cursor is, as markNowCommand prints it.
type paneAt struct {
	gridAt
	cx, cy    int
	alternate bool
	session   string // the id of the session tmux has the pane in
}

// mark is the mark of the cursor's row, none on the alternate screen: a
// full-screen program's cursor is not where the pane's lines go on after
// it.
func (p paneAt) mark() gridAt {
	if p.alternate {
		return gridAt{}
	}
	return p.gridAt
}

// sinceFormat prints what markNowOf reads.
const sinceFormat = "#{pane_id} #{history_size} #{history_limit} #{cursor_y} #{cursor_x} #{pane_width} #{pane_height} #{alternate_on} #{session_id}"

// markNowCommand prints where pane's cursor is in its grid.
func markNowCommand(pane string) controlmode.Command {
	return controlmode.NewCommand("display-message", "-p", "-t", pane, sinceFormat)
}

// markNowOf reads the reply of markNowCommand.
func markNowOf(r controlmode.Reply, pane string) (paneAt, error) {
	f := strings.Fields(strings.Join(r.Lines, ""))
	if len(f) != 9 || f[0] != pane {
		return paneAt{}, errs.Errorf(errs.KindNotFound, "can't find pane: %s", pane)
	}
	var n [6]int
	for i := range n {
		v, err := strconv.Atoi(f[i+1])
		if err != nil {
			return paneAt{session: f[8]}, nil // no mark: the stream is read instead
		}
		n[i] = v
	}
	return paneAt{gridAt: gridAt{known: true, row: n[0] + n[2], hist: n[0], limit: n[1], width: n[4], height: n[5]},
		cy: n[2], cx: n[3], alternate: f[7] == "1", session: f[8]}, nil
}

// A sinceRead is what readSince found.
type sinceRead struct {
	ok         bool     // lines hold every row from the mark on
	lines      []string // the rows, wrapped ones joined
	unfinished bool     // the cursor's row, or a row below it, is not blank
	alternate  bool     // lines are a full-screen program's screen
	mark       gridAt   // the cursor's row: where the next call reads from
	session    string   // the id of the session tmux has the pane in
}

// readSince reads pane's rows from mark from to the end of the screen, as
// tmux draws them now, in one round trip (two when the screen scrolled
// since the mark). It reports !ok when the rows may not all be there: tmux
// dropped old history since (or may have: see gridAt.rowNow), or the pane
// was resized; the stream from offset serves then. A full-screen program's
// screen is read as drawn (alternate).
func (e *Engine) readSince(ctx context.Context, pane string, st *panestream.Stream, offset int64, from gridAt) (sinceRead, error) {
	// From the screen's top row (negative in history), less the rows the
	// output since scrolled away, as far as the stream tells: a guess,
	// checked against the answer, that saves the second round trip when
	// it is right (a shell at the bottom of its screen scrolls at each
	// line). Past scrollGuessMax bytes the guess would cost more than the
	// round trip it saves.
	start := from.row - from.hist
	if end, _ := st.Position(); end-offset <= scrollGuessMax {
		start -= scrolledSince(st.Read(offset), from)
	}
	for try := 0; ; try++ {
		rs, err := e.host.Exec(ctx, markNowCommand(pane),
			controlmode.NewCommand("capture-pane", "-p", "-J", "-t", pane, "-S", strconv.Itoa(start), "-E", "-"),
			controlmode.NewCommand("capture-pane", "-p", "-t", pane))
		if err != nil {
			return sinceRead{}, err
		}
		at, err := markNowOf(rs[0], pane)
		if err != nil {
			return sinceRead{}, err
		}
		res := sinceRead{mark: at.mark(), session: at.session}
		if at.alternate {
			// A full-screen program: its screen, as drawn, is what it shows.
			res.ok, res.alternate = true, true
			res.lines = paneread.Readable(rs[2].Lines, at.width, at.cx, at.cy)
			return res, nil
		}
		if !at.known {
			return res, nil
		}
		// Read after tmux answered: the stream holds all the output that
		// moved the rows before the answer.
		scrolls := func() int64 {
			if r := st.Read(offset); r.Missed == 0 && !r.Paused && !r.ConnLost && offset <= r.Next {
				return scrollBound(r.Data, at.width, len(rs[2].Lines))
			}
			return -1
		}
		row, ok := from.rowNow(at.hist, at.limit, at.width, scrolls)
		if !ok {
			return res, nil
		}
		if row-at.hist != start {
			if try == 2 {
				return res, nil // still scrolling: the stream serves
			}
			start = row - at.hist // the screen scrolled since the mark: read again
			continue
		}
		res.ok = true
		res.lines, res.unfinished = sinceLines(rs[1].Lines, rs[2].Lines, at)
		return res, nil
	}
}

// sinceLines returns the joined rows of a capture with the blank rows at
// the end and trailing spaces left out, and whether the screen shows
// something from the cursor's row on (screen is the screen's rows, not
// joined). Ending the last line, the cursor's row keeps its spaces up to
// the cursor: "Continue? [y/N] ".
func sinceLines(rows, screen []string, at paneAt) ([]string, bool) {
	rows = paneread.TrimBlankTail(rows)
	for i, r := range rows {
		rows[i] = strings.TrimRight(r, " ")
	}
	last := -1
	for i, r := range screen {
		if strings.TrimRight(r, " ") != "" {
			last = i
		}
	}
	if last < at.cy || len(rows) == 0 {
		return rows, false
	}
	if last == at.cy {
		if pad := at.cx - utf8.RuneCountInString(strings.TrimRight(screen[at.cy], " ")); pad > 0 {
			rows[len(rows)-1] += strings.Repeat(" ", pad)
		}
	}
	return rows, true
}

// scrollGuessMax bounds the output since a cursor that scrolledSince
// reads: 16 KiB take it about 0.1 ms here (7.5 ms a MiB), a round trip's
// time.
const scrollGuessMax = 16 << 10

// scrolledSince guesses how many rows the output r read since mark m
// scrolled off the top of the pane, at its size when marked: those its
// cursor went down past the screen's last row, starting on m's row. It is
// 0 where r is not all the output since m, or moves the cursor in ways a
// row tracker cannot follow. A pane resized since makes the guess wrong;
// readSince checks it against tmux's answer.
func scrolledSince(r panestream.Read, m gridAt) int {
	if r.Missed > 0 || r.Paused || r.ConnLost || m.width <= 0 || m.height <= 0 {
		return 0
	}
	t := paneread.RowTracker{Width: m.width}
	_, _ = t.Write(r.Data)
	_, _, down, ok := t.Rows()
	if !ok {
		return 0
	}
	return max(m.row-m.hist+down-(m.height-1), 0)
}

// rowNow returns the number row m has now that the pane's history holds
// hist rows of limit and the pane is width wide, given that at most
// scrolls() rows scrolled into history since the mark (-1: unknown; asked
// only when the history is near full). It reports false when that cannot
// be known, or the row is gone.
//
// tmux drops a tenth of the limit (a step) at a time, once the history is
// full, so the history size alone does not say how many rows went: after
// a drop it holds more than limit-step rows until the next. Below that,
// nothing was dropped since the mark; above it, the number of scrolls
// must leave one count of drops that explains hist.
func (m gridAt) rowNow(hist, limit, width int, scrolls func() int64) (int, bool) {
	if width != m.width {
		return 0, false // rewrapped: rows have new numbers
	}
	step := max(limit/10, 1)
	drops := 0 // the fewest that explain hist
	if hist < m.hist {
		drops = (m.hist - hist + step - 1) / step
	}
	if hist <= limit-step {
		if drops > 0 {
			return 0, false // cleared, not dropped
		}
		return m.row, true
	}
	if n := scrolls(); n < 0 || (int64(m.hist)+n-int64(hist))/int64(step) != int64(drops) {
		return 0, false
	}
	row := m.row - drops*step
	return row, row >= 0
}

// scrollBound returns at most how many rows output b can have scrolled
// into a pane's history (width by height): a row per line feed or index,
// per full row of text, per row a scroll-up asks for, a screen per
// clear (tmux can keep the cleared screen in history). It returns -1 for
// output that clears the history or resets the terminal.
func scrollBound(b []byte, width, height int) int64 {
	n := int64(len(b)/max(width, 1)) + 1
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\n', '\v', '\f':
			n++
		case 0x1b:
			if i+1 >= len(b) {
				break
			}
			switch b[i+1] {
			case 'D', 'E':
				n++
			case 'c':
				return -1
			case '[':
				j := i + 2
				for j < len(b) && b[j] >= 0x20 && b[j] < 0x40 {
					j++
				}
				if j >= len(b) {
					break
				}
				params := string(b[i+2 : j])
				switch b[j] {
				case 'S':
					v, err := strconv.Atoi(params)
					if err != nil || v < 1 {
						v = 1
					}
					n += int64(v)
					if params != "" && err != nil {
						n += int64(height) // "1;2S" or the like: take the screen
					}
				case 'J':
					if params == "3" {
						return -1
					}
					n += int64(height)
				}
				i = j
			}
		}
	}
	return n
}
