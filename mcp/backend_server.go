package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// The server tools: list_servers, list_sessions, get_server_info,
// create_session, kill_server. Also here: the conversions of session rows
// to result types, self-protection, and the filters of the list_* tools.

// ListServers reports the live servers in tmux-<uid>/ of tmux's socket directory
// and at extra_socket_paths. It starts, attaches to and kills nothing.
func (b *TmuxBackend) ListServers(ctx context.Context, in ListServersIn) (List[ServerInfo], error) {
	return paged(b.m.ProbeServers(ctx, b.m.SocketDir(), in.ExtraSocketPaths), Paging{}, serverInfoFrom), nil
}

// ListSessions lists the sessions from the model: no tmux call while
// nothing changed. A socket with no server has none.
func (b *TmuxBackend) ListSessions(ctx context.Context, in ListSessionsIn) (List[SessionInfo], error) {
	sessions, err := b.server(in.Socket).Sessions(ctx)
	if err != nil {
		return List[SessionInfo]{}, err
	}
	rows := make([]SessionInfo, len(sessions))
	for i, s := range sessions {
		rows[i] = sessionInfoFrom(s)
	}
	if rows, err = filterList(rows, in.Filters, sessionFilterFields); err != nil {
		return List[SessionInfo]{}, err
	}
	return paged(rows, in.Paging, same), nil
}

// GetServerInfo reports on the server without starting it.
func (b *TmuxBackend) GetServerInfo(ctx context.Context, in GetServerInfoIn) (ServerInfo, error) {
	srv := b.server(in.Socket)
	st, err := srv.Status(ctx)
	if err != nil {
		return ServerInfo{}, err
	}
	info := serverInfoFrom(st)
	if info.SocketPath == "" {
		info.SocketPath = srv.SocketFile()
	}
	return info, nil
}

// CreateSession creates a detached session owned by this process; its
// result carries the generation teardown_session needs.
func (b *TmuxBackend) CreateSession(ctx context.Context, in CreateSessionIn) (SessionInfo, error) {
	if err := checkSessionName("session_name", in.SessionName); err != nil {
		return SessionInfo{}, err
	}
	a := session.CreateSessionArgs{
		// tmux expands formats in both names; double # so they are literal.
		Name:       in.SessionName,
		WindowName: in.WindowName,
		SpawnArgs: session.SpawnArgs{
			StartDirectory:  in.StartDirectory,
			Environment:     in.Environment,
			SuppressHistory: in.SuppressPersistentHistory,
		},
	}
	if in.X != nil {
		a.Width = *in.X
	}
	if in.Y != nil {
		a.Height = *in.Y
	}
	s, err := b.server(in.Socket).CreateSession(ctx, a)
	if err != nil {
		return SessionInfo{}, err
	}
	return sessionInfoFrom(s), nil
}

// KillServer kills the server, unless this process runs inside it.
func (b *TmuxBackend) KillServer(ctx context.Context, in KillServerIn) (Message, error) {
	srv := b.server(in.Socket)
	if b.selfOn(srv) {
		return Message{}, Errorf(CodeTargetDenied, EffectsNone,
			"refusing to kill tmux server %s: this MCP server runs inside it", srv.Socket())
	}
	if err := srv.KillServer(ctx); err != nil {
		return Message{}, err
	}
	return Message{Result: "Server killed: " + srv.Socket().String()}, nil
}

// serverInfoFrom converts a probe.
func serverInfoFrom(st session.ServerStatus) ServerInfo {
	name := st.Socket.Name
	if name == "" && st.Socket.Path == "" {
		name = "default"
	}
	return ServerInfo{
		IsAlive:      st.Alive,
		SocketName:   name,
		SocketPath:   st.SocketPath,
		SessionCount: st.Sessions,
		Version:      st.Version,
	}
}

// sessionInfoFrom converts a session row.
func sessionInfoFrom(s session.Session) SessionInfo {
	return SessionInfo{
		SessionID:       s.ID,
		SessionName:     s.Name,
		WindowCount:     s.Windows,
		SessionAttached: s.Attached,
		SessionCreated:  s.Created,
		ActivePaneID:    s.ActivePane,
		Generation:      s.Generation,
	}
}

// windowInfoFrom converts a window row.
func windowInfoFrom(w session.Window) WindowInfo {
	active := "0"
	if w.Active {
		active = "1"
	}
	return WindowInfo{
		WindowID:     w.ID,
		WindowName:   w.Name,
		WindowIndex:  w.Index,
		SessionID:    w.SessionID,
		SessionName:  w.SessionName,
		PaneCount:    w.Panes,
		WindowLayout: w.Layout,
		WindowActive: active,
		WindowWidth:  strconv.Itoa(w.Width),
		WindowHeight: strconv.Itoa(w.Height),
		ActivePaneID: w.ActivePane,
	}
}

// selfOn reports whether this process may be running inside srv, for
// self-protection (CONTRACT §4). Like libtmux-mcp it errs toward yes: a
// known pane without a known socket could be on any server, and sockets
// are also compared after resolving symbolic links.
func (b *TmuxBackend) selfOn(srv *session.Server) bool {
	switch {
	case b.opts.SelfSocketPath == "":
		return b.opts.SelfPane != ""
	case b.isSelfServer(srv):
		return true
	}
	a, errA := filepath.EvalSymlinks(srv.SocketFile())
	c, errC := filepath.EvalSymlinks(b.opts.SelfSocketPath)
	return errA == nil && errC == nil && a == c
}

// holdsSelf reports whether panes include this process's own pane on srv.
func (b *TmuxBackend) holdsSelf(srv *session.Server, panes []session.Pane) bool {
	if b.opts.SelfPane == "" || !b.selfOn(srv) {
		return false
	}
	return slices.ContainsFunc(panes, func(p session.Pane) bool { return p.ID == b.opts.SelfPane })
}

// Filters: libtmux's QueryList lookups, field__op = value, over the fields
// a tool returns. Every value is compared as the text tmux would print: a
// number as digits, a flag as 1 or 0. A key without a known operator is an
// exact match; an unknown field or operator is invalid_arguments, never a
// silently empty list.

// filterOps are the lookups, as in libtmux.
var filterOps = []string{"eq", "exact", "iexact", "contains", "icontains", "startswith", "istartswith",
	"endswith", "iendswith", "in", "nin", "regex", "iregex"}

// filterValue is one field of one row.
type filterValue struct {
	text    string
	present bool // absent values match nothing
	flag    bool // a boolean field: only exact and eq apply
}

// filterFields maps field names to the values of one row.
type filterFields map[string]filterValue

// resultFields returns the JSON fields of v, a result struct (embedded
// structs included), as filter values.
func resultFields(v any) filterFields {
	out := filterFields{}
	var walk func(rv reflect.Value)
	walk = func(rv reflect.Value) {
		rt := rv.Type()
		for i := 0; i < rt.NumField(); i++ {
			f, fv := rt.Field(i), rv.Field(i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(fv)
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			fl := filterValue{present: true}
			if fv.Kind() == reflect.Pointer {
				fl.flag = f.Type.Elem().Kind() == reflect.Bool
				if fv.IsNil() {
					out[name] = filterValue{flag: fl.flag}
					continue
				}
				fv = fv.Elem()
			}
			switch fv.Kind() {
			case reflect.Bool:
				fl.flag, fl.text = true, "0"
				if fv.Bool() {
					fl.text = "1"
				}
			case reflect.Int, reflect.Int64:
				fl.text = strconv.FormatInt(fv.Int(), 10)
			case reflect.String:
				fl.text = fv.String()
			default:
				continue
			}
			out[name] = fl
		}
	}
	walk(reflect.ValueOf(v))
	return out
}

// sessionFilterFields are a SessionInfo's fields, plus tmux's name for
// the window count.
func sessionFilterFields(s SessionInfo) filterFields {
	f := resultFields(s)
	f["session_windows"] = f["window_count"]
	return f
}

// filterList keeps the rows matching every filter. fields gives a row's
// values; called on the zero row, it names the fields there are.
func filterList[T any](rows []T, filters StringMap, fields func(T) filterFields) ([]T, error) {
	if len(filters) == 0 {
		return rows, nil
	}
	var zero T
	known := fields(zero)
	type lookup struct {
		field, op, value string
		list             []string // for in/nin given a JSON list
		re               *regexp.Regexp
	}
	keys := make([]string, 0, len(filters))
	for k := range filters {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var lookups []lookup
	for _, key := range keys {
		l := lookup{field: key, op: "exact", value: filters[key]}
		notOp := ""
		if lhs, op, ok := cutLast(key, "__"); ok {
			if slices.Contains(filterOps, op) {
				l.field, l.op = lhs, op
			} else {
				notOp = op
			}
		}
		kf, ok := known[l.field]
		if !ok {
			names := make([]string, 0, len(known))
			for n := range known {
				names = append(names, n)
			}
			slices.Sort(names)
			msg := fmt.Sprintf("unknown filter field %q in %q; filterable fields: %s", l.field, key, strings.Join(names, ", "))
			if notOp != "" {
				msg = fmt.Sprintf("filter %q: %q is not an operator (%s), and %q is not a field; filterable fields: %s",
					key, notOp, strings.Join(filterOps, ", "), l.field, strings.Join(names, ", "))
			}
			return nil, invalidArguments("%s", msg)
		}
		if kf.flag {
			if l.op != "exact" && l.op != "eq" {
				return nil, invalidArguments("filter %q: field %s is a flag; use exact or eq", key, l.field)
			}
			switch strings.ToLower(strings.TrimSpace(l.value)) {
			case "1", "true", "yes":
				l.value = "1"
			case "0", "false", "no":
				l.value = "0"
			default:
				return nil, invalidArguments("filter %q takes a boolean (true, false, 1, 0, yes, no), got %q", key, l.value)
			}
		}
		switch l.op {
		case "regex", "iregex":
			expr := l.value
			if l.op == "iregex" {
				expr = "(?i)" + expr
			}
			re, err := regexp.Compile(expr)
			if err != nil {
				return nil, invalidArguments("filter %q: %v", key, err)
			}
			l.re = re
		case "in", "nin":
			// libtmux tests a string right-hand side as a substring; a
			// JSON list of strings is a set of values.
			var list []string
			if strings.HasPrefix(strings.TrimSpace(l.value), "[") && json.Unmarshal([]byte(l.value), &list) == nil {
				l.list = list
			}
		}
		lookups = append(lookups, l)
	}
	match := func(l lookup, v filterValue) bool {
		if !v.present {
			return false
		}
		d, r := v.text, l.value
		switch l.op {
		case "exact", "eq":
			return d == r
		case "iexact":
			return strings.EqualFold(d, r)
		case "contains":
			return strings.Contains(d, r)
		case "icontains":
			return strings.Contains(strings.ToLower(d), strings.ToLower(r))
		case "startswith":
			return strings.HasPrefix(d, r)
		case "istartswith":
			return strings.HasPrefix(strings.ToLower(d), strings.ToLower(r))
		case "endswith":
			return strings.HasSuffix(d, r)
		case "iendswith":
			return strings.HasSuffix(strings.ToLower(d), strings.ToLower(r))
		case "in", "nin":
			in := strings.Contains(d, r)
			if l.list != nil {
				in = slices.Contains(l.list, d)
			}
			return in == (l.op == "in")
		case "regex", "iregex":
			return l.re.MatchString(d)
		}
		return false
	}
	var out []T
	for _, row := range rows {
		f := fields(row)
		ok := true
		for _, l := range lookups {
			if !match(l, f[l.field]) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, row)
		}
	}
	return out, nil
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}
