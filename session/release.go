package session

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/session/internal/release"
)

// Version returns the tmux version of the server, "" before the first
// connect.
func (s *Server) Version() string {
	return s.release().Version()
}

// release returns what the tmux release of the server does; before the
// first connect, that of the newest release. Replies are read with it;
// commands whose form depends on it are built with [Server.connectedRelease].
func (s *Server) release() release.Facts { return s.link.release() }

// connectedRelease connects if need be and returns the server's release.
func (s *Server) connectedRelease(ctx context.Context) (release.Facts, error) {
	if _, err := s.link.connect(ctx); err != nil {
		return release.Facts{}, err
	}
	return s.release(), nil
}

// checkName refuses, before anything is sent, a name the server's release
// would refuse. It connects first, so the release is known.
func (s *Server) checkName(ctx context.Context, what, name string) error {
	if name == "" {
		return nil
	}
	rel, err := s.connectedRelease(ctx)
	if err != nil {
		return err
	}
	return rel.CheckName(what, name)
}
