package session

import (
	"context"
	"regexp"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// Tags are the values of one user option as set on each session, window
// and pane itself, by id: not inherited from a parent table and not from
// the global ones. An object without the option set has no entry.
type Tags struct {
	Sessions, Windows, Panes map[string]string
}

// userOption is a user option's name: tmux's own options have no "@".
var userOption = regexp.MustCompile(`^@[A-Za-z0-9_-]+$`)

// Tags reads the user option (such as "@mcp") on every session, window
// and pane of pl, each in its own table (show-options -t, -w -t, -p -t),
// in one read-only round trip. It is read at each call, not kept: there
// is no notification of an option set or unset. An object gone since pl
// was read has no entry.
func (s *Server) Tags(ctx context.Context, pl Placement, option string) (Tags, error) {
	t := Tags{Sessions: map[string]string{}, Windows: map[string]string{}, Panes: map[string]string{}}
	if !userOption.MatchString(option) {
		return t, errorf(KindInvalid, "not a user option: %q", option)
	}
	type row struct {
		into map[string]string
		id   string
	}
	var (
		cmds []controlmode.Command
		rows []row
	)
	add := func(into map[string]string, id, flag string) {
		if _, dup := into[id]; dup || id == "" {
			return
		}
		into[id] = "" // placeholder: a duplicate row asks once
		args := []string{"-q", "-v"}
		if flag != "" {
			args = append(args, flag)
		}
		cmds = append(cmds, controlmode.NewCommand("show-options", append(args, "-t", id, option)...))
		rows = append(rows, row{into, id})
	}
	for _, x := range pl.Sessions {
		add(t.Sessions, x.ID, "")
	}
	for _, x := range pl.Windows {
		add(t.Windows, x.ID, "-w")
	}
	for _, x := range pl.Panes {
		add(t.Panes, x.ID, "-p")
	}
	for _, r := range rows {
		delete(r.into, r.id)
	}
	if len(cmds) == 0 {
		return t, nil
	}
	rs, err := s.exec(ctx, cmds...)
	if err != nil && len(rs) != len(cmds) {
		if noServer(err) {
			return t, nil
		}
		return t, err
	}
	rel := s.release()
	for i, r := range rs {
		if r.Err != nil || len(r.Lines) == 0 {
			continue // gone, or not set
		}
		rows[i].into[rows[i].id] = rel.DecodeLoose(strings.TrimSpace(strings.Join(r.Lines, "")))
	}
	return t, nil
}
