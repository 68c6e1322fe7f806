package main

// What keeps the HTTP server from being held: deadlines per request, a cap
// on connections (a smaller one on those that have not shown a valid
// token), a refusal that closes its connection without reading the body,
// and a log that a flood of bad tokens cannot flood.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// httpLimits are what one client may hold of the server.
type httpLimits struct {
	header time.Duration // the request line and headers must arrive within it
	body   time.Duration // the body must arrive within it of the headers
	write  time.Duration // each write of an answer must complete within it
	idle   time.Duration // a keep-alive connection with no request is closed after it
	logGap time.Duration // at most one line a gap about refused tokens or connections

	maxConns    int // connections at once
	maxUnauth   int // of which not yet shown a valid token
	maxSessions int // MCP sessions of one token at once
}

// The limits' defaults. A wait's or a stream's length is not bounded here:
// a request lasts as long as its call, whose timeout is its own; what is
// bounded is the time a client takes to send it and to read each write.
const (
	httpHeaderDefault   = 10 * time.Second
	httpBodyDefault     = 30 * time.Second
	httpWriteDefault    = 30 * time.Second
	httpIdleConnDefault = 60 * time.Second
	httpLogGapDefault   = 10 * time.Second
	maxSessionsDefault  = 100
	maxConnsCeiling     = 1024
)

// envHTTPTimeouts is a test aid, deliberately not in --help: short
// deadlines, as key=seconds pairs separated by commas (header, body,
// write, idle, log), so that tests of stalled clients take a second.
const envHTTPTimeouts = "TMUX_MCP_HTTP_TIMEOUTS"

// defaultHTTPLimits are the limits without flags: connections up to half
// the descriptors this process may open (the rest are tmux's, the logs'),
// at most maxConnsCeiling.
func defaultHTTPLimits() httpLimits {
	return httpLimits{
		header: httpHeaderDefault, body: httpBodyDefault, write: httpWriteDefault,
		idle: httpIdleConnDefault, logGap: httpLogGapDefault,
		maxConns: defaultMaxConns(), maxSessions: maxSessionsDefault,
	}
}

func defaultMaxConns() int {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return maxConnsCeiling
	}
	cur := uint64(rl.Cur) // int64 on FreeBSD
	return int(max(min(cur/2, maxConnsCeiling), 8))
}

// unauthCap is the share of the connections that may not have shown a
// valid token yet: a quarter, so that they can never take the others'.
func unauthCap(maxConns int) int { return max(maxConns/4, 1) }

// parseHTTPTimeouts reads envHTTPTimeouts into l.
func parseHTTPTimeouts(v string, l *httpLimits) error {
	for _, kv := range splitList(v, ",") {
		k, s, _ := strings.Cut(kv, "=")
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f <= 0 {
			return fmt.Errorf("%w: %s=%q: %q is not a number of seconds > 0", errUsage, envHTTPTimeouts, v, s)
		}
		d := time.Duration(f * float64(time.Second))
		switch k {
		case "header":
			l.header = d
		case "body":
			l.body = d
		case "write":
			l.write = d
		case "idle":
			l.idle = d
		case "log":
			l.logGap = d
		default:
			return fmt.Errorf("%w: %s=%q: unknown key %q", errUsage, envHTTPTimeouts, v, k)
		}
	}
	return nil
}

// rateLog writes a warning at most once a gap, with how many it left out
// since the last one: a flood of refused requests is one line a gap.
type rateLog struct {
	logger *slog.Logger
	gap    time.Duration
	msg    string

	mu      sync.Mutex
	last    time.Time
	skipped int
}

func (r *rateLog) note(attrs ...any) {
	r.mu.Lock()
	now := time.Now()
	if !r.last.IsZero() && now.Sub(r.last) < r.gap {
		r.skipped++
		r.mu.Unlock()
		return
	}
	skipped := r.skipped
	r.last, r.skipped = now, 0
	r.mu.Unlock()
	if skipped > 0 {
		attrs = append(attrs, "more_since_last_line", skipped)
	}
	r.logger.Warn(r.msg, attrs...)
}

// connGuard caps the connections. A new connection beyond a cap takes the
// place of the oldest connection that has not shown a valid token (a
// stalled client's, most likely), else of the oldest idle keep-alive;
// when every connection carries a request of a valid token, the new one
// is closed at once. Taking the oldest place, rather than refusing the
// newcomer, means a flood of silent connections cannot lock a valid client
// out: it would have to fill every place faster than a client sends its
// headers.
type connGuard struct {
	max, maxUnauth int
	log            *rateLog

	mu     sync.Mutex
	conns  map[net.Conn]*guardedConn
	unauth int    // conns not yet authenticated
	seq    uint64 // arrival order
}

type guardedConn struct {
	seq    uint64
	authed bool // a request with a valid token came on it
	idle   bool // between requests
}

// connKey is the context key of a request's connection.
type connKey struct{}

func newConnGuard(l httpLimits, logger *slog.Logger) *connGuard {
	return &connGuard{max: l.maxConns, maxUnauth: l.maxUnauth, conns: map[net.Conn]*guardedConn{},
		log: &rateLog{logger: logger, gap: l.logGap, msg: "HTTP connection cap reached: closed a connection"}}
}

// connContext gives a request's context its connection (http.Server.ConnContext).
func (g *connGuard) connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// connState follows each connection (http.Server.ConnState).
func (g *connGuard) connState(c net.Conn, st http.ConnState) {
	switch st {
	case http.StateNew:
		g.admit(c)
	case http.StateActive, http.StateIdle:
		g.mu.Lock()
		if e := g.conns[c]; e != nil {
			e.idle = st == http.StateIdle
		}
		g.mu.Unlock()
	case http.StateClosed, http.StateHijacked:
		g.mu.Lock()
		g.dropLocked(c)
		g.mu.Unlock()
	}
}

// admit makes room for c, or closes it when there is none.
func (g *connGuard) admit(c net.Conn) {
	g.mu.Lock()
	var victim net.Conn
	var why string
	switch {
	case g.unauth >= g.maxUnauth:
		victim, why = g.oldestLocked(func(e *guardedConn) bool { return !e.authed }), "too many connections without a valid token"
	case len(g.conns) >= g.max:
		victim, why = g.oldestLocked(func(e *guardedConn) bool { return !e.authed }), "too many connections"
		if victim == nil {
			victim = g.oldestLocked(func(e *guardedConn) bool { return e.idle })
		}
		if victim == nil {
			g.mu.Unlock()
			_ = c.Close() // Best effort: refused.
			g.log.note("reason", "every connection carries a request", "max", g.max, "closed", "the new one", "remote", c.RemoteAddr().String())
			return
		}
	}
	if victim != nil {
		g.dropLocked(victim)
	}
	g.seq++
	g.conns[c] = &guardedConn{seq: g.seq}
	g.unauth++
	g.mu.Unlock()
	if victim != nil {
		_ = victim.Close() // Best effort: its server goroutine ends on the error.
		g.log.note("reason", why, "max", g.max, "max_without_token", g.maxUnauth, "closed", "the oldest", "remote", victim.RemoteAddr().String())
	}
}

func (g *connGuard) oldestLocked(ok func(*guardedConn) bool) net.Conn {
	var best net.Conn
	var seq uint64
	for c, e := range g.conns {
		if ok(e) && (best == nil || e.seq < seq) {
			best, seq = c, e.seq
		}
	}
	return best
}

func (g *connGuard) dropLocked(c net.Conn) {
	if e := g.conns[c]; e != nil {
		if !e.authed {
			g.unauth--
		}
		delete(g.conns, c)
	}
}

// authenticated marks the connection of ctx as one that showed a valid
// token: it no longer counts against the cap of those without.
func (g *connGuard) authenticated(ctx context.Context) {
	c, _ := ctx.Value(connKey{}).(net.Conn)
	g.mu.Lock()
	defer g.mu.Unlock()
	if e := g.conns[c]; e != nil && !e.authed {
		e.authed = true
		g.unauth--
	}
}

// deadlines applies the per-request deadlines to every request: the body
// must arrive within l.body of the headers, and until the request is
// admitted (admit) a refusal (an answer of 400 or more: no token, a wrong
// one, a foreign origin) closes the connection without reading the body,
// so that a client that declared a body and never sends it gets its
// answer at once and holds nothing.
func (l httpLimits) deadlines(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		now := time.Now()
		// Best effort: both HTTP/1 and HTTP/2 (per stream) support them.
		_ = rc.SetReadDeadline(now.Add(l.body))
		_ = rc.SetWriteDeadline(now.Add(l.write))
		gw := &guardWriter{ResponseWriter: w, rc: rc, write: l.write}
		defer func() {
			// The server writes the end of the answer after the handler
			// returns: give it its own deadline.
			_ = rc.SetWriteDeadline(time.Now().Add(l.write)) // Best effort.
		}()
		next.ServeHTTP(gw, r)
	})
}

// guardWriter is the ResponseWriter of a request under deadlines: before
// the request is admitted a refusal closes the connection; once it is, each
// write gets the write deadline anew, so that a long wait or a stream
// writes as long as its client reads.
type guardWriter struct {
	http.ResponseWriter
	rc       *http.ResponseController // of the ResponseWriter underneath
	write    time.Duration
	admitted bool // set by admit, before the MCP handlers run
}

func (w *guardWriter) WriteHeader(code int) {
	if !w.admitted && code >= http.StatusBadRequest {
		w.Header().Set("Connection", "close")
		_ = w.rc.SetReadDeadline(time.Now()) // Best effort: the body is not read.
	}
	w.extend()
	w.ResponseWriter.WriteHeader(code)
}

func (w *guardWriter) Write(p []byte) (int, error) {
	w.extend()
	return w.ResponseWriter.Write(p)
}

// FlushError is what http.ResponseController calls to flush.
func (w *guardWriter) FlushError() error {
	w.extend()
	return w.rc.Flush()
}

func (w *guardWriter) Flush() { _ = w.FlushError() }

func (w *guardWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *guardWriter) extend() {
	if w.admitted {
		_ = w.rc.SetWriteDeadline(time.Now().Add(w.write)) // Best effort.
	}
}

// bodyKey is the context key of an admitted request's body, read whole.
type bodyKey struct{}

// bodyOf returns the body admit read, or nil.
func bodyOf(r *http.Request) []byte {
	b, _ := r.Context().Value(bodyKey{}).([]byte)
	return b
}

// admit lets a request with a valid token (or any request under
// --no-auth) through: its connection counts as authenticated, its body is
// read whole within the body deadline (413 past maxBodyBytes, 408 past the
// deadline, each closing the connection), and then the read deadline is
// lifted: from here a request lasts as long as its call, and each write
// has its own deadline. (net/http lifts it too when, the body read, it
// starts watching for the client going away; this says so for HTTP/2's
// streams as well.)
func admit(g *connGuard, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if g != nil {
			g.authenticated(r.Context())
		}
		gw, _ := w.(*guardWriter)
		var body []byte
		if r.Body != nil && r.Body != http.NoBody {
			var err error
			body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
			if err != nil {
				var mbe *http.MaxBytesError
				var ne net.Error
				code, msg := http.StatusBadRequest, "failed to read body"
				switch {
				case errors.As(err, &mbe):
					code, msg = http.StatusRequestEntityTooLarge, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit)
				case errors.As(err, &ne) && ne.Timeout():
					code, msg = http.StatusRequestTimeout, "the request body did not arrive in time"
				}
				w.Header().Set("Connection", "close")
				http.Error(w, msg, code)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		if gw != nil {
			_ = gw.rc.SetReadDeadline(time.Time{}) // Best effort.
			gw.admitted = true
			gw.extend()
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), bodyKey{}, body)))
	})
}
