package mcp

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// watchCounter is a changeWatcher that counts the watches running.
type watchCounter struct {
	noBackend // a call that reaches it panics, answered internal
	mu        sync.Mutex
	running   map[string]int // pane ("" for sessions) -> watches
}

func (w *watchCounter) WatchResource(_ context.Context, _ Socket, pane string, _ func()) (func(), error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.running == nil {
		w.running = map[string]int{}
	}
	w.running[pane]++
	var once sync.Once
	return func() {
		once.Do(func() {
			w.mu.Lock()
			defer w.mu.Unlock()
			w.running[pane]--
		})
	}, nil
}

func (w *watchCounter) count(pane string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.running[pane]
}

// TestSubscriptionsBelongToTheirSession: one session's unsubscribe cannot
// end another's subscription, and a session that ends without
// unsubscribing lets go of its watch.
func TestSubscriptionsBelongToTheirSession(t *testing.T) {
	w := &watchCounter{}
	srv, err := newServer(w, &Options{Safety: "readonly"})
	if err != nil {
		t.Fatal(err)
	}
	connect := func() *sdk.ClientSession {
		t.Helper()
		st, ct := sdk.NewInMemoryTransports()
		if _, err := srv.Connect(context.Background(), st, nil); err != nil {
			t.Fatal(err)
		}
		c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "0"}, nil)
		cs, err := c.Connect(context.Background(), ct, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	ctx := context.Background()
	uri := "tmux://panes/%1/content"
	a, b := connect(), connect()
	defer b.Close()
	if err := a.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	// A second subscribe of the same session holds nothing more.
	if err := a.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if err := b.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if got := w.count("%1"); got != 1 {
		t.Fatalf("after another session's unsubscribe: %d watches, want a's one", got)
	}
	if err := b.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if err := a.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if got := w.count("%1"); got != 1 {
		t.Fatalf("after a's one unsubscribe: %d watches, want b's one", got)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	// b goes away without unsubscribing: its watch ends with it.
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for srv.s.subs.watching() != 0 || w.count("%1") != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("after every session ended: %d URIs, %d watches; want none", srv.s.subs.watching(), w.count("%1"))
		}
		time.Sleep(time.Millisecond) // the SDK reports a session's end to no hook but Wait
	}
}

// TestOwnerInAuditAndCache: a server for an identity names it (its label,
// never a token) in the audit line, and every cacheable result is private.
func TestOwnerInAuditAndCache(t *testing.T) {
	var log bytes.Buffer
	srv, err := newServer(&watchCounter{}, &Options{Safety: "readonly", Owner: "ci-bot",
		Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	if _, err := srv.Connect(context.Background(), st, nil); err != nil {
		t.Fatal(err)
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "0"}, nil)
	cs, err := c.Connect(context.Background(), ct, &sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "list_sessions", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "client=ci-bot") {
		t.Errorf("audit log: got %q, want client=ci-bot", log.String())
	}
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.CacheScope != "private" {
		t.Errorf("tools/list cacheScope: got %q, want private", res.CacheScope)
	}
}

// TestOwnersShareOneBackend: two identities (two tokens over HTTP) on one
// Backend each own what they create. One cannot tear down the other's
// session, and under the owned scope it does not see it.
func TestOwnersShareOneBackend(t *testing.T) {
	env := newTmuxEnv(t, "2025-11-25", nil)
	alice := &tmuxEnv{fx: env.fx, backend: env.backend,
		cs: connect(t, env.backend, &Options{Owner: "alice", Scope: "owned"}, "2025-11-25")}
	bob := &tmuxEnv{fx: env.fx, backend: env.backend,
		cs: connect(t, env.backend, &Options{Owner: "bob", Scope: "owned"}, "2025-11-25")}
	var hers, his SessionInfo
	alice.ok(t, "create_session", map[string]any{"session_name": "hers"}, &hers)
	bob.ok(t, "create_session", map[string]any{"session_name": "his"}, &his)

	var list struct {
		Result []SessionInfo `json:"result"`
	}
	bob.ok(t, "list_sessions", map[string]any{}, &list)
	if len(list.Result) != 1 || list.Result[0].SessionID != his.SessionID {
		t.Fatalf("bob's list_sessions under owned: got %+v, want only his", list.Result)
	}
	wantCode(t, bob.fail(t, "teardown_session", map[string]any{"sessionId": hers.SessionID, "generation": hers.Generation}), CodeOwnershipRequired)
	wantCode(t, bob.fail(t, "get_session_info", map[string]any{"session_id": hers.SessionID}), CodeTargetDenied)
	// The process's own client (stdio) owns neither.
	wantCode(t, env.fail(t, "teardown_session", map[string]any{"sessionId": his.SessionID, "generation": his.Generation}), CodeOwnershipRequired)
	var done TeardownSessionResult
	alice.ok(t, "teardown_session", map[string]any{"sessionId": hers.SessionID, "generation": hers.Generation}, &done)
	if !done.Completed {
		t.Fatalf("alice's teardown of her session: got %+v", done)
	}
	if _, err := env.fx.TryTmux("has-session", "-t", his.SessionID); err != nil {
		t.Fatal("bob's session went with alice's teardown")
	}
}
