package mcp

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// coalesce is how long a resource's changes are gathered into one
// notifications/resources/updated.
const coalesce = 50 * time.Millisecond

// changeWatcher is implemented by Backends that can say when what a
// resource shows may have changed; resource subscriptions are then driven
// by tmux's own notifications and pane output, never by polling. changed
// runs on the backend's goroutines and must return at once.
type changeWatcher interface {
	WatchResource(ctx context.Context, sock Socket, pane string, changed func()) (stop func(), err error)
}

// subscriptions tracks the resources clients subscribed to: one watch per
// URI, shared by every session subscribed to it. A subscription belongs to
// the session that made it: only that session's unsubscribe, or its end,
// lets go of it.
type subscriptions struct {
	watcher changeWatcher
	srv     *sdk.Server // set once NewServer has made it
	// check refuses a URI outside the scope; nil checks nothing.
	check  func(ctx context.Context, uri string) *ToolError
	logger interface {
		Debug(msg string, args ...any)
	}

	mu       sync.Mutex
	byURI    map[string]*subscription
	sessions map[*sdk.ServerSession]bool // sessions whose end is watched
}

type subscription struct {
	by      map[*sdk.ServerSession]bool // the sessions subscribed
	stop    func()
	pending bool // a notification is scheduled
}

// resourceScope returns the socket and the pane a tmux:// URI depends on;
// pane is empty for the session and window resources.
func resourceScope(uri string) (sock Socket, pane string, ok bool) {
	rest, ok := strings.CutPrefix(uri, "tmux://")
	if !ok {
		return Socket{}, "", false
	}
	rest, query, _ := strings.Cut(rest, "?")
	q, _ := url.ParseQuery(query)
	sock = Socket{SocketName: q.Get("socket_name")}
	seg := strings.Split(rest, "/")
	switch {
	case seg[0] == "sessions":
		return sock, "", true
	case seg[0] == "panes" && len(seg) >= 2 && paneNumber.MatchString(seg[1]):
		return sock, "%" + strings.TrimPrefix(seg[1], "%"), true
	case seg[0] == "panes" && len(seg) >= 2:
		if v, err := url.PathUnescape(seg[1]); err == nil && paneNumber.MatchString(v) {
			return sock, "%" + strings.TrimPrefix(v, "%"), true
		}
	}
	return Socket{}, "", false
}

// subscribe and unsubscribe never hold s.mu while they start or stop a
// watch: changed runs on a tmux client's reader goroutine with the session
// layer's listener lock held, and takes s.mu.
func (s *subscriptions) subscribe(ctx context.Context, req *sdk.SubscribeRequest) error {
	uri := req.Params.URI
	sock, pane, ok := resourceScope(uri)
	if !ok {
		return sdk.ResourceNotFoundError(uri)
	}
	if s.check != nil {
		if te := s.check(ctx, uri); te != nil {
			return resourceError(uri, te)
		}
	}
	ss := req.Session
	if s.hold(uri, ss) {
		return nil
	}
	sub := &subscription{by: map[*sdk.ServerSession]bool{ss: true}}
	stop, err := s.watcher.WatchResource(ctx, sock, pane, func() { s.changed(uri, sub) })
	if err != nil {
		return err
	}
	sub.stop = stop
	s.mu.Lock()
	if s.byURI == nil {
		s.byURI = make(map[string]*subscription)
	}
	if other, ok := s.byURI[uri]; ok {
		// Another subscribe for the same URI won the race: share its watch.
		other.by[ss] = true
		s.mu.Unlock()
		stop()
		return nil
	}
	s.byURI[uri] = sub
	s.mu.Unlock()
	return nil
}

// hold adds session ss to an existing watch of uri, and starts watching
// for the session's end.
func (s *subscriptions) hold(uri string, ss *sdk.ServerSession) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss != nil && !s.sessions[ss] {
		if s.sessions == nil {
			s.sessions = make(map[*sdk.ServerSession]bool)
		}
		s.sessions[ss] = true
		go func() {
			_ = ss.Wait() // Its error is the session's, reported by the SDK.
			s.ended(ss)
		}()
	}
	if sub, ok := s.byURI[uri]; ok {
		sub.by[ss] = true
		return true
	}
	return false
}

func (s *subscriptions) unsubscribe(_ context.Context, req *sdk.UnsubscribeRequest) error {
	s.release(req.Params.URI, req.Session)
	return nil
}

// release lets session ss go of uri; the last one stops the watch. A
// session that holds no subscription to uri changes nothing.
func (s *subscriptions) release(uri string, ss *sdk.ServerSession) {
	s.mu.Lock()
	sub, ok := s.byURI[uri]
	if !ok || !sub.by[ss] {
		s.mu.Unlock()
		return
	}
	delete(sub.by, ss)
	last := len(sub.by) == 0
	if last {
		delete(s.byURI, uri)
	}
	s.mu.Unlock()
	if last {
		sub.stop()
	}
}

// ended releases every subscription of a session that has ended (a client
// that went away without unsubscribing, an HTTP session that expired).
func (s *subscriptions) ended(ss *sdk.ServerSession) {
	s.mu.Lock()
	delete(s.sessions, ss)
	var uris []string
	for uri, sub := range s.byURI {
		if sub.by[ss] {
			uris = append(uris, uri)
		}
	}
	s.mu.Unlock()
	for _, uri := range uris {
		s.release(uri, ss)
	}
}

// watching returns how many URIs are watched, for tests.
func (s *subscriptions) watching() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.byURI)
}

// changed schedules one notification for uri, gathering the changes of
// the next coalesce interval into it.
func (s *subscriptions) changed(uri string, sub *subscription) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sub.pending || s.byURI[uri] != sub {
		return
	}
	sub.pending = true
	time.AfterFunc(coalesce, func() {
		s.mu.Lock()
		sub.pending = false
		s.mu.Unlock()
		if err := s.srv.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
			s.logger.Debug("resource update not sent", "uri", uri, "err", err)
		}
	})
}
