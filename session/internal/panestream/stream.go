package panestream

import (
	"bytes"
	"context"
	"sync"
	"time"
)

// Cap is how many bytes of a pane's output are kept for readers that fall
// behind. A pane's buffer holds between Cap and 2×Cap bytes, so memory
// stays bounded whatever a pane prints.
const Cap = 1 << 20

// A Stream is the output of one pane as %output delivered it, with a
// monotonic byte offset: a reader holding an offset gets exactly what came
// after it, or is told how much it missed.
type Stream struct {
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
	following  chan struct{} // closed when a reader next blocks in WaitOrTick; nil if none asked
	lastOut    time.Time     // when output last arrived
	input      InputMark     // the last input this process sent to the pane
	group      *inputGroup   // the inputs being noted as one (GroupInputs); nil if none
	look       int64         // where the last answer to "has it changed?" ended (NoteLook)
}

// New returns an empty stream with no source, at offset 0.
func New() *Stream {
	return &Stream{changed: make(chan struct{})}
}

func (p *Stream) end() int64 { return p.start + int64(len(p.data)) }

// broadcast wakes every reader waiting on a change. p.mu is held.
func (p *Stream) broadcast() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// Append adds output from client src. It runs on a reader goroutine and
// only copies bytes.
func (p *Stream) Append(src uint64, b []byte) {
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
	if len(p.data) > 2*Cap {
		drop := len(p.data) - Cap
		p.data = append([]byte(nil), p.data[drop:]...)
		p.start += int64(drop)
	}
	p.broadcast()
}

// LastOutput returns when output of the pane last arrived (zero if never).
func (p *Stream) LastOutput() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastOut
}

// Pause records that tmux discarded the pane's queued output.
func (p *Stream) Pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lost, p.lostAt, p.snapshot = true, p.end(), nil
	p.data = append(p.data, 0)
	p.broadcast()
}

// Resumed stores the screen captured as output resumed.
func (p *Stream) Resumed(screen []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.snapshot = screen
	p.broadcast()
}

// Close marks the pane gone and wakes its readers.
func (p *Stream) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.gone {
		p.gone = true
		p.broadcast()
	}
}

// Adopt makes src the pane's source if it has none yet, so that a reader
// of a pane that has printed nothing still learns when that client ends.
func (p *Stream) Adopt(src uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.source == 0 {
		p.source = src
	}
}

// Follow makes src the pane's source: the client attached to the session
// tmux has the pane in now. If another client was its source, the pane has
// moved out of that client's session, and what it printed since the move
// reached only src, which the stream did not take: the change is marked
// as the end of the old source (see SourceEnded).
func (p *Stream) Follow(src uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.source != 0 && p.source != src {
		p.endSource()
	}
	p.source = src
}

// Source returns the client whose output the stream takes, 0 if none.
func (p *Stream) Source() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.source
}

// SourceEnded lets another client's output in once the client that
// delivered it has gone.
func (p *Stream) SourceEnded(src uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.source != src {
		return
	}
	p.endSource()
}

// endSource marks where the source stopped delivering, and forgets it.
// p.mu is held.
func (p *Stream) endSource() {
	p.source = 0
	p.connLost, p.connLostAt = true, p.end()
	p.lost, p.lostAt, p.snapshot = true, p.end(), nil
	p.data = append(p.data, 0)
	p.broadcast()
}

// A Read is what a reader at some offset gets.
type Read struct {
	Data []byte // output after the offset, as much as is kept
	Next int64  // the offset after Data
	// Missed is how many bytes after the offset are no longer kept.
	Missed int64
	// Paused reports that tmux discarded output after the offset (an
	// unknown amount); Snapshot is the screen when it resumed.
	Paused   bool
	Snapshot []string
	Gone     bool // the pane no longer exists
	// ConnLost reports that the client delivering the output ended after
	// the offset: output from then on may be missing.
	ConnLost bool
}

// Read returns what came after offset, without waiting.
func (p *Stream) Read(offset int64) Read {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := Read{Next: p.end(), Gone: p.gone}
	if p.lost && offset <= p.lostAt && p.lostAt < r.Next {
		r.Paused, r.Snapshot = true, p.snapshot
	}
	r.ConnLost = p.connLost && offset <= p.connLostAt && p.connLostAt < r.Next
	if offset < p.start {
		r.Missed = p.start - offset
		offset = p.start
	}
	if offset > r.Next {
		offset = r.Next
	}
	r.Data = append([]byte(nil), p.data[offset-p.start:]...)
	return r
}

// LineBefore returns the bytes of the line the stream was on at offset:
// those after the last newline before it. known reports that the stream
// holds that newline, so the line's start is known.
func (p *Stream) LineBefore(offset int64) (b []byte, known bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	to := min(max(offset, p.start), p.end())
	b = p.data[:to-p.start]
	i := bytes.LastIndexByte(b, '\n')
	return append([]byte(nil), b[i+1:]...), i >= 0
}

// Position returns the offset a new reader starts from and the channel
// that is closed at the next change.
func (p *Stream) Position() (int64, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.end(), p.changed
}

// Wait blocks until something happens after offset (output, a pause, the
// pane's end) or ctx is done.
func (p *Stream) Wait(ctx context.Context, offset int64) error {
	_, err := p.WaitOrTick(ctx, offset, nil)
	return err
}

// WaitOrTick is [Stream.Wait] that also returns, with ticked true, when
// tick fires first, so that a waiter can report progress without a
// goroutine of its own. A nil tick never fires.
func (p *Stream) WaitOrTick(ctx context.Context, offset int64, tick <-chan time.Time) (ticked bool, err error) {
	p.mu.Lock()
	if p.end() > offset || p.gone {
		p.mu.Unlock()
		return false, nil
	}
	ch := p.changed
	p.waiters++
	if p.following != nil {
		close(p.following)
		p.following = nil
	}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.waiters--
		p.mu.Unlock()
	}()
	select {
	case <-ch:
		return false, nil
	case <-tick:
		return true, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// Following returns a channel that is closed once a reader blocks in
// [Stream.Wait] (at once if one does now), so that a test can tell when a
// wait is following the stream without spinning on [Stream.Waiters].
func (p *Stream) Following() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.waiters > 0 {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	if p.following == nil {
		p.following = make(chan struct{})
	}
	return p.following
}

// Waiters returns how many readers block in [Stream.Wait], so that a test
// can tell when a wait is following the stream.
func (p *Stream) Waiters() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waiters
}
