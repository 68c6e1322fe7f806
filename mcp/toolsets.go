package mcp

import (
	"fmt"
	"slices"
	"strings"
)

// Toolset is a set of libtmux-mcp's toolsets (LIBTMUX_TOOLSETS): what kinds
// of tools a server exposes. Unlike the tiers, toolsets combine freely
// (inspect,teardown is a set).
type Toolset uint8

// The toolsets. Every tool is in exactly one (its declaration says which).
const (
	// ToolsetInspect reads: listings, captures, waits, info (the readonly tier).
	ToolsetInspect Toolset = 1 << iota
	// ToolsetManage changes tmux's structure and state without running a
	// command of the caller's choosing: sessions, windows, layouts, names,
	// selection, buffers, copy mode.
	ToolsetManage
	// ToolsetExecute makes programs run or reach them: input to panes,
	// run_command, respawn_pane, pipe_pane, and set_option and
	// set_environment (a #() in a status format or a default-command runs
	// later). It also unlocks the arguments of manage tools that run a
	// command or shape its environment (split_window's shell; environment).
	ToolsetExecute
	// ToolsetTeardown destroys: the kill tools, clear_pane, delete_buffer.
	ToolsetTeardown
)

var toolsetNames = []struct {
	name string
	set  Toolset
}{
	{"inspect", ToolsetInspect},
	{"manage", ToolsetManage},
	{"execute", ToolsetExecute},
	{"teardown", ToolsetTeardown},
}

// String is the comma form LIBTMUX_TOOLSETS takes, in canonical order.
func (ts Toolset) String() string {
	var names []string
	for _, n := range toolsetNames {
		if ts&n.set != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, ",")
}

// ParseToolsets parses a LIBTMUX_TOOLSETS value: toolset names separated by
// commas (spaces around them are ignored). An empty value or an unknown name
// is an error wrapping ErrUsage that says what is allowed.
func ParseToolsets(s string) (Toolset, error) {
	var ts Toolset
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		found := false
		for _, n := range toolsetNames {
			if item == n.name {
				ts |= n.set
				found = true
			}
		}
		if !found {
			names := make([]string, len(toolsetNames))
			for i, n := range toolsetNames {
				names[i] = n.name
			}
			msg := fmt.Sprintf("LIBTMUX_TOOLSETS=%q: unknown toolset %q; want a comma-separated set of %s", s, item, strings.Join(names, ", "))
			if near := Nearest(item, names); near != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", near)
			}
			return 0, fmt.Errorf("%w: %s", ErrUsage, msg)
		}
	}
	return ts, nil
}

// Selection is what decides which tools a server exposes, as the flags
// and the environment give it. The zero Selection is the default: the
// mutating tier.
type Selection struct {
	// Safety is a tier name (LIBTMUX_SAFETY, --safety); "" = not given.
	Safety string
	// Toolsets is a LIBTMUX_TOOLSETS value; "" = not given. Giving both
	// Safety and Toolsets is an error: they are two answers to one question.
	Toolsets string
	// Tools, when not empty, is exactly the set exposed (--tool,
	// LIBTMUX_TOOLS), replacing the tier's or the toolsets' set.
	Tools []string
	// Exclude removes tools from the set (LIBTMUX_EXCLUDE_TOOLS).
	Exclude []string
}

// ToolSelection is the outcome of [SelectTools].
type ToolSelection struct {
	// Enabled holds the tools listed and callable.
	Enabled map[string]bool
	// ExecArgs reports whether the manage tools' arguments that run a
	// command (split_window's shell, environment) are allowed: false only
	// when toolsets were chosen without execute.
	ExecArgs bool
	// Summary says what was chosen, in one sentence for the instructions.
	Summary string
	// Warning is set when an invalid tier fell back to readonly.
	Warning string
	// What chose the set, for tool_denied to name (see denialOf): the
	// tier in force (when no toolsets were given), the toolsets, the
	// tools named, and those excluded.
	tier         Tier
	toolsets     Toolset
	fromToolsets bool
	named        []string
	excluded     []string
}

// SelectTools maps a tier or a set of toolsets, plus the tools included and
// excluded by name, to the set of tools exposed. Errors wrap ErrUsage: a
// tier and toolsets at once, an unknown toolset, an unknown or repeated
// tool name (with the nearest known name), a tool both included and
// excluded. An invalid tier is no error: it fails closed to readonly, and
// Warning says so.
func SelectTools(sel Selection) (ToolSelection, error) {
	out := ToolSelection{Enabled: map[string]bool{}, ExecArgs: true}
	var base Toolset
	switch {
	case sel.Safety != "" && sel.Toolsets != "":
		return ToolSelection{}, fmt.Errorf("%w: a safety tier (%s) and toolsets (%s) both choose the tools; set one of them "+
			"(readonly = inspect, mutating = inspect,manage,execute, destructive = inspect,manage,execute,teardown)",
			ErrUsage, sel.Safety, sel.Toolsets)
	case sel.Toolsets != "":
		ts, err := ParseToolsets(sel.Toolsets)
		if err != nil {
			return ToolSelection{}, err
		}
		base = ts
		out.toolsets, out.fromToolsets = ts, true
		out.ExecArgs = ts&ToolsetExecute != 0
		out.Summary = "Toolsets: " + ts.String() + "."
	default:
		tier, ok := ParseTier(sel.Safety)
		if !ok {
			out.Warning = fmt.Sprintf("invalid safety tier %q; using readonly", sel.Safety)
		}
		out.Summary = "Safety tier: " + tier.String() + "."
		out.tier, out.toolsets = tier, tierToolsets[tier]
		for _, d := range catalogue() {
			if d.tier <= tier {
				out.Enabled[d.name] = true
			}
		}
	}
	if base != 0 {
		for _, d := range catalogue() {
			if d.toolset&base != 0 {
				out.Enabled[d.name] = true
			}
		}
	}
	if len(sel.Tools) > 0 {
		out.Enabled = map[string]bool{}
		out.ExecArgs = true // naming a tool allows all of it
		for _, n := range sel.Tools {
			if err := knownTool(n); err != nil {
				return ToolSelection{}, err
			}
			if out.Enabled[n] {
				return ToolSelection{}, fmt.Errorf("%w: tool %q given twice", ErrUsage, n)
			}
			out.Enabled[n] = true
		}
		out.Summary = "Tools exposed: " + strings.Join(sel.Tools, ", ") + "."
		out.named = sel.Tools
	}
	for _, n := range sel.Exclude {
		if err := knownTool(n); err != nil {
			return ToolSelection{}, err
		}
		if slices.Contains(sel.Tools, n) {
			return ToolSelection{}, fmt.Errorf("%w: tool %q is both included and excluded", ErrUsage, n)
		}
		delete(out.Enabled, n)
	}
	out.excluded = sel.Exclude
	if len(sel.Exclude) > 0 {
		out.Summary += " Excluded: " + strings.Join(sel.Exclude, ", ") + "."
	}
	return out, nil
}

// knownTool returns a usage error naming the nearest tool when name is no
// tool of the catalogue.
func knownTool(name string) error {
	if lookupTool(name) != nil {
		return nil
	}
	msg := fmt.Sprintf("unknown tool %q", name)
	if near := Nearest(name, ToolNames()); near != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return fmt.Errorf("%w: %s", ErrUsage, msg)
}

// ToolNames lists every tool of the catalogue, in catalogue order.
func ToolNames() []string {
	defs := catalogue()
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.name
	}
	return names
}

// checkExecArgs refuses, under toolsets without execute, the arguments of a
// manage tool that run a command or shape its environment.
func (s *server) checkExecArgs(d *toolDef, args map[string]any) *ToolError {
	if s.execArgs {
		return nil
	}
	for _, a := range d.execArgs {
		if _, ok := args[a]; ok {
			return Errorf(CodeToolDenied, EffectsNone,
				"%s's argument %s runs a command or shapes its environment, which needs the execute toolset (LIBTMUX_TOOLSETS=...,execute); call it without %s",
				d.name, a, a)
		}
	}
	return nil
}

// tierToolsets are the toolsets each tier stands for, as libtmux-mcp
// maps them (teardown_session, in the teardown toolset, is in the mutating
// tier all the same: it destroys only what this process made).
var tierToolsets = map[Tier]Toolset{
	TierReadonly:    ToolsetInspect,
	TierMutating:    ToolsetInspect | ToolsetManage | ToolsetExecute,
	TierDestructive: ToolsetInspect | ToolsetManage | ToolsetExecute | ToolsetTeardown,
}

// denialOf is the message of tool_denied for d: what the selection in
// force is, and the setting that would allow d. byToken says the server
// serves one HTTP token, whose safety= field, not a flag, sets its tier.
func (sel ToolSelection) denialOf(d *toolDef, byToken bool) string {
	var inForce, allow string
	switch {
	case slices.Contains(sel.excluded, d.name):
		inForce = "it is excluded by --exclude-tool (LIBTMUX_EXCLUDE_TOOLS)"
		allow = "start tmux-mcp without --exclude-tool " + d.name
	case len(sel.named) > 0:
		inForce = "the server exposes only the tools named by --tool (LIBTMUX_TOOLS): " + strings.Join(sel.named, ",")
		if len(sel.named) > 6 {
			inForce = fmt.Sprintf("the server exposes only the %d tools named by --tool (LIBTMUX_TOOLS)", len(sel.named))
		}
		allow = "start tmux-mcp with --tool " + d.name + " added"
	case byToken:
		inForce = fmt.Sprintf("this token's safety tier is %s (toolsets %s)", sel.tier, sel.toolsets)
		allow = fmt.Sprintf("give safety=%s on the token's line of the --auth-tokens file (or --safety %s for tokens that name none)", d.tier, d.tier)
	case sel.fromToolsets:
		inForce = "the server runs with toolsets " + sel.toolsets.String() + " (--toolsets, LIBTMUX_TOOLSETS)"
		allow = "start tmux-mcp with --toolsets " + (sel.toolsets | d.toolset).String()
	default:
		inForce = fmt.Sprintf("the server runs with safety tier %s (toolsets %s)", sel.tier, sel.toolsets)
		allow = fmt.Sprintf("start tmux-mcp with --safety %s (LIBTMUX_SAFETY=%s), or --toolsets %s", d.tier, d.tier, (sel.toolsets | d.toolset).String())
	}
	return fmt.Sprintf("tool %q is not enabled: %s; %s is in toolset %s and tier %s. To allow it, %s",
		d.name, inForce, d.name, d.toolset, d.tier, allow)
}
