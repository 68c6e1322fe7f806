package mcp

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// TestScopeTableComplete: every argument that can name a session, window
// or pane is one that a checked tool's input reports among its targets
// (TestEveryTargetIsRead sets each one), and a tool that touches no session
// has none, so a new tool or argument cannot slip past the check.
func TestScopeTableComplete(t *testing.T) {
	read := []string{"pane_id", "window_id", "session_id", "session_name", "source_pane_id", "target_pane_id",
		"destination_session", "cursor", "operations", "scope", "target", "global_", "pane_ids"}
	// Arguments that name no session, window or pane (checked by hand).
	other := []string{"socket_name", "window_index", "direction", "extra_socket_paths", "filters", "sessionId",
		"generation", "buffer_name", "channel", "output_path", "start_directory", "shell", "new_name", "window_name",
		"destination_index", "max_matched_lines_per_pane"}
	for _, d := range catalogue() {
		for name := range d.spec().schema.Properties {
			if slices.Contains(read, name) && d.access == accessNone && !d.batch && d.name != "create_session" { // its session_name is the new one's
				t.Errorf("%s: argument %s names a target, but the tool is accessNone", d.name, name)
			}
			if slices.Contains(other, name) || slices.Contains(read, name) || !looksLikeTarget(name) {
				continue
			}
			t.Errorf("%s: argument %s may name a target that no input reports", d.name, name)
		}
	}
}

// TestEveryTargetIsRead sets, in the input of every tool the scope checks,
// each argument that names a pane, window or session (found by its JSON
// name, embedded groups and batch rows included), and wants the input's
// targets to hold it: an input whose targets method forgets an argument,
// or inherits a group's that knows fewer, fails here.
func TestEveryTargetIsRead(t *testing.T) {
	values := map[string]target{
		"pane_id":             {kind: "pane", id: "%71"},
		"source_pane_id":      {kind: "pane", id: "%72"},
		"target_pane_id":      {kind: "pane", id: "%73"},
		"window_id":           {kind: "window", id: "@74"},
		"session_id":          {kind: "session", id: "$75"},
		"session_name":        {kind: "session", id: "name76", name: true},
		"destination_session": {kind: "session", id: "name77", name: true},
	}
	checked := 0
	for _, d := range catalogue() {
		if d.access < accessList || d.access > accessWrite {
			continue
		}
		for _, arg := range targetArgs(d.in, "") {
			want := values[arg.name]
			in := reflect.New(d.in)
			arg.set(in.Elem(), want.id)
			got := in.Interface().(targeter).targets()
			if !slices.Contains(got.list, want) {
				t.Errorf("%s with %s %s: targets %v, want %v among them", d.name, arg.path, want.id, got.list, want)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Errorf("checked %d target arguments; the walk is broken", checked)
	}
}

// targetArg is one argument of an input that names a target, and how to
// set it.
type targetArg struct {
	name, path string
	set        func(in reflect.Value, value string)
}

// targetArgs finds the string fields of t whose JSON names are targets,
// in embedded groups and in the elements of lists of structs.
func targetArgs(t reflect.Type, path string) []targetArg {
	var out []targetArg
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		switch {
		case sf.Anonymous:
			for _, a := range targetArgs(sf.Type, path) {
				set := a.set
				out = append(out, targetArg{a.name, a.path, func(in reflect.Value, v string) { set(in.Field(i), v) }})
			}
		case sf.Type.Kind() == reflect.Slice && sf.Type.Elem().Kind() == reflect.Struct:
			for _, a := range targetArgs(sf.Type.Elem(), path+name+"[0].") {
				set, elem := a.set, sf.Type.Elem()
				out = append(out, targetArg{a.name, a.path, func(in reflect.Value, v string) {
					row := reflect.New(elem).Elem()
					set(row, v)
					in.Field(i).Set(reflect.Append(in.Field(i), row))
				}})
			}
		case sf.Type.Kind() == reflect.String && slices.Contains([]string{"pane_id", "source_pane_id", "target_pane_id",
			"window_id", "session_id", "session_name", "destination_session"}, name):
			out = append(out, targetArg{name, path + name, func(in reflect.Value, v string) { in.Field(i).SetString(v) }})
		}
	}
	return out
}

// TestReadsPointAtASession: every read tool whose input can name a session
// by id can be pointed at the oldest session in scope (sessionDefaulter),
// and the id it is given is the one its targets then name.
func TestReadsPointAtASession(t *testing.T) {
	for _, d := range catalogue() {
		if d.access != accessRead {
			continue
		}
		_, hasID := d.spec().schema.Properties["session_id"]
		in := reflect.New(d.in).Interface()
		sd, ok := in.(sessionDefaulter)
		if ok != hasID {
			t.Errorf("%s: has session_id %v, can be pointed at a session %v", d.name, hasID, ok)
			continue
		}
		if !ok {
			continue
		}
		sd.defaultSession("$9")
		if got := in.(targeter).targets().list; !slices.Contains(got, target{kind: "session", id: "$9"}) {
			t.Errorf("%s pointed at $9: targets %v", d.name, got)
		}
	}
}

func looksLikeTarget(name string) bool {
	for _, w := range []string{"pane", "window", "session", "target", "client", "source", "destination"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

func TestParseScope(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Scope
		ok   bool
	}{{"", ScopeAll, true}, {"all", ScopeAll, true}, {"owned-write", ScopeOwnedWrite, true},
		{"owned", ScopeOwned, true}, {"Owned", ScopeOwned, false}, {"none", ScopeOwned, false}} {
		if got, ok := ParseScope(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("ParseScope(%q): got %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// TestScopeWithoutSource: under an owned scope, a Backend that cannot say
// where things are gets every targeted call refused, never run; a bad
// --allow-session glob is a usage error.
func TestScopeWithoutSource(t *testing.T) {
	cs := connect(t, noBackend{}, &Options{Scope: "owned-write"}, "2025-11-25")
	e := envelopeOf(t, call(t, cs, "send_keys", map[string]any{"pane_id": "%1", "keys": "x"}))
	if e.Code != CodeTargetDenied || e.Effects != EffectsNone {
		t.Errorf("got %+v, want target_denied with effects none", e)
	}
	if _, err := newServer(noBackend{}, &Options{AllowSessions: []string{"["}}); !errors.Is(err, ErrUsage) {
		t.Errorf("bad glob: got %v, want a usage error", err)
	}
}

// TestScopeRulesAgree: the words of docs/scopes.md for a tool agree with its class
// where a class decides them.
func TestScopeRulesAgree(t *testing.T) {
	for _, r := range ScopeRules() {
		switch lookupTool(r.Tool).access {
		case accessServer:
			if !strings.HasPrefix(r.OwnedWrite, "refused") || !strings.HasPrefix(r.Owned, "refused") {
				t.Errorf("%s is refused under both owned scopes, but its rule says %+v", r.Tool, r)
			}
		case accessWrite:
			if strings.HasPrefix(r.OwnedWrite, "anything") || strings.HasPrefix(r.Owned, "anything") {
				t.Errorf("%s changes sessions, but its rule says %+v", r.Tool, r)
			}
		case accessRead, accessList:
			if strings.HasPrefix(r.Owned, "anything") {
				t.Errorf("%s is checked under owned, but its rule says %+v", r.Tool, r)
			}
		}
	}
}

// fakeScope is a backend whose model (placement) and fresh reads
// (sessionsOf) can disagree, as they do after a move tmux reported to no
// client of ours.
type fakeScope struct {
	noBackend // a call that reaches it panics, answered internal
	pl        session.Placement
	now       map[string][]string
}

func (f fakeScope) placement(context.Context, Socket, bool) (session.Placement, func(string) bool, error) {
	return f.pl, func(id string) bool { return id == "$1" }, nil
}

func (f fakeScope) sessionsOf(context.Context, Socket, []string) (map[string][]string, error) {
	return f.now, nil
}

// TestScopeRecheck: a change the model lets through is placed once more
// from a fresh read, and refused if the pane is no longer in scope; a read
// trusts the model.
func TestScopeRecheck(t *testing.T) {
	pl := session.Placement{
		Sessions:   []session.Session{{ID: "$0", Name: "user"}, {ID: "$1", Name: "agent"}},
		Windows:    []session.Window{{ID: "@1", SessionID: "$1"}},
		Panes:      []session.Pane{{ID: "%1", WindowID: "@1", SessionID: "$1"}},
		Generation: "1:1",
	}
	for _, tc := range []struct {
		name string
		now  []string // the sessions %1 is in, read fresh
		tool string
		want string
	}{
		{"moved out", []string{"$0"}, "send_keys", CodeTargetDenied},
		{"linked out", []string{"$1", "$0"}, "send_keys", CodeTargetDenied},
		{"gone", nil, "send_keys", CodeNotFound},
		{"still in", []string{"$1"}, "send_keys", CodeInternal}, // reached the backend
		{"a read", []string{"$0"}, "capture_pane", CodeInternal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := fakeScope{pl: pl, now: map[string][]string{"%1": tc.now}}
			cs := connect(t, b, &Options{Scope: "owned"}, "2025-11-25")
			args := map[string]any{"pane_id": "%1"}
			if tc.tool == "send_keys" {
				args["keys"] = "x"
			}
			e := envelopeOf(t, call(t, cs, tc.tool, args))
			if e.Code != tc.want {
				t.Errorf("got %+v, want %s", e, tc.want)
			}
		})
	}
}

// TestAgentStateWaitTargetsEveryPane: wait_for_agent_state reports each of
// its pane_ids as a target, so the scope check sees every pane it would
// watch, not only the first.
func TestAgentStateWaitTargetsEveryPane(t *testing.T) {
	r := WaitForAgentStateIn{PaneIDs: []string{"%71", "%72", "%73"}}.targets()
	var got []string
	for _, x := range r.list {
		if x.kind == "pane" {
			got = append(got, x.id)
		}
	}
	if !slices.Equal(got, []string{"%71", "%72", "%73"}) {
		t.Fatalf("targets: %+v, want the three panes", r.list)
	}
}
