package session

import (
	"context"
	"errors"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/release"
)

// readyClient prepares main client c, just started: it opens the held
// prompt, then reads the server's generation, version and whole model in
// one round trip, and its mode keys where the release binds them.
func (s *Server) readyClient(ctx context.Context, c *controlmode.Conn) (serverInfo, error) {
	s.keys.holdPrompt(ctx, c) // before any call can send keys: see modes.go
	_, epoch := s.model.needsSync()
	cmds := append([]controlmode.Command{
		controlmode.NewCommand("display-message", "-p", "#{pid}:#{start_time}"),
		controlmode.NewCommand("display-message", "-p", "#{version}"),
	}, s.fmts.listCommands()...)
	rs, err := s.send(ctx, c, cmds...)
	if err != nil || len(rs[0].Lines) != 1 || len(rs[1].Lines) != 1 {
		if err == nil {
			err = errors.New("unexpected reply to the generation query")
		}
		return serverInfo{}, &Error{Kind: KindNoServer, Msg: "reading the tmux server's state: " + err.Error(), Err: err}
	}
	info := serverInfo{gen: rs[0].Lines[0], version: rs[1].Lines[0]}
	rel := release.Of(info.version)
	s.installSync(epoch, info.gen, rel, rs[2:])
	if rel.BindsPanePrompts() || rel.CrashesInCopyMode() {
		info.keys = s.keys.readModeKeys(ctx, c, rel)
	}
	return info, nil
}

// resyncLoop resyncs the model in the background soon after structural
// notifications, so that reads find it clean.
func (s *Server) resyncLoop() {
	for {
		select {
		case <-s.kick:
		case <-s.link.stopped():
			return
		}
		t := time.NewTimer(s.opts.ResyncDelay)
		select {
		case <-t.C:
		case <-s.link.stopped():
			t.Stop()
			return
		}
		if !s.link.installed() {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
		if err := s.sync(ctx); err != nil {
			s.opts.Logger.Debug("background resync failed", "socket", s.sock.String(), "err", err)
		}
		cancel()
	}
}

// sync brings the model up to date if it is dirty, in one round trip.
// Concurrent callers share a resync, which runs detached from each of
// them; each waits for it on its own context.
func (s *Server) sync(ctx context.Context) error {
	for range 3 {
		if need, _ := s.model.needsSync(); !need {
			return nil
		}
		flight := s.group.DoChan("sync", func() (any, error) {
			// Detached from every caller: callers share this resync, and
			// one caller's cancellation must not fail the others. The
			// liveness deadline bounds a stuck client; this, the rest.
			ctx, cancel := context.WithTimeout(context.Background(), connectTimeout)
			defer cancel()
			need, epoch := s.model.needsSync()
			if !need {
				return nil, nil
			}
			c, err := s.link.connect(ctx)
			if err != nil {
				return nil, err
			}
			rs, err := s.send(ctx, c, s.fmts.listCommands()...)
			if err != nil {
				return nil, fromExec(err)
			}
			s.installSync(epoch, s.Generation(), s.release(), rs)
			return nil, nil
		})
		var err error
		select {
		case r := <-flight:
			err = r.Err
		case <-ctx.Done():
			// This caller's own end: the resync goes on for the others,
			// and it only reads, so this call changed nothing.
			return notSent(ctx.Err())
		}
		var e *Error
		if errors.As(err, &e) && e.Kind == KindConnLost && !errors.Is(err, controlmode.ErrUnresponsive) {
			// A resync only reads: if the client ended under it (its
			// session killed, say), read again on the next one.
			continue
		}
		if errors.Is(err, controlmode.ErrUnresponsive) {
			return unresponsive(err, s.fmts.listCommands()) // it only read
		}
		if err != nil {
			return err
		}
		// A resync already under way when this call came may predate the
		// change this call must see: go round until one covers it.
	}
	// Still changing after three: answer with the newest picture rather
	// than chase a server in constant churn.
	return nil
}

// installSync parses the replies to listCommands into the model.
func (s *Server) installSync(epoch uint64, gen string, rel release.Facts, rs []controlmode.Reply) {
	sessions, _ := s.fmts.sessions.Parse(rel.DecodeText, rs[0].Lines)
	windows, _ := s.fmts.windows.Parse(rel.DecodeText, rs[1].Lines)
	panes, _ := s.fmts.panes.Parse(rel.DecodeText, rs[2].Lines)
	for i := range sessions {
		sessions[i].Generation = gen
	}
	live := make(map[string]bool, len(panes))
	in := make(map[string][]string, len(panes)) // a linked window's pane is in several sessions
	for _, p := range panes {
		live[p.ID] = true
		in[p.ID] = append(in[p.ID], p.SessionID)
	}
	// A pane that moved (move-window, join-pane) is followed where it went.
	s.streams.EndMoved(in, s.link.sessionOfSource)
	s.model.replace(epoch, sessions, windows, panes) // the model owns the slices from here
	s.streams.Retain(live)
}
