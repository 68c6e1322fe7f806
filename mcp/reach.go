package mcp

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// socketReach is which tmux servers a server's clients may reach by
// socket_name: every one (stdio, unless --sockets narrows it), or the
// operator's default socket and the names given (--sockets, a token's
// sockets=). Whatever the reach, a socket_name must be a name: a path is
// only the operator's (--socket-path, LIBTMUX_SOCKET_PATH).
type socketReach struct {
	all   bool
	names []string     // the names reached besides the default
	src   socketSource // nil when the backend offers none
}

// socketSource is what a backend says about sockets: where named sockets
// live and which socket a call that names none reaches. TmuxBackend
// implements it.
type socketSource interface {
	// socketDir is the directory of named sockets; "" when unknown.
	socketDir() string
	// defaultSocket is the socket a call that names none reaches.
	defaultSocket() session.Socket
}

// AllSockets in [Options.Sockets] lets the clients reach every socket.
const AllSockets = "*"

// newSocketReach reads Options.Sockets: nil is every socket; otherwise
// the names listed, or every socket if one of them is [AllSockets]. A name
// that is not one is an error wrapping ErrUsage.
func newSocketReach(names []string, src socketSource) (*socketReach, error) {
	r := &socketReach{all: names == nil, src: src}
	for _, n := range names {
		if n == AllSockets {
			r.all = true
			continue
		}
		if n == "" {
			continue
		}
		if err := session.CheckSocketName(n, r.dir()); err != nil {
			return nil, fmt.Errorf("%w: sockets: %v", ErrUsage, err)
		}
		r.names = append(r.names, n)
	}
	return r, nil
}

func (r *socketReach) dir() string {
	if r.src == nil {
		return ""
	}
	return r.src.socketDir()
}

// defaultFile is the socket file a call that names none reaches; "" when
// it cannot be told.
func (r *socketReach) defaultFile() string {
	if r.src == nil {
		return ""
	}
	return r.src.defaultSocket().File(r.dir())
}

// reaches reports whether the socket named name (a valid name) is in reach.
func (r *socketReach) reaches(name string) bool {
	if r.all || slices.Contains(r.names, name) {
		return true
	}
	// The default server named by its name ("default", or the --socket
	// name): the same socket file.
	f, dir := r.defaultFile(), r.dir()
	return f != "" && dir != "" && filepath.Join(dir, name) == f
}

// check refuses, before anything runs, a socket_name that is not a name
// (invalid_arguments) or names a server out of reach (target_denied): no
// server is started or reached for it.
func (r *socketReach) check(sock Socket) *ToolError {
	name := sock.SocketName
	if name == "" {
		return nil
	}
	if err := session.CheckSocketName(name, r.dir()); err != nil {
		return invalidArguments("socket_name: %v (a path is only the operator's: --socket-path)", err)
	}
	if r.reaches(name) {
		return nil
	}
	te := Errorf(CodeTargetDenied, EffectsNone,
		"socket_name %q names a tmux server this client may not reach: it reaches only the server configured for it%s", name, r.namesNote())
	te.Suggestion = "leave socket_name out to use the configured server; the operator adds a socket with sockets=NAME on the token's line (--auth-tokens) or --sockets NAME."
	return te
}

func (r *socketReach) namesNote() string {
	if len(r.names) == 0 {
		return ""
	}
	return " and " + strings.Join(r.names, ", ")
}

// checkPaths refuses list_servers' extra socket paths out of reach: with
// a narrowed reach, only the files of the sockets in reach.
func (r *socketReach) checkPaths(paths []string) *ToolError {
	if r.all {
		return nil
	}
	for _, p := range paths {
		if !r.reachesFile(p) {
			return Errorf(CodeTargetDenied, EffectsNone,
				"extra_socket_paths %q is not a socket this client may reach: it reaches only the server configured for it%s", p, r.namesNote())
		}
	}
	return nil
}

// reachesFile reports whether the socket file path belongs to a server in
// reach.
func (r *socketReach) reachesFile(path string) bool {
	if r.all {
		return true
	}
	p := filepath.Clean(path)
	if f := r.defaultFile(); f != "" && filepath.Clean(f) == p {
		return true
	}
	dir := r.dir()
	return dir != "" && filepath.Dir(p) == filepath.Clean(dir) && slices.Contains(r.names, filepath.Base(p))
}

// cutServers keeps the rows of list_servers in reach.
func (r *socketReach) cutServers(l List[ServerInfo]) List[ServerInfo] {
	if r.all {
		return l
	}
	l.Result = slices.DeleteFunc(l.Result, func(s ServerInfo) bool {
		if s.SocketPath != "" {
			return !r.reachesFile(s.SocketPath)
		}
		return s.SocketName == "" || !r.reaches(s.SocketName)
	})
	l.Total = len(l.Result)
	return l
}

// checkResource refuses a tmux:// URI whose socket_name is not a name or
// is out of reach.
func (r *socketReach) checkResource(_ context.Context, uri string) *ToolError {
	sock, _, ok := resourceTargets(uri)
	if !ok {
		return nil
	}
	return r.check(sock)
}

// socketDir implements socketSource.
func (b *TmuxBackend) socketDir() string { return b.m.SocketDir() }

// defaultSocket implements socketSource.
func (b *TmuxBackend) defaultSocket() session.Socket { return b.opts.Socket }
