package session

import (
	"context"
	"strings"
	"sync"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/engine"
)

// Change says what may have changed on a server, for subscribers who
// re-read it: the structure (sessions, windows, panes, names), or the
// output of one pane.
type Change struct {
	Structure bool
	Pane      string // set when this pane printed something
	// Marks is set when this pane's shell printed an OSC 133 mark that
	// tmux recorded, for a pane given to [Server.WatchMarks].
	Marks string
}

// listeners are the subscribers of one Server.
type listeners struct {
	mu   sync.RWMutex
	next int
	fns  map[int]func(Change)
}

// emit calls every listener. It runs on a client's reader goroutine.
func (l *listeners) emit(c Change) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	for _, f := range l.fns {
		f(c)
	}
}

// Subscribe calls f for every change tmux tells this Server about, until
// the returned function is called. f runs on a connection's reader
// goroutine: it must return at once (record the change, wake a goroutine).
// Output is reported only for panes being followed: those of the main
// client's session and those given to [Server.FollowPane].
func (s *Server) Subscribe(f func(Change)) (cancel func()) {
	l := &s.listeners
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fns == nil {
		l.fns = make(map[int]func(Change))
	}
	id := l.next
	l.next++
	l.fns[id] = f
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		delete(l.fns, id)
	}
}

// FollowPane keeps pane's output flowing to this Server (attaching a
// watcher to its session if needed) until release is called.
func (s *Server) FollowPane(ctx context.Context, pane string) (release func(), err error) {
	_, release, err = s.watchPane(ctx, pane)
	return release, err
}

// notifyChange tells listeners what notification n means to them.
func (s *Server) notifyChange(n controlmode.Notification, structural bool) {
	switch n := n.(type) {
	case controlmode.Output:
		s.listeners.emit(Change{Pane: n.Pane})
		return
	case controlmode.Message:
		if pane, ok := strings.CutPrefix(n.Text, engine.MarksMessage); ok {
			s.listeners.emit(Change{Marks: pane})
		}
		return
	case controlmode.SessionRenamed, controlmode.WindowRenamed:
		structural = true
	}
	if structural {
		s.listeners.emit(Change{Structure: true})
	}
}
