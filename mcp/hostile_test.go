package mcp

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// contractCodes are the error codes CONTRACT §3 allows.
var contractCodes = map[string]bool{
	CodeInvalidArguments: true, CodeToolDenied: true, CodeTargetRequired: true, CodeTargetDenied: true,
	CodeNotFound: true, CodeAmbiguousTarget: true, CodeStaleTarget: true, CodeOwnershipRequired: true,
	CodeOwnedLimit: true, CodeTmuxError: true, CodeServerUnavailable: true, CodeConnectionLost: true,
	CodeDeadline: true, CodeCancelled: true, CodeBusy: true, CodeResultLimit: true,
}

// hostileTargets are real ids of a pane that runs cat (typed text is
// never executed) and of its window and session.
type hostileTargets struct{ pane, window, session, dir string }

// baselineArgs returns valid arguments for tool d that aim at t, or, for
// tools that destroy or replace things, at targets that do not exist.
func baselineArgs(t *testing.T, d *toolDef, ids hostileTargets) map[string]any {
	args := minimalArgs(t, d.name)
	// Tools that destroy, replace or move things away aim at nothing, so
	// the test's own pane survives every payload (a session the sweep
	// created named "; kill-server" is a real destination for move_window).
	destroys := strings.HasPrefix(d.name, "kill_") || d.name == "teardown_session" || d.name == "respawn_pane" || d.name == "move_window"
	props := d.spec().schema.Properties
	set := func(name string, v any) {
		if _, ok := props[name]; ok {
			args[name] = v
		}
	}
	if destroys {
		set("pane_id", "%99999")
		set("session_id", "$99999")
		set("window_id", "@99999")
		set("sessionId", "$99999")
		set("generation", "1:1")
	} else {
		for name := range args {
			switch name {
			case "pane_id":
				args[name] = ids.pane
			case "window_id":
				args[name] = ids.window
			case "session_id":
				args[name] = ids.session
			}
		}
	}
	// Waits end at once; paths stay inside the test's directory.
	set("timeout", 0.05)
	set("output_path", filepath.Join(ids.dir, "pipe"))
	if d.name == "kill_server" {
		set("socket_name", "tmcp-hostile-nothing-here")
	}
	return args
}

// payloads are injection attempts put in every string argument.
func payloads(canary string) []string {
	return []string{
		";", `\;`, "; kill-server", "#{session_name}", "#(touch " + canary + ")", "$(touch " + canary + ")",
		"`touch " + canary + "`", "%end 1 2 1", "%begin 1 2 1\n%exit", "-t", "-x; kill-server", "'", `"`,
		"a\x00b", "a\nb", "a\rb", "\xff\xfe", "é☃",
	}
}

// TestHostileInputEveryTool sends every tool of the catalogue missing,
// mistyped, unknown, over-long and injected arguments. Each call answers
// with the envelope (or does what was asked, literally); refusals write
// nothing to the control channel; no canary is ever created; and the model
// still equals what tmux lists.
func TestHostileInputEveryTool(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	// Payloads in socket_name start real servers on sockets named after
	// them (create_session does what it is asked): keep every socket of
	// this test in a directory of its own, and end those servers after.
	sockets := t.TempDir()
	t.Setenv("TMUX_TMPDIR", sockets)
	var env *tmuxEnv // the test's tmux binary ends those servers, after env's own cleanup
	t.Cleanup(func() { killServersIn(t, env.fx.Bin, filepath.Join(sockets, fmt.Sprintf("tmux-%d", os.Getuid()))) })
	env = newTmuxEnv(t, "2025-11-25", nil)
	dir := t.TempDir()
	canary := filepath.Join(dir, "CANARY")
	env.fx.NewSession(t, "hostile", "sh", "-c", "echo hostile; exec cat >/dev/null")
	f := strings.Fields(env.fx.Tmux(t, "display-message", "-p", "-t", "hostile", "#{pane_id} #{window_id} #{session_id}"))
	ids := hostileTargets{pane: f[0], window: f[1], session: f[2], dir: dir}
	srv := env.manager.Server(session.Socket{Name: env.fx.Socket})
	var calls, refused, accepted int

	// try calls tool with args and checks the answer is a result or an
	// envelope with a contract code; a refusal for bad arguments must have
	// written nothing to tmux.
	try := func(d *toolDef, what string, args map[string]any, mustRefuse bool) {
		t.Helper()
		calls++
		// Quiesce: a round trip puts every notification of earlier calls
		// through the model, and a listing resyncs it, so the count below
		// sees only what this call writes.
		if _, err := srv.Pane(t.Context(), ids.pane); err != nil {
			t.Fatalf("before %s %s: %v", d.name, what, err)
		}
		if _, err := srv.Sessions(t.Context()); err != nil {
			t.Fatal(err)
		}
		before := srv.ConnStats().Stats.Calls
		forked := srv.ConnStats().Forked
		res := call(t, env.cs, d.name, args)
		defer func() {
			if _, err := os.Stat(canary); err == nil {
				t.Fatalf("%s %s (%v) created the canary", d.name, what, args)
			}
			if st := srv.ConnStats(); st.Stats.Calls == before && st.Forked == forked {
				return // nothing reached this server: its session is as it was
			}
			if _, err := env.fx.TryTmux("has-session", "-t", ids.session); err != nil {
				t.Fatalf("%s %s (%v) destroyed the test session: %v", d.name, what, args, err)
			}
		}()
		if !res.IsError {
			if mustRefuse {
				t.Errorf("%s %s: accepted %v", d.name, what, args)
			}
			accepted++
			return
		}
		e := envelopeOf(t, res)
		if !contractCodes[e.Code] || len(e.Message) > MaxMessageBytes {
			t.Errorf("%s %s: got %+v", d.name, what, e)
		}
		if mustRefuse && e.Code != CodeInvalidArguments {
			t.Errorf("%s %s: got %s, want invalid_arguments", d.name, what, e.Code)
		}
		if e.Code == CodeInvalidArguments {
			refused++
			if e.Effects != EffectsNone {
				t.Errorf("%s %s: invalid_arguments with effects %s", d.name, what, e.Effects)
			}
			if after := srv.ConnStats().Stats.Calls; after != before {
				t.Errorf("%s %s: refused, but %d commands reached tmux", d.name, what, after-before)
			}
		}
	}

	for _, d := range catalogue() {
		if d.batch {
			continue // batches run these same tools; their rows are tested in batch_test.go
		}
		base := baselineArgs(t, d, ids)
		props := d.spec().schema.Properties
		names := slices.Sorted(func(yield func(string) bool) {
			for n := range props {
				if !yield(n) {
					return
				}
			}
		})
		try(d, "unknown key", with(base, "no_such_argument", "x"), true)
		for _, r := range d.spec().schema.Required {
			try(d, "missing "+r, without(base, r), true)
		}
		for _, n := range names {
			p := props[n]
			if len(p.AnyOf) == 2 && p.AnyOf[0].Type == "string" && p.AnyOf[1].Type == "array" {
				p = p.AnyOf[0] // send_keys' keys: a string, or a list of them
			}
			var wrong any = "not-the-type"
			if p.Type == "string" {
				wrong = 12345
			}
			try(d, "wrong type for "+n, with(base, n, wrong), true)
			if p.Type != "string" {
				continue
			}
			if p.MaxLength != nil {
				try(d, "over-long "+n, with(base, n, strings.Repeat("x", *p.MaxLength+1)), true)
			}
			if n == "shell" || n == "command" {
				// These run what they are given by design; run_command
				// is refused here (the pane runs cat, not a shell).
				continue
			}
			for _, v := range payloads(canary) {
				if n == "output_path" {
					v = filepath.Join(dir, strings.NewReplacer("/", "_", "\x00", "").Replace(v))
				}
				try(d, fmt.Sprintf("%s=%q", n, v), with(base, n, v), false)
			}
		}
	}
	if _, err := os.Stat(canary); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the canary was created: %v", err)
	}
	// The server is alive and the model still tells the truth.
	got, err := srv.Sessions(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got {
		names = append(names, s.ID+" "+s.Name)
	}
	want := env.fx.Tmux(t, "list-sessions", "-F", "#{session_id} #{session_name}")
	if strings.Join(names, "\n") != want {
		t.Fatalf("model and tmux differ after the hostile calls:\nmodel %q\ntmux  %q", names, want)
	}
	t.Logf("%d hostile calls: %d refused as invalid_arguments with nothing written, %d accepted literally, %d other envelopes; no canary",
		calls, refused, accepted, calls-refused-accepted)
}

func with(m map[string]any, k string, v any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for a, b := range m {
		out[a] = b
	}
	out[k] = v
	return out
}

func without(m map[string]any, k string) map[string]any {
	out := with(m, k, nil)
	delete(out, k)
	return out
}

// killServersIn ends the tmux servers listening on the sockets in dir,
// which only this test's servers use.
func killServersIn(t *testing.T, tmux, dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		_ = exec.Command(tmux, "-S", path, "-N", "kill-server").Run() // Best effort: most are gone already.
		_ = os.Remove(path)
	}
}
