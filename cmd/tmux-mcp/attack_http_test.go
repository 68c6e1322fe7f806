package main

// The attack suite's HTTP part (issue 31): every request here is one an
// attacker would send with one, two or three tokens, and each test checks
// the refusal and that nothing changed in tmux.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

const tokCarol = "carol-token-0123456789abcd"

// createBody is a call that would change tmux if it ran.
const createBody = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"create_session","arguments":{"session_name":"pwned"}}}`

// tmuxState is what an attack must not change: the sessions, windows and
// panes of fx's server, and its buffers.
func tmuxState(t *testing.T, fx *fixtures.Server) string {
	t.Helper()
	// A window's automatic name follows its pane's program ("tmux" until
	// the shell starts): only a name someone set is the window's state.
	panes := fx.Tmux(t, "list-panes", "-a", "-F", "#{session_id} #{session_name} #{window_id} #{?automatic-rename,auto,#{window_name}} #{pane_id} #{pane_dead}")
	bufs, _ := fx.TryTmux("list-buffers", "-F", "#{buffer_name} #{buffer_size}") // none is an error on some releases
	return panes + "\n--- buffers\n" + bufs
}

// rawSession opens an MCP session with a raw initialize and returns its id.
func (s *httpServer) rawSession(t *testing.T, token, version string) string {
	t.Helper()
	body := strings.Replace(initBody, "2025-11-25", version, 1)
	resp, out := s.post(t, map[string]string{"Authorization": "Bearer " + token}, body)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize %s: got %d %q", version, resp.StatusCode, out)
	}
	h := map[string]string{"Authorization": "Bearer " + token, "Mcp-Session-Id": sid, "Mcp-Protocol-Version": version}
	if resp, out := s.post(t, h, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: got %d %q", resp.StatusCode, out)
	}
	return sid
}

// hostOf is the host:port of s.
func (s *httpServer) hostOf() string {
	return strings.TrimSuffix(strings.TrimPrefix(s.url, "http://"), mcpPath)
}

// TestAttackHTTPRefusals: the refusals that held before issue 31, with
// three tokens, each answered and none changing tmux.
func TestAttackHTTPRefusals(t *testing.T) {
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "main")
	s := startHTTP(t, fx, "--auth-tokens", tokenFile(t, tokAlice+" name=alice", tokBob+" name=bob", tokCarol+" safety=readonly name=carol"))
	aliceSID := s.rawSession(t, tokAlice, "2025-11-25")
	before := tmuxState(t, fx)
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	with := func(h map[string]string, k, v string) map[string]string { h[k] = v; return h }
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", maxBodyBytes) + `"}}`
	for _, tc := range []struct {
		name   string
		url    string
		header map[string]string
		body   string
		want   int
	}{
		{"no token", "", nil, createBody, http.StatusUnauthorized},
		{"wrong token", "", bearer(tokAlice + "x"), createBody, http.StatusUnauthorized},
		{"token in the query", "?access_token=" + tokAlice, nil, createBody, http.StatusUnauthorized},
		{"token in the query, other name", "?token=" + tokAlice, nil, createBody, http.StatusUnauthorized},
		{"not a bearer", "", map[string]string{"Authorization": "Basic " + tokAlice}, createBody, http.StatusUnauthorized},
		{"foreign Host", "", with(bearer(tokAlice), "Host", "evil.example:80"), createBody, http.StatusForbidden},
		{"foreign Origin", "", with(bearer(tokAlice), "Origin", "http://evil.example"), createBody, http.StatusForbidden},
		{"another token's MCP session", "", with(with(bearer(tokBob), "Mcp-Session-Id", aliceSID), "Mcp-Protocol-Version", "2025-11-25"), createBody, http.StatusForbidden},
		{"readonly token on another's session", "", with(with(bearer(tokCarol), "Mcp-Session-Id", aliceSID), "Mcp-Protocol-Version", "2025-11-25"), createBody, http.StatusForbidden},
		{"huge body", "", bearer(tokAlice), big, http.StatusRequestEntityTooLarge},
		{"malformed JSON", "", bearer(tokAlice), `{"jsonrpc":"2.0","id":1,"method":`, http.StatusBadRequest},
		{"malformed JSON on a session", "", with(with(bearer(tokAlice), "Mcp-Session-Id", aliceSID), "Mcp-Protocol-Version", "2025-11-25"), `[{]`, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := s.url
			s.url += tc.url
			resp, body := s.post(t, tc.header, tc.body)
			s.url = url
			if resp.StatusCode != tc.want {
				t.Errorf("got %d %.200q, want %d", resp.StatusCode, body, tc.want)
			}
		})
	}
	if after := tmuxState(t, fx); after != before {
		t.Fatalf("tmux changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestAttackHTTPRefusalCloses: a refusal before the token is checked (no
// token, a wrong one, a foreign origin) answers at once, without waiting
// for the body the request declared, and closes the connection.
func TestAttackHTTPRefusalCloses(t *testing.T) {
	fx := fixtures.NewServer(t)
	s := startHTTP(t, fx, "--auth-tokens", tokenFile(t, tokAlice+" name=alice"))
	for _, tc := range []struct {
		name, header string
		want         int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"wrong token", "Authorization: Bearer " + tokBob + "\r\n", http.StatusUnauthorized},
		{"foreign origin", "Authorization: Bearer " + tokAlice + "\r\nOrigin: http://evil.example\r\n", http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", s.hostOf())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			// The body is declared and never sent. The default body
			// deadline is 30 s: an answer within 5 s did not wait for it.
			_ = c.SetDeadline(time.Now().Add(5 * time.Second))
			fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\n%sContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n", s.hostOf(), tc.header)
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("no answer within 5 s: %v", err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want || !resp.Close {
				t.Fatalf("got %d, Connection: close %v; want %d and close", resp.StatusCode, resp.Close, tc.want)
			}
			if _, err := br.ReadByte(); err != io.EOF {
				t.Fatalf("the connection stays open after the refusal: %v", err)
			}
		})
	}
}

// dialSSE opens the standalone SSE stream of MCP session sid on a
// connection of its own and returns the connection once the stream is
// answered: a request that stays open.
func dialSSE(t *testing.T, host, token, sid string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "GET /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-11-25\r\n\r\n", host, token, sid)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", resp, err)
	}
	_ = c.SetReadDeadline(time.Time{})
	return c
}

// pingOn sends a ping with token on a new connection and reports whether
// it was answered.
func pingOn(host, token string) error {
	c, err := net.Dial("tcp", host)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n\r\n%s",
		host, token, len(pingBody), pingBody)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("ping: %s", resp.Status)
	}
	return nil
}

// waitClosed waits (at most bound) for the server to close c.
func waitClosed(c net.Conn, bound time.Duration) error {
	_ = c.SetReadDeadline(time.Now().Add(bound))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("still open after %v", bound)
	}
	return nil
}

// TestAttackHTTPConnectionCaps: connections that show no valid token take
// at most a quarter of --http-max-conns, the oldest giving way to the new
// (so a valid client always gets in); when every connection carries a
// valid token's request, a new one is closed at once, and gets in as soon
// as one ends.
func TestAttackHTTPConnectionCaps(t *testing.T) {
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "main")
	s := startHTTP(t, fx, "--auth-tokens", tokenFile(t, tokAlice+" name=alice"), "--http-max-conns", "8")
	host := s.hostOf()
	before := tmuxState(t, fx)

	// Five silent connections: with room for two, the first three are
	// closed long before the header deadline (10 s).
	var silent []net.Conn
	for range 5 {
		c, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		silent = append(silent, c)
	}
	for i, c := range silent[:3] {
		if err := waitClosed(c, 5*time.Second); err != nil {
			t.Fatalf("silent connection %d: %v; want it closed for the newer ones", i, err)
		}
	}
	if err := pingOn(host, tokAlice); err != nil {
		t.Fatalf("a valid client among silent ones: %v", err)
	}

	// Eight sessions, each with its stream open on its own connection:
	// every place is taken by a valid request.
	var sids []string
	for range 8 {
		sids = append(sids, s.rawSession(t, tokAlice, "2025-11-25"))
	}
	var streams []net.Conn
	for _, sid := range sids {
		streams = append(streams, dialSSE(t, host, tokAlice, sid))
	}
	if err := pingOn(host, tokAlice); err == nil {
		t.Fatal("a ninth connection was served with eight streams open under --http-max-conns 8")
	}
	for _, c := range streams {
		_ = c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); err == io.EOF {
			t.Fatal("a stream of a valid token was closed for a new connection")
		}
	}
	_ = streams[0].Close()
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if err = pingOn(host, tokAlice); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond) // the server sees the close on its own time
	}
	if err != nil {
		t.Fatalf("after a stream ended, a new connection is still refused: %v", err)
	}
	if after := tmuxState(t, fx); after != before {
		t.Fatalf("tmux changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestAttackHTTPSessionCap: a token holds at most --http-max-sessions MCP
// sessions; a new one closes its least recently used idle one, never
// another token's, and is refused (429, saying why) when every one has a
// request open.
func TestAttackHTTPSessionCap(t *testing.T) {
	fx := fixtures.NewServer(t)
	s := startHTTP(t, fx, "--auth-tokens", tokenFile(t, tokAlice+" name=alice", tokBob+" name=bob"), "--http-max-sessions", "2")
	host := s.hostOf()
	list := func(tok, sid string) int {
		resp, _ := s.post(t, map[string]string{"Authorization": "Bearer " + tok, "Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"},
			`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
		return resp.StatusCode
	}
	a1 := s.rawSession(t, tokAlice, "2025-11-25")
	a2 := s.rawSession(t, tokAlice, "2025-11-25")
	b1 := s.rawSession(t, tokBob, "2025-11-25")
	b2 := s.rawSession(t, tokBob, "2025-11-25")
	list(tokAlice, a1) // a1 used last: a2 is the least recently used
	a3 := s.rawSession(t, tokAlice, "2025-11-25")
	for _, c := range []struct {
		who, tok, sid string
		want          int
	}{{"a1", tokAlice, a1, 200}, {"a2", tokAlice, a2, 404}, {"a3", tokAlice, a3, 200}, {"b1", tokBob, b1, 200}, {"b2", tokBob, b2, 200}} {
		if got := list(c.tok, c.sid); got != c.want {
			t.Errorf("session %s after alice's third: got %d, want %d", c.who, got, c.want)
		}
	}
	if !strings.Contains(s.stderr.String(), "closed the least recently used idle MCP session") {
		t.Errorf("no log line for the closed session:\n%s", s.stderr)
	}

	// Both sessions attached (their streams open): a third is refused.
	dialSSE(t, host, tokAlice, a1)
	dialSSE(t, host, tokAlice, a3)
	resp, body := s.post(t, map[string]string{"Authorization": "Bearer " + tokAlice}, initBody)
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "--http-max-sessions") || !strings.Contains(body, `"id":1`) {
		t.Fatalf("a third session with two attached: got %d %q, want 429 naming --http-max-sessions", resp.StatusCode, body)
	}
	for _, sid := range []string{a1, a3} {
		if got := list(tokAlice, sid); got != 200 {
			t.Errorf("an attached session after the refusal: got %d, want 200", got)
		}
	}
}

// TestAttackHTTPBatch: JSON-RPC batches are gone from 2025-06-18 on; a
// session of that version refuses them with or without the protocol
// header (the server knows the version from the initialization), and a
// 2025-03-26 session still takes them.
func TestAttackHTTPBatch(t *testing.T) {
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "main")
	s := startHTTP(t, fx, "--auth-tokens", tokenFile(t, tokAlice+" name=alice"))
	before := tmuxState(t, fx)
	batch := `[{"jsonrpc":"2.0","id":2,"method":"tools/list"},` + strings.Replace(createBody, `"id":5`, `"id":3`, 1) + `]`
	for _, tc := range []struct {
		version string
		header  bool
		want    int
	}{
		{"2025-06-18", false, http.StatusBadRequest},
		{"2025-06-18", true, http.StatusBadRequest},
		{"2025-11-25", false, http.StatusBadRequest},
		{"2025-03-26", false, http.StatusOK},
	} {
		t.Run(fmt.Sprintf("%s header %v", tc.version, tc.header), func(t *testing.T) {
			sid := s.rawSession(t, tokAlice, tc.version)
			h := map[string]string{"Authorization": "Bearer " + tokAlice, "Mcp-Session-Id": sid}
			if tc.header {
				h["Mcp-Protocol-Version"] = tc.version
			}
			body := batch
			if tc.want == http.StatusOK {
				body = `[{"jsonrpc":"2.0","id":2,"method":"tools/list"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`
			}
			if resp, out := s.post(t, h, body); resp.StatusCode != tc.want {
				t.Fatalf("a batch: got %d %.300q, want %d", resp.StatusCode, out, tc.want)
			}
		})
	}
	if after := tmuxState(t, fx); after != before {
		t.Fatalf("tmux changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestAttackHTTPUnknownTokenLog: a flood of unknown tokens is one log line
// a gap (10 s by default), which then says how many it left out.
func TestAttackHTTPUnknownTokenLog(t *testing.T) {
	fx := fixtures.NewServer(t)
	s := startHTTP(t, fx, "--auth-tokens", tokenFile(t, tokAlice+" name=alice"))
	for i := range 30 {
		if resp, _ := s.post(t, map[string]string{"Authorization": fmt.Sprintf("Bearer guess-%020d", i)}, initBody); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("an unknown token: got %d, want 401", resp.StatusCode)
		}
	}
	if n := strings.Count(s.stderr.String(), "unknown bearer token"); n != 1 {
		t.Fatalf("30 unknown tokens within 10 s logged %d lines, want 1:\n%s", n, s.stderr)
	}
}

// TestAttackHTTPObjects: what a token makes is its own. Buffers, cursors
// and command handles are refused to the others, and stay whole for their
// owner.
func TestAttackHTTPObjects(t *testing.T) {
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "main")
	pane := strings.TrimSpace(fx.Tmux(t, "display-message", "-p", "-t", "main", "#{pane_id}"))
	s := startHTTP(t, fx, "--auth-tokens", tokenFile(t, tokAlice+" name=alice", tokBob+" name=bob", tokCarol+" safety=readonly name=carol"))
	alice, bob, carol := s.connect(t, tokAlice, "2025-11-25"), s.connect(t, tokBob, "2025-11-25"), s.connect(t, tokCarol, "2026-07-28")

	var buf struct {
		BufferName string `json:"buffer_name"`
	}
	alice.ok(t, "load_buffer", map[string]any{"content": "alice's secret\n", "logical_name": "notes"}, &buf)
	// A cursor and a command of alice's, before the state is taken.
	var since struct {
		Cursor string `json:"cursor"`
	}
	alice.ok(t, "capture_since", map[string]any{"pane_id": pane}, &since)
	var run struct {
		CommandID string `json:"command_id"`
	}
	alice.ok(t, "run_command", map[string]any{"pane_id": pane, "command": "sleep 1; echo done-by-alice", "background": true}, &run)
	rec := alice.record(t, pane, "start")
	before := tmuxState(t, fx)
	screen := func() string { return fx.Tmux(t, "capture-pane", "-p", "-t", pane) }

	for _, tc := range []struct {
		who  *client
		tool string
		args map[string]any
		code string
	}{
		{bob, "show_buffer", map[string]any{"buffer_name": buf.BufferName}, "not_found"},
		{carol, "show_buffer", map[string]any{"buffer_name": buf.BufferName}, "not_found"},
		{bob, "delete_buffer", map[string]any{"buffer_name": buf.BufferName}, "not_found"},
		{bob, "paste_buffer", map[string]any{"buffer_name": buf.BufferName, "pane_id": pane}, "not_found"},
		{bob, "capture_since", map[string]any{"pane_id": pane, "cursor": since.Cursor}, "invalid_arguments"},
		{carol, "capture_since", map[string]any{"cursor": since.Cursor}, "invalid_arguments"},
		{bob, "wait_for_command", map[string]any{"command_id": run.CommandID, "timeout": 1}, "not_found"},
		{bob, "record_pane", map[string]any{"pane_id": pane, "action": "stop"}, "not_found"},
		{bob, "record_pane", map[string]any{"pane_id": pane, "action": "status"}, "not_found"},
	} {
		e := tc.who.fail(t, tc.tool, tc.args)
		if e.Code != tc.code || e.Effects != "none" {
			t.Errorf("%s by another token: got %+v, want %s, effects none", tc.tool, e, tc.code)
		}
		if strings.Contains(e.Message, "alice") || strings.Contains(e.Message, filepath.Base(rec.Path)) {
			t.Errorf("%s: the refusal names the owner: %q", tc.tool, e.Message)
		}
	}
	// A buffer another token cannot see reads as one that never was.
	missing := bob.fail(t, "show_buffer", map[string]any{"buffer_name": "tmux_mcp_" + strings.Repeat("0", 32) + "_notes"})
	theirs := bob.fail(t, "show_buffer", map[string]any{"buffer_name": buf.BufferName})
	if strings.Replace(theirs.Message, buf.BufferName, "NAME", 1) != strings.Replace(missing.Message, "tmux_mcp_"+strings.Repeat("0", 32)+"_notes", "NAME", 1) {
		t.Errorf("another's buffer %q and a missing one %q read differently", theirs.Message, missing.Message)
	}
	if after := tmuxState(t, fx); after != before {
		t.Fatalf("tmux changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if strings.Contains(screen(), "alice's secret") {
		t.Fatal("alice's buffer was pasted by bob")
	}

	// Alice still has all of it.
	var shown struct {
		Content string `json:"content"`
	}
	alice.ok(t, "show_buffer", map[string]any{"buffer_name": buf.BufferName}, &shown)
	if shown.Content != "alice's secret\n" {
		t.Fatalf("alice's buffer: got %q", shown.Content)
	}
	alice.ok(t, "capture_since", map[string]any{"pane_id": pane, "cursor": since.Cursor}, nil)
	var done struct {
		ExitStatus *int     `json:"exit_status"`
		Output     []string `json:"output"`
	}
	alice.ok(t, "wait_for_command", map[string]any{"command_id": run.CommandID, "timeout": 20}, &done)
	if done.ExitStatus == nil || *done.ExitStatus != 0 || !strings.Contains(strings.Join(done.Output, "\n"), "done-by-alice") {
		t.Fatalf("alice's command: got %+v", done)
	}
	if stopped := alice.record(t, pane, "stop"); stopped.Path != rec.Path || stopped.Ended != "stopped" {
		t.Fatalf("alice's recording: got %+v, want %s stopped", stopped, rec.Path)
	}
	alice.ok(t, "delete_buffer", map[string]any{"buffer_name": buf.BufferName}, nil)
	if regexp.MustCompile(regexp.QuoteMeta(buf.BufferName)).MatchString(tmuxState(t, fx)) {
		t.Fatal("alice could not delete her own buffer")
	}
}
