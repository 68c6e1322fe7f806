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
// URI, shared by every session subscribed to it.
type subscriptions struct {
	watcher changeWatcher
	srv     *sdk.Server // set once NewServer has made it
	// check refuses a URI outside the scope; nil checks nothing.
	check  func(ctx context.Context, uri string) *ToolError
	logger interface {
		Debug(msg string, args ...any)
	}

	mu    sync.Mutex
	byURI map[string]*subscription
}

type subscription struct {
	refs    int
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
	if s.hold(uri) {
		return nil
	}
	sub := &subscription{refs: 1}
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
		other.refs++
		s.mu.Unlock()
		stop()
		return nil
	}
	s.byURI[uri] = sub
	s.mu.Unlock()
	return nil
}

// hold counts one more subscriber of an existing watch of uri.
func (s *subscriptions) hold(uri string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sub, ok := s.byURI[uri]; ok {
		sub.refs++
		return true
	}
	return false
}

func (s *subscriptions) unsubscribe(_ context.Context, req *sdk.UnsubscribeRequest) error {
	s.mu.Lock()
	sub, ok := s.byURI[req.Params.URI]
	if !ok {
		s.mu.Unlock()
		return nil
	}
	sub.refs--
	last := sub.refs == 0
	if last {
		delete(s.byURI, req.Params.URI)
	}
	s.mu.Unlock()
	if last {
		sub.stop()
	}
	return nil
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
