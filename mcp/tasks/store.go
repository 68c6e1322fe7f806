package tasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// Status is a task's status.
type Status string

// The statuses a task here takes; input_required is never one (no tool
// asks for input during a task).
const (
	Working   Status = "working"
	Completed Status = "completed"
	Failed    Status = "failed"
	Cancelled Status = "cancelled"
)

// terminal reports whether s is final.
func (s Status) terminal() bool { return s != Working }

// task is one task. Its fields after id are guarded by the store's lock.
type task struct {
	id      string
	created time.Time
	expires time.Time // created + the TTL: kept at least until then

	updated time.Time
	status  Status
	message string          // statusMessage
	result  json.RawMessage // the CallToolResult, when completed
	err     *jsonrpc.Error  // the JSON-RPC error, when failed

	stop      context.CancelFunc // cancels the call's context
	stops     func() []func()    // takes the tool's own stops (OnCancel) at a cancel
	cancelled bool               // tasks/cancel came while working
	stopped   chan struct{}      // closed once the stops ran, after cancelled
	done      chan struct{}      // closed once terminal
}

// view is a copy of a task's state, taken under the lock.
type view struct {
	id               string
	created, updated time.Time
	ttl              time.Duration
	status           Status
	message          string
	result           json.RawMessage
	err              *jsonrpc.Error
}

// store holds one layer's tasks, by id.
type store struct {
	now func() time.Time
	ttl time.Duration
	max int

	mu   sync.Mutex
	byID map[string]*task
}

// newTaskID returns an id no one can guess: 128 random bits.
func newTaskID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails
	return "task-" + hex.EncodeToString(b)
}

// expire forgets the terminal tasks whose TTL passed. A task still working
// is never forgotten: its call's own bounds end it.
func (s *store) expire(now time.Time) {
	for id, t := range s.byID {
		if t.status.terminal() && !now.Before(t.expires) {
			delete(s.byID, id)
		}
	}
}

// add keeps a new working task under id, whose call stop cancels. It
// returns nil, keeping nothing, when id is taken or the store is full of
// tasks whose TTL has not passed: the call then answers as without tasks.
func (s *store) add(id string, stop context.CancelFunc, stops func() []func()) *task {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byID == nil {
		s.byID = map[string]*task{}
	}
	s.expire(now)
	if _, ok := s.byID[id]; ok || len(s.byID) >= s.max {
		return nil
	}
	t := &task{id: id, created: now, expires: now.Add(s.ttl), updated: now, status: Working,
		stop: stop, stops: stops, done: make(chan struct{})}
	s.byID[id] = t
	return t
}

// get returns a view of task id, false if there is none (never was, or
// forgotten after its TTL).
func (s *store) get(id string) (view, bool) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	t, ok := s.byID[id]
	if !ok {
		return view{}, false
	}
	return s.viewOf(t), true
}

func (s *store) viewOf(t *task) view {
	return view{id: t.id, created: t.created, updated: t.updated, ttl: t.expires.Sub(t.created),
		status: t.status, message: t.message, result: t.result, err: t.err}
}

// cancel asks task id to stop, if it still works: its call's context is
// cancelled and the tool's stops run, in the background. It reports false
// when there is no such task; a terminal task is left as it is.
func (s *store) cancel(id string) bool {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	t, ok := s.byID[id]
	if !ok {
		return false
	}
	if t.status.terminal() || t.cancelled {
		return true
	}
	t.cancelled = true
	t.stopped = make(chan struct{})
	go func(done chan struct{}) {
		defer close(done)
		t.stop()
		for _, f := range t.stops() {
			f()
		}
	}(t.stopped)
	return true
}

// finish records how t's call ended: a result (completed) or a JSON-RPC
// error (failed); cancelled instead if tasks/cancel came first, once the
// tool's stops have run.
func (s *store) finish(t *task, result json.RawMessage, err *jsonrpc.Error) {
	s.mu.Lock()
	stopped := t.stopped
	s.mu.Unlock()
	if stopped != nil {
		<-stopped
	}
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	t.updated = now
	switch {
	case t.cancelled:
		t.status, t.message = Cancelled, "cancelled by the client"
	case err != nil:
		t.status, t.err, t.message = Failed, err, err.Message
	default:
		t.status, t.result = Completed, result
	}
	close(t.done)
	// The TTL counts from creation, but a result is kept at least a TTL
	// after it came: a task may run almost as long as its TTL.
	if e := now.Add(s.ttl); e.After(t.expires) {
		t.expires = e
	}
}

// wait waits until task id is terminal, at most max when max > 0, or
// until ctx ends (an error then). A task unknown is no error: the caller
// looks again.
func (s *store) wait(ctx context.Context, id string, max time.Duration) error {
	s.mu.Lock()
	t, ok := s.byID[id]
	s.mu.Unlock()
	if !ok {
		return nil
	}
	var limit <-chan time.Time
	if max > 0 {
		tm := time.NewTimer(max)
		defer tm.Stop()
		limit = tm.C
	}
	select {
	case <-t.done:
	case <-limit:
	case <-ctx.Done():
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the request was cancelled: " + ctx.Err().Error()}
	}
	return nil
}

// all returns a view of every task kept.
func (s *store) all() []view {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(now)
	vs := make([]view, 0, len(s.byID))
	for _, t := range s.byID {
		vs = append(vs, s.viewOf(t))
	}
	return vs
}

// cancelAll cancels every task still working (the server is closing).
func (s *store) cancelAll() {
	s.mu.Lock()
	ids := make([]string, 0, len(s.byID))
	for id := range s.byID {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	for _, id := range ids {
		s.cancel(id)
	}
}
