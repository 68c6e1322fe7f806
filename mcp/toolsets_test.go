package mcp

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
)

func enabledNames(m map[string]bool) []string {
	return slices.Sorted(maps.Keys(m))
}

func TestSelectTools(t *testing.T) {
	t.Parallel()
	mustSelect := func(t *testing.T, sel Selection) ToolSelection {
		t.Helper()
		got, err := SelectTools(sel)
		if err != nil {
			t.Fatalf("SelectTools(%+v): %v", sel, err)
		}
		return got
	}
	t.Run("default is the mutating tier", func(t *testing.T) {
		got := mustSelect(t, Selection{})
		if !slices.Equal(enabledNames(got.Enabled), namesAtTier(TierMutating)) || !got.ExecArgs {
			t.Errorf("got %v (exec args %v), want the mutating tier's tools", enabledNames(got.Enabled), got.ExecArgs)
		}
	})
	t.Run("inspect is the readonly tier", func(t *testing.T) {
		got := mustSelect(t, Selection{Toolsets: "inspect"})
		if !slices.Equal(enabledNames(got.Enabled), namesAtTier(TierReadonly)) {
			t.Errorf("got %v, want the readonly tier's tools", enabledNames(got.Enabled))
		}
		if got.ExecArgs {
			t.Error("inspect allows the arguments that run commands")
		}
	})
	t.Run("all four toolsets are every tool", func(t *testing.T) {
		got := mustSelect(t, Selection{Toolsets: " teardown , execute,manage,inspect "})
		if !slices.Equal(enabledNames(got.Enabled), namesAtTier(TierDestructive)) {
			t.Errorf("got %v, want every tool", enabledNames(got.Enabled))
		}
		if got.Summary != "Toolsets: inspect,manage,execute,teardown." {
			t.Errorf("summary %q", got.Summary)
		}
	})
	t.Run("mutating's toolsets leave teardown out", func(t *testing.T) {
		tier := mustSelect(t, Selection{Safety: "mutating"}).Enabled
		sets := mustSelect(t, Selection{Toolsets: "inspect,manage,execute"}).Enabled
		var onlyTier []string
		for n := range tier {
			if !sets[n] {
				onlyTier = append(onlyTier, n)
			}
		}
		slices.Sort(onlyTier)
		if want := []string{"clear_pane", "delete_buffer"}; !slices.Equal(onlyTier, want) {
			t.Errorf("in the mutating tier but not in inspect,manage,execute: %v, want %v", onlyTier, want)
		}
		for n := range sets {
			if !tier[n] {
				t.Errorf("%s is in inspect,manage,execute but not in the mutating tier", n)
			}
		}
	})
	t.Run("inspect,teardown", func(t *testing.T) {
		got := mustSelect(t, Selection{Toolsets: "inspect,teardown"}).Enabled
		for _, n := range []string{"list_panes", "call_read_tools_batch", "kill_session", "kill_server", "clear_pane", "delete_buffer"} {
			if !got[n] {
				t.Errorf("%s not enabled", n)
			}
		}
		for _, n := range []string{"send_keys", "create_session", "set_option", "set_environment"} {
			if got[n] {
				t.Errorf("%s enabled", n)
			}
		}
	})
	t.Run("execute holds set_option and set_environment", func(t *testing.T) {
		got := mustSelect(t, Selection{Toolsets: "inspect,manage"}).Enabled
		for _, n := range []string{"set_option", "set_environment", "send_keys", "run_command", "respawn_pane", "pipe_pane"} {
			if got[n] {
				t.Errorf("%s enabled without execute", n)
			}
		}
		if !got["create_session"] || !got["split_window"] {
			t.Error("manage lacks create_session or split_window")
		}
	})
	t.Run("tools and exclusions", func(t *testing.T) {
		got := mustSelect(t, Selection{Tools: []string{"list_panes", "send_keys"}})
		if !slices.Equal(enabledNames(got.Enabled), []string{"list_panes", "send_keys"}) {
			t.Errorf("tools: got %v", enabledNames(got.Enabled))
		}
		got = mustSelect(t, Selection{Toolsets: "inspect", Exclude: []string{"list_servers", "call_readonly_tools_batch"}})
		if got.Enabled["list_servers"] || got.Enabled["call_readonly_tools_batch"] || !got.Enabled["list_panes"] {
			t.Errorf("exclude: got %v", enabledNames(got.Enabled))
		}
		got = mustSelect(t, Selection{Safety: "destructive", Exclude: []string{"kill_server"}})
		if got.Enabled["kill_server"] || !got.Enabled["kill_session"] {
			t.Errorf("exclude from a tier: got %v", enabledNames(got.Enabled))
		}
	})
	t.Run("invalid tier fails closed", func(t *testing.T) {
		got := mustSelect(t, Selection{Safety: "everything"})
		if !slices.Equal(enabledNames(got.Enabled), namesAtTier(TierReadonly)) || got.Warning == "" {
			t.Errorf("got %v, warning %q; want the readonly tier and a warning", enabledNames(got.Enabled), got.Warning)
		}
	})
	for _, tc := range []struct {
		name string
		sel  Selection
		want string
	}{
		{"tier and toolsets", Selection{Safety: "readonly", Toolsets: "inspect"}, "both choose the tools; set one of them"},
		{"unknown toolset", Selection{Toolsets: "inspect,mange"}, `unknown toolset "mange"; want a comma-separated set of inspect, manage, execute, teardown (did you mean "manage"?)`},
		{"empty toolset", Selection{Toolsets: "inspect,"}, `unknown toolset ""`},
		{"unknown tool", Selection{Tools: []string{"send_key"}}, `unknown tool "send_key" (did you mean "send_keys"?)`},
		{"unknown exclusion", Selection{Exclude: []string{"kill_sesion"}}, `unknown tool "kill_sesion" (did you mean "kill_session"?)`},
		{"repeated tool", Selection{Tools: []string{"send_keys", "send_keys"}}, `tool "send_keys" given twice`},
		{"included and excluded", Selection{Tools: []string{"send_keys"}, Exclude: []string{"send_keys"}}, "both included and excluded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := SelectTools(tc.sel)
			if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want ErrUsage containing %q", err, tc.want)
			}
		})
	}
}

// TestToolsetsOverMCP checks what a client of a server with toolsets sees:
// the listing, tool_denied for a tool outside them, and the arguments of a
// manage tool that run a command refused without execute, with nothing sent.
func TestToolsetsOverMCP(t *testing.T) {
	t.Parallel()
	f := newFake()
	cs := connect(t, f, &Options{Toolsets: "inspect,manage", ExcludeTools: []string{"list_servers"}}, "")
	got := toolNames(listTools(t, cs))
	if slices.Contains(got, "send_keys") || slices.Contains(got, "list_servers") || !slices.Contains(got, "split_window") || !slices.Contains(got, "call_read_tools_batch") {
		t.Errorf("tools/list: got %v", got)
	}
	env := envelopeOf(t, call(t, cs, "send_keys", map[string]any{"pane_id": "%1", "keys": "ls"}))
	if env.Code != CodeToolDenied || env.Effects != EffectsNone {
		t.Errorf("send_keys: got %+v, want tool_denied, effects none", env)
	}
	for _, arg := range []string{"shell", "environment"} {
		args := map[string]any{"pane_id": "%1"}
		if arg == "shell" {
			args[arg] = "rm -rf ~"
		} else {
			args[arg] = map[string]any{"PROMPT_COMMAND": "rm -rf ~"}
		}
		env := envelopeOf(t, call(t, cs, "split_window", args))
		if env.Code != CodeToolDenied || env.Effects != EffectsNone || !strings.Contains(env.Message, "execute toolset") {
			t.Errorf("split_window %s: got %+v, want tool_denied naming the execute toolset", arg, env)
		}
	}
	if calls := f.called(); len(calls) != 0 {
		t.Fatalf("backend called: %v", calls)
	}
	if res := call(t, cs, "split_window", map[string]any{"pane_id": "%1"}); res.IsError {
		t.Errorf("split_window without shell: %s", textOf(res))
	}
	if calls := f.called(); !slices.Equal(calls, []string{"split_window"}) {
		t.Errorf("backend calls %v, want split_window", calls)
	}

	// With execute, the same arguments pass.
	f2 := newFake()
	cs2 := connect(t, f2, &Options{Toolsets: "inspect,manage,execute"}, "")
	if res := call(t, cs2, "split_window", map[string]any{"pane_id": "%1", "shell": "top"}); res.IsError {
		t.Errorf("split_window shell with execute: %s", textOf(res))
	}
}

// TestReadBatchUnderToolsets runs call_read_tools_batch on a server with
// inspect only: read rows run, a row calling a tool outside the toolsets is
// refused in its row.
func TestReadBatchUnderToolsets(t *testing.T) {
	t.Parallel()
	f := newFake()
	cs := connect(t, f, &Options{Toolsets: "inspect"}, "")
	res := call(t, cs, "call_read_tools_batch", map[string]any{
		"operations": []any{
			map[string]any{"tool": "list_sessions"},
			map[string]any{"tool": "kill_server"},
		},
		"on_error": "continue",
	})
	if res.IsError {
		t.Fatalf("batch: %s", textOf(res))
	}
	text := textOf(res)
	if !strings.Contains(text, `"succeeded":1`) || !strings.Contains(text, `"failed":1`) || !strings.Contains(text, "tool_denied") {
		t.Errorf("batch result %s, want one row run and kill_server denied", text)
	}
	if calls := f.called(); !slices.Equal(calls, []string{"list_sessions"}) {
		t.Errorf("backend calls %v, want list_sessions only", calls)
	}
}

func TestNearest(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s          string
		candidates []string
		want       string
	}{
		{"send_key", []string{"send_keys", "send_keys_batch"}, "send_keys"},
		{"global", []string{"option", "value", "global_"}, "global_"},
		{"pane", []string{"pane_id", "window_id"}, "pane_id"},
		{"kill_sesion", []string{"kill_server", "kill_session"}, "kill_session"},
		{"frobnicate", []string{"send_keys", "list_panes"}, ""},
		{"x", []string{"y", "session_name"}, "y"},
	} {
		if got := Nearest(tc.s, tc.candidates); got != tc.want {
			t.Errorf("Nearest(%q, %v) = %q, want %q", tc.s, tc.candidates, got, tc.want)
		}
	}
}

// TestUnknownArgumentNamesNearest checks that a slip in an argument name is
// answered with the argument meant (libtmux-mcp's global_, named so because
// global is a Python keyword).
func TestUnknownArgumentNamesNearest(t *testing.T) {
	t.Parallel()
	f := newFake()
	cs := connect(t, f, nil, "")
	env := envelopeOf(t, call(t, cs, "set_option", map[string]any{"option": "status", "value": "off", "global": true}))
	if env.Code != CodeInvalidArguments || !strings.Contains(env.Message, `unknown argument "global" (did you mean "global_"?)`) {
		t.Errorf("got %+v, want invalid_arguments naming global_", env)
	}
	if len(f.called()) != 0 {
		t.Errorf("backend called: %v", f.called())
	}
}

// TestDeclarationsAreComplete: a declaration that leaves out its scope
// class or its toolset, puts a readonly tool in another toolset, gives a
// checked tool an input that cannot say what it targets, half a scope
// rule, or a listing without its cut to the owned scope (or a cut to a
// tool that lists nothing), panics when the catalogue is built, so no server starts with it.
func TestDeclarationsAreComplete(t *testing.T) {
	tests := []struct {
		name string
		d    *toolDef
		want string
	}{
		{"no scope class", addTool("x", TierMutating, annMutating, "X.", (*TmuxBackend).SendKeys, manage), "no scope class"},
		{"no toolset", addTool("x", TierMutating, annMutating, "X.", (*TmuxBackend).SendKeys, writes), "in no toolset"},
		{"readonly elsewhere", addTool("x", TierReadonly, annReadOnly, "X.", (*TmuxBackend).CapturePane, reads, manage), "a readonly tool is an inspect tool"},
		{"readonly writes", addTool("x", TierReadonly, annReadOnly, "X.", (*TmuxBackend).CapturePane, writes), "a readonly tool with scope class"},
		{"untargeted input", addTool("x", TierMutating, annMutating, "X.", (*TmuxBackend).SignalChannel, writes, manage), "says nothing of its targets"},
		{"half a rule", addTool("x", TierMutating, annMutating, "X.", (*TmuxBackend).SendKeys, writes, manage, scopeRule("all", "")), "both owned scopes"},
		{"a listing uncut", addTool("x", TierReadonly, annReadOnly, "X.", (*TmuxBackend).ListPanes, lists), "without its cut"},
		{"a cut read", addTool("x", TierReadonly, annReadOnly, "X.", (*TmuxBackend).CapturePane, reads, cutToScope(cutPanes)), "lists nothing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.Contains(s, tc.want) {
					t.Errorf("got panic %v, want one saying %q", r, tc.want)
				}
			}()
			tc.d.check()
		})
	}
	for _, d := range catalogue() {
		d.check() // the real ones pass
	}
}

// TestDenialNamesWhatAllows: tool_denied's message names the tier or
// toolsets in force, as configured, and the setting that allows the tool.
func TestDenialNamesWhatAllows(t *testing.T) {
	for _, tc := range []struct {
		sel  Selection
		tool string
		want []string
	}{
		{Selection{}, "kill_pane", []string{"safety tier mutating (toolsets inspect,manage,execute)", "toolset teardown and tier destructive", "--safety destructive", "--toolsets inspect,manage,execute,teardown"}},
		{Selection{Safety: "readonly"}, "send_keys", []string{"safety tier readonly (toolsets inspect)", "--safety mutating", "--toolsets inspect,execute"}},
		{Selection{Toolsets: "inspect,manage"}, "run_command", []string{"toolsets inspect,manage (--toolsets", "--toolsets inspect,manage,execute"}},
		{Selection{Tools: []string{"list_panes"}}, "send_keys", []string{"only the tools named by --tool (LIBTMUX_TOOLS): list_panes", "--tool send_keys added"}},
		{Selection{Exclude: []string{"send_keys"}}, "send_keys", []string{"excluded by --exclude-tool", "without --exclude-tool send_keys"}},
	} {
		sel, err := SelectTools(tc.sel)
		if err != nil {
			t.Fatal(err)
		}
		msg := sel.denialOf(lookupTool(tc.tool), false)
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%+v, %s: %q lacks %q", tc.sel, tc.tool, msg, w)
			}
		}
		if len(msg) > MaxMessageBytes {
			t.Errorf("%+v, %s: %d bytes", tc.sel, tc.tool, len(msg))
		}
	}
}
