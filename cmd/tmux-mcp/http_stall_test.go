package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/mcp"
	"github.com/tmux-mcp/tmux-mcp/session"
)

// startHTTPInProcess serves --http 127.0.0.1:0 with args on fx's server in
// this process, so that a test can count the goroutines and descriptors
// the server holds. getenv sees the tests' environment plus extra.
func startHTTPInProcess(t *testing.T, fx *fixtures.Server, extra []string, args ...string) (*httpService, *syncBuffer) {
	t.Helper()
	env := childEnv(fx, append([]string{"XDG_RUNTIME_DIR=" + t.TempDir()}, extra...)...)
	getenv := func(k string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if name, v, _ := strings.Cut(env[i], "="); name == k {
				return v
			}
		}
		return ""
	}
	cfg, err := parseConfig(append([]string{"--http", "127.0.0.1:0", "--socket", fx.Socket}, args...), getenv)
	if err != nil {
		t.Fatal(err)
	}
	cfg.readProcess(getenv)
	stderr := &syncBuffer{}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	manager := session.NewManager(&session.Options{Tmux: cfg.tmux, ConfigFile: cfg.configFile, Logger: logger, SocketDir: cfg.socketDir, Env: cfg.env})
	backend := mcp.NewTmuxBackend(manager, &mcp.TmuxOptions{Socket: cfg.socket, WaitMax: cfg.waitMax, SuppressHistory: true})
	base, err := mcp.NewServer(backend, serverOptions(cfg, logger))
	if err != nil {
		t.Fatal(err)
	}
	svc, code := newHTTPService(cfg, base, backend, stderr, logger)
	if svc == nil {
		t.Fatalf("newHTTPService: exit %d\n%s", code, stderr)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = svc.serve() // ErrServerClosed at cleanup
	}()
	t.Cleanup(func() {
		svc.shutdown(logger)
		<-served
		manager.Close()
	})
	return svc, stderr
}

// openFDs counts this process's open descriptors; -1 where /proc is not.
func openFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// stallScenarios are the clients that try to hold the server: what each
// writes on its connection before it stops, given the server's address
// and a valid token.
var stallScenarios = []struct {
	name  string
	write func(c net.Conn, host, token string) error
}{
	{"silent", func(net.Conn, string, string) error { return nil }},
	{"no token, body declared never sent", func(c net.Conn, host, _ string) error {
		_, err := fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n", host)
		return err
	}},
	{"valid token, slow body", func(c net.Conn, host, token string) error {
		_, err := fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
			"Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":", host, token)
		return err
	}},
	{"valid token, idle keep-alive", func(c net.Conn, host, token string) error {
		if _, err := fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
			"Accept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s", host, token, len(pingBody), pingBody); err != nil {
			return err
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("ping: got %s", resp.Status)
		}
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}},
}

// pingBody is a request that needs no MCP session and no tmux.
const pingBody = `{"jsonrpc":"2.0","id":1,"method":"ping"}`

// stallFigures are what n stalled clients cost the server: the goroutines
// and descriptors it held once they were all connected, then once every
// client saw its connection closed (or the bound passed), and how many it
// closed.
type stallFigures struct {
	n             int
	heldG, heldFD int
	leftG, leftFD int
	closed        int
	longest       time.Duration
}

// stall connects n clients that each do write and then stop, and measures
// what the server holds; it waits for the server to close every
// connection, at most bound.
func stall(t *testing.T, addr, token string, n int, bound time.Duration, write func(net.Conn, string, string) error) stallFigures {
	t.Helper()
	runtime.GC()
	g0, f0 := runtime.NumGoroutine(), openFDs()
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			_ = c.Close() // Best effort.
		}
	}()
	start := time.Now()
	for range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		if err := write(c, addr, token); err != nil {
			t.Fatal(err)
		}
	}
	// Each connection the server holds is one goroutine at least: wait
	// until it has them all, or until the count stops growing (it may
	// have closed them already).
	fig := stallFigures{n: n}
	for last, since := runtime.NumGoroutine(), time.Now(); last < g0+n && time.Since(since) < 200*time.Millisecond; {
		time.Sleep(time.Millisecond) // no event tells when the server accepted
		if now := runtime.NumGoroutine(); now != last {
			last, since = now, time.Now()
		}
	}
	fig.heldG, fig.heldFD = runtime.NumGoroutine()-g0, openFDs()-f0-n
	for _, c := range conns {
		_ = c.SetReadDeadline(start.Add(bound))
		_, err := io.Copy(io.Discard, c)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			continue
		}
		fig.closed++
		fig.longest = time.Since(start)
	}
	fig.leftG, fig.leftFD = runtime.NumGoroutine()-g0, openFDs()-f0-n
	return fig
}

// TestHTTPStalledClients measures what stalled clients cost the server
// (the figures of docs/http.md), and that it lets every one of them go
// within its deadlines: short ones here, through the test knob.
func TestHTTPStalledClients(t *testing.T) {
	fx := fixtures.NewServer(t)
	const n = 40
	svc, _ := startHTTPInProcess(t, fx, []string{envHTTPTimeouts + "=header=0.5,body=0.5,write=0.5,idle=0.5"},
		"--auth-tokens", tokenFile(t, tokAlice+" name=alice"))
	addr := svc.ln.Addr().String()
	for _, sc := range stallScenarios {
		t.Run(sc.name, func(t *testing.T) {
			fig := stall(t, addr, tokAlice, n, 12*time.Second, sc.write)
			t.Logf("%d clients %q: held %d goroutines, %d descriptors; closed %d (the last after %v); then held %d goroutines, %d descriptors",
				n, sc.name, fig.heldG, fig.heldFD, fig.closed, fig.longest.Round(10*time.Millisecond), fig.leftG, fig.leftFD)
			if fig.closed != n {
				t.Errorf("the server closed %d of %d stalled connections", fig.closed, n)
			}
		})
	}
}

// TestHTTPWaitOutlivesDeadlines: a request lasts as long as its call: a
// wait three times longer than the header, body and write deadlines (0.3 s here) ends on
// its own timeout, answered, and a stream stays open past them. (The idle
// deadline is left long: the client's pooled connections are not the test.)
func TestHTTPWaitOutlivesDeadlines(t *testing.T) {
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "main")
	pane := strings.TrimSpace(fx.Tmux(t, "display-message", "-p", "-t", "main", "#{pane_id}"))
	svc, stderr := startHTTPInProcess(t, fx, []string{envHTTPTimeouts + "=header=0.3,body=0.3,write=0.3,idle=5"},
		"--auth-tokens", tokenFile(t, tokAlice+" name=alice"))
	s := &httpServer{url: svc.url, stderr: stderr}
	for _, v := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			c := s.connect(t, tokAlice, v)
			var r struct {
				Found   bool    `json:"found"`
				Outcome string  `json:"outcome"`
				Elapsed float64 `json:"elapsed_seconds"`
			}
			c.ok(t, "wait_for_text", map[string]any{"pane_id": pane, "patterns": []string{"never-printed-QQQ"}, "timeout": 1}, &r)
			if r.Found || r.Elapsed < 0.9 {
				t.Fatalf("got %+v, want not found after its 1 s", r)
			}
			// The session, and its stream, still answer.
			c.ok(t, "list_servers", map[string]any{}, nil)
		})
	}
}
