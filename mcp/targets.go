package mcp

import (
	"fmt"
	"reflect"
	"strings"
)

// What a call targets, as its input type says it. The scope check
// (scopePolicy.check) places these targets in their sessions; it never
// looks at argument names. The argument groups (PaneTarget, SessionTarget,
// WindowTarget, OptionScope) say what they name, so an input that embeds
// one and names nothing else needs no method of its own; an input with
// more targets defines targets itself, beside its type in
// tools_<domain>.go. The catalogue panics for a checked tool whose input says nothing, and
// TestEveryTargetIsRead sets each argument that can name a pane, window or
// session and wants to see it among the targets.

// targeter is an input that says what its call acts on.
type targeter interface {
	targets() reach
}

// targeterType is the reflect.Type of targeter, for the catalogue's check.
var targeterType = reflect.TypeFor[targeter]()

// reach is what one call names.
type reach struct {
	list []target // the panes, windows and sessions it names
	// server is set when it acts on a server-wide table instead: the
	// global options or hooks, the global environment.
	server bool
	// undecidable says why its target cannot be placed (an option table
	// named by a window or pane name); the call is refused.
	undecidable string
	option      string // an option it sets: a server option is the server's, whatever the target
	format      string // a tmux format it expands (display_message)
}

// sessionDefaulter is an input that can name a session by id: under owned,
// a read that names no target is pointed at the oldest session in scope.
type sessionDefaulter interface {
	defaultSession(id string)
}

// socketOf returns the socket a call names: its Socket group's.
func socketOf(in any) Socket {
	if s, ok := in.(interface{ socket() Socket }); ok {
		return s.socket()
	}
	return Socket{}
}

func (s Socket) socket() Socket { return s }

// refs returns the targets of a pane, window and session reference; empty
// arguments name nothing.
func refs(pane, window, sessionID, sessionName string) []target {
	var ts []target
	if pane != "" {
		ts = append(ts, target{kind: "pane", id: pane})
	}
	if window != "" {
		ts = append(ts, target{kind: "window", id: window})
	}
	if sessionID != "" {
		ts = append(ts, target{kind: "session", id: sessionID})
	}
	if sessionName != "" {
		ts = append(ts, target{kind: "session", id: sessionName, name: true})
	}
	return ts
}

// sessionRef is the target of an argument that takes a session name or $id.
func sessionRef(s string) []target {
	if s == "" {
		return nil
	}
	return []target{{kind: "session", id: s, name: !strings.HasPrefix(s, "$")}}
}

func (t PaneTarget) targets() reach {
	return reach{list: refs(t.PaneID, t.WindowID, t.SessionID, t.SessionName)}
}

func (t SessionTarget) targets() reach {
	return reach{list: refs("", "", t.SessionID, t.SessionName)}
}

func (t WindowTarget) targets() reach {
	return reach{list: refs("", t.WindowID, t.SessionID, t.SessionName)}
}

func (t *PaneTarget) defaultSession(id string)    { t.SessionID = id }
func (t *SessionTarget) defaultSession(id string) { t.SessionID = id }
func (t *WindowTarget) defaultSession(id string)  { t.SessionID = id }

// targets of an option or hook table: the global one (-g, or scope server)
// is the server's; otherwise target names the session, window or pane,
// which must be an id for a window or pane, since tmux resolves a name
// against its own current session.
func (o OptionScope) targets() reach {
	switch {
	case o.Global || o.Scope == "server":
		return reach{server: true}
	case o.Target == "":
		return reach{undecidable: "with no target (tmux's current " + orWord(o.Scope, "session") + ")"}
	case o.Scope == "session":
		return reach{list: sessionRef(o.Target)}
	case o.Scope == "window" && isID(o.Target, '@'):
		return reach{list: refs("", o.Target, "", "")}
	case o.Scope == "pane" && isID(o.Target, '%'):
		return reach{list: refs(o.Target, "", "", "")}
	}
	return reach{undecidable: fmt.Sprintf("with target %q", o.Target)}
}

func orWord(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// isID reports whether s is sigil followed by digits.
func isID(s string, sigil byte) bool {
	if len(s) < 2 || s[0] != sigil {
		return false
	}
	return strings.Trim(s[1:], "0123456789") == ""
}

// with returns r with more targets.
func (r reach) with(ts ...[]target) reach {
	for _, t := range ts {
		r.list = append(r.list, t...)
	}
	return r
}
