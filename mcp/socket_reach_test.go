package mcp

import (
	"testing"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// fakeSockets is a socketSource with a socket directory and a default.
type fakeSockets struct {
	dir string
	def session.Socket
}

func (f fakeSockets) socketDir() string             { return f.dir }
func (f fakeSockets) defaultSocket() session.Socket { return f.def }

func TestSocketReach(t *testing.T) {
	src := fakeSockets{dir: "/run/tmux-1", def: session.Socket{Name: "main"}}
	for _, tc := range []struct {
		names []string // Options.Sockets
		name  string   // socket_name
		code  string   // "" for allowed
	}{
		{nil, "", ""},
		{nil, "anything", ""},
		{nil, "../../victim", CodeInvalidArguments},
		{[]string{}, "", ""},
		{[]string{}, "main", ""}, // the default, by its name
		{[]string{}, "other", CodeTargetDenied},
		{[]string{}, "/run/tmux-1/main", CodeInvalidArguments},
		{[]string{"build"}, "build", ""},
		{[]string{"build"}, "builds", CodeTargetDenied},
		{[]string{"build", AllSockets}, "other", ""},
		{[]string{AllSockets}, "-L", CodeInvalidArguments},
	} {
		r, err := newSocketReach(tc.names, src)
		if err != nil {
			t.Fatal(err)
		}
		te := r.check(Socket{SocketName: tc.name})
		got := ""
		if te != nil {
			got = te.Code
			if te.Effects != EffectsNone {
				t.Errorf("%v %q: effects %q, want none", tc.names, tc.name, te.Effects)
			}
		}
		if got != tc.code {
			t.Errorf("reach %v, socket_name %q: got %q, want %q", tc.names, tc.name, got, tc.code)
		}
	}
	// The default socket as tmux's own default server.
	r, _ := newSocketReach([]string{}, fakeSockets{dir: "/run/tmux-1"})
	if te := r.check(Socket{SocketName: "default"}); te != nil {
		t.Errorf("socket_name default with tmux's default server configured: %v", te)
	}
	if _, err := newSocketReach([]string{"../x"}, src); err == nil {
		t.Errorf("newSocketReach with a path: no error")
	}
	// list_servers: rows and extra paths in reach only.
	r, _ = newSocketReach([]string{"build"}, src)
	l := r.cutServers(List[ServerInfo]{Result: []ServerInfo{
		{SocketName: "main", SocketPath: "/run/tmux-1/main"}, {SocketName: "build", SocketPath: "/run/tmux-1/build"},
		{SocketName: "other", SocketPath: "/run/tmux-1/other"}, {SocketPath: "/elsewhere/sock"},
	}, Total: 4})
	if len(l.Result) != 2 || l.Total != 2 || l.Result[0].SocketName != "main" || l.Result[1].SocketName != "build" {
		t.Errorf("cutServers: got %+v, want main and build", l)
	}
	if te := r.checkPaths([]string{"/run/tmux-1/build", "/run/tmux-1/../tmux-1/main"}); te != nil {
		t.Errorf("checkPaths of sockets in reach: %v", te)
	}
	if te := r.checkPaths([]string{"/run/tmux-1/other"}); te == nil || te.Code != CodeTargetDenied {
		t.Errorf("checkPaths of a socket out of reach: got %v, want target_denied", te)
	}
}
