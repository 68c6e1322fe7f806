package session

import (
	"context"
	"sync"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
)

// WatcherIdle is how long a watcher stays attached after its last reader
// has gone, so that capture_since calls a little apart see everything.
const WatcherIdle = 60 * time.Second

// clientRef lets a notification handler, which exists before its client
// does, reach that client.
type clientRef struct {
	mu  sync.Mutex
	c   *controlmode.Conn
	src uint64
}

func (r *clientRef) setConn(c *controlmode.Conn, src uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.c, r.src = c, src
}

func (r *clientRef) conn() *controlmode.Conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.c
}

// onOutput feeds output and flow-control notifications of client src into
// the streams. It runs on that client's reader goroutine.
func (s *Server) onOutput(src uint64, ref *clientRef, n controlmode.Notification) {
	switch n := n.(type) {
	case controlmode.Output:
		s.streams.Get(n.Pane).Append(src, n.Data)
	case controlmode.Pause:
		st := s.streams.Get(n.Pane)
		st.Pause()
		s.mu.Lock()
		closed := s.closed
		if !closed {
			s.wg.Add(1)
		}
		s.mu.Unlock()
		if !closed {
			go s.resume(ref, n.Pane, st)
		}
	}
}

// resume answers %pause: it asks tmux to send the pane's output again and
// captures its screen in the same round trip, so the snapshot and the
// point where output resumes line up.
func (s *Server) resume(ref *clientRef, pane string, st *panestream.Stream) {
	defer s.wg.Done()
	c := ref.conn()
	if c == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	rs, err := s.send(ctx, c,
		controlmode.NewCommand("refresh-client", "-A", pane+":continue"),
		controlmode.NewCommand("capture-pane", "-p", "-J", "-t", pane))
	if err != nil {
		s.opts.Logger.Debug("resuming a paused pane failed", "pane", pane, "err", err)
		return
	}
	st.Resumed(rs[1].Lines)
}

// watcher is an extra control client attached to a session other than the
// main client's, because tmux sends %output only for the panes of the
// session a client is attached to. Watchers are shared, counted, and closed
// once idle.
type watcher struct {
	ref   *clientRef
	refs  int
	timer *time.Timer // closes an idle watcher
}

// watchPane makes sure output of pane reaches its stream, and returns the
// stream and a release function the caller must call when done reading.
func (s *Server) watchPane(ctx context.Context, pane string) (*panestream.Stream, func(), error) {
	sessionID, err := s.sessionOfPane(ctx, pane)
	if err != nil {
		return nil, nil, err
	}
	return s.watchPaneIn(pane, sessionID)
}

// watchPaneIn is watchPane for a caller that has read the pane's session
// already, in a round trip it needed anyway.
func (s *Server) watchPaneIn(pane, sessionID string) (*panestream.Stream, func(), error) {
	st := s.streams.Get(pane)
	s.mu.Lock()
	if sessionID == s.attached && s.conn != nil {
		src := s.mainSrc
		s.mu.Unlock()
		st.Adopt(src)
		return st, func() {}, nil
	}
	if w, ok := s.watchers[sessionID]; ok && w.ref.conn().Err() == nil {
		s.hold(w)
		s.mu.Unlock()
		st.Adopt(w.ref.src)
		return st, func() { s.releaseWatcher(sessionID, w) }, nil
	}
	s.mu.Unlock()

	v, err, _ := s.group.Do("watch "+sessionID, func() (any, error) {
		sctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
		defer cancel()
		ref, err := s.startClient(sctx, sessionID, s.onNotice)
		if err != nil {
			return nil, s.startError(err)
		}
		w := &watcher{ref: ref}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			go s.closeClient(ref.conn())
			return nil, errorf(KindNoServer, false, "the session layer is closed")
		}
		if s.watchers == nil {
			s.watchers = make(map[string]*watcher)
		}
		s.watchers[sessionID] = w
		s.wg.Add(1)
		go s.endWatcher(sessionID, w)
		return w, nil
	})
	if err != nil {
		return nil, nil, err
	}
	w := v.(*watcher)
	s.mu.Lock()
	s.hold(w)
	s.mu.Unlock()
	st.Adopt(w.ref.src)
	return st, func() { s.releaseWatcher(sessionID, w) }, nil
}

// hold counts a reader of w. s.mu is held.
func (s *Server) hold(w *watcher) {
	w.refs++
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
}

func (s *Server) releaseWatcher(sessionID string, w *watcher) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w.refs--
	if w.refs > 0 || s.closed {
		return
	}
	w.timer = time.AfterFunc(WatcherIdle, func() {
		s.mu.Lock()
		idle := w.refs == 0 && s.watchers[sessionID] == w
		s.mu.Unlock()
		if idle {
			s.closeClient(w.ref.conn())
		}
	})
}

// endWatcher forgets a watcher once its client ends, for whatever reason.
func (s *Server) endWatcher(sessionID string, w *watcher) {
	defer s.wg.Done()
	c := w.ref.conn()
	select {
	case <-c.Done():
	case <-s.stop:
		s.closeClient(c)
	}
	s.mu.Lock()
	if s.watchers[sessionID] == w {
		delete(s.watchers, sessionID)
	}
	if w.timer != nil {
		w.timer.Stop()
	}
	s.mu.Unlock()
	s.streams.SourceEnded(w.ref.src)
}

// sessionOfPane returns the id of the session pane is in.
func (s *Server) sessionOfPane(ctx context.Context, pane string) (string, error) {
	rs, err := s.exec(ctx, controlmode.NewCommand("display-message", "-p", "-t", pane, "#{session_id}"))
	if err != nil {
		return "", err
	}
	if len(rs[0].Lines) != 1 {
		return "", errorf(KindNotFound, true, "can't find pane: %s", pane)
	}
	return rs[0].Lines[0], nil
}

// watcherCount returns how many watchers are attached.
func (s *Server) watcherCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.watchers)
}
