package session

import (
	"context"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// Naming things to tmux: the refs the tools pass in, the target strings
// they become, and the commands that resolve a target to a pane or window
// on the same line as the work. Session names are always matched exactly.

// refTarget returns the tmux target for ref.
func refTarget(ref PaneRef) string {
	switch {
	case ref.PaneID != "":
		return ref.PaneID
	case ref.WindowID != "":
		return ref.WindowID
	case ref.SessionID != "":
		return ref.SessionID
	case ref.SessionName != "":
		// "=" asks for the exact name, never a prefix or pattern; the ":"
		// makes it a session, since a bare "=name" is first looked up as a
		// window of the control client's own session.
		return sessionNameTarget(ref.SessionName)
	}
	return ""
}

// ResolvePane returns the id of the pane ref names. A zero ref is
// [KindNoTarget]: which pane a call that names none should use is the
// caller's policy (the mcp read tools take the oldest session's active
// pane, through [Server.LookupSession]).
func (s *Server) ResolvePane(ctx context.Context, ref PaneRef) (string, error) {
	if isPaneID(ref.PaneID) { // a pane id wins over the rest of ref (PaneRef.target)
		if p, ok := s.model.paneByID(ref.PaneID); ok {
			return p.ID, nil
		}
	}
	t, err := paneTarget(ref)
	if err != nil {
		return "", err
	}
	rs, err := s.exec(ctx, paneIDCommand(t))
	if err != nil {
		return "", err
	}
	return paneIDOf(rs[0], t)
}

// formatLiteral returns s for a tmux argument in which formats are expanded
// (new-window -n, rename-window, rename-session, new-session -s and -n):
// every # doubled, so the name is exactly s.
func formatLiteral(s string) string { return strings.ReplaceAll(s, "#", "##") }

// paneTarget returns the tmux target of the pane ref names, or
// [KindNoTarget] for a zero ref: session never picks a default pane.
func paneTarget(ref PaneRef) (string, error) {
	if t := refTarget(ref); t != "" {
		return t, nil
	}
	return "", fix(errorf(KindNoTarget, "no target given: a pane, window or session is needed"), RemedyPane)
}

// paneIDCommand prints the id of the pane target names. It does not fail
// on a missing target (display-message prints an empty line, which
// paneIDOf answers [KindNotFound]): the commands after it on a line still run,
// so each must fail on a missing pane by itself, or be cleaned up after
// (as PasteText does with its buffer).
func paneIDCommand(target string) controlmode.Command {
	return controlmode.NewCommand("display-message", "-p", "-t", target, "#{pane_id}")
}

// paneIDOf reads the reply of paneIDCommand.
func paneIDOf(r controlmode.Reply, target string) (string, error) {
	if len(r.Lines) != 1 || !strings.HasPrefix(r.Lines[0], "%") {
		return "", errorf(KindNotFound, "can't find pane: %s", target)
	}
	return r.Lines[0], nil
}

// onPane runs cmds on one line and returns the id of the pane target t
// names and the replies of cmds. The first of cmds must act on that pane
// and fail when it is missing, as send-keys, capture-pane, pipe-pane and
// clear-history do (display-message does not), so that nothing after it
// runs. A target that is not a pane id is looked up on the same line
// first (paneIDCommand), for the id the caller answers with. A pane id is
// that answer already, which spares tmux a command on every send or
// capture.
func (s *Server) onPane(ctx context.Context, t string, cmds ...controlmode.Command) (string, []controlmode.Reply, error) {
	if isPaneID(t) {
		rs, err := s.exec(ctx, cmds...)
		if err != nil {
			return "", nil, err
		}
		return t, rs, nil
	}
	rs, err := s.exec(ctx, append([]controlmode.Command{paneIDCommand(t)}, cmds...)...)
	if err != nil {
		return "", nil, err
	}
	id, err := paneIDOf(rs[0], t)
	if err != nil {
		return "", nil, err
	}
	return id, rs[1:], nil
}

// paneInfoCommand prints one row of the pane format for target.
func (s *Server) paneInfoCommand(target string) controlmode.Command {
	return controlmode.NewCommand("display-message", "-p", "-t", target, s.fmts.panes.String())
}

// paneInfoOf reads the reply of paneInfoCommand.
func (s *Server) paneInfoOf(r controlmode.Reply, target string) (Pane, error) {
	ps, ok := s.fmts.panes.Parse(s.release().DecodeText, r.Lines)
	if !ok || len(ps) != 1 || !strings.HasPrefix(ps[0].ID, "%") {
		// display-message prints empty fields, not an error, for some
		// targets it cannot find (a missing window, in 3.3a).
		return Pane{}, errorf(KindNotFound, "can't find pane: %s", target)
	}
	return ps[0], nil
}

// WindowRef names a window: by window id, else by
// index in the session named, else the current window of the session
// named. The zero WindowRef names no window.
type WindowRef struct {
	WindowID    string
	WindowIndex string
	SessionID   string
	SessionName string
}

// IsZero reports whether ref names nothing.
func (ref WindowRef) IsZero() bool { return ref == WindowRef{} }

// windowTarget returns the tmux target of the window ref names. A session
// is named by id: a name is looked up in the model first, since tmux reads
// a bare "=name" as a window name in some commands. A ref that names
// neither a window id nor a session is [KindNoTarget].
func (s *Server) windowTarget(ctx context.Context, ref WindowRef) (string, error) {
	if ref.WindowID != "" {
		return ref.WindowID, nil
	}
	if ref.WindowIndex != "" && !isDigits(ref.WindowIndex) {
		return "", errorf(KindInvalid, "window index %q is not a number", ref.WindowIndex)
	}
	if ref.SessionID == "" && ref.SessionName == "" {
		if ref.WindowIndex != "" {
			return "", fix(errorf(KindNoTarget, "window index %s needs a session", ref.WindowIndex), RemedySession)
		}
		return "", fix(errorf(KindNoTarget, "no target given: a window or session is needed"), RemedyWindow)
	}
	sess, err := s.LookupSession(ctx, ref.SessionID, ref.SessionName)
	if err != nil {
		return "", err
	}
	return sess.ID + ":" + ref.WindowIndex, nil
}

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// windowInfoCommand prints target's window as one row: the row of its
// active pane, whose pane_id is the window's active pane. Not
// display-message, which does not fail on a target it cannot find: it
// prints empty fields for @999 and the current window for $1:999.
func (s *Server) windowInfoCommand(target string) controlmode.Command {
	return controlmode.NewCommand("list-panes", "-t", target, "-f", "#{pane_active}", "-F", s.fmts.windows.String())
}

// windowInfoOf reads the reply of windowInfoCommand.
func (s *Server) windowInfoOf(r controlmode.Reply, target string) (Window, error) {
	rows, ok := s.fmts.windows.Parse(s.release().DecodeText, r.Lines)
	if !ok || len(rows) != 1 || rows[0].ID == "" {
		return Window{}, errorf(KindNotFound, "can't find window: %s", target)
	}
	return rows[0], nil
}

// scopeTarget returns the tmux target for target in scope. A session
// name is matched exactly, never as a prefix or pattern: "=name:" (these
// commands take a pane target, where a bare "=name" finds nothing).
func scopeTarget(scope, target string) string {
	if scope == ScopeSession && !strings.HasPrefix(target, "$") {
		return sessionNameTarget(target)
	}
	return target
}

// sessionNameTarget is the exact-match target of session name for
// commands whose -t is a pane or window: "=name:".
func sessionNameTarget(name string) string {
	return "=" + name + ":"
}

// envTarget returns the flags that select the environment of session id
// or name, or the global one when both are empty.
func envTarget(id, name string) []string {
	switch {
	case id != "":
		return []string{"-t", id}
	case name != "":
		return []string{"-t", "=" + name}
	}
	return []string{"-g"}
}

// CompareIDs orders tmux ids ($N, @N, %N) by number, so $10 is newer than
// $9; an id that is not one sorts after those that are.
func CompareIDs(a, b string) int {
	na, errA := strconv.Atoi(strings.TrimLeft(a, "$@%"))
	nb, errB := strconv.Atoi(strings.TrimLeft(b, "$@%"))
	switch {
	case errA == nil && errB == nil:
		return na - nb
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}
