package session

import (
	"context"
	"errors"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/release"
)

// ServerStatus describes one tmux server as get_server_info and
// list_servers report it.
type ServerStatus struct {
	Socket     Socket // the socket asked about
	SocketPath string // the socket file; "" when not known
	Alive      bool   // a server answers on the socket
	Sessions   int    // number of sessions
	Version    string // the server's tmux version; "" when not known
}

// Status reports on the server. It never starts one: a socket nobody
// listens on is a server that is not alive, which is not an error. When
// the control client is not up yet, a one-shot list-sessions asks first,
// because attaching to an empty socket would start a server. The session
// count is read fresh, not from the model, so that it counts a session
// another client made a moment ago.
func (s *Server) Status(ctx context.Context) (ServerStatus, error) {
	st := ServerStatus{Socket: s.sock, SocketPath: s.sock.Path}
	if !s.link.live() {
		if _, _, err := s.shots.forkTmux(ctx, "-N", "list-sessions", "-F", "#{session_id}"); noServerMessage(err) {
			return st, nil
		}
	}
	switch err := s.sync(ctx); {
	case errors.Is(err, errNoServer):
		return st, nil
	case errors.Is(err, errNoSessions):
		// A server kept alive with exit-empty off: there, but with nothing
		// a control client could attach to.
		st.Alive = true
		return st, nil
	case err != nil:
		return st, err
	}
	rs, err := s.exec(ctx,
		controlmode.NewCommand("display-message", "-p", release.TextField("socket_path")),
		controlmode.NewCommand("list-sessions", "-F", "#{session_id}"))
	if err != nil {
		return st, err
	}
	if len(rs[0].Lines) == 1 && rs[0].Lines[0] != "" {
		st.SocketPath = s.release().DecodeText(rs[0].Lines[0])
	}
	st.Alive, st.Sessions, st.Version = true, len(rs[1].Lines), s.Version()
	return st, nil
}

// KillServer kills the tmux server and every session on it. Over the
// control client it then waits for the client to end, so that the next
// call finds no server rather than a connection in its last moments;
// without one it runs a one-shot kill-server (attaching first would start
// a server on an empty socket). A socket with no server is [KindNotFound].
func (s *Server) KillServer(ctx context.Context) error {
	if !s.link.live() {
		_, _, err := s.shots.forkTmux(ctx, "-N", "kill-server")
		if noServerMessage(err) {
			return errorf(KindNotFound, "no tmux server is running on socket %s", s.sock)
		}
		s.model.markDirty()
		return err
	}
	c, err := s.link.connect(ctx)
	if err != nil {
		return err
	}
	_, err = s.send(ctx, c, controlmode.NewCommand("kill-server"))
	s.model.markDirty()
	// The reply comes before the client's %exit; a connection that ended
	// first still means the server is going.
	if err != nil && !errors.Is(err, controlmode.ErrClosed) {
		return fromExec(err)
	}
	s.link.waitEnded(ctx, c)
	return nil
}
