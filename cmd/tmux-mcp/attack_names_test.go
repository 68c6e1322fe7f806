package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// victim is a file an attacker aims at, and what must still be in it.
type victim struct {
	path, content string
}

func newVictim(t *testing.T) victim {
	t.Helper()
	v := victim{path: filepath.Join(t.TempDir(), "victim.txt"), content: "precious\n"}
	if err := os.WriteFile(v.path, []byte(v.content), 0o600); err != nil {
		t.Fatal(err)
	}
	return v
}

// intact fails the test unless the victim is still a regular file with
// its content.
func (v victim) intact(t *testing.T, after string) {
	t.Helper()
	fi, err := os.Lstat(v.path)
	if err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("after %s: victim %s is gone or replaced (%v, %v)", after, v.path, fi, err)
	}
	if b, _ := os.ReadFile(v.path); string(b) != v.content {
		t.Fatalf("after %s: victim holds %q, want %q", after, b, v.content)
	}
}

// badSocketNames are socket_names that are paths or no names at all, aimed
// at the victim: each is refused as invalid_arguments whatever the reach.
func badSocketNames(t *testing.T, v victim) []string {
	rel, err := filepath.Rel(testSocketDir(), v.path)
	if err != nil {
		t.Fatal(err)
	}
	return []string{
		rel,    // ../../<tmp>/victim.txt: what deleted a file before
		v.path, // absolute
		"..", ".", "a/b", "-Lx", "-S" + v.path,
		"a\x01b",
		strings.Repeat("n", 120), // within the schema's 128, beyond what a socket address holds here
		"#(touch " + v.path + ".pwned)",
		"x;run-shell 'rm " + v.path + "'",
	}
}

// attackSocketNames tries every bad socket_name on tools that would start,
// read or kill a server, and on a resource, and checks each refusal and
// that nothing changed on disk.
func attackSocketNames(t *testing.T, c *client, v victim) {
	t.Helper()
	for _, name := range badSocketNames(t, v) {
		for _, tool := range []string{"create_session", "list_sessions", "get_server_info", "kill_server"} {
			res := c.call(t, tool, map[string]any{"socket_name": name})
			e := envelopeOf(t, res)
			if e.Code != "invalid_arguments" || e.Effects != "none" {
				t.Errorf("%s socket_name=%q: got %+v, want invalid_arguments with effects none", tool, name, e)
			}
			v.intact(t, tool+" socket_name="+name)
		}
		if _, err := c.cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "tmux://sessions?socket_name=" + urlQuery(name)}); err == nil {
			t.Errorf("tmux://sessions?socket_name=%q: read, want a refusal", name)
		}
		if !strings.Contains(name, "/") && name != ".." && name != "." {
			if fileExists(filepath.Join(testSocketDir(), name)) {
				t.Errorf("socket_name=%q: a socket file appeared in the socket directory", name)
			}
		}
	}
	if fileExists(v.path + ".pwned") {
		t.Errorf("a #(...) in socket_name ran: %s exists", v.path+".pwned")
	}
	// Probing a path is a connect, never a start: the victim stays even
	// where the client may probe it (stdio), and elsewhere it is refused.
	res := c.call(t, "list_servers", map[string]any{"extra_socket_paths": []string{v.path}})
	if res.IsError {
		if e := envelopeOf(t, res); e.Code != "target_denied" {
			t.Errorf("list_servers of the victim's path: got %+v, want a probe or target_denied", e)
		}
	}
	v.intact(t, "list_servers extra_socket_paths")
}

func urlQuery(s string) string {
	r := strings.NewReplacer("%", "%25", "&", "%26", "#", "%23", " ", "%20", "/", "%2F", ";", "%3B", "'", "%27", "\x01", "%01")
	return r.Replace(s)
}

// TestAttackSocketNames: over stdio and over HTTP with two tokens, a
// socket_name that is a path (the relative one that deleted a file before,
// an absolute one), "..", an option, a control character, one too long for
// a socket address, #(...) and ; are refused before anything runs: the
// victim file stays, with its content, and no socket appears.
func TestAttackSocketNames(t *testing.T) {
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "main")
	v := newVictim(t)
	t.Run("stdio", func(t *testing.T) {
		attackSocketNames(t, startClient(t, fx, "", []string{"--safety", "destructive"}), v)
	})
	t.Run("http", func(t *testing.T) {
		file := tokenFile(t, tokAlice+" name=alice scope=owned sockets=* safety=destructive", tokBob+" name=bob safety=destructive")
		s := startHTTP(t, fx, "--auth-tokens", file)
		attackSocketNames(t, s.connect(t, tokAlice, ""), v)
		attackSocketNames(t, s.connect(t, tokBob, ""), v)
	})
}

// TestAttackServersOutOfReach: over HTTP a token reaches the default
// server and the sockets its line names, nothing else: another tmux server
// of the user (fx2) is refused by name, by extra_socket_paths and by
// resource, its sessions untouched, and list_servers shows it only to the
// token that names it; a socket nobody configured is never started. Over
// stdio every socket is reached, unless --sockets narrows it.
func TestAttackServersOutOfReach(t *testing.T) {
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "main")
	fx2 := fixtures.NewServer(t) // another tool's, or another person's
	fx2.NewSession(t, "theirs")
	before := sessionIDs(t, fx2)
	never := fx.Socket + "-never"
	t.Cleanup(func() { _ = os.Remove(filepath.Join(testSocketDir(), never)) })
	file := tokenFile(t, tokAlice+" name=alice sockets="+fx2.Socket, tokBob+" name=bob safety=destructive")
	s := startHTTP(t, fx, "--auth-tokens", file)
	alice, bob := s.connect(t, tokAlice, ""), s.connect(t, tokBob, "")

	servers := func(c *client) []string {
		var l struct {
			Result []struct {
				SocketName string `json:"socket_name"`
			} `json:"result"`
		}
		c.ok(t, "list_servers", nil, &l)
		var names []string
		for _, r := range l.Result {
			names = append(names, r.SocketName)
		}
		slices.Sort(names)
		return names
	}
	if got := servers(bob); !slices.Equal(got, []string{fx.Socket}) {
		t.Errorf("bob's list_servers: got %v, want only the default %s", got, fx.Socket)
	}
	want := []string{fx.Socket, fx2.Socket}
	slices.Sort(want)
	if got := servers(alice); !slices.Equal(got, want) {
		t.Errorf("alice's list_servers: got %v, want %v", got, want)
	}

	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"list_sessions", map[string]any{"socket_name": fx2.Socket}},
		{"get_server_info", map[string]any{"socket_name": fx2.Socket}},
		{"create_session", map[string]any{"socket_name": fx2.Socket}},
		{"kill_server", map[string]any{"socket_name": fx2.Socket}},
		{"capture_pane", map[string]any{"socket_name": fx2.Socket, "pane_id": "%0"}},
		{"create_session", map[string]any{"socket_name": never}},
		{"list_servers", map[string]any{"extra_socket_paths": []string{fx2.SocketPath()}}},
		{"call_destructive_tools_batch", map[string]any{"operations": []any{
			map[string]any{"tool": "kill_server", "arguments": map[string]any{"socket_name": fx2.Socket}}}}},
	} {
		res := bob.call(t, call.tool, call.args)
		if call.tool == "call_destructive_tools_batch" {
			if strings.Contains(textOf(res), `"success":true`) || !strings.Contains(textOf(res), "target_denied") {
				t.Errorf("bob's batch kill_server of %s: got %s, want its row target_denied", fx2.Socket, textOf(res))
			}
			continue
		}
		if e := envelopeOf(t, res); e.Code != "target_denied" || e.Effects != "none" {
			t.Errorf("bob's %s %v: got %+v, want target_denied with effects none", call.tool, call.args, e)
		}
	}
	if _, err := bob.cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: "tmux://sessions?socket_name=" + fx2.Socket}); err == nil {
		t.Errorf("bob read tmux://sessions of %s, want a refusal", fx2.Socket)
	}
	if err := s.connect(t, tokBob, "2025-11-25").cs.Subscribe(context.Background(), &sdk.SubscribeParams{URI: "tmux://sessions?socket_name=" + fx2.Socket}); err == nil {
		t.Errorf("bob subscribed to tmux://sessions of %s, want a refusal", fx2.Socket)
	}
	// 2026-07-28: the Go client's Subscribe does not return the refusal
	// of subscriptions/listen, so it is asked raw; an accepted listen
	// would stay open, which the deadline catches.
	if body := listenRaw(t, s, tokBob, "tmux://sessions?socket_name="+fx2.Socket); !strings.Contains(body, "target_denied") {
		t.Errorf("bob's subscriptions/listen to tmux://sessions of %s: got %q, want target_denied", fx2.Socket, body)
	}
	if fileExists(filepath.Join(testSocketDir(), never)) {
		t.Errorf("a server was started on %s, which nobody configured", never)
	}
	if got := sessionIDs(t, fx2); !slices.Equal(got, before) {
		t.Errorf("%s's sessions: got %v, want %v untouched", fx2.Socket, got, before)
	}
	// Without a token (--no-auth, loopback tests) the same holds.
	anyone := startHTTP(t, fx, "--no-auth").connect(t, "", "")
	if e := anyone.fail(t, "list_sessions", map[string]any{"socket_name": fx2.Socket}); e.Code != "target_denied" {
		t.Errorf("--no-auth list_sessions of %s: got %+v, want target_denied", fx2.Socket, e)
	}
	// The token that names it reaches it; the default socket named by
	// its name is the default.
	alice.ok(t, "list_sessions", map[string]any{"socket_name": fx2.Socket}, nil)
	bob.ok(t, "list_sessions", map[string]any{"socket_name": fx.Socket}, nil)

	t.Run("stdio", func(t *testing.T) {
		all := startClient(t, fx, "", nil)
		all.ok(t, "list_sessions", map[string]any{"socket_name": fx2.Socket}, nil)
		narrow := startClient(t, fx, "", []string{"--sockets", ""})
		if e := narrow.fail(t, "list_sessions", map[string]any{"socket_name": fx2.Socket}); e.Code != "target_denied" {
			t.Errorf("stdio --sockets '': got %+v, want target_denied", e)
		}
		named := startClient(t, fx, "", []string{"--sockets", fx2.Socket})
		named.ok(t, "list_sessions", map[string]any{"socket_name": fx2.Socket}, nil)
	})
}

// TestAttackStartDirectory: a start_directory holding #(...) or ; is a
// directory name, taken literally: one that does not exist is refused
// (invalid_arguments, nothing created), and one that does is where the
// pane starts, with no command run. Over stdio and over HTTP.
func TestAttackStartDirectory(t *testing.T) {
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "main")
	base := t.TempDir()
	pwned := filepath.Join(base, "pwned")
	odd := []string{"#(touch pwned)", "a;touch pwned", "#{pane_id}", "$(touch pwned)"}
	for _, d := range odd {
		if err := os.Mkdir(filepath.Join(base, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cwd, _ := os.Getwd()
	try := func(t *testing.T, c *client) {
		for _, tool := range []string{"create_session", "create_window", "split_window"} {
			args := map[string]any{"start_directory": filepath.Join(base, "missing", "#(touch "+pwned+")")}
			if tool != "create_session" {
				args["session_name"] = "main"
			}
			if e := c.fail(t, tool, args); e.Code != "invalid_arguments" || e.Effects != "none" {
				t.Errorf("%s with a missing #(...) directory: got %+v, want invalid_arguments, effects none", tool, e)
			}
		}
		for _, d := range odd {
			dir := filepath.Join(base, d)
			var info struct {
				ActivePaneID string `json:"active_pane_id"`
			}
			c.ok(t, "create_session", map[string]any{"start_directory": dir}, &info)
			// Asked of the shell itself, once it runs.
			var ran struct {
				Output []string `json:"output"`
			}
			c.ok(t, "run_command", map[string]any{"pane_id": info.ActivePaneID, "command": "pwd"}, &ran)
			if got := strings.Join(ran.Output, "\n"); got != dir {
				t.Errorf("start_directory %q: the pane started in %q", dir, got)
			}
		}
		for _, p := range []string{pwned, filepath.Join(cwd, "pwned")} {
			if fileExists(p) {
				t.Errorf("a command in start_directory ran: %s exists", p)
			}
		}
		for _, d := range odd {
			if fileExists(filepath.Join(base, d, "pwned")) {
				t.Errorf("a command in start_directory %q ran in it", d)
			}
		}
	}
	t.Run("stdio", func(t *testing.T) { try(t, startClient(t, fx, "", nil)) })
	t.Run("http", func(t *testing.T) {
		s := startHTTP(t, fx, "--auth-tokens", tokenFile(t, tokAlice+" name=alice", tokBob+" name=bob"))
		try(t, s.connect(t, tokAlice, ""))
		try(t, s.connect(t, tokBob, ""))
	})
}

// TestAttackPipePaneFile: pipe_pane's output_path must be a regular file
// or none yet, in a directory that exists: a directory, a device, a FIFO
// or a missing directory are refused before tmux is asked, and #(...) in
// a file name is the file's name. Over stdio and HTTP, and over ssh, where
// the host is asked (here the same machine, through a loopback sshd).
func TestAttackPipePaneFile(t *testing.T) {
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "main", "sh", "-c", "echo piped; exec cat")
	pane := fx.Tmux(t, "display-message", "-p", "-t", "main", "#{pane_id}")
	base := t.TempDir()
	fifo := filepath.Join(base, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sshd := fixtures.NewSSHD(t)
	for _, via := range []struct {
		name    string
		connect func(t *testing.T) *client
	}{
		{"stdio", func(t *testing.T) *client { return startClient(t, fx, "", nil) }},
		{"http", func(t *testing.T) *client {
			s := startHTTP(t, fx, "--auth-tokens", tokenFile(t, tokAlice+" name=alice"))
			return s.connect(t, tokAlice, "")
		}},
		{"ssh", func(t *testing.T) *client {
			return startClient(t, fx, "", []string{"--ssh", shellWords(sshd.ClientArgs(sshd.Port))})
		}},
	} {
		t.Run(via.name, func(t *testing.T) {
			c := via.connect(t)
			for _, p := range []string{base, "/dev/null", fifo, filepath.Join(base, "missing", "out")} {
				if e := c.fail(t, "pipe_pane", map[string]any{"pane_id": pane, "output_path": p}); e.Code != "invalid_arguments" || e.Effects != "none" {
					t.Errorf("pipe_pane to %s: got %+v, want invalid_arguments, effects none", p, e)
				}
			}
			if got := fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_pipe}"); got != "0" {
				t.Errorf("pane_pipe after the refusals: %q, want 0", got)
			}
			odd := filepath.Join(base, via.name+"#(touch pwned);x")
			c.ok(t, "pipe_pane", map[string]any{"pane_id": pane, "output_path": odd}, nil)
			if got := fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_pipe}"); got != "1" {
				t.Errorf("pane_pipe into a new file: %q, want 1", got)
			}
			// The file is made by the shell tmux starts for the pipe, a
			// moment after pipe-pane answered: nothing tells when.
			for deadline := time.Now().Add(10 * time.Second); !fileExists(odd) && time.Now().Before(deadline); {
				time.Sleep(10 * time.Millisecond)
			}
			c.ok(t, "pipe_pane", map[string]any{"pane_id": pane}, nil)
			if fileExists(filepath.Join(base, "pwned")) {
				t.Errorf("#(...) in output_path ran")
			}
			if !fileExists(odd) {
				t.Errorf("the pipe made no file %s in 10 s", odd)
			}
		})
	}
}

// listenRaw sends one 2026-07-28 subscriptions/listen for uri with token
// and returns what came back within 10 s.
func listenRaw(t *testing.T, s *httpServer, token, uri string) string {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":5,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":[` +
		strconv.Quote(uri) + `]},"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"},` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen", "Authorization": "Bearer " + token} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("subscriptions/listen: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestAttackTaggedTokens: two tokens of scope tagged on one server; a
// pane a person tagged with one token's name is that token's alone, a
// pane tagged on is both's, and neither reaches an untagged pane, which
// hears nothing. Over stdio, only on tags.
func TestAttackTaggedTokens(t *testing.T) {
	fx := fixtures.NewServer(t)
	heard := filepath.Join(t.TempDir(), "heard")
	if err := os.WriteFile(heard, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	fx.NewSession(t, "plain", "sh", "-c", "exec cat >"+heard)
	fx.NewSession(t, "alices", "sh", "-c", "exec cat >/dev/null")
	fx.NewSession(t, "shared", "sh", "-c", "exec cat >/dev/null")
	pane := func(s string) string { return fx.Tmux(t, "display-message", "-p", "-t", s, "#{pane_id}") }
	plain, alices, shared := pane("plain"), pane("alices"), pane("shared")
	fx.Tmux(t, "set-option", "-p", "-t", alices, "@mcp", "alice")
	fx.Tmux(t, "set-option", "-w", "-t", "shared", "@mcp", "on")
	s := startHTTP(t, fx, "--auth-tokens", tokenFile(t, tokAlice+" name=alice scope=tagged", tokBob+" name=bob scope=tagged"))
	alice, bob := s.connect(t, tokAlice, ""), s.connect(t, tokBob, "")
	stdio := startClient(t, fx, "", []string{"--scope", "tagged"})
	for _, tc := range []struct {
		who  string
		c    *client
		sees []string
	}{
		{"alice", alice, []string{alices, shared}},
		{"bob", bob, []string{shared}},
		{"stdio", stdio, []string{shared}},
	} {
		var l struct {
			Result []struct {
				PaneID string `json:"pane_id"`
			} `json:"result"`
		}
		tc.c.ok(t, "list_panes", nil, &l)
		var got []string
		for _, p := range l.Result {
			got = append(got, p.PaneID)
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(tc.sees))
		if !slices.Equal(got, want) {
			t.Errorf("%s's list_panes: got %v, want %v", tc.who, got, want)
		}
		for _, p := range []string{plain, alices, shared} {
			res := tc.c.call(t, "send_keys", map[string]any{"pane_id": p, "keys": "typed by " + tc.who, "literal": true})
			if slices.Contains(tc.sees, p) != !res.IsError {
				t.Errorf("%s's send_keys to %s: got %s", tc.who, p, textOf(res))
			}
			if res.IsError {
				if e := envelopeOf(t, res); e.Code != "target_denied" || e.Effects != "none" {
					t.Errorf("%s's send_keys to %s: got %+v, want target_denied, effects none", tc.who, p, e)
				}
			}
		}
	}
	if b, _ := os.ReadFile(heard); len(b) != 0 {
		t.Errorf("the untagged pane heard %q, want nothing", b)
	}
}

// TestAttackNamesRunNothing: #(...), #{...} and ; in every name an agent
// gives tmux (session, window and pane names, titles, environment values)
// and in option values and keys typed as text create no file: each call
// either keeps the text as it is or is refused. Over stdio and over HTTP.
func TestAttackNamesRunNothing(t *testing.T) {
	// The names are short (64 bytes at most): the jobs would find the
	// directory in their environment, which the tmux server inherits.
	dir := t.TempDir()
	t.Setenv("PWN", dir)
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "main", "sh", "-c", "exec cat >/dev/null")
	n := 0
	evil := func() string {
		n++
		return fmt.Sprintf("#(touch $PWN/j%d);touch $PWN/s%d #{session_id}", n, n)
	}
	try := func(t *testing.T, c *client, lane string) {
		attackNames(t, fx, c, "agent-"+lane, evil)
	}
	t.Run("stdio", func(t *testing.T) { try(t, startClient(t, fx, "", nil), "stdio") })
	t.Run("http", func(t *testing.T) {
		s := startHTTP(t, fx, "--auth-tokens", tokenFile(t, tokAlice+" name=alice"))
		try(t, s.connect(t, tokAlice, ""), "http")
	})
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		t.Errorf("a #(...) or ; in an argument ran: %s was created", e.Name())
	}
}

// attackNames makes a session called name and gives every name-taking
// tool an evil text, through c.
func attackNames(t *testing.T, fx *fixtures.Server, c *client, name string, evil func() string) {
	t.Helper()
	var info struct {
		SessionID    string `json:"session_id"`
		ActivePaneID string `json:"active_pane_id"`
	}
	c.ok(t, "create_session", map[string]any{"session_name": name}, &info)
	var w struct {
		WindowID string `json:"window_id"`
	}
	c.ok(t, "create_window", map[string]any{"session_id": info.SessionID}, &w)
	calls := []struct {
		tool string
		args func() map[string]any
	}{
		{"create_session", func() map[string]any { return map[string]any{"session_name": evil(), "window_name": evil()} }},
		{"create_window", func() map[string]any {
			return map[string]any{"session_id": info.SessionID, "window_name": evil(), "environment": map[string]any{"X": evil()}}
		}},
		{"rename_window", func() map[string]any { return map[string]any{"window_id": w.WindowID, "new_name": evil()} }},
		{"rename_session", func() map[string]any { return map[string]any{"session_id": info.SessionID, "new_name": evil()} }},
		{"set_pane_title", func() map[string]any { return map[string]any{"pane_id": info.ActivePaneID, "title": evil()} }},
		{"set_option", func() map[string]any {
			return map[string]any{"scope": "session", "target": info.SessionID, "option": "@note", "value": evil()}
		}},
		{"set_environment", func() map[string]any {
			return map[string]any{"session_id": info.SessionID, "name": "Y", "value": evil()}
		}},
		{"load_buffer", func() map[string]any { return map[string]any{"content": evil()} }},
		{"search_panes", func() map[string]any { return map[string]any{"pattern": evil()} }},
		{"wait_for_text", func() map[string]any {
			return map[string]any{"pane_id": info.ActivePaneID, "patterns": []string{evil()}, "timeout": 0.1}
		}},
	}
	for _, call := range calls {
		args := call.args()
		res := c.call(t, call.tool, args)
		if res.IsError && call.tool != "wait_for_text" {
			t.Errorf("%s %v: %s", call.tool, args, textOf(res))
		}
		if res.IsError {
			if e := envelopeOf(t, res); e.Effects != "none" && e.Code != "deadline" {
				t.Errorf("%s %v: refused with effects %q: %s", call.tool, args, e.Effects, e.Message)
			}
		}
	}
	// Names kept as given, not expanded.
	if got := fx.Tmux(t, "display-message", "-p", "-t", w.WindowID, "#{window_name}"); !strings.HasPrefix(got, "#(touch ") {
		t.Errorf("window name after rename_window: %q, want the text as given", got)
	}
}

// TestTokenSockets: a token line's sockets= takes names or *, and refuses
// a path or another non-name, naming the line, before anything serves.
func TestTokenSockets(t *testing.T) {
	toks, err := readTokens(tokenFile(t, tokAlice+" name=alice sockets=build,ci", tokBob+" name=bob sockets=*", tokRO+" name=ro"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"alice": {"build", "ci"}, "bob": {"*"}, "ro": nil}
	for _, tk := range toks {
		if !slices.Equal(tk.sockets, want[tk.name]) || (tk.sockets == nil) != (want[tk.name] == nil) {
			t.Errorf("token %s: sockets %q, want %q", tk.name, tk.sockets, want[tk.name])
		}
	}
	for _, bad := range []string{"sockets=../x", "sockets=/tmp/x", "sockets=a,-L", "sockets=a,..", "sockets=a/b"} {
		_, err := readTokens(tokenFile(t, tokAlice+" name=alice "+bad))
		if err == nil || !strings.Contains(err.Error(), "line 1") || strings.Contains(err.Error(), tokAlice) {
			t.Errorf("%s: got %v, want a usage error naming line 1 and not the token", bad, err)
		}
	}
}

// TestAttackCrashingKeys: on tmux 3.2a and 3.3a copy-selection crashes
// the whole server; send_keys with drive_mode, alone or in a batch, is
// refused where a key would run it (nothing sent, the server alive), over
// stdio and over HTTP. From 3.4 the key goes through.
func TestAttackCrashingKeys(t *testing.T) {
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "main")
	// Bound before a client connects: the tables are read then.
	fx.Tmux(t, "bind-key", "-T", "copy-mode-vi", "y", "send-keys", "-X", "copy-selection")
	fx.Tmux(t, "set-option", "-g", "mode-keys", "vi")
	crashes := !fx.AtLeast(t, 3, 4) // decided from the version, not by the code under test
	try := func(t *testing.T, c *client) {
		pane := fx.Tmux(t, "new-window", "-d", "-P", "-F", "#{pane_id}")
		fx.Tmux(t, "copy-mode", "-t", pane)
		fx.Tmux(t, "send-keys", "-t", pane, "-X", "begin-selection")
		calls := []struct {
			tool string
			args map[string]any
		}{
			{"send_keys", map[string]any{"pane_id": pane, "keys": []string{"y"}, "drive_mode": true, "enter": false}},
			{"send_keys_batch", map[string]any{"operations": []map[string]any{{"pane_id": pane, "keys": "y", "drive_mode": true, "enter": false}}}},
		}
		if !crashes {
			calls = calls[:1]
		}
		for _, call := range calls {
			res := c.call(t, call.tool, call.args)
			text := textOf(res)
			if crashes && !strings.Contains(text, "crashes tmux") {
				t.Errorf("%s on a crashing tmux: got %s, want a refusal naming the crash", call.tool, text)
			}
			if !crashes && res.IsError {
				t.Errorf("%s: got %s, want the key sent", call.tool, text)
			}
			if fx.Died() {
				t.Fatalf("%s: the tmux server died", call.tool)
			}
		}
		mode := fx.Tmux(t, "display-message", "-p", "-t", pane, "#{pane_in_mode}")
		if buffers := fx.Tmux(t, "list-buffers", "-F", "#{buffer_name}"); crashes && (mode != "1" || buffers != "") {
			t.Errorf("after the refusals: in mode %s, buffers %q; want still in copy mode, none", mode, buffers)
		} else if !crashes && buffers == "" {
			t.Errorf("no buffer after copy-selection: the key was not sent")
		}
		fx.Tmux(t, "kill-pane", "-t", pane)
	}
	t.Run("stdio", func(t *testing.T) { try(t, startClient(t, fx, "", nil)) })
	t.Run("http", func(t *testing.T) {
		s := startHTTP(t, fx, "--auth-tokens", tokenFile(t, tokAlice+" name=alice"))
		try(t, s.connect(t, tokAlice, ""))
	})
}
