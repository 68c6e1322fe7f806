package session

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// Window returns the window ref names, read fresh in one round trip.
func (s *Server) Window(ctx context.Context, ref WindowRef) (Window, error) {
	t, err := s.windowTarget(ctx, ref)
	if err != nil {
		return Window{}, err
	}
	rs, err := s.exec(ctx, s.windowInfoCommand(t))
	if err != nil {
		return Window{}, err
	}
	return s.windowInfoOf(rs[0], t)
}

// windowOp runs cmd on the window ref names and reads the window back on
// the same line.
func (s *Server) windowOp(ctx context.Context, ref WindowRef, cmd func(target string) controlmode.Command) (Window, error) {
	t, err := s.windowTarget(ctx, ref)
	if err != nil {
		return Window{}, err
	}
	rs, err := s.execChange(ctx, cmd(t), s.windowInfoCommand(t))
	if err != nil {
		return Window{}, err
	}
	return s.windowInfoOf(rs[1], t)
}

// NewWindowArgs are the arguments of [Server.NewWindow].
type NewWindowArgs struct {
	Name string
	// Attach makes the new window the session's current one.
	Attach bool
	// Where is "before" or "after" the session's current window; empty
	// takes the next free index.
	Where string
	SpawnArgs
}

// NewWindow creates a window in session (an id) and returns it, in one
// round trip.
func (s *Server) NewWindow(ctx context.Context, session string, a NewWindowArgs) (Window, error) {
	if err := s.checkName(ctx, "a window", a.Name); err != nil {
		return Window{}, err
	}
	args := []string{"-P", "-F", s.fmts.windows.String(), "-t", session}
	if !a.Attach {
		args = append(args, "-d")
	}
	switch a.Where {
	case "after":
		args = append(args, "-a")
	case "before":
		args = append(args, "-b")
	case "":
	default:
		return Window{}, errorf(KindInvalid, "direction %q: want before or after", a.Where)
	}
	if a.Name != "" {
		args = append(args, "-n", formatLiteral(a.Name))
	}
	spawn, err := s.host().spawnArgs(ctx, s.opts, a.SpawnArgs)
	if err != nil {
		return Window{}, err
	}
	rs, err := s.execChange(ctx, controlmode.NewCommand("new-window", append(args, spawn...)...))
	if err != nil {
		return Window{}, err
	}
	return s.windowInfoOf(rs[0], session)
}

// SplitArgs are the arguments of [Server.SplitWindow].
type SplitArgs struct {
	// Direction is where the new pane goes: "below" (the default),
	// "above", "left" or "right".
	Direction string
	// Size is the new pane's size: cells ("20") or a percentage ("30%").
	Size string
	// Shell is the command the new pane runs instead of the default shell.
	Shell string
	SpawnArgs
}

// SplitWindow splits pane (an id), or when pane is empty the active pane
// of the window ref names, and returns the new pane, in one round trip.
// The new pane does not become active.
func (s *Server) SplitWindow(ctx context.Context, pane string, ref WindowRef, a SplitArgs) (Pane, error) {
	args := []string{"-d", "-P", "-F", s.fmts.panes.String()}
	switch a.Direction {
	case "", "below":
		args = append(args, "-v")
	case "above":
		args = append(args, "-v", "-b")
	case "right":
		args = append(args, "-h")
	case "left":
		args = append(args, "-h", "-b")
	default:
		return Pane{}, errorf(KindInvalid, "direction %q: want above, below, left or right", a.Direction)
	}
	if a.Size != "" {
		n, pct := strings.CutSuffix(a.Size, "%")
		v, err := strconv.Atoi(n)
		if err != nil || !isDigits(n) || v < 1 || pct && v > 100 {
			return Pane{}, errorf(KindInvalid, "size %q: want a number of cells or a percentage such as 50%%", a.Size)
		}
		args = append(args, "-l", a.Size)
	}
	spawn, err := s.host().spawnArgs(ctx, s.opts, a.SpawnArgs)
	if err != nil {
		return Pane{}, err
	}
	args = append(args, spawn...)
	t := pane
	if t == "" {
		if t, err = s.windowTarget(ctx, ref); err != nil {
			return Pane{}, err
		}
	}
	cmd := controlmode.NewCommand("split-window", append(args, "-t", t)...)
	if a.Shell != "" {
		cmd = cmd.Text(a.Shell)
	}
	rs, err := s.execChange(ctx, cmd)
	if err != nil {
		return Pane{}, err
	}
	rows, ok := s.fmts.panes.Parse(s.release().DecodeText, rs[0].Lines)
	if !ok || len(rows) != 1 || rows[0].ID == "" {
		return Pane{}, afterChange(errorf(KindRefused, "cannot read split-window's answer %q", rs[0].Lines))
	}
	return rows[0], nil
}

// RenameWindow renames the window ref names and returns it. The name is
// taken literally, and tmux stops renaming the window automatically.
func (s *Server) RenameWindow(ctx context.Context, ref WindowRef, name string) (Window, error) {
	if err := s.checkName(ctx, "a window", name); err != nil {
		return Window{}, err
	}
	return s.windowOp(ctx, ref, func(t string) controlmode.Command {
		return controlmode.NewCommand("rename-window", "-t", t).Text(formatLiteral(name))
	})
}

// Layouts select-layout is given. tmux 3.3a crashes on a name that starts
// with a layout's name and goes on ("tiledx", "main-vertical-mirrored"),
// so only these names, and layout strings as #{window_layout} prints them,
// are passed on.
var (
	layoutNames     = []string{"even-horizontal", "even-vertical", "main-horizontal", "main-vertical", "tiled"}
	mirroredLayouts = []string{"main-horizontal-mirrored", "main-vertical-mirrored"} // tmux 3.5 and later
	layoutString    = regexp.MustCompile(`^[0-9a-f]{4},[0-9]+x[0-9]+,[0-9]+,[0-9]+[0-9x,{}\[\]]*$`)
)

// SelectLayout arranges the panes of the window ref names and returns it.
// layout is one of the preset names or a layout string as
// #{window_layout} prints it; anything else is refused before it reaches
// tmux.
func (s *Server) SelectLayout(ctx context.Context, ref WindowRef, layout string) (Window, error) {
	switch {
	case slices.Contains(layoutNames, layout), layoutString.MatchString(layout):
	case slices.Contains(mirroredLayouts, layout):
		rel, err := s.connectedRelease(ctx)
		if err != nil {
			return Window{}, err
		}
		if !rel.HasMirroredLayouts() {
			return Window{}, errorf(KindInvalid, "layout %s needs tmux 3.5 or later; this server runs %s", layout, rel.Version())
		}
	default:
		return Window{}, errorf(KindInvalid,
			"layout %q: want %s, %s, or a layout string as #{window_layout} prints it",
			layout, strings.Join(layoutNames, ", "), strings.Join(mirroredLayouts, ", "))
	}
	return s.windowOp(ctx, ref, func(t string) controlmode.Command {
		return controlmode.NewCommand("select-layout", "-t", t).Text(layout)
	})
}

// ResizeWindow resizes the window ref names (a zero dimension is left as
// it is) and returns it. tmux then sizes the window manually: clients no
// longer resize it.
func (s *Server) ResizeWindow(ctx context.Context, ref WindowRef, width, height int) (Window, error) {
	if width <= 0 && height <= 0 {
		return Window{}, errorf(KindInvalid, "give width, height or both")
	}
	return s.windowOp(ctx, ref, func(t string) controlmode.Command {
		args := []string{"-t", t}
		if width > 0 {
			args = append(args, "-x", strconv.Itoa(width))
		}
		if height > 0 {
			args = append(args, "-y", strconv.Itoa(height))
		}
		return controlmode.NewCommand("resize-window", args...)
	})
}

// SelectWindow makes a window its session's current one and returns it:
// the window ref names, or with direction ("next", "previous", "last")
// the window that move reaches in the session ref names.
func (s *Server) SelectWindow(ctx context.Context, ref WindowRef, direction string) (Window, error) {
	if direction == "" {
		return s.windowOp(ctx, ref, func(t string) controlmode.Command {
			return controlmode.NewCommand("select-window", "-t", t)
		})
	}
	var name string
	switch direction {
	case "next":
		name = "next-window"
	case "previous":
		name = "previous-window"
	case "last":
		name = "last-window"
	default:
		return Window{}, errorf(KindInvalid, "direction %q: want next, previous or last", direction)
	}
	if ref.SessionID == "" && ref.SessionName == "" {
		return Window{}, fix(errorf(KindNoTarget, "direction %s needs a session", direction), RemedySession)
	}
	sess, err := s.LookupSession(ctx, ref.SessionID, ref.SessionName)
	if err != nil {
		return Window{}, err
	}
	t := sess.ID + ":"
	rs, err := s.execChange(ctx, controlmode.NewCommand(name, "-t", sess.ID), s.windowInfoCommand(t))
	if err != nil {
		return Window{}, err
	}
	return s.windowInfoOf(rs[1], t)
}

// KillWindow kills window id. When that ends the session the control
// client is attached to, the client moves elsewhere first (see
// link.leaveIfLast), else it is settled (see link.settle).
func (s *Server) KillWindow(ctx context.Context, id string) error {
	s.link.leaveIfLast(ctx, id)
	if _, err := s.execChange(ctx, controlmode.NewCommand("kill-window", "-t", id)); err != nil {
		return err
	}
	s.link.settle(ctx)
	return nil
}

// MoveWindow moves the window ref names to index in session dstSession (an
// id or an exact name; empty is the window's own session), or to that
// session's next free index when index is empty, and returns the window
// where it now is.
func (s *Server) MoveWindow(ctx context.Context, ref WindowRef, dstSession, index string) (Window, error) {
	if index != "" && !isDigits(index) {
		return Window{}, errorf(KindInvalid, "destination index %q is not a number", index)
	}
	t, err := s.windowTarget(ctx, ref)
	if err != nil {
		return Window{}, err
	}
	var dst string
	if dstSession != "" {
		id, name := dstSession, ""
		if !strings.HasPrefix(dstSession, "$") {
			id, name = "", dstSession
		}
		sess, err := s.LookupSession(ctx, id, name)
		if err != nil {
			return Window{}, err
		}
		dst = sess.ID
	}
	// The window's id and session, for the destination and the read-back.
	rs, err := s.exec(ctx, s.windowInfoCommand(t))
	if err != nil {
		return Window{}, err
	}
	src, err := s.windowInfoOf(rs[0], t)
	if err != nil {
		return Window{}, err
	}
	wid, sid := src.ID, src.SessionID
	if dst == "" {
		dst = sid
	}
	if dst != sid {
		s.link.leaveIfLast(ctx, wid)
	}
	rs, err = s.execChange(ctx,
		controlmode.NewCommand("move-window", "-s", wid, "-t", dst+":"+index),
		s.windowInfoCommand(wid))
	if err != nil {
		return Window{}, err
	}
	w, err := s.windowInfoOf(rs[1], wid)
	if err != nil {
		return Window{}, err
	}
	// Moving a session's last window away destroys the session.
	s.link.settle(ctx)
	return w, nil
}
