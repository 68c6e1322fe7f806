package mcp

import (
	"context"
	"strconv"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// Options, environments and hooks.

// optionTable converts the tools' option scope group.
func optionTable(o OptionScope) session.OptionTable {
	return session.OptionTable{Scope: o.Scope, Target: o.Target, Global: o.Global}
}

// optionJSON types an option value as libtmux does: digits are a number,
// on and off a boolean, anything else a string.
func optionJSON(v string) any {
	if v == "on" {
		return true
	}
	if v == "off" {
		return false
	}
	if v != "" && len(v) < 19 && allDigits(v) {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			return n
		}
	}
	return v
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ShowOption reads one option. Its value is null when the option is not
// set; an array option is an object from index to item.
func (b *TmuxBackend) ShowOption(ctx context.Context, in ShowOptionIn) (OptionResult, error) {
	v, err := b.server(in.Socket).ShowOption(ctx, optionTable(in.OptionScope), in.Option)
	if err != nil {
		return OptionResult{}, err
	}
	res := OptionResult{Option: in.Option}
	switch {
	case !v.Set:
	case v.Array != nil:
		items := make(map[string]any, len(v.Array))
		for i, item := range v.Array {
			items[strconv.Itoa(i)] = optionJSON(item)
		}
		res.Value = items
	default:
		res.Value = optionJSON(v.Value)
	}
	return res, nil
}

// SetOption sets one option; the value is stored as given.
func (b *TmuxBackend) SetOption(ctx context.Context, in SetOptionIn) (OptionSetResult, error) {
	if err := b.server(in.Socket).SetOption(ctx, optionTable(in.OptionScope), in.Option, in.Value); err != nil {
		return OptionSetResult{}, err
	}
	return OptionSetResult{Option: in.Option, Value: in.Value, Status: "set"}, nil
}

// ShowEnvironment reads a session's environment, or the global one. A
// variable removed from it (set-environment -r) shows as "-NAME": true,
// as in libtmux.
func (b *TmuxBackend) ShowEnvironment(ctx context.Context, in ShowEnvironmentIn) (EnvironmentResult, error) {
	vars, err := b.server(in.Socket).Environment(ctx, in.SessionID, in.SessionName)
	if err != nil {
		return EnvironmentResult{}, err
	}
	out := make(EnvValues, len(vars))
	for _, v := range vars {
		if v.Removed {
			out["-"+v.Name] = true
		} else {
			out[v.Name] = v.Value
		}
	}
	return EnvironmentResult{Variables: out}, nil
}

// SetEnvironment sets a variable in a session's environment, or the
// global one.
func (b *TmuxBackend) SetEnvironment(ctx context.Context, in SetEnvironmentIn) (EnvironmentSetResult, error) {
	if err := b.server(in.Socket).SetEnvironment(ctx, in.SessionID, in.SessionName, in.Name, in.Value); err != nil {
		return EnvironmentSetResult{}, err
	}
	return EnvironmentSetResult{Name: in.Name, Value: in.Value, Status: "set"}, nil
}

// hookEntries converts hooks to their result rows.
func hookEntries(hooks []session.Hook) HookListResult {
	res := HookListResult{Entries: make([]HookEntry, 0, len(hooks))}
	for _, h := range hooks {
		e := HookEntry{HookName: h.Name, Command: h.Command}
		if h.Indexed {
			e.Index = &h.Index
		}
		res.Entries = append(res.Entries, e)
	}
	return res
}

// ShowHooks lists the hooks set in a scope.
func (b *TmuxBackend) ShowHooks(ctx context.Context, in ShowHooksIn) (HookListResult, error) {
	hooks, err := b.server(in.Socket).Hooks(ctx, optionTable(in.OptionScope), "")
	if err != nil {
		return HookListResult{}, err
	}
	return hookEntries(hooks), nil
}

// ShowHook lists the commands of one hook; none when it is unset.
func (b *TmuxBackend) ShowHook(ctx context.Context, in ShowHookIn) (HookListResult, error) {
	if in.HookName == "" {
		return HookListResult{}, Errorf(CodeInvalidArguments, EffectsNone, "hook_name is empty")
	}
	hooks, err := b.server(in.Socket).Hooks(ctx, optionTable(in.OptionScope), in.HookName)
	if err != nil {
		return HookListResult{}, err
	}
	return hookEntries(hooks), nil
}
