package session

import (
	"context"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// WaitForChannel blocks until tmux's wait-for channel is signalled, in a
// tmux process of its own that the context kills: the shared channel must
// never carry a blocking command.
func (s *Server) WaitForChannel(ctx context.Context, channel string, timeout time.Duration) error {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if _, _, err := s.shots.forkTmux(wctx, "wait-for", "--", channel); err != nil {
		if wctx.Err() != nil && ctx.Err() == nil {
			return errorf(KindDeadline, "channel %q was not signalled within %v", channel, timeout)
		}
		return err
	}
	// wait-for also ends with status 0 when the server dies: ask again.
	if !s.shots.serverListening(ctx) {
		return errorf(KindNoServer, "the tmux server on socket %s exited while waiting for channel %q", s.sock, channel)
	}
	return nil
}

// SignalChannel wakes every waiter on tmux's wait-for channel. wait-for
// -S does not block, so it goes over the control client like any command:
// no fork, and no server is the connect's own answer.
func (s *Server) SignalChannel(ctx context.Context, channel string) error {
	_, err := s.exec(ctx, controlmode.NewCommand("wait-for", "-S", "--", channel))
	return err
}
