package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/tmux-mcp/tmux-mcp/internal/stdio"
	"github.com/tmux-mcp/tmux-mcp/mcp"
	"github.com/tmux-mcp/tmux-mcp/session"
)

const (
	// httpIdleDefault is --http-idle-timeout's default.
	httpIdleDefault = 30 * time.Minute
	// maxBodyBytes caps an HTTP request's body: the largest argument is
	// 1 MiB, which JSON escaping can make up to six times longer.
	maxBodyBytes = 8 << 20
	// mcpPath is where MCP is served; metadataPath the RFC 9728 metadata
	// that 401 answers point to.
	mcpPath      = "/mcp"
	metadataPath = "/.well-known/oauth-protected-resource/mcp"
	// callHeader carries, from the HTTP layer to the MCP handlers, the key
	// of the HTTP request a message came in (see httpCalls). A client's
	// own value is removed first.
	callHeader = "X-Tmux-Mcp-Request"
	// statelessVersion is the first protocol version without sessions.
	statelessVersion = "2026-07-28"
)

// checkHTTP checks the flags of --http: what goes with what, and that an
// address reachable from elsewhere has tokens and TLS.
func (c *config) checkHTTP() error {
	if c.httpAddr == "" {
		if c.authTokens != "" || c.noAuth || c.newToken || c.tlsCert != "" || c.tlsKey != "" {
			return fmt.Errorf("%w: --auth-tokens, --no-auth, --rotate-token, --tls-cert and --tls-key go with --http ADDR", errUsage)
		}
		return nil
	}
	if c.command != "" {
		return fmt.Errorf("%w: --http serves MCP; it does not go with %s", errUsage, c.command)
	}
	host, _, err := net.SplitHostPort(c.httpAddr)
	if err != nil {
		return fmt.Errorf("%w: --http %q: want HOST:PORT, e.g. 127.0.0.1:7777", errUsage, c.httpAddr)
	}
	loopback := isLoopback(host)
	switch {
	case c.newToken && (c.noAuth || c.authTokens != ""):
		return fmt.Errorf("%w: --rotate-token replaces the token tmux-mcp makes and keeps; it does not go with --auth-tokens or --no-auth", errUsage)
	case c.noAuth && c.authTokens != "":
		return fmt.Errorf("%w: --no-auth and --auth-tokens contradict each other", errUsage)
	case c.noAuth && !loopback:
		return fmt.Errorf("%w: --no-auth is for a loopback address only (127.0.0.1, [::1], localhost): on %s anyone who reaches it could drive your tmux", errUsage, c.httpAddr)
	case (c.tlsCert == "") != (c.tlsKey == ""):
		return fmt.Errorf("%w: --tls-cert and --tls-key go together", errUsage)
	case !loopback && (c.authTokens == "" || c.tlsCert == ""):
		return fmt.Errorf("%w: --http %s is not a loopback address, so other machines reach it: it needs --auth-tokens FILE (the tokens you hand out, each an identity) and --tls-cert/--tls-key (so that tokens and pane contents do not cross the network in clear text)", errUsage, c.httpAddr)
	}
	return nil
}

// isLoopback reports whether host names this machine only.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serveHTTP serves MCP over streamable HTTP at cfg.httpAddr until SIGTERM
// or SIGINT. Each token is an identity with its own MCP server (its tier's
// catalogue, its scope, its sessions) on the one backend, so every client
// shares one engine: one control client per tmux server. base is the
// server of the flags, used as is under --no-auth.
func serveHTTP(cfg *config, base *mcp.Server, backend *mcp.TmuxBackend, manager *session.Manager, stderr io.Writer, logger *slog.Logger) int {
	svc, code := newHTTPService(cfg, base, backend, stderr, logger)
	if svc == nil {
		return code
	}
	defer svc.ln.Close() // Serve closes it too; this covers the returns before.

	// A client gone must not kill the process with SIGPIPE (Go's default
	// for a write to fd 1 or 2) before the shutdown and --teardown-on-exit.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)
	got := serveUntilSignal(svc.hs, svc.ln, logger, "url", svc.url, "version", versionString(),
		"socket", cfg.socket.String(), "clients", len(svc.servers))
	if got == nil {
		return exitFailure
	}
	svc.shutdown(logger)
	if cfg.teardownOnExit {
		teardown(manager, logger)
	}
	if got == syscall.SIGINT {
		return exitInterrupt
	}
	return exitOK
}

// httpService is the HTTP face of the server, listening but not yet
// serving: serveHTTP serves it until a signal, tests in the process.
type httpService struct {
	hs      *http.Server
	ln      net.Listener
	url     string // where MCP is served
	servers map[string]*mcp.Server
	calls   *httpCalls
}

// newHTTPService reads the tokens, listens, and builds the server of each
// identity and the HTTP server. On failure it says why on stderr and
// returns nil and the exit status.
func newHTTPService(cfg *config, base *mcp.Server, backend *mcp.TmuxBackend, stderr io.Writer, logger *slog.Logger) (*httpService, int) {
	var (
		toks     []token
		scheme   = "http"
		tlsCerts []tls.Certificate
	)
	if cfg.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.tlsCert, cfg.tlsKey)
		if err != nil {
			fmt.Fprintf(stderr, "tmux-mcp: --tls-cert/--tls-key: %v\n", err)
			return nil, exitUsage
		}
		scheme, tlsCerts = "https", []tls.Certificate{cert}
	}
	if cfg.noAuth {
		logger.Warn("--no-auth: any program on this machine that reaches " + cfg.httpAddr + " drives tmux with no token; for local testing only")
	} else if cfg.authTokens != "" {
		var err error
		if toks, err = readTokens(cfg.authTokens); err != nil {
			fmt.Fprintf(stderr, "tmux-mcp: %v\n", err)
			return nil, exitUsage
		}
	}
	ln, err := net.Listen("tcp", cfg.httpAddr)
	if err != nil {
		fmt.Fprintf(stderr, "tmux-mcp: --http: %v\n", err)
		return nil, exitFailure
	}
	fail := func(code int, format string, args ...any) (*httpService, int) {
		_ = ln.Close() // Best effort: nothing was served.
		fmt.Fprintf(stderr, "tmux-mcp: "+format+"\n", args...)
		return nil, code
	}
	if !cfg.noAuth && cfg.authTokens == "" {
		secret, path, made, err := keptToken(cfg.tokenDir, ln.Addr().String(), cfg.newToken)
		if err != nil {
			return fail(exitFailure, "no --auth-tokens, and no token file to use: %v", err)
		}
		toks = []token{{hash: sha256.Sum256([]byte(secret)), name: "generated"}}
		did := "uses the bearer token kept in"
		if made {
			did = "made a bearer token and wrote it to"
		}
		fmt.Fprintf(stderr, "tmux-mcp: no --auth-tokens: %s %s (only you can read it; kept for the next start, --rotate-token replaces it).\n"+
			"  Clients send the header: Authorization: Bearer $(cat %s)\n", did, path, path)
	}
	servers, err := httpServers(cfg, base, backend, toks, logger)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}

	calls := newHTTPCalls()
	for _, srv := range servers {
		srv.AddReceivingMiddleware(calls.middleware)
	}
	// Deadlines and caps (http_guard.go): no client holds a connection
	// longer than it takes to send a request and read each write of its
	// answer; a request lasts as long as its call.
	lim := cfg.httpLimits
	guard := newConnGuard(lim, logger)
	hs := &http.Server{
		Handler:           lim.deadlines(httpHandler(cfg, servers, toks, calls, guard, scheme, logger)),
		ReadHeaderTimeout: lim.header,
		IdleTimeout:       lim.idle,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		ConnContext:       guard.connContext,
		ConnState:         guard.connState,
	}
	if tlsCerts != nil {
		hs.TLSConfig = &tls.Config{Certificates: tlsCerts, MinVersion: tls.VersionTLS12}
	}
	return &httpService{hs: hs, ln: ln, url: scheme + "://" + ln.Addr().String() + mcpPath, servers: servers, calls: calls}, exitOK
}

// serve serves on the listener until shutdown; with TLS when configured.
func (s *httpService) serve() error {
	if s.hs.TLSConfig != nil {
		return s.hs.ServeTLS(s.ln, "", "")
	}
	return s.hs.Serve(s.ln)
}

// serveUntilSignal serves hs on ln (with TLS when hs has a TLS config)
// until SIGTERM or SIGINT, and returns the signal; nil when the server
// failed first, which it logs. Once it is serving and the signals are
// caught, it logs that it serves, with the attributes attrs.
func serveUntilSignal(hs *http.Server, ln net.Listener, logger *slog.Logger, attrs ...any) os.Signal {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	defer signal.Stop(sigs)

	serveDone := make(chan error, 1)
	go func() {
		if hs.TLSConfig != nil {
			serveDone <- hs.ServeTLS(ln, "", "")
		} else {
			serveDone <- hs.Serve(ln)
		}
	}()
	logger.Info("serving MCP over streamable HTTP", attrs...)
	select {
	case got := <-sigs:
		signal.Stop(sigs)
		logger.Info("shutting down", "signal", got.String())
		return got
	case err := <-serveDone:
		logger.Error("HTTP server ended", "error", err)
		return nil
	}
}

// httpServers returns the MCP server of each identity, by token name:
// base alone, named "", under --no-auth.
func httpServers(cfg *config, base *mcp.Server, backend *mcp.TmuxBackend, toks []token, logger *slog.Logger) (map[string]*mcp.Server, error) {
	servers := map[string]*mcp.Server{}
	if cfg.noAuth {
		servers[""] = base
	}
	for _, t := range toks {
		srv, err := tokenServer(cfg, backend, t, logger)
		if err != nil {
			return nil, fmt.Errorf("token %s: %w", t.name, err)
		}
		servers[t.name] = srv
	}
	return servers, nil
}

// tokenServer is the MCP server of one token: the flags' options, with the
// token's identity, and its tier and scope when it names them.
func tokenServer(cfg *config, backend *mcp.TmuxBackend, t token, logger *slog.Logger) (*mcp.Server, error) {
	opts := serverOptions(cfg, logger)
	opts.Owner = t.name
	if t.safety != "" {
		// The token's tier decides its catalogue (through the one
		// selection, mcp.SelectTools, as every server's); the server's
		// toolsets and --tool are its choice for tokens that name no
		// tier, and its exclusions hold for every token.
		opts.Safety, opts.Toolsets, opts.Tools = t.safety, "", nil
	}
	if t.scope != "" {
		opts.Scope = t.scope
	}
	// A token reaches the default server, and others only by name: its
	// sockets=, else --sockets, else none (serverOptions).
	if t.sockets != nil {
		opts.Sockets = t.sockets
	}
	return mcp.NewServer(backend, opts)
}

// httpHandler routes requests: the MCP endpoint to the server of the
// request's token (both protocol eras), behind the bearer-token check and
// the same-origin check, and the protected-resource metadata.
func httpHandler(cfg *config, servers map[string]*mcp.Server, toks []token, calls *httpCalls, guard *connGuard, scheme string, logger *slog.Logger) http.Handler {
	getServer := func(r *http.Request) *sdk.Server {
		name := ""
		if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
			name = ti.UserID
		}
		if srv := servers[name]; srv != nil {
			return srv.Server
		}
		return nil
	}
	// Both protocol eras: 2025-11-25 and before keep an MCP session
	// (Mcp-Session-Id) across requests; 2026-07-28 requests stand alone.
	// The SDK serves each with a handler of its own.
	sessions := sdk.NewStreamableHTTPHandler(getServer, &sdk.StreamableHTTPOptions{
		// DNS-rebinding protection (a loopback listener refuses a
		// foreign Host) is the SDK's default; it stays on.
		SessionTimeout:      cfg.httpIdle,
		MaxRequestBodyBytes: maxBodyBytes,
	})
	stateless := sdk.NewStreamableHTTPHandler(getServer, &sdk.StreamableHTTPOptions{
		Stateless:                    true,
		MaxRequestBodyBytes:          maxBodyBytes,
		PropagateRequestCancellation: true,
	})
	// Sessions of 2025-11-25 and before may ask for tasks in params.task.
	legacy := legacyTasks(sessions)
	streamable := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Mcp-Session-Id") == "" && r.Header.Get("Mcp-Protocol-Version") >= statelessVersion {
			stateless.ServeHTTP(w, r)
			return
		}
		legacy.ServeHTTP(w, r)
	})
	// Admitted (a valid token, its body read in time), a request is
	// kept within its token's session cap, then counted in flight.
	h := admit(guard, newMCPSessions(cfg.httpLimits.maxSessions, servers, logger).handler(calls.track(streamable)))
	mux := http.NewServeMux()
	if cfg.noAuth {
		mux.Handle(mcpPath, sameOrigin(h))
		return mux
	}
	unknown := &rateLog{logger: logger, gap: cfg.httpLimits.logGap, msg: "refused a request with an unknown bearer token"}
	verify := func(_ context.Context, secret string, r *http.Request) (*auth.TokenInfo, error) {
		t, ok := lookup(toks, secret)
		if !ok {
			unknown.note("remote", r.RemoteAddr)
			return nil, fmt.Errorf("%w: unknown token", auth.ErrInvalidToken)
		}
		return &auth.TokenInfo{UserID: t.name}, nil
	}
	// The URLs a client is pointed at name the server as the client
	// reached it (the name its certificate is for), not the address
	// it listens on, which may be 0.0.0.0.
	mux.Handle(mcpPath, sameOrigin(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{
			ResourceMetadataURL:    scheme + "://" + r.Host + metadataPath,
			AllowMissingExpiration: true, // our tokens live as long as the file says
		})(h).ServeHTTP(w, r)
	})))
	mux.Handle(metadataPath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource:               scheme + "://" + r.Host + mcpPath,
			BearerMethodsSupported: []string{"header"},
			ResourceName:           "tmux-mcp",
		}).ServeHTTP(w, r)
	}))
	return mux
}

// shutdown ends the server: as over stdio, the calls in flight are
// cancelled and answered (cancelled); once every request has its answer,
// every MCP session closes, which ends the streams that keep connections
// open, and the listener closes.
func (s *httpService) shutdown(logger *slog.Logger) {
	hs, calls := s.hs, s.calls
	calls.cancelAll()
	calls.wait(stdio.DrainTime, logger)
	for _, srv := range s.servers {
		srv.CloseTasks() // calls still running as tasks end with the rest
		for ss := range srv.Sessions() {
			_ = ss.Close() // Best effort: the process is ending.
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), exitWait)
	defer cancel()
	if err := hs.Shutdown(ctx); err != nil {
		logger.Warn("HTTP connections still open at exit; closing them", "error", err)
		_ = hs.Close() // Best effort.
	}
}

// sameOrigin refuses a request whose Origin is not the server itself (a
// web page's script calling a local server), whatever its method, then
// applies net/http's cross-origin protection (Sec-Fetch-Site).
func sameOrigin(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "Forbidden: cross-origin request", http.StatusForbidden)
	}))
	protected := cop.Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" {
			u, err := url.Parse(o)
			if err != nil || u.Host != r.Host {
				http.Error(w, "Forbidden: cross-origin request from "+o, http.StatusForbidden)
				return
			}
		}
		protected.ServeHTTP(w, r)
	})
}

// httpCalls ties each MCP request to the HTTP request that carried it, so
// that a client that goes away mid-call cancels its call (the SDK ends a
// call's context with the HTTP request's only for 2026-07-28 stateless
// requests), and counts the calls in flight for shutdown.
type httpCalls struct {
	stop      context.Context // cancelled to cancel every call
	cancelAll context.CancelFunc

	mu       sync.Mutex
	requests map[string]context.Context // callHeader value -> the HTTP request's context
	inflight int
	idle     chan struct{} // closed, and replaced, when inflight drops to 0
}

func newHTTPCalls() *httpCalls {
	stop, cancel := context.WithCancel(context.Background())
	return &httpCalls{stop: stop, cancelAll: cancel, requests: map[string]context.Context{}, idle: make(chan struct{})}
}

// track gives each POST a key in callHeader, mapped to its context until
// it is answered, and counts it in flight until then: a POST ends once its
// answer is written.
func (c *httpCalls) track(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del(callHeader)
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		key := randomKey()
		c.mu.Lock()
		c.requests[key] = r.Context()
		c.mu.Unlock()
		c.add(1)
		defer func() {
			c.mu.Lock()
			delete(c.requests, key)
			c.mu.Unlock()
			c.add(-1)
		}()
		r.Header.Set(callHeader, key)
		next.ServeHTTP(w, r)
	})
}

// middleware cancels a request's handler when its HTTP request ends first
// (the client disconnected) or at shutdown.
func (c *httpCalls) middleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(c.stop, cancel)()
		if extra := req.GetExtra(); extra != nil && extra.Header != nil {
			c.mu.Lock()
			httpCtx := c.requests[extra.Header.Get(callHeader)]
			c.mu.Unlock()
			if httpCtx != nil {
				defer context.AfterFunc(httpCtx, cancel)()
			}
		}
		return next(ctx, method, req)
	}
}

func (c *httpCalls) add(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inflight += n
	if c.inflight == 0 {
		close(c.idle)
		c.idle = make(chan struct{})
	}
}

func (c *httpCalls) idleCh() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inflight == 0 {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	return c.idle
}

// wait waits up to d for every request in flight to be answered.
func (c *httpCalls) wait(d time.Duration, logger *slog.Logger) {
	select {
	case <-c.idleCh():
	case <-time.After(d):
		logger.Warn("giving up on unanswered calls")
	}
}

// randomKey returns a key no client can guess.
func randomKey() string { return rand.Text() }
