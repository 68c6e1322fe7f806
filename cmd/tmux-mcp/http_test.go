package main

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// httpServer is a tmux-mcp started with --http on a loopback port.
type httpServer struct {
	cmd    *exec.Cmd
	url    string // http://127.0.0.1:PORT/mcp
	stderr *syncBuffer
	exited chan struct{} // closed when the process has been waited for
	err    error         // its exit, once exited
}

// tokenFile writes a token file of mode 0600 and returns its path.
func tokenFile(t testing.TB, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Tokens of the tests' token files.
const (
	tokRO    = "readonly-token-0123456789"
	tokAlice = "alice-token-0123456789abc"
	tokBob   = "bob-token-0123456789abcde"
)

// startHTTP starts tmux-mcp --http 127.0.0.1:0 with args on fx's server
// and waits until it says where it listens. It is stopped with SIGTERM at
// cleanup unless the test stopped it.
func startHTTP(t testing.TB, fx *fixtures.Server, args ...string) *httpServer {
	t.Helper()
	return startHTTPEnv(t, fx, childEnv(fx, "XDG_STATE_HOME="+t.TempDir()), args...)
}

// startHTTPEnv is startHTTP with the environment given (where a made
// token is kept: XDG_STATE_HOME, HOME).
func startHTTPEnv(t testing.TB, fx *fixtures.Server, env []string, args ...string) *httpServer {
	t.Helper()
	args = append([]string{"--http", "127.0.0.1:0", "--socket", fx.Socket}, args...)
	cmd := exec.Command(binary(t), args...)
	cmd.Env = env
	cmd.Dir = fxDir(fx)
	pr, pw := io.Pipe()
	s := &httpServer{cmd: cmd, stderr: &syncBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(s.stderr, line)
			if m := regexp.MustCompile(`url=(\S+)`).FindStringSubmatch(line); m != nil {
				select {
				case url <- m[1]:
				default:
				}
			}
		}
	}()
	go func() {
		s.err = cmd.Wait()
		pw.Close()
		close(s.exited)
	}()
	t.Cleanup(func() { s.stop(t) })
	select {
	case s.url = <-url:
	case <-s.exited:
		t.Fatalf("tmux-mcp %v exited before serving: %v\n%s", args, s.err, s.stderr)
	case <-time.After(30 * time.Second):
		t.Fatalf("tmux-mcp %v did not serve within 30 s:\n%s", args, s.stderr)
	}
	return s
}

// stop sends SIGTERM and returns how the process ended.
func (s *httpServer) stop(t testing.TB) error {
	t.Helper()
	select {
	case <-s.exited:
		return s.err
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM) // it may have just exited
	select {
	case <-s.exited:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
		t.Errorf("tmux-mcp did not exit within 20 s of SIGTERM:\n%s", s.stderr)
	}
	return s.err
}

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// connectHTTP connects the Go SDK's streamable HTTP client with token.
func (s *httpServer) connect(t testing.TB, token, version string) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hc := &http.Client{Transport: bearer{token, http.DefaultTransport}}
	mc := sdk.NewClient(&sdk.Implementation{Name: "tmux-mcp-test", Version: "0"}, nil)
	cs, err := mc.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.url, HTTPClient: hc}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting to %s: %v\nstderr:\n%s", s.url, err, s.stderr)
	}
	c := &client{cs: cs, stderr: s.stderr}
	t.Cleanup(func() {
		if !c.closed {
			_ = c.cs.Close()
		}
	})
	return c
}

// post sends one raw JSON-RPC message and returns the response.
func (s *httpServer) post(t testing.TB, header map[string]string, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// TestHTTPAuth: every request needs a known token, each token is an
// identity with its own tier and its own sessions, and a token file others
// can read is refused.
func TestHTTPAuth(t *testing.T) {
	fx := fixtures.NewServer(t)
	file := tokenFile(t,
		"# the tests' tokens",
		tokRO+" safety=readonly name=viewer",
		tokAlice+" name=alice",
		tokBob+" scope=owned-write name=bob")
	s := startHTTP(t, fx, "--auth-tokens", file)

	t.Run("none", func(t *testing.T) {
		resp, body := s.post(t, nil, initBody)
		wa := resp.Header.Get("WWW-Authenticate")
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(wa, "resource_metadata=") {
			t.Fatalf("no token: got %d, WWW-Authenticate %q, %q; want 401 with resource_metadata", resp.StatusCode, wa, body)
		}
		meta := regexp.MustCompile(`resource_metadata="([^"]+)"`).FindStringSubmatch(wa)[1]
		r, err := http.Get(meta)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		var m struct {
			Resource string `json:"resource"`
		}
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil || m.Resource != s.url {
			t.Fatalf("protected resource metadata: got %+v %v, want resource %s", m, err, s.url)
		}
	})
	t.Run("wrong", func(t *testing.T) {
		resp, body := s.post(t, map[string]string{"Authorization": "Bearer " + tokAlice + "x"}, initBody)
		if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" {
			t.Fatalf("wrong token: got %d %q, want 401 with WWW-Authenticate", resp.StatusCode, body)
		}
	})
	t.Run("readonly", func(t *testing.T) {
		c := s.connect(t, tokRO, "")
		tools, err := c.cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools.Tools {
			if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
				t.Errorf("the readonly token lists %s, which is not read-only", tool.Name)
			}
		}
		if e := c.fail(t, "create_session", map[string]any{}); e.Code != "tool_denied" {
			t.Fatalf("create_session with the readonly token: got %+v, want tool_denied", e)
		}
	})
	t.Run("another token's session", func(t *testing.T) {
		alice, bob := s.connect(t, tokAlice, "2025-11-25"), s.connect(t, tokBob, "2025-11-25")
		var hers struct {
			SessionID  string `json:"session_id"`
			Generation string `json:"generation"`
		}
		alice.ok(t, "create_session", map[string]any{"session_name": "hers"}, &hers)
		if e := bob.fail(t, "teardown_session", map[string]any{"sessionId": hers.SessionID, "generation": hers.Generation}); e.Code != "ownership_required" || e.Effects != "none" {
			t.Fatalf("bob tears down alice's session: got %+v, want ownership_required, effects none", e)
		}
		// Under owned-write bob may not change it either.
		if e := bob.fail(t, "rename_session", map[string]any{"session_id": hers.SessionID, "new_name": "bobs"}); e.Code != "target_denied" {
			t.Fatalf("bob renames alice's session: got %+v, want target_denied", e)
		}
		// Nor may bob's token ride alice's MCP session.
		resp, body := s.post(t, map[string]string{"Authorization": "Bearer " + tokBob, "Mcp-Session-Id": alice.cs.ID(), "Mcp-Protocol-Version": "2025-11-25"},
			`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("bob's token on alice's Mcp-Session-Id: got %d %q, want 403", resp.StatusCode, body)
		}
		var done struct {
			Completed bool `json:"completed"`
		}
		alice.ok(t, "teardown_session", map[string]any{"sessionId": hers.SessionID, "generation": hers.Generation}, &done)
		if !done.Completed {
			t.Fatal("alice could not tear down her own session")
		}
		if !strings.Contains(s.stderr.String(), "client=alice") || strings.Contains(s.stderr.String(), tokAlice) {
			t.Fatal("the audit log does not name alice, or shows her token")
		}
	})
	t.Run("2026-07-28", func(t *testing.T) {
		// Sessionless requests: the same identities, the same ownership.
		alice, bob := s.connect(t, tokAlice, "2026-07-28"), s.connect(t, tokBob, "2026-07-28")
		if v := alice.cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
			t.Fatalf("negotiated %s, want 2026-07-28", v)
		}
		var hers struct {
			SessionID  string `json:"session_id"`
			Generation string `json:"generation"`
		}
		alice.ok(t, "create_session", map[string]any{"session_name": "hers26"}, &hers)
		if e := bob.fail(t, "teardown_session", map[string]any{"sessionId": hers.SessionID, "generation": hers.Generation}); e.Code != "ownership_required" {
			t.Fatalf("bob tears down alice's session: got %+v, want ownership_required", e)
		}
		alice.ok(t, "teardown_session", map[string]any{"sessionId": hers.SessionID, "generation": hers.Generation}, nil)
		ro := s.connect(t, tokRO, "2026-07-28")
		if e := ro.fail(t, "create_session", map[string]any{}); e.Code != "tool_denied" {
			t.Fatalf("create_session with the readonly token: got %+v, want tool_denied", e)
		}
	})
	t.Run("token file others can read", func(t *testing.T) {
		open := tokenFile(t, tokAlice)
		if err := os.Chmod(open, 0o644); err != nil {
			t.Fatal(err)
		}
		_, stderr, code := runCmd(t, childEnv(fx), "--http", "127.0.0.1:0", "--auth-tokens", open)
		if code != exitUsage || !strings.Contains(stderr, "chmod 600") || strings.Contains(stderr, tokAlice) {
			t.Fatalf("a token file of mode 0644: got exit %d, %q; want 2 and chmod 600, without the token", code, stderr)
		}
	})
}

// TestHTTPRefusals: what --http refuses before it serves, and what it
// refuses on the web: a foreign Host (DNS rebinding), a cross-origin
// request, an oversized body.
func TestHTTPRefusals(t *testing.T) {
	fx := fixtures.NewServer(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--http", "0.0.0.0:0"}, "not a loopback address"},
		{[]string{"--http", "0.0.0.0:0", "--auth-tokens", "x"}, "--tls-cert"},
		{[]string{"--http", "0.0.0.0:0", "--no-auth"}, "loopback address only"},
		{[]string{"--http", "127.0.0.1:0", "--no-auth", "--auth-tokens", "x"}, "contradict"},
		{[]string{"--http", "127.0.0.1:0", "--tls-cert", "x"}, "go together"},
		{[]string{"--auth-tokens", "x"}, "go with --http"},
		{[]string{"--rotate-token"}, "go with --http"},
		{[]string{"--http", "127.0.0.1:0", "--rotate-token", "--no-auth"}, "does not go with"},
		{[]string{"--http", "127.0.0.1:0", "--rotate-token", "--auth-tokens", "x"}, "does not go with"},
		{[]string{"--http", "127.0.0.1:0", "--auth-tokens", tokenFile(t, "short")}, "at least 16"},
		{[]string{"--http", "127.0.0.1:0", "--auth-tokens", tokenFile(t, tokAlice+" safety=all")}, "safety="},
		{[]string{"--http", "127.0.0.1:0", "--auth-tokens", tokenFile(t, tokAlice+" name=a", tokBob+" name=a")}, "own label"},
	} {
		_, stderr, code := runCmd(t, childEnv(fx), tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: got exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}

	s := startHTTP(t, fx, "--auth-tokens", tokenFile(t, tokAlice))
	auth := map[string]string{"Authorization": "Bearer " + tokAlice}
	with := func(k, v string) map[string]string {
		h := map[string]string{k: v}
		for k, v := range auth {
			h[k] = v
		}
		return h
	}
	if resp, body := s.post(t, auth, initBody); resp.StatusCode != http.StatusOK {
		t.Fatalf("a good request: got %d %q", resp.StatusCode, body)
	}
	for name, h := range map[string]map[string]string{
		"foreign Host": with("Host", "evil.example:80"),
		"cross origin": with("Origin", "http://evil.example"),
		"cross site":   with("Sec-Fetch-Site", "cross-site"),
	} {
		if resp, body := s.post(t, h, initBody); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: got %d %q, want 403", name, resp.StatusCode, body)
		}
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", maxBodyBytes) + `"}}`
	if resp, body := s.post(t, auth, big); resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over %d bytes: got %d %.200q, want 413", maxBodyBytes, resp.StatusCode, body)
	}
}

// TestHTTPMadeToken: without --auth-tokens a token is made, written to a
// file only this user can read, named on stderr, and it works; a restart on
// the same address uses it again, and --rotate-token replaces it.
func TestHTTPMadeToken(t *testing.T) {
	fx := fixtures.NewServer(t)
	state := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String() // the same address on every start
	ln.Close()
	start := func(args ...string) (*httpServer, string) {
		t.Helper()
		s := startHTTPEnv(t, fx, childEnv(fx, "XDG_STATE_HOME="+state), append([]string{"--http", addr}, args...)...)
		m := regexp.MustCompile(`(?:wrote it to|kept in) (\S+) `).FindStringSubmatch(s.stderr.String())
		if m == nil {
			t.Fatalf("stderr names no token file:\n%s", s.stderr)
		}
		if want := filepath.Join(state, "tmux-mcp"); filepath.Dir(m[1]) != want {
			t.Fatalf("token file %s, want it in %s", m[1], want)
		}
		fi, err := os.Stat(m[1])
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("token file %s: %v %v, want mode 0600", m[1], fi.Mode(), err)
		}
		b, err := os.ReadFile(m[1])
		if err != nil {
			t.Fatal(err)
		}
		tok := strings.TrimSpace(string(b))
		if strings.Contains(s.stderr.String(), tok) {
			t.Fatal("the token itself is on stderr")
		}
		return s, tok
	}
	unauthorized := func(s *httpServer, tok string) bool {
		resp, _ := s.post(t, map[string]string{"Authorization": "Bearer " + tok}, initBody)
		return resp.StatusCode == http.StatusUnauthorized
	}

	s, first := start()
	if !strings.Contains(s.stderr.String(), "made a bearer token") {
		t.Errorf("first start: stderr does not say a token was made:\n%s", s.stderr)
	}
	c := s.connect(t, first, "")
	c.ok(t, "list_servers", map[string]any{}, nil)
	_ = c.close()
	if err := s.stop(t); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, s.stderr)
	}

	s, again := start()
	if again != first || !strings.Contains(s.stderr.String(), "uses the bearer token kept in") {
		t.Fatalf("restart: token changed or stderr says otherwise:\n%s", s.stderr)
	}
	c = s.connect(t, first, "")
	c.ok(t, "list_servers", map[string]any{}, nil)
	_ = c.close()
	if err := s.stop(t); err != nil {
		t.Fatalf("SIGTERM: %v\n%s", err, s.stderr)
	}

	s, rotated := start("--rotate-token")
	if rotated == first {
		t.Fatal("--rotate-token kept the old token")
	}
	if !unauthorized(s, first) || unauthorized(s, rotated) {
		t.Fatalf("after --rotate-token: the old token must be refused (401) and the new one taken")
	}
}

// TestHTTPCallsEndWithTheirClient: a client that disconnects mid-call
// cancels its call; SIGTERM answers the calls in flight, then the process
// exits 0; an idle MCP session expires.
func TestHTTPCallsEndWithTheirClient(t *testing.T) {
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "main")
	pane := strings.TrimSpace(fx.Tmux(t, "display-message", "-p", "-t", "main", "#{pane_id}"))
	s := startHTTP(t, fx, "--auth-tokens", tokenFile(t, tokAlice+" name=alice"), "--http-idle-timeout", "1")
	never := map[string]any{"pane_id": pane, "patterns": []string{"never-printed-ZZZ"}, "timeout": 25}

	// Disconnect: a raw client (which sends no notifications/cancelled,
	// as the SDK clients do) drops the connection of its tools/call; the
	// call's audit line comes long before its timeout.
	auth := map[string]string{"Authorization": "Bearer " + tokAlice}
	resp, body := s.post(t, auth, initBody)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: got %d %q", resp.StatusCode, body)
	}
	auth["Mcp-Session-Id"], auth["Mcp-Protocol-Version"] = sid, "2025-11-25"
	if resp, body := s.post(t, auth, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: got %d %q", resp.StatusCode, body)
	}
	args, _ := json.Marshal(never)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.url,
		strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"wait_for_text","arguments":`+string(args)+`}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range auth {
		req.Header.Set(k, v)
	}
	done := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			_, err = io.ReadAll(resp.Body) // the SSE stream, until the connection drops
			resp.Body.Close()
		}
		done <- err
	}()
	time.Sleep(300 * time.Millisecond) // the call is on its way; when exactly does not matter
	cancel()
	<-done
	start := time.Now()
	for !regexp.MustCompile(`tool=wait_for_text outcome=error[^\n]*code=cancelled`).MatchString(s.stderr.String()) {
		if time.Since(start) > 15*time.Second {
			t.Fatalf("the call of a client that went away is still running:\n%s", s.stderr)
		}
		time.Sleep(20 * time.Millisecond) // the log has no event to wait on
	}

	// Idle: a session unused for over --http-idle-timeout is gone.
	idle := s.connect(t, tokAlice, "2025-11-25")
	idle.ok(t, "list_servers", map[string]any{}, nil)
	time.Sleep(2500 * time.Millisecond) // idleness is what is tested
	resp, body = s.post(t, map[string]string{"Authorization": "Bearer " + tokAlice, "Mcp-Session-Id": idle.cs.ID(), "Mcp-Protocol-Version": "2025-11-25"},
		`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("an idle session after the timeout: got %d %q, want 404", resp.StatusCode, body)
	}

	// SIGTERM with a call in flight: the call is answered, the process
	// exits 0.
	c2 := s.connect(t, tokAlice, "")
	answered := make(chan *sdk.CallToolResult, 1)
	go func() {
		res, err := c2.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "wait_for_text", Arguments: never})
		if err != nil {
			t.Errorf("the call in flight at SIGTERM: protocol error %v", err)
		}
		answered <- res
	}()
	time.Sleep(300 * time.Millisecond) // the call is on its way
	began := time.Now()
	if err := s.stop(t); err != nil {
		t.Fatalf("exit after SIGTERM: %v, want 0\n%s", err, s.stderr)
	}
	select {
	case res := <-answered:
		if res != nil && !res.IsError {
			t.Fatalf("the call in flight at SIGTERM: got success %s, want it cancelled", textOf(res))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call in flight at SIGTERM was never answered")
	}
	if d := time.Since(began); d > 10*time.Second {
		t.Fatalf("shutdown took %v", d)
	}
}

// TestHTTPTLS: with --tls-cert and --tls-key the server speaks HTTPS, and
// a client that trusts the certificate connects with its token.
func TestHTTPTLS(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "tmux-mcp test"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	fx := fixtures.NewServer(t)
	s := startHTTP(t, fx, "--auth-tokens", tokenFile(t, tokAlice), "--tls-cert", certFile, "--tls-key", keyFile)
	if !strings.HasPrefix(s.url, "https://") {
		t.Fatalf("url %s, want https", s.url)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	hc := &http.Client{Transport: bearer{tokAlice, &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "tls", Version: "0"}, nil).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatalf("connecting over TLS: %v\n%s", err, s.stderr)
	}
	defer cs.Close()
	if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_servers", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Fatalf("list_servers over TLS: %v %v", err, res)
	}
	// Plain HTTP to the TLS port gets nothing done.
	resp, err := http.Post(strings.Replace(s.url, "https://", "http://", 1), "application/json", strings.NewReader(initBody))
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatal("plain HTTP to the TLS port was served")
		}
	}
}

// TestHTTPSubscriptions: a resource subscription over HTTP delivers its
// updates in both protocol eras (resources/subscribe on the session's
// stream; subscriptions/listen on its own request).
func TestHTTPSubscriptions(t *testing.T) {
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "main")
	s := startHTTP(t, fx, "--auth-tokens", tokenFile(t, tokAlice))
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			got := make(chan string, 100)
			hc := &http.Client{Transport: bearer{tokAlice, http.DefaultTransport}}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "sub", Version: "0"}, &sdk.ClientOptions{
				ResourceUpdatedHandler: func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) {
					select {
					case got <- r.Params.URI:
					default:
					}
				},
			}).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.url, HTTPClient: hc}, &sdk.ClientSessionOptions{ProtocolVersion: v})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: "tmux://sessions"}); err != nil {
				t.Fatal(err)
			}
			// The listen may start just after Subscribe returns: change
			// the sessions until an update comes.
			for i := 0; ; i++ {
				fx.Tmux(t, "new-session", "-d", "-s", fmt.Sprintf("sub-%s-%d", strings.ReplaceAll(v, "-", ""), i))
				select {
				case uri := <-got:
					if uri != "tmux://sessions" {
						t.Fatalf("update for %s", uri)
					}
					return
				case <-time.After(time.Second):
					if i == 20 {
						t.Fatalf("no notifications/resources/updated for tmux://sessions in 20 s\n%s", s.stderr)
					}
				}
			}
		})
	}
}

// TestHTTPTeardownOnExit: --teardown-on-exit kills every token's sessions
// at SIGTERM, each as its owner, and nothing borrowed.
func TestHTTPTeardownOnExit(t *testing.T) {
	fx := fixtures.NewServer(t)
	borrowed := fx.NewSession(t, "borrowed")
	s := startHTTP(t, fx, "--teardown-on-exit", "--auth-tokens", tokenFile(t, tokAlice+" name=alice", tokBob+" name=bob"))
	var made []string
	for _, tok := range []string{tokAlice, tokBob} {
		var sess struct {
			SessionID string `json:"session_id"`
		}
		s.connect(t, tok, "2025-11-25").ok(t, "create_session", map[string]any{}, &sess)
		made = append(made, sess.SessionID)
	}
	if err := s.stop(t); err != nil {
		t.Fatalf("exit after SIGTERM: %v\n%s", err, s.stderr)
	}
	left := sessionIDs(t, fx)
	for _, id := range made {
		if slices.Contains(left, id) {
			t.Errorf("session %s survived --teardown-on-exit; left: %v", id, left)
		}
	}
	if !slices.Contains(left, borrowed) {
		t.Errorf("the borrowed session %s was killed; left: %v", borrowed, left)
	}
	for _, who := range []string{"client=alice", "client=bob"} {
		if !regexp.MustCompile(`teardown on exit[^\n]*` + who).MatchString(s.stderr.String()) {
			t.Errorf("no teardown line for %s:\n%s", who, s.stderr)
		}
	}
}
