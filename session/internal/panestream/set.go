package panestream

import (
	"slices"
	"sync"
)

// A Set holds the output streams of every pane of one server. Streams are
// created on first output or first reader, and dropped when the model
// shows their pane gone. The zero Set is empty and ready to use.
type Set struct {
	mu    sync.Mutex
	panes map[string]*Stream
}

// Get returns the stream of pane, creating it.
func (ss *Set) Get(pane string) *Stream {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.panes == nil {
		ss.panes = make(map[string]*Stream)
	}
	p, ok := ss.panes[pane]
	if !ok {
		p = New()
		ss.panes[pane] = p
	}
	return p
}

// Lookup returns the stream of pane, if it has one.
func (ss *Set) Lookup(pane string) (*Stream, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	p, ok := ss.panes[pane]
	return p, ok
}

// Retain closes and forgets the streams of panes not in live.
func (ss *Set) Retain(live map[string]bool) {
	ss.mu.Lock()
	var gone []*Stream
	for id, p := range ss.panes {
		if !live[id] {
			gone = append(gone, p)
			delete(ss.panes, id)
		}
	}
	ss.mu.Unlock()
	for _, p := range gone {
		p.Close()
	}
}

// SourceEnded is [Stream.SourceEnded] for every stream.
func (ss *Set) SourceEnded(src uint64) {
	ss.mu.Lock()
	all := make([]*Stream, 0, len(ss.panes))
	for _, p := range ss.panes {
		all = append(all, p)
	}
	ss.mu.Unlock()
	for _, p := range all {
		p.SourceEnded(src)
	}
}

// EndMoved ends the source of each stream whose pane is, by in (pane ->
// the sessions tmux has it in now), outside the session its source's
// client is attached to (sessionOf): the pane moved, and only a client
// attached where it went gets its output now. A reader then sees its
// source's end (Read.ConnLost) and watches the pane again where it is.
func (ss *Set) EndMoved(in map[string][]string, sessionOf func(src uint64) (string, bool)) {
	for pane, sessions := range in {
		p, ok := ss.Lookup(pane)
		if !ok {
			continue
		}
		if src := p.Source(); src != 0 {
			if at, ok := sessionOf(src); ok && !slices.Contains(sessions, at) {
				p.SourceEnded(src)
			}
		}
	}
}

// Ends returns the end of every stream, by pane.
func (ss *Set) Ends() map[string]int64 {
	ss.mu.Lock()
	all := make(map[string]*Stream, len(ss.panes))
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

// Held returns the output bytes held for all panes, for memory tests.
func (ss *Set) Held() int {
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
