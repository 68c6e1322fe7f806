package session

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"time"
)

// StreamCap is how many bytes of a pane's output are kept for readers that
// fall behind. A pane's buffer holds between StreamCap and 2×StreamCap
// bytes, so memory stays bounded whatever a pane prints.
const StreamCap = 1 << 20

// paneStream is the output of one pane as %output delivered it, with a
// monotonic byte offset: a reader holding an offset gets exactly what came
// after it, or is told how much it missed.
type paneStream struct {
	mu      sync.Mutex
	data    []byte // the newest output; data[0] is at offset start
	start   int64
	changed chan struct{} // closed and replaced on every change
	// lostAt is the offset of a NUL byte put in the stream where tmux last
	// paused the pane and threw its queued output away (%pause). A reader
	// whose range covers it is told it missed an unknown amount. Terminals
	// ignore NUL, so text readers drop it.
	lostAt int64
	lost   bool
	// snapshot is the pane's screen captured when output resumed after a
	// pause, at offset lostAt.
	snapshot []string
	gone     bool   // the pane no longer exists
	source   uint64 // the client whose output this is; others are echoes
	// connLostAt is the offset of the marker put where the client that
	// delivered this pane's output ended: readers covering it cannot know
	// what the pane printed after.
	connLostAt int64
	connLost   bool
	waiters    int
	lastOut    time.Time // when output last arrived
	input      inputMark // the last input this process sent to the pane
}

// inputMark is where in a pane's output stream this process last sent it
// input, and what that input typed, so that waits can match only what the
// pane printed after it and tell the echo of the typed text from the
// output of the program.
type inputMark struct {
	set    bool
	offset int64     // the stream's end when tmux answered the input
	at     time.Time // when it did
	// fed reports that a client was delivering the pane's output at that
	// moment, so that the stream from offset on holds what the pane
	// printed after the input.
	fed bool
	// typed is the text typed on the current input line (since the last
	// input that ended with Enter), split into lines; the pane's echo of
	// each ends with it.
	typed []string
	enter bool // the input ended with Enter
	// col is the cursor's column when the input was sent, read only when
	// the stream does not hold the start of the line (-1 then if unread).
	col int
}

func newPaneStream() *paneStream {
	return &paneStream{changed: make(chan struct{})}
}

func (p *paneStream) end() int64 { return p.start + int64(len(p.data)) }

// broadcast wakes every reader waiting on a change. p.mu is held.
func (p *paneStream) broadcast() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// append adds output from client src. It runs on a reader goroutine and
// only copies bytes.
func (p *paneStream) append(src uint64, b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.source == 0 {
		p.source = src
	}
	// A window linked into two watched sessions reaches both clients: keep
	// one copy of its output.
	if src != p.source || len(b) == 0 {
		return
	}
	p.data = append(p.data, b...)
	p.lastOut = time.Now()
	if len(p.data) > 2*StreamCap {
		drop := len(p.data) - StreamCap
		p.data = append([]byte(nil), p.data[drop:]...)
		p.start += int64(drop)
	}
	p.broadcast()
}

// noteInput records input that tmux has just answered: text typed (empty
// for key names such as C-c), then Enter if enter. pre is the stream's end
// before the input was sent. fed reports that the pane's output is being
// delivered to the stream.
func (p *paneStream) noteInput(pre int64, col int, fed bool, text string, enter bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	in := p.input
	line := ""
	if in.set && !in.enter && len(in.typed) > 0 {
		// Typed onto the line an earlier input started.
		line = in.typed[len(in.typed)-1]
		in.typed = in.typed[:len(in.typed)-1]
	} else {
		in.typed = nil
	}
	parts := strings.FieldsFunc(line+text, func(r rune) bool { return r == '\n' || r == '\r' })
	in.typed = append(in.typed, parts...)
	if len(in.typed) > 64 {
		in.typed = in.typed[len(in.typed)-64:]
	}
	in.set, in.offset, in.at, in.fed, in.enter, in.col = true, min(pre, p.end()), time.Now(), fed, enter, col
	p.input = in
}

// lastInput returns the pane's last input mark.
func (p *paneStream) lastInput() inputMark {
	p.mu.Lock()
	defer p.mu.Unlock()
	in := p.input
	in.typed = append([]string(nil), in.typed...)
	return in
}

// lastOutput returns when output of the pane last arrived (zero if never).
func (p *paneStream) lastOutput() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastOut
}

// pause records that tmux discarded the pane's queued output.
func (p *paneStream) pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lost, p.lostAt, p.snapshot = true, p.end(), nil
	p.data = append(p.data, 0)
	p.broadcast()
}

// resumed stores the screen captured as output resumed.
func (p *paneStream) resumed(screen []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.snapshot = screen
	p.broadcast()
}

// close marks the pane gone and wakes its readers.
func (p *paneStream) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.gone {
		p.gone = true
		p.broadcast()
	}
}

// adopt makes src the pane's source if it has none yet, so that a reader
// of a pane that has printed nothing still learns when that client ends.
func (p *paneStream) adopt(src uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.source == 0 {
		p.source = src
	}
}

// sourceEnded lets another client's output in once the client that
// delivered it has gone.
func (p *paneStream) sourceEnded(src uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.source != src {
		return
	}
	p.source = 0
	p.connLost, p.connLostAt = true, p.end()
	p.lost, p.lostAt, p.snapshot = true, p.end(), nil
	p.data = append(p.data, 0)
	p.broadcast()
}

// streamRead is what a reader at some offset gets.
type streamRead struct {
	data []byte // output after the offset, as much as is kept
	next int64  // the offset after data
	// missed is how many bytes after the offset are no longer kept.
	missed int64
	// paused reports that tmux discarded output after the offset (an
	// unknown amount); snapshot is the screen when it resumed.
	paused   bool
	snapshot []string
	gone     bool
	// connLost reports that the client delivering the output ended after
	// the offset: output from then on may be missing.
	connLost bool
}

// read returns what came after offset, without waiting.
func (p *paneStream) read(offset int64) streamRead {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := streamRead{next: p.end(), gone: p.gone}
	if p.lost && offset <= p.lostAt && p.lostAt < r.next {
		r.paused, r.snapshot = true, p.snapshot
	}
	r.connLost = p.connLost && offset <= p.connLostAt && p.connLostAt < r.next
	if offset < p.start {
		r.missed = p.start - offset
		offset = p.start
	}
	if offset > r.next {
		offset = r.next
	}
	r.data = append([]byte(nil), p.data[offset-p.start:]...)
	return r
}

// lineBefore returns the bytes of the line the stream was on at offset:
// those after the last newline before it. known reports that the stream
// holds that newline, so the line's start is known.
func (p *paneStream) lineBefore(offset int64) (b []byte, known bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	to := min(max(offset, p.start), p.end())
	b = p.data[:to-p.start]
	i := bytes.LastIndexByte(b, '\n')
	return append([]byte(nil), b[i+1:]...), i >= 0
}

// position returns the offset a new reader starts from and the channel
// that is closed at the next change.
func (p *paneStream) position() (int64, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.end(), p.changed
}

// wait blocks until something happens after offset (output, a pause, the
// pane's end) or ctx is done.
func (p *paneStream) wait(ctx context.Context, offset int64) error {
	p.mu.Lock()
	if p.end() > offset || p.gone {
		p.mu.Unlock()
		return nil
	}
	ch := p.changed
	p.waiters++
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.waiters--
		p.mu.Unlock()
	}()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// streams holds the output streams of every pane of one server. Streams
// are created on first output or first reader, and dropped when the model
// shows their pane gone.
type streams struct {
	mu    sync.Mutex
	panes map[string]*paneStream
}

// get returns the stream of pane, creating it.
func (ss *streams) get(pane string) *paneStream {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.panes == nil {
		ss.panes = make(map[string]*paneStream)
	}
	p, ok := ss.panes[pane]
	if !ok {
		p = newPaneStream()
		ss.panes[pane] = p
	}
	return p
}

// retain closes and forgets the streams of panes not in live.
func (ss *streams) retain(live map[string]bool) {
	ss.mu.Lock()
	var gone []*paneStream
	for id, p := range ss.panes {
		if !live[id] {
			gone = append(gone, p)
			delete(ss.panes, id)
		}
	}
	ss.mu.Unlock()
	for _, p := range gone {
		p.close()
	}
}

// sourceEnded is paneStream.sourceEnded for every stream.
func (ss *streams) sourceEnded(src uint64) {
	ss.mu.Lock()
	all := make([]*paneStream, 0, len(ss.panes))
	for _, p := range ss.panes {
		all = append(all, p)
	}
	ss.mu.Unlock()
	for _, p := range all {
		p.sourceEnded(src)
	}
}

// ends returns the end of every stream.
func (ss *streams) ends() map[string]int64 {
	ss.mu.Lock()
	all := make(map[string]*paneStream, len(ss.panes))
	for id, p := range ss.panes {
		all[id] = p
	}
	ss.mu.Unlock()
	ends := make(map[string]int64, len(all))
	for id, p := range all {
		p.mu.Lock()
		ends[id] = p.end()
		p.mu.Unlock()
	}
	return ends
}

// bytes returns the output bytes held for all panes, for memory tests.
func (ss *streams) bytes() int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	n := 0
	for _, p := range ss.panes {
		p.mu.Lock()
		n += cap(p.data)
		p.mu.Unlock()
	}
	return n
}
