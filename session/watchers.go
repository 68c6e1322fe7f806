package session

import (
	"context"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/engine"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
)

// WatcherIdle is how long a watcher stays attached after its last reader
// has gone, so that capture_since calls a little apart see everything.
const WatcherIdle = 60 * time.Second

// onOutput feeds output and flow-control notifications of client src into
// the streams. It runs on that client's reader goroutine.
func (s *Server) onOutput(src uint64, ref *clientRef, n controlmode.Notification) {
	switch n := n.(type) {
	case controlmode.Output:
		s.streams.Get(n.Pane).Append(src, n.Data)
	case controlmode.Pause:
		st := s.streams.Get(n.Pane)
		st.Pause()
		s.link.spawn(func() { s.resume(ref, n.Pane, st) })
	}
}

// resume answers %pause: it asks tmux to send the pane's output again and
// captures its screen in the same round trip, so the snapshot and the
// point where output resumes line up.
func (s *Server) resume(ref *clientRef, pane string, st *panestream.Stream) {
	c := ref.conn()
	if c == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
	defer cancel()
	rs, err := s.send(ctx, c,
		controlmode.NewCommand("refresh-client", "-A", pane+":continue"),
		engine.CaptureCommand(CaptureArgs{Join: true}, pane))
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
	ref  *clientRef
	refs int
	idle chan struct{} // while no one reads: closed when one does, or the client ends
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
// already, in a round trip it needed anyway. The client attached to that
// session becomes the stream's source, also when another one was: the
// pane has moved out of that one's session, which no longer gets its
// output.
func (s *Server) watchPaneIn(pane, sessionID string) (*panestream.Stream, func(), error) {
	st := s.streams.Get(pane)
	src, release, err := s.link.feed(sessionID)
	if err != nil {
		return nil, nil, err
	}
	st.Follow(src)
	return st, release, nil
}

// watchPaneFed is watchPane without a round trip, for a pane whose session,
// as the model knows it, a client of ours is attached to already: it
// returns that session, which the caller checks against tmux's in its
// next look at the pane, since the pane may have moved. ok is false, and
// nothing is held, when the model does not know the pane or no client of
// ours is attached to its session.
func (s *Server) watchPaneFed(pane string) (st *panestream.Stream, release func(), sessionID string, ok bool) {
	p, known := s.model.paneByID(pane)
	if !known {
		return nil, nil, "", false
	}
	src, release, ok := s.link.feeding(p.SessionID)
	if !ok {
		return nil, nil, "", false
	}
	st = s.streams.Get(pane)
	if st.Adopt(src); st.Source() != src {
		// Another client delivers the pane: it was in that client's
		// session, and the model may be ahead of the stream or behind
		// tmux. watchPaneIn settles it once tmux has said where it is.
		release()
		return nil, nil, "", false
	}
	return st, release, p.SessionID, true
}

// feed makes sure a client of ours is attached to session sessionID, so
// that the output of its panes reaches their streams: the main client, or
// a watcher, started if need be. It returns that client's source number
// and a release function the caller must call when done reading.
func (l *link) feed(sessionID string) (src uint64, release func(), err error) {
	if src, release, ok := l.feeding(sessionID); ok {
		return src, release, nil
	}

	v, err, _ := l.group.Do(sessionID, func() (any, error) {
		sctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
		defer cancel()
		ref, err := l.startClient(sctx, sessionID, l.ev.note)
		if err != nil {
			return nil, err
		}
		w := &watcher{ref: ref}
		l.mu.Lock()
		if l.status == linkClosed {
			l.mu.Unlock()
			l.closeClient(ref.conn())
			return nil, errLinkClosed()
		}
		if l.watchers == nil {
			l.watchers = make(map[string]*watcher)
		}
		l.watchers[sessionID] = w
		l.wg.Add(1)
		go l.endWatcher(sessionID, w)
		l.mu.Unlock()
		return w, nil
	})
	if err != nil {
		return 0, nil, err
	}
	w := v.(*watcher)
	l.mu.Lock()
	l.hold(w)
	l.mu.Unlock()
	return w.ref.src, func() { l.releaseWatcher(sessionID, w) }, nil
}

// feeding is feed when a client of ours is attached to session sessionID
// already; ok is false, and nothing is held, when none is.
func (l *link) feeding(sessionID string) (src uint64, release func(), ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if sessionID == l.attached && l.status == linkLive {
		return l.src, func() {}, true
	}
	if w, ok := l.watchers[sessionID]; ok && w.ref.conn().Err() == nil {
		l.hold(w)
		return w.ref.src, func() { l.releaseWatcher(sessionID, w) }, true
	}
	return 0, nil, false
}

// sessionOfSource returns the session the client of source number src is
// attached to: the main client's, or a watcher's; ok is false for a
// client that is no longer ours.
func (l *link) sessionOfSource(src uint64) (sessionID string, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if src == l.src && l.status == linkLive {
		return l.attached, true
	}
	for id, w := range l.watchers {
		if w.ref.src == src {
			return id, true
		}
	}
	return "", false
}

// feeds reports whether a client of ours is delivering the output of the
// panes of session sessionID.
func (l *link) feeds(sessionID string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if sessionID == l.attached && l.status == linkLive {
		return true
	}
	w, ok := l.watchers[sessionID]
	return ok && w.ref.conn() != nil && w.ref.conn().Err() == nil
}

// hold counts a reader of w, and stops its idle count. l.mu is held.
func (l *link) hold(w *watcher) {
	w.refs++
	if w.idle != nil {
		close(w.idle)
		w.idle = nil
	}
}

// releaseWatcher uncounts a reader of w; the last one starts its idle
// count, on the link's wait group.
func (l *link) releaseWatcher(sessionID string, w *watcher) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w.refs--
	if w.refs > 0 || l.status == linkClosed {
		return
	}
	idle := make(chan struct{})
	w.idle = idle
	l.wg.Add(1)
	go l.idleOut(sessionID, w, idle)
}

// idleOut closes watcher w once it has had no reader for l.idle, unless
// idle is closed first (a reader came, or the client ended) or the link
// closes (which closes w).
func (l *link) idleOut(sessionID string, w *watcher, idle chan struct{}) {
	defer l.wg.Done()
	t := time.NewTimer(l.idle)
	defer t.Stop()
	select {
	case <-t.C:
	case <-idle:
		return
	case <-l.stop:
		return
	}
	l.mu.Lock()
	out := w.idle == idle && l.watchers[sessionID] == w
	if out {
		// Forgotten under the same lock, so that no follower can take
		// the watcher between this check and its close.
		delete(l.watchers, sessionID)
		w.idle = nil
	}
	l.mu.Unlock()
	if out {
		l.closeClient(w.ref.conn())
	}
}

// endWatcher forgets a watcher once its client ends, for whatever reason.
func (l *link) endWatcher(sessionID string, w *watcher) {
	defer l.wg.Done()
	c := w.ref.conn()
	select {
	case <-c.Done():
	case <-l.stop:
		l.closeClient(c)
	}
	l.mu.Lock()
	if l.watchers[sessionID] == w {
		delete(l.watchers, sessionID)
	}
	if w.idle != nil {
		close(w.idle)
		w.idle = nil
	}
	l.mu.Unlock()
	l.ev.sourceEnded(w.ref.src)
}

// sessionOfPane returns the id of the session pane is in.
func (s *Server) sessionOfPane(ctx context.Context, pane string) (string, error) {
	rs, err := s.exec(ctx, controlmode.NewCommand("display-message", "-p", "-t", pane, "#{session_id}"))
	if err != nil {
		return "", err
	}
	if len(rs[0].Lines) != 1 {
		return "", errorf(KindNotFound, "can't find pane: %s", pane)
	}
	return rs[0].Lines[0], nil
}

// watcherCount returns how many watchers are attached.
func (l *link) watcherCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.watchers)
}

// StreamCap is how many bytes of a pane's output are kept for readers that
// fall behind. A pane's buffer holds between StreamCap and 2×StreamCap
// bytes, so memory stays bounded whatever a pane prints.
const StreamCap = panestream.Cap

// watcherConn returns the client of the watcher whose source number is
// src, nil if src is the main client's or no watcher's.
func (l *link) watcherConn(src uint64) *controlmode.Conn {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, w := range l.watchers {
		if w.ref.src == src {
			return w.ref.conn()
		}
	}
	return nil
}

// syncStream makes st hold all the output tmux had read for its pane when
// the call began. tmux sends a client a pane's output before its reply to
// a command that came after the output was read, so one round trip on the
// main client does it for panes the main client delivers; a watcher's
// output is not ordered with the main client's replies, and gets a round
// trip of its own.
func (s *Server) syncStream(ctx context.Context, st *panestream.Stream) error {
	c := s.link.watcherConn(st.Source())
	if c == nil {
		return nil
	}
	_, err := s.send(ctx, c, controlmode.NewCommand("display-message", "-p", "sync"))
	return err
}
