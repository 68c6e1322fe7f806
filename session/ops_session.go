package session

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// Sessions returns every session, served from the model: it costs no tmux
// call while nothing has changed. A server that is not running has none.
func (s *Server) Sessions(ctx context.Context) ([]Session, error) {
	if err := s.sync(ctx); err != nil {
		if noServer(err) {
			return nil, nil
		}
		return nil, err
	}
	sessions, _, _ := s.model.snapshot()
	return sessions, nil
}

// Session returns the session named by target: an id ("$1") or an exact
// name.
func (s *Server) Session(ctx context.Context, target string) (Session, error) {
	sessions, err := s.Sessions(ctx)
	if err != nil {
		return Session{}, err
	}
	for _, x := range sessions {
		if x.ID == target {
			return x, nil
		}
	}
	for _, x := range sessions {
		if x.Name == target {
			return x, nil
		}
	}
	return Session{}, errorf(KindNotFound, "can't find session: %s", target)
}

// CreateSessionArgs are the arguments of [Server.CreateSession].
type CreateSessionArgs struct {
	Name       string
	WindowName string
	Width      int // 0: tmux's default
	Height     int
	SpawnArgs
}

// CreateSession creates a detached session and records it as owned by this
// process, on behalf of the identity in ctx ([WithOwner]). With no server
// running it starts one.
func (s *Server) CreateSession(ctx context.Context, a CreateSessionArgs) (Session, error) {
	args, err := s.newSessionArgs(ctx, a)
	if err != nil {
		return Session{}, err
	}
	if gen := s.Generation(); gen != "" && s.owned.count(gen) >= MaxOwned {
		return Session{}, errorf(KindOwnedLimit, "this process already owns %d sessions on socket %s; tear some down first", MaxOwned, s.sock)
	}
	line, err := s.newSession(ctx, args)
	if err != nil {
		return Session{}, err
	}
	// Connecting now reads the generation the session belongs to, and the
	// release that printed line.
	if _, err := s.link.connect(ctx); err != nil {
		return Session{}, afterChange(err) // the session was made
	}
	rows, ok := s.fmts.sessions.Parse(s.release().DecodeText, []string{line})
	if !ok || len(rows) != 1 {
		return Session{}, afterChange(errorf(KindRefused, "cannot read new-session's answer %q", line))
	}
	sess := rows[0]
	if (a.Width > 0 || a.Height > 0) && s.release().NewSessionIgnoresSize() {
		if err := s.resizeNewSession(ctx, sess.ID, a.Width, a.Height); err != nil {
			return Session{}, err
		}
	}
	sess.Generation = s.Generation()
	s.owned.add(sess.Generation, sess.ID, OwnerOf(ctx))
	return sess, nil
}

// newSessionArgs returns new-session's arguments for a, checked as far as
// they can be before anything is sent.
func (s *Server) newSessionArgs(ctx context.Context, a CreateSessionArgs) ([]string, error) {
	if s.link.live() {
		// The server's release is known only once connected; before the
		// first connect tmux itself refuses what this would.
		rel := s.release()
		if err := rel.CheckName("a session", a.Name); err != nil {
			return nil, err
		}
		if err := rel.CheckName("a window", a.WindowName); err != nil {
			return nil, err
		}
	}
	args := []string{"-d", "-P", "-F", s.fmts.sessions.String()}
	// tmux expands formats in both names.
	if a.Name != "" {
		args = append(args, "-s", formatLiteral(a.Name))
	}
	if a.WindowName != "" {
		args = append(args, "-n", formatLiteral(a.WindowName))
	}
	if a.Width > 0 {
		args = append(args, "-x", strconv.Itoa(a.Width))
	}
	if a.Height > 0 {
		args = append(args, "-y", strconv.Itoa(a.Height))
	}
	spawn, err := s.host().spawnArgs(ctx, s.opts, a.SpawnArgs)
	if err != nil {
		return nil, err
	}
	args = append(args, spawn...)
	if err := controlmode.NewCommand("new-session", args...).Err(); err != nil {
		return nil, fromExec(err)
	}
	return args, nil
}

// newSession runs new-session with args and returns the row it printed:
// on the control client, or, with no server to attach to, in a one-shot
// that starts the server (the control client attaches to the new session
// on the next call).
func (s *Server) newSession(ctx context.Context, args []string) (string, error) {
	rs, err := s.execChange(ctx, controlmode.NewCommand("new-session", args...))
	switch {
	case err == nil && len(rs[0].Lines) == 1:
		return rs[0].Lines[0], nil
	case err == nil:
		return "", afterChange(errorf(KindRefused, "new-session printed %d lines, want 1", len(rs[0].Lines)))
	case !noServer(err):
		return "", err
	}
	out, stderr, err := s.shots.forkTmux(ctx, append([]string{"new-session"}, args...)...)
	if err != nil {
		return "", err
	}
	line := strings.TrimSuffix(out, "\n")
	if line == "" && !s.shots.serverListening(ctx) {
		// tmux reports a socket it cannot create from the server it
		// forked, and the client still exits 0.
		return "", afterChange(errorf(KindNoServer, "could not start a tmux server on socket %s: %s", s.sock, orDefault(stderr, "is its directory writable?")))
	}
	return line, nil
}

// resizeNewSession gives the window of a session just made the size asked
// for, where new-session's -x and -y were lost (tmux 3.2): resize-window,
// which sizes that window manually from then on.
func (s *Server) resizeNewSession(ctx context.Context, id string, width, height int) error {
	args := []string{"-t", id + ":"}
	if width > 0 {
		args = append(args, "-x", strconv.Itoa(width))
	}
	if height > 0 {
		args = append(args, "-y", strconv.Itoa(height))
	}
	_, err := s.exec(ctx, controlmode.NewCommand("resize-window", args...))
	return err
}

// Owns reports whether this process created session id in generation gen,
// on behalf of the identity in ctx ([WithOwner]), and has not torn it down.
func (s *Server) Owns(ctx context.Context, gen, id string) bool {
	return s.owned.has(gen, id, OwnerOf(ctx))
}

// Owned returns the ids of the sessions this process owns on the server's
// current generation, whoever it created them for.
func (s *Server) Owned() []string {
	ids := s.owned.list(s.Generation())
	slices.Sort(ids)
	return ids
}

// OwnedSessions returns the sessions this process owns on the server's
// current generation, each with the identity it created it for, by id.
func (s *Server) OwnedSessions() []OwnedSession { return s.owned.sessions(s.Generation()) }

// KillSession kills a session, owned or not. When the control client is
// attached to it, the client moves to another session first (see
// link.leave), and is settled after (see link.settle).
func (s *Server) KillSession(ctx context.Context, id string) error {
	s.link.leave(ctx, id)
	if _, err := s.execChange(ctx, controlmode.NewCommand("kill-session", "-t", id)); err != nil {
		return err
	}
	s.owned.remove(s.Generation(), id)
	s.link.settle(ctx)
	return nil
}

// TeardownSession kills a session this process created in generation gen
// for the identity in ctx ([WithOwner]). Ownership is checked before any
// tmux I/O: a session it did not create, or created for another identity,
// a generation that is not the current one, or a session already torn
// down is refused with [KindNotOwned] and no effects. An owned session that
// someone else killed already tears down as completed. The control client
// is spared as by KillSession.
func (s *Server) TeardownSession(ctx context.Context, id, gen string) error {
	refuse := func(why string) error {
		return errorf(KindNotOwned, "session %s of generation %s %s", id, gen, why)
	}
	owner := OwnerOf(ctx)
	if cur := s.Generation(); gen != cur || !s.owned.has(gen, id, owner) {
		if gen != cur && cur != "" {
			return refuse("was not created by this process on the current server (generation " + cur + ")")
		}
		if who, ok := s.owned.owner(gen, id); ok && who != owner {
			return refuse("was created by another client (another token): only the client that created a session may tear it down")
		}
		return refuse("was not created by this process, or was already torn down")
	}
	// A connection lives exactly as long as its server: if the server
	// restarted, connecting reads the new generation and drops ownership.
	if _, err := s.link.connect(ctx); err != nil {
		if noServer(err) {
			s.owned.remove(gen, id)
			return nil // the server and every session with it are gone
		}
		return err
	}
	if s.Generation() != gen {
		return refuse("belongs to a server that has since restarted")
	}
	s.link.leave(ctx, id)
	_, err := s.execChange(ctx, controlmode.NewCommand("kill-session", "-t", id))
	if err != nil && !IsNotFound(err) {
		return err
	}
	s.owned.remove(gen, id)
	s.link.settle(ctx)
	return nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// LookupSession returns a session from the model: the one with id when id
// is given, else the one named exactly name, else (both empty) the oldest
// session, the one with the lowest id, which no rename or activity can
// change. It costs no tmux call while the model is current. A miss is
// checked once more against a fresh listing: the model learns of another
// client's new session from a notification that may still be in flight.
func (s *Server) LookupSession(ctx context.Context, id, name string) (Session, error) {
	for fresh := false; ; fresh = true {
		sessions, err := s.Sessions(ctx)
		if err != nil {
			return Session{}, err
		}
		if x, ok := pickSession(sessions, id, name); ok {
			return x, nil
		}
		if fresh || len(sessions) == 0 {
			break // no server: nothing a notification could be about
		}
		s.model.markDirty()
	}
	switch {
	case id != "":
		return Session{}, errorf(KindNotFound, "can't find session: %s", id)
	case name != "":
		return Session{}, errorf(KindNotFound, "can't find session: %s", name)
	}
	return Session{}, errorf(KindNotFound, "no tmux sessions on socket %s", s.sock)
}

// pickSession is LookupSession's choice among sessions.
func pickSession(sessions []Session, id, name string) (Session, bool) {
	switch {
	case id != "":
		i := slices.IndexFunc(sessions, func(x Session) bool { return x.ID == id })
		return sessionAt(sessions, i)
	case name != "":
		i := slices.IndexFunc(sessions, func(x Session) bool { return x.Name == name })
		return sessionAt(sessions, i)
	case len(sessions) == 0:
		return Session{}, false
	}
	return slices.MinFunc(sessions, func(a, b Session) int { return CompareIDs(a.ID, b.ID) }), true
}

func sessionAt(sessions []Session, i int) (Session, bool) {
	if i < 0 {
		return Session{}, false
	}
	return sessions[i], true
}

// RenameSession renames session id and returns it as it is now, in one
// round trip. The name is taken literally: tmux expands formats in it, so
// every # is doubled.
func (s *Server) RenameSession(ctx context.Context, id, newName string) (Session, error) {
	if err := s.checkName(ctx, "a session", newName); err != nil {
		return Session{}, err
	}
	rs, err := s.execChange(ctx,
		controlmode.NewCommand("rename-session", "-t", id).Text(formatLiteral(newName)),
		controlmode.NewCommand("display-message", "-p", "-t", id, "-F", s.fmts.sessions.String()))
	if err != nil {
		return Session{}, err
	}
	rows, ok := s.fmts.sessions.Parse(s.release().DecodeText, rs[1].Lines)
	if !ok || len(rows) != 1 || rows[0].ID == "" {
		return Session{}, errorf(KindNotFound, "can't find session: %s", id)
	}
	rows[0].Generation = s.Generation()
	return rows[0], nil
}
