package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/mcp"
)

// mcpSessions keeps each token's MCP sessions (2025-11-25 and before)
// within maxSessions, and gives a request that names its session but not
// its protocol version the version that session negotiated.
//
// A new session beyond the cap closes the token's least recently used
// session that has no request open; only when every one has (each client
// is attached, by a call or its stream) is the new one refused, with 429
// and a JSON-RPC error saying why. Closing rather than refusing, because a
// client that crashed never closes its session: refusing would lock its
// token out until the idle timeout (30 minutes by default), while closing
// the idle one costs a live client at most a new initialize (its next
// request gets 404, which tells it to). Only a token's own sessions are
// ever closed for it.
type mcpSessions struct {
	max     int
	servers map[string]*mcp.Server // by token name
	logger  *slog.Logger

	mu    sync.Mutex
	uses  map[string]*sessionUse // by MCP session id
	opens map[string]*sync.Mutex // by token name: one new session at a time
}

// sessionUse is what mcpSessions knows of one session.
type sessionUse struct {
	owner string
	open  int // requests in flight
	last  time.Time
}

func newMCPSessions(max int, servers map[string]*mcp.Server, logger *slog.Logger) *mcpSessions {
	m := &mcpSessions{max: max, servers: servers, logger: logger, uses: map[string]*sessionUse{}, opens: map[string]*sync.Mutex{}}
	for name := range servers {
		m.opens[name] = &sync.Mutex{}
	}
	return m
}

// tokenOf is the name of the request's token; "" under --no-auth.
func tokenOf(r *http.Request) string {
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
		return ti.UserID
	}
	return ""
}

// session returns the token's MCP session id, or nil.
func (m *mcpSessions) session(owner, id string) *sdk.ServerSession {
	srv := m.servers[owner]
	if srv == nil {
		return nil
	}
	for ss := range srv.Sessions() {
		if ss.ID() == id {
			return ss
		}
	}
	return nil
}

// negotiated is the version a session agreed on: the client's when
// supported, else the newest of the sessions' era (as the SDK chooses).
func negotiated(ss *sdk.ServerSession) string {
	p := ss.InitializeParams()
	if p == nil {
		return ""
	}
	supported := sdk.SupportedProtocolVersions()
	if slices.Contains(supported, p.ProtocolVersion) && p.ProtocolVersion < statelessVersion {
		return p.ProtocolVersion
	}
	for _, v := range supported {
		if v < statelessVersion {
			return v
		}
	}
	return ""
}

func (m *mcpSessions) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		owner, id := tokenOf(r), r.Header.Get("Mcp-Session-Id")
		switch {
		case id != "":
			if ss := m.session(owner, id); ss != nil {
				// The spec (2025-06-18, "Protocol Version Header"): a server
				// that knows the version otherwise, from the session's
				// initialization, uses it when the header is missing, and
				// assumes 2025-03-26 only when it does not. So a batch on a
				// session of 2025-06-18 or later is refused without the
				// header as with it.
				if r.Header.Get("Mcp-Protocol-Version") == "" {
					if v := negotiated(ss); v != "" {
						r.Header.Set("Mcp-Protocol-Version", v)
					}
				}
				defer m.using(owner, id)()
			}
		case r.Method == http.MethodPost && r.Header.Get("Mcp-Protocol-Version") < statelessVersion && isInitialize(bodyOf(r)):
			m.open(w, r, owner, next)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// using counts a request open on session id until the returned func runs.
func (m *mcpSessions) using(owner, id string) func() {
	m.mu.Lock()
	u := m.uses[id]
	if u == nil || u.owner != owner {
		m.mu.Unlock()
		return func() {}
	}
	u.open++
	m.mu.Unlock()
	return func() {
		m.mu.Lock()
		u.open--
		u.last = time.Now()
		m.mu.Unlock()
	}
}

// open serves an initialize that makes a new session for owner, making
// room for it first.
func (m *mcpSessions) open(w http.ResponseWriter, r *http.Request, owner string, next http.Handler) {
	lock := m.opens[owner]
	if lock == nil {
		next.ServeHTTP(w, r) // no server: the SDK answers
		return
	}
	lock.Lock()
	defer lock.Unlock()
	if !m.makeRoom(owner) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		msg := fmt.Sprintf("this token has %d MCP sessions, each with a request open (the cap, --http-max-sessions); end one (DELETE with its Mcp-Session-Id) or try again when one is idle", m.max)
		// Best effort: the client may be gone.
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": initializeID(bodyOf(r)),
			"error": map[string]any{"code": -32000, "message": msg}})
		return
	}
	next.ServeHTTP(w, r)
	if id := w.Header().Get("Mcp-Session-Id"); id != "" && m.session(owner, id) != nil {
		m.mu.Lock()
		m.uses[id] = &sessionUse{owner: owner, last: time.Now()}
		m.mu.Unlock()
	}
}

// makeRoom reports whether owner may have one more session, closing its
// least recently used idle session if it must.
func (m *mcpSessions) makeRoom(owner string) bool {
	var live []*sdk.ServerSession
	for ss := range m.servers[owner].Sessions() {
		if ss.ID() != "" {
			live = append(live, ss)
		}
	}
	m.mu.Lock()
	// Forget the sessions that ended (closed, timed out) since.
	for id, u := range m.uses {
		if u.owner == owner && !slices.ContainsFunc(live, func(ss *sdk.ServerSession) bool { return ss.ID() == id }) {
			delete(m.uses, id)
		}
	}
	if len(live) < m.max {
		m.mu.Unlock()
		return true
	}
	var victim *sdk.ServerSession
	var last time.Time
	for _, ss := range live {
		if u := m.uses[ss.ID()]; u != nil && u.open == 0 && (victim == nil || u.last.Before(last)) {
			victim, last = ss, u.last
		}
	}
	if victim != nil {
		delete(m.uses, victim.ID())
	}
	m.mu.Unlock()
	if victim == nil {
		m.logger.Warn("refused a new MCP session: every session of this token has a request open", "client", owner, "max", m.max)
		return false
	}
	_ = victim.Close() // Best effort: it is gone either way.
	m.logger.Warn("closed the least recently used idle MCP session to make room for a new one", "client", owner, "max", m.max,
		"session_id", victim.ID(), "idle_for", time.Since(last).Round(time.Second).String())
	return true
}

// rpcMessage is the part of a JSON-RPC message these checks read.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// messagesOf decodes a body: one message or a batch.
func messagesOf(body []byte) []rpcMessage {
	var one rpcMessage
	if json.Unmarshal(body, &one) == nil {
		return []rpcMessage{one}
	}
	var batch []rpcMessage
	_ = json.Unmarshal(body, &batch) // Malformed: the SDK answers it.
	return batch
}

// isInitialize reports whether body holds an initialize request.
func isInitialize(body []byte) bool {
	return initializeID(body) != nil
}

// initializeID is the id of body's initialize request, or nil.
func initializeID(body []byte) json.RawMessage {
	for _, msg := range messagesOf(body) {
		if msg.Method == "initialize" && msg.ID != nil {
			return msg.ID
		}
	}
	return nil
}
