package mcp

import (
	"encoding/json"
	"os"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/session"
)

// testSocketDir is where the fixtures' tmux puts its named sockets: the
// tests read the environment that cmd would.
func testSocketDir() string { return session.SocketDir(os.Getenv("TMUX_TMPDIR"), os.Getuid()) }

// protocolVersions are the versions every real-tmux tool test runs under.
var protocolVersions = []string{"2025-06-18", "2025-11-25", "2026-07-28"}

// tmuxEnv is one MCP client connected to a TmuxBackend that serves a
// private tmux server. The server is not started: call fx.NewSession, or
// create_session, first.
type tmuxEnv struct {
	fx      *fixtures.Server
	manager *session.Manager
	backend *TmuxBackend
	cs      *sdk.ClientSession
}

// newTmuxEnv connects a client speaking version to a destructive-tier
// server over in-memory transports. opts may adjust the backend options
// (the socket is always the fixture's).
func newTmuxEnv(t *testing.T, version string, opts *TmuxOptions) *tmuxEnv {
	t.Helper()
	fx := fixtures.NewServer(t)
	m := session.NewManager(&session.Options{Tmux: fx.Bin, ConfigFile: "/dev/null", SocketDir: testSocketDir(), Host: testHost(t)})
	t.Cleanup(func() { m.Close() })
	var o TmuxOptions
	if opts != nil {
		o = *opts
	}
	o.Socket = session.Socket{Name: fx.Socket}
	b := NewTmuxBackend(m, &o)
	cs := connect(t, b, &Options{Safety: "destructive"}, version)
	return &tmuxEnv{fx: fx, manager: m, backend: b, cs: cs}
}

// forEachVersion runs f once per protocol version, each with its own
// private tmux server.
func forEachVersion(t *testing.T, f func(t *testing.T, env *tmuxEnv)) {
	for _, v := range protocolVersions {
		t.Run(v, func(t *testing.T) { f(t, newTmuxEnv(t, v, nil)) })
	}
}

// ok calls a tool that must succeed and decodes its structured result
// into out (which may be nil).
func (e *tmuxEnv) ok(t *testing.T, tool string, args map[string]any, out any) {
	t.Helper()
	res := call(t, e.cs, tool, args)
	if res.IsError {
		t.Fatalf("%s(%v): got error %s", tool, args, textOf(res))
	}
	if out == nil {
		return
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: decoding %s: %v", tool, b, err)
	}
}

// fail calls a tool that must fail and returns its envelope.
func (e *tmuxEnv) fail(t *testing.T, tool string, args map[string]any) envelopeBody {
	t.Helper()
	return envelopeOf(t, call(t, e.cs, tool, args))
}

// wantCode checks an envelope's code.
func wantCode(t *testing.T, env envelopeBody, code string) {
	t.Helper()
	if env.Code != code {
		t.Fatalf("got %+v, want code %s", env, code)
	}
}
