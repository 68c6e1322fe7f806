package mcp

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// Scope is how far an agent reaches beyond the sessions this process
// created (--scope, TMUX_MCP_SCOPE). Tiers say which tools an agent has; a
// scope says which sessions those tools may touch.
type Scope int

// The scopes, from the widest.
const (
	// ScopeAll reaches every session on the socket, as libtmux-mcp does.
	ScopeAll Scope = iota
	// ScopeOwnedWrite sees everything but changes only the sessions in
	// scope: the ones this process created, and borrowed ones named by
	// --allow-session.
	ScopeOwnedWrite
	// ScopeOwned sees and changes only the sessions in scope: listings,
	// searches, resources and read-only defaults leave the others out.
	ScopeOwned
	// ScopeTagged is ScopeOwned widened by a person, at the grain of
	// sessions, windows and panes: those on which the user option @mcp is
	// set to "on" or to the client's name (a token's name=) join the
	// scope, read at every call, so that unsetting it takes them away at
	// once. A window inherits its session's tag, a pane its window's and
	// its session's; global values count for nothing.
	ScopeTagged
)

// TagOption is the user option by which a person lets the tagged scope in.
const TagOption = "@mcp"

func (s Scope) String() string {
	switch s {
	case ScopeAll:
		return "all"
	case ScopeOwnedWrite:
		return "owned-write"
	case ScopeOwned:
		return "owned"
	case ScopeTagged:
		return "tagged"
	}
	return fmt.Sprintf("Scope(%d)", int(s))
}

// ParseScope parses a --scope value. The empty string is the default, all.
// ok is false for anything else that is not a scope name; s is then the
// narrowest scope, owned, so a misspelt setting fails closed.
func ParseScope(v string) (s Scope, ok bool) {
	switch v {
	case "", "all":
		return ScopeAll, true
	case "owned-write":
		return ScopeOwnedWrite, true
	case "owned":
		return ScopeOwned, true
	case "tagged":
		return ScopeTagged, true
	}
	return ScopeOwned, false
}

// note is the line the server's instructions add for the scope.
func (p *scopePolicy) note() string {
	switch p.scope {
	case ScopeOwnedWrite:
		return "\nScope owned-write: you see every session but change only those you created with create_session" + p.allowNote() + "."
	case ScopeOwned:
		return "\nScope owned: you see and change only the sessions you created with create_session" + p.allowNote() + "."
	case ScopeTagged:
		return "\nScope tagged: you see and change only the sessions you created with create_session" + p.allowNote() +
			", and the sessions, windows and panes a person tagged for you (tmux user option " + TagOption + " set to on or to " + p.tagNames() + ")."
	}
	return ""
}

func (p *scopePolicy) allowNote() string {
	if len(p.allow) == 0 {
		return ""
	}
	return " and those named " + strings.Join(p.allow, ", ")
}

// access is what a tool does to the sessions its arguments name.
type access int

const (
	// accessUnset is no class: a declaration that leaves it panics.
	accessUnset access = iota
	// accessNone touches no session: it is allowed in every scope.
	accessNone
	// accessList lists sessions, windows or panes: allowed in every scope,
	// and under owned its rows are cut to the sessions in scope.
	accessList
	// accessRead reads the sessions its targets name, or the default one:
	// checked under owned.
	accessRead
	// accessWrite changes the sessions its targets name: checked under
	// owned-write and owned.
	accessWrite
	// accessServer changes the whole server: refused under owned-write and
	// owned.
	accessServer
)

// serverOptions are tmux's server options (show-options -s) in 3.2 to
// 3.8: set-option files them in the server's table whatever target it is
// given. A test checks the running tmux has no other. 3.8 adds the theme
// options (theme, dark-theme-*, light-theme-*).
var serverOptions = map[string]bool{
	"backspace": true, "buffer-limit": true, "codepoint-widths": true, "command-alias": true,
	"copy-command": true, "default-client-command": true, "default-terminal": true, "editor": true,
	"escape-time": true, "exit-empty": true, "exit-unattached": true, "extended-keys": true,
	"extended-keys-format": true, "focus-events": true, "get-clipboard": true, "history-file": true,
	"input-buffer-size": true, "message-limit": true, "prefix-timeout": true, "prompt-history-limit": true,
	"set-clipboard": true, "terminal-features": true, "terminal-overrides": true, "user-keys": true,
	"variation-selector-always-wide": true, "theme": true,
	"dark-theme-black": true, "dark-theme-blue": true, "dark-theme-cyan": true,
	"dark-theme-dark-grey": true, "dark-theme-green": true, "dark-theme-light-grey": true,
	"dark-theme-magenta": true, "dark-theme-red": true, "dark-theme-white": true, "dark-theme-yellow": true,
	"light-theme-black": true, "light-theme-blue": true, "light-theme-cyan": true,
	"light-theme-dark-grey": true, "light-theme-green": true, "light-theme-light-grey": true,
	"light-theme-magenta": true, "light-theme-red": true, "light-theme-white": true, "light-theme-yellow": true,
}

// scopePolicy is the scope a server enforces.
type scopePolicy struct {
	scope Scope
	allow []string    // --allow-session globs (path.Match), checked valid
	src   scopeSource // nil when the backend offers none
	owner string      // the identity served: an @mcp of its name tags for it
}

// newScopePolicy checks the globs of --allow-session.
func newScopePolicy(scope Scope, allow []string, src scopeSource, owner string) (*scopePolicy, error) {
	for _, g := range allow {
		if _, err := path.Match(g, ""); err != nil || g == "" {
			return nil, fmt.Errorf("%w: --allow-session %q is not a glob", ErrUsage, g)
		}
	}
	return &scopePolicy{scope: scope, allow: slices.Clone(allow), src: src, owner: owner}, nil
}

// narrow reports whether the scope hides what is out of it (owned,
// tagged), rather than only refusing changes to it.
func (p *scopePolicy) narrow() bool { return p.scope == ScopeOwned || p.scope == ScopeTagged }

// tags reports whether an @mcp value lets this policy's client in.
func (p *scopePolicy) tags(value string) bool {
	return value == "on" || p.owner != "" && value == p.owner
}

// tagNames says which @mcp values let this client in.
func (p *scopePolicy) tagNames() string {
	if p.owner == "" {
		return "nothing else"
	}
	return shellWord(p.owner)
}

// allowed reports whether a borrowed session named name joins the scope.
func (p *scopePolicy) allowed(name string) bool {
	for _, g := range p.allow {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

// scopeSource is what a backend offers for scopes: where things are on the
// server a call addresses, from the live model, and which of its sessions
// this process owns. TmuxBackend implements it; without one, the owned
// scopes refuse every call that names a session.
type scopeSource interface {
	placement(ctx context.Context, sock Socket, fresh bool) (session.Placement, func(id string) bool, error)
	// sessionsOf reads fresh which sessions each pane or window id is in.
	sessionsOf(ctx context.Context, sock Socket, ids []string) (map[string][]string, error)
}

// tagSource is what a backend offers for the tagged scope: the @mcp
// values set on the sessions, windows and panes of a placement, read now.
// Without one, nothing is tagged.
type tagSource interface {
	tagsOf(ctx context.Context, sock Socket, pl session.Placement) (session.Tags, error)
}

// view is the scope as it stands on one server at one moment.
type view struct {
	p     *scopePolicy
	pl    session.Placement
	owns  func(string) bool
	src   scopeSource
	sock  Socket
	fresh bool         // pl was read fresh: a miss is a real miss
	tags  session.Tags // under tagged: @mcp as set now, of the objects read so far
	read  map[string]bool
}

// newView reads the placement of the server sock names.
func (p *scopePolicy) newView(ctx context.Context, sock Socket) (*view, error) {
	if p.src == nil {
		return nil, Errorf(CodeTargetDenied, EffectsNone, "the %s scope cannot be checked by this backend", p.scope)
	}
	pl, owns, err := p.src.placement(ctx, sock, false)
	if err != nil {
		return nil, err
	}
	return &view{p: p, pl: pl, owns: owns, src: p.src, sock: sock}, nil
}

// readTags reads, under tagged, the @mcp tags of the sessions, windows
// and panes of pl that this view has not read yet, in one round trip. A
// call reads only what it needs: its targets' chain, or every object for
// a listing.
func (v *view) readTags(ctx context.Context, pl session.Placement) error {
	if v.p.scope != ScopeTagged {
		return nil
	}
	ts, ok := v.src.(tagSource)
	if !ok {
		return nil
	}
	if v.read == nil {
		v.read = map[string]bool{}
		v.tags = session.Tags{Sessions: map[string]string{}, Windows: map[string]string{}, Panes: map[string]string{}}
	}
	var need session.Placement
	for _, x := range pl.Sessions {
		if !v.read[x.ID] {
			v.read[x.ID] = true
			need.Sessions = append(need.Sessions, session.Session{ID: x.ID})
		}
	}
	for _, x := range pl.Windows {
		if !v.read[x.ID] {
			v.read[x.ID] = true
			need.Windows = append(need.Windows, session.Window{ID: x.ID})
		}
	}
	for _, x := range pl.Panes {
		if !v.read[x.ID] {
			v.read[x.ID] = true
			need.Panes = append(need.Panes, session.Pane{ID: x.ID})
		}
	}
	if len(need.Sessions)+len(need.Windows)+len(need.Panes) == 0 {
		return nil
	}
	tags, err := ts.tagsOf(ctx, v.sock, need)
	if err != nil {
		return err
	}
	maps.Copy(v.tags.Sessions, tags.Sessions)
	maps.Copy(v.tags.Windows, tags.Windows)
	maps.Copy(v.tags.Panes, tags.Panes)
	return nil
}

// readAllTags reads the tags of every object of the placement.
func (v *view) readAllTags(ctx context.Context) error { return v.readTags(ctx, v.pl) }

// readTargetTags reads the tags that decide whether t, found in the
// sessions ids, is in scope: theirs, its window's and its own.
func (v *view) readTargetTags(ctx context.Context, t target, ids []string) error {
	if v.p.scope != ScopeTagged {
		return nil
	}
	var need session.Placement
	for _, id := range ids {
		need.Sessions = append(need.Sessions, session.Session{ID: id})
	}
	switch t.kind {
	case "window":
		need.Windows = append(need.Windows, session.Window{ID: t.id})
	case "pane":
		need.Panes = append(need.Panes, session.Pane{ID: t.id})
		for _, p := range v.pl.Panes {
			if p.ID == t.id {
				need.Windows = append(need.Windows, session.Window{ID: p.WindowID})
			}
		}
	}
	return v.readTags(ctx, need)
}

// refresh rereads the placement once, after a miss.
func (v *view) refresh(ctx context.Context) (bool, error) {
	if v.fresh {
		return false, nil
	}
	pl, owns, err := v.src.placement(ctx, v.sock, true)
	if err != nil {
		return false, err
	}
	v.pl, v.owns, v.fresh = pl, owns, true
	return true, nil
}

// inScope reports whether session id is in scope.
func (v *view) inScope(s session.Session) bool {
	return v.owns(s.ID) || v.p.allowed(s.Name) || v.p.tags(v.tags.Sessions[s.ID])
}

// windowIn reports whether window id, linked into session sid, is in
// scope: its session is, or (tagged) the window itself is tagged.
func (v *view) windowIn(id, sid string) bool {
	return v.inScopeID(sid) || v.p.tags(v.tags.Windows[id])
}

// paneIn reports whether pane id, in window wid of session sid, is in
// scope: its window is, or (tagged) the pane itself is tagged.
func (v *view) paneIn(id, wid, sid string) bool {
	return v.windowIn(wid, sid) || v.p.tags(v.tags.Panes[id])
}

// targetIn reports whether target t, found in session sid, is in scope.
// A pane's window is looked up in the placement; a pane not in it (moved
// since) is in scope only if its session is.
func (v *view) targetIn(t target, sid string) bool {
	switch {
	case t.kind == "window":
		return v.windowIn(t.id, sid)
	case t.kind == "pane":
		for _, p := range v.pl.Panes {
			if p.ID == t.id && p.SessionID == sid {
				return v.paneIn(p.ID, p.WindowID, sid)
			}
		}
		return v.inScopeID(sid) || v.p.tags(v.tags.Panes[t.id])
	}
	return v.inScopeID(sid)
}

// inScopeID reports whether the session with id is in scope.
func (v *view) inScopeID(id string) bool {
	i := slices.IndexFunc(v.pl.Sessions, func(s session.Session) bool { return s.ID == id })
	return i >= 0 && v.inScope(v.pl.Sessions[i])
}

// sessionOf returns the session with id, or named name exactly.
func (v *view) sessionOf(id, name string) (session.Session, bool) {
	for _, s := range v.pl.Sessions {
		if (id != "" && s.ID == id) || (id == "" && s.Name == name) {
			return s, true
		}
	}
	return session.Session{}, false
}

// defaultSession is the session a call that names none acts on: the
// oldest, as the session layer picks it. inScope limits it to the scope.
func (v *view) defaultSession(inScope bool) (session.Session, bool) {
	var best session.Session
	found := false
	for _, s := range v.pl.Sessions {
		if inScope && !v.inScope(s) {
			continue
		}
		if !found || session.CompareIDs(s.ID, best.ID) < 0 {
			best, found = s, true
		}
	}
	return best, found
}

// target is one thing a call names, to be placed in its sessions.
type target struct {
	kind string // "pane", "window", "session"
	id   string // %N, @N, $N, or a session name
	name bool   // id is a session name
}

func (t target) String() string {
	if t.name {
		return fmt.Sprintf("session %q", t.id)
	}
	return t.kind + " " + t.id
}

// sessionsOf returns the sessions t is in: every session a window is
// linked into. ok is false when t is in none (it does not exist).
func (v *view) sessionsOf(ctx context.Context, t target) (ids []string, ok bool, err error) {
	for {
		switch t.kind {
		case "pane":
			for _, p := range v.pl.Panes {
				if p.ID == t.id && !slices.Contains(ids, p.SessionID) {
					ids = append(ids, p.SessionID)
				}
			}
		case "window":
			for _, w := range v.pl.Windows {
				if w.ID == t.id && !slices.Contains(ids, w.SessionID) {
					ids = append(ids, w.SessionID)
				}
			}
		case "session":
			id, name := t.id, ""
			if t.name {
				id, name = "", t.id
			}
			if s, found := v.sessionOf(id, name); found {
				ids = append(ids, s.ID)
			}
		}
		if len(ids) > 0 {
			return ids, true, nil
		}
		// The model may not have seen it yet: read again, once.
		again, err := v.refresh(ctx)
		if err != nil || !again {
			return nil, false, err
		}
	}
}

// sessionLabel names session id for a message: its id and name.
func (v *view) sessionLabel(id string) string {
	if s, ok := v.sessionOf(id, ""); ok {
		name := s.Name
		if len(name) > 64 {
			name = name[:64] + "…"
		}
		return fmt.Sprintf("%s (%q)", s.ID, name)
	}
	return id
}

// deny is the refusal of a call by the scope.
func (p *scopePolicy) deny(what, detail string) *ToolError {
	var does string
	switch p.scope {
	case ScopeOwnedWrite:
		does = "it changes only the sessions this server created or --allow-session names"
	case ScopeTagged:
		does = "it sees and changes only the sessions this server created or --allow-session names, and the sessions, windows and panes a person tagged with the tmux user option " + TagOption
	default:
		does = "it sees and changes only the sessions this server created or --allow-session names"
	}
	te := Errorf(CodeTargetDenied, EffectsNone, "%s is outside this server's scope %s (%s); %s",
		what, p.scope, does, detail)
	te.Suggestion = "create_session makes a session in scope; the user widens the scope with --allow-session GLOB (TMUX_MCP_ALLOW_SESSION) or --scope all (TMUX_MCP_SCOPE)."
	return te
}

// widen says how to bring the session labelled name into scope.
func widen(name string) string {
	return fmt.Sprintf("to allow it, start the server with --allow-session %s", shellWord(name))
}

func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// checks reports whether the policy checks a tool of class a at all.
func (p *scopePolicy) checks(a access) bool {
	switch p.scope {
	case ScopeAll:
		return false
	case ScopeOwnedWrite:
		return a == accessWrite || a == accessServer
	}
	return a != accessNone
}

// check refuses a call of tool d with the decoded input in (a pointer to
// d's input type) that reaches outside the scope, before the handler runs.
// It reads where things are from the live model, which costs no tmux call
// while the model is current. What the call targets, the input says
// ([targeter]). Under owned, a read that names no target is pointed at the
// oldest session in scope instead of the oldest one.
func (p *scopePolicy) check(ctx context.Context, d *toolDef, in any) *ToolError {
	if !p.checks(d.access) {
		return nil
	}
	if d.access == accessServer {
		return p.deny(d.name, "it acts on the whole tmux server")
	}
	t, ok := in.(targeter)
	if !ok {
		return p.deny(d.name, "its targets cannot be placed") // the catalogue panics first
	}
	r := t.targets()
	write := d.access == accessWrite
	if write && p.scope == ScopeTagged && strings.SplitN(r.option, "[", 2)[0] == TagOption {
		return p.deny(d.name+" of "+TagOption, "a person sets "+TagOption+", not the agent it lets in")
	}
	if write && serverOptions[strings.SplitN(r.option, "[", 2)[0]] {
		// tmux files a server option in the server's table whatever
		// target it is given: set-option -t mine escape-time 0 is global.
		return p.deny(d.name+" of server option "+r.option, "server options are tmux's own, for every session")
	}
	if r.server {
		if write || p.narrow() {
			return p.deny(d.name+" on the server-wide table", "name a session, window or pane in scope instead")
		}
		return nil
	}
	if r.undecidable != "" {
		return p.deny(d.name+" "+r.undecidable, "name the target by id ($N, @N or %N)")
	}
	v, err := p.newView(ctx, socketOf(in))
	if err != nil {
		return classify(err)
	}
	if te := p.checkFormat(d.name, r.format); te != nil {
		return te
	}
	if len(r.list) == 0 {
		if err := v.readTags(ctx, session.Placement{Sessions: v.pl.Sessions}); err != nil {
			return classify(err)
		}
		return p.checkDefault(v, d, in)
	}
	if te := v.checkTargets(ctx, r.list); te != nil || !write {
		return te
	}
	return v.recheck(ctx, r.list)
}

// checkDefault checks a call that names no target. A listing is cut to the
// scope afterwards; any other call acts on the oldest session. Under owned,
// a read is pointed at the oldest session in scope instead, when its input
// can name a session (sessionDefaulter).
func (p *scopePolicy) checkDefault(v *view, d *toolDef, in any) *ToolError {
	if d.access == accessList {
		return nil // every row: cut to the scope afterwards
	}
	def, ok := v.defaultSession(false)
	if !ok || v.inScope(def) {
		return nil // no session at all: the tool says so itself
	}
	if d.access == accessRead {
		sd, can := in.(sessionDefaulter)
		if mine, ok := v.defaultSession(true); ok && can {
			sd.defaultSession(mine.ID)
			return nil
		}
	}
	what := d.name + " with no target, which acts on the oldest session, " + v.sessionLabel(def.ID) + ","
	if p.narrow() {
		what = d.name + " with no target, which acts on the oldest session,"
	}
	return p.deny(what, "name a target in scope")
}

// recheck places the panes and windows of a change that the model let
// through once more, read fresh from tmux: the model learns of a pane
// another client moved only if a client of ours is attached to a session
// it left or joined. It costs one read-only round trip.
func (v *view) recheck(ctx context.Context, ts []target) *ToolError {
	var ids []string
	for _, t := range ts {
		if t.kind != "session" && !slices.Contains(ids, t.id) {
			ids = append(ids, t.id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	now, err := v.src.sessionsOf(ctx, v.sock, ids)
	if err != nil {
		return classify(err)
	}
	for _, t := range ts {
		if t.kind == "session" {
			continue
		}
		if len(now[t.id]) == 0 {
			return Errorf(CodeNotFound, EffectsNone, "can't find %s", t)
		}
		if err := v.readTargetTags(ctx, t, now[t.id]); err != nil {
			return classify(err)
		}
		for _, id := range now[t.id] {
			if !v.targetIn(t, id) {
				return v.denyIn(t, id, len(now[t.id]) > 1)
			}
		}
	}
	return nil
}

// checkTargets refuses targets that are outside the scope, or not found.
func (v *view) checkTargets(ctx context.Context, ts []target) *ToolError {
	for _, t := range ts {
		ids, found, err := v.sessionsOf(ctx, t)
		if err != nil {
			return classify(err)
		}
		if !found {
			return Errorf(CodeNotFound, EffectsNone, "can't find %s", t)
		}
		if err := v.readTargetTags(ctx, t, ids); err != nil {
			return classify(err)
		}
		for _, id := range ids {
			if v.targetIn(t, id) {
				continue
			}
			return v.denyIn(t, id, len(ids) > 1)
		}
	}
	return nil
}

// denyIn refuses target t for being in session id. Under owned, where the
// agent may not see sessions outside the scope, it names only what the
// agent named.
func (v *view) denyIn(t target, id string, linked bool) *ToolError {
	what := t.String()
	switch v.p.scope {
	case ScopeOwned:
		return v.p.deny(what, "to let it in, the user starts the server with --allow-session NAME")
	case ScopeTagged:
		return v.p.deny(what, "to let it in, a person runs tmux set-option -p -t PANE "+TagOption+" on (-w for a window, none for a session)")
	}
	s, _ := v.sessionOf(id, "")
	if t.kind != "session" || t.name {
		what += " in session " + v.sessionLabel(id)
	} else {
		what = "session " + v.sessionLabel(id)
	}
	if linked {
		what += ", a window linked into several sessions,"
	}
	return v.p.deny(what, widen(s.Name))
}

// checkResource refuses, under owned, a tmux:// URI that names a session
// or pane outside the scope (tmux://sessions itself is cut to the scope).
func (p *scopePolicy) checkResource(ctx context.Context, uri string) *ToolError {
	if !p.narrow() {
		return nil
	}
	sock, ts, ok := resourceTargets(uri)
	if !ok || len(ts) == 0 {
		return nil // not a resource, or the listing
	}
	v, err := p.newView(ctx, sock)
	if err != nil {
		return classify(err)
	}
	return v.checkTargets(ctx, ts)
}

// resourceTargets returns the socket of a tmux:// URI and the session or
// pane it names, as readResource reads it.
func resourceTargets(uri string) (Socket, []target, bool) {
	rest, ok := strings.CutPrefix(uri, "tmux://")
	if !ok {
		return Socket{}, nil, false
	}
	rest, query, _ := strings.Cut(rest, "?")
	q, _ := url.ParseQuery(query)
	sock := Socket{SocketName: q.Get("socket_name")}
	seg := strings.Split(rest, "/")
	if len(seg) < 2 {
		return sock, nil, true
	}
	switch seg[0] {
	case "sessions":
		return sock, []target{{kind: "session", id: unescapeSegment(seg[1]), name: true}}, true
	case "panes":
		// As readResource reads it: %253 is %3, a bare 12 is %12.
		return sock, []target{{kind: "pane", id: paneOfSegment(seg[1])}}, true
	}
	return sock, nil, false
}

// checkFormat refuses, under owned, tmux formats (display_message's) that
// reach beyond the target pane's session: the loop over every session
// (#{S:}) and the client variables (clients sit in the user's sessions).
func (p *scopePolicy) checkFormat(tool, format string) *ToolError {
	if !p.narrow() {
		return nil
	}
	for _, bad := range []string{"S:", "S/", "client_"} {
		if strings.Contains(format, bad) {
			return p.deny(tool+" with "+bad, "formats that loop over every session (#{S:...}) or read clients are refused")
		}
	}
	return nil
}
