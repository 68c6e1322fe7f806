package engine

import (
	"sort"
	"strings"
)

// A line run_command types is some 500 bytes that print the command's
// markers and run it in an eval; the shell echoes it as typed, and then
// the line itself puts the command alone on the prompt's rows in its
// place. On tmux's grid only the command shows; in the pane's stream the
// echo stays. capture_since rebuilds lines from the stream where the grid
// cannot serve (a cursor from run_command's output_cursor, a cleared
// history, a resize): it shows the command there too, not the echo.

// An echoSpan is where a line run_command typed shows in a pane's stream:
// from the offset before its echo to the command's first byte of output,
// after its start marker.
type echoSpan struct {
	from, to int64
	command  string
}

// echoes returns the spans, in the stream of pane on the server of
// generation gen, of the lines run_command typed there whose start marker
// came, that overlap [lo, hi); in stream order.
func (cs *commandSet) echoes(pane, gen string, lo, hi int64) []echoSpan {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	var spans []echoSpan
	for _, c := range cs.order {
		if c.pane != pane || !c.isTyped() || c.gen != gen {
			continue
		}
		c.mu.Lock()
		to, blind := c.outFrom, c.blind
		c.mu.Unlock()
		if to == 0 || blind || to <= lo || c.from >= hi {
			continue
		}
		spans = append(spans, echoSpan{from: c.from, to: to, command: c.command})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	return spans
}

// withoutEchoes returns data, the stream from offset at on, with each span
// of spans in it replaced by its command on a line of its own, and orig,
// which maps an offset into what it returns to the stream's offset: the
// start of a span's replacement is the span's start, any later offset in
// it the span's end.
func withoutEchoes(data []byte, at int64, spans []echoSpan) (clean []byte, orig func(int) int64) {
	if len(spans) == 0 {
		return data, func(n int) int64 { return at + int64(n) }
	}
	// A piece of clean: bytes [start, start+n) of it stand for the
	// stream's [from, to); copied bytes map one to one.
	type piece struct {
		start    int
		from, to int64
		copied   bool
	}
	var pieces []piece
	end := at + int64(len(data))
	pos := at
	for _, s := range spans {
		from, to := max(s.from, pos), min(s.to, end)
		if from >= to {
			continue
		}
		pieces = append(pieces, piece{start: len(clean), from: pos, to: from, copied: true})
		clean = append(clean, data[pos-at:from-at]...)
		pieces = append(pieces, piece{start: len(clean), from: from, to: to})
		// Each line ends in an erase, as the line's own redraw erases
		// the rest of the screen: what the shell drew on the row before
		// (zsh's PROMPT_SP spaces) is gone where the command shows.
		clean = append(clean, strings.ReplaceAll(s.command, "\n", "\x1b[K\r\n")+"\x1b[K\r\n"...)
		pos = to
	}
	pieces = append(pieces, piece{start: len(clean), from: pos, to: end, copied: true})
	clean = append(clean, data[pos-at:]...)
	return clean, func(n int) int64 {
		i := sort.Search(len(pieces), func(i int) bool { return pieces[i].start > n }) - 1
		p := pieces[max(i, 0)]
		switch {
		case !p.copied && n == p.start:
			return p.from
		case !p.copied:
			return p.to
		}
		return min(p.from+int64(n-p.start), p.to)
	}
}
