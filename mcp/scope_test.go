package mcp

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// TestScopeTableComplete: every tool of the catalogue has a scope class,
// and every argument that can name a session, window or pane is one that
// targetsOf reads, so a new tool or argument cannot slip past the check.
func TestScopeTableComplete(t *testing.T) {
	read := []string{"pane_id", "window_id", "session_id", "session_name", "source_pane_id", "target_pane_id",
		"destination_session", "cursor", "operations", "scope", "target", "global_"}
	// Arguments that name no session, window or pane (checked by hand).
	other := []string{"socket_name", "window_index", "direction", "extra_socket_paths", "filters", "sessionId",
		"generation", "buffer_name", "channel", "output_path", "start_directory", "shell", "new_name", "window_name",
		"destination_index", "max_matched_lines_per_pane"}
	for _, d := range catalogue() {
		a, ok := toolAccess[d.name]
		if !ok {
			t.Errorf("%s has no scope class in toolAccess", d.name)
		}
		for name := range d.spec.schema.Properties {
			if slices.Contains(read, name) && a == accessNone && !d.batch && d.name != "create_session" { // its session_name is the new one's
				t.Errorf("%s: argument %s names a target, but the tool is accessNone", d.name, name)
			}
			if slices.Contains(other, name) || slices.Contains(read, name) || !looksLikeTarget(name) {
				continue
			}
			t.Errorf("%s: argument %s may name a target that targetsOf does not read", d.name, name)
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
	cs := connect(t, UnimplementedBackend{}, &Options{Scope: "owned-write"}, "2025-11-25")
	e := envelopeOf(t, call(t, cs, "send_keys", map[string]any{"pane_id": "%1", "keys": "x"}))
	if e.Code != CodeTargetDenied || e.Effects != EffectsNone {
		t.Errorf("got %+v, want target_denied with effects none", e)
	}
	if _, err := NewServer(UnimplementedBackend{}, &Options{AllowSessions: []string{"["}}); !errors.Is(err, ErrUsage) {
		t.Errorf("bad glob: got %v, want a usage error", err)
	}
}

// TestScopeRulesAgree: the README's words for a tool agree with its class
// where a class decides them.
func TestScopeRulesAgree(t *testing.T) {
	for name := range scopeToolWords {
		if lookupTool(name) == nil {
			t.Errorf("scopeToolWords names %s, which is no tool", name)
		}
	}
	for _, r := range ScopeRules() {
		switch accessOf(r.Tool) {
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

// fakeScope is a Backend whose model (placement) and fresh reads
// (sessionsOf) can disagree, as they do after a move tmux reported to no
// client of ours.
type fakeScope struct {
	UnimplementedBackend
	pl  session.Placement
	now map[string][]string
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
