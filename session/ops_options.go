package session

import (
	"context"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// Options, environments and hooks. tmux keeps them in tables: the server's,
// the global session and window tables (-g), and one per session, window
// and pane. An [OptionTable] names one.

// Option scopes, as the tools name them.
const (
	ScopeServer  = "server"
	ScopeSession = "session"
	ScopeWindow  = "window"
	ScopePane    = "pane"
)

// OptionTable names an option or hook table.
type OptionTable struct {
	// Scope is "", ScopeServer, ScopeSession, ScopeWindow or ScopePane.
	// tmux files a known option under its own scope whatever the flag
	// says; the scope matters for user options (@name) and for which
	// object Target names.
	Scope string
	// Target is a session name or id ($1) for the session scope, a window
	// (@1) or pane (%1) for the others; "" means the current one. It needs
	// a Scope, and the server scope ignores it.
	Target string
	// Global selects the global table (-g).
	Global bool
}

// flags returns the scope, global and target flags of t.
func (t OptionTable) flags() ([]string, error) {
	var args []string
	if t.Global {
		args = append(args, "-g")
	}
	switch t.Scope {
	case "", ScopeSession:
	case ScopeServer:
		args = append(args, "-s")
	case ScopeWindow:
		args = append(args, "-w")
	case ScopePane:
		args = append(args, "-p")
	default:
		return nil, errorf(KindInvalid, "unknown scope %q: want server, session, window or pane", t.Scope)
	}
	if t.Target == "" || t.Scope == ScopeServer {
		return args, nil
	}
	if t.Scope == "" {
		return nil, errorf(KindInvalid, "target %q needs a scope (session, window or pane)", t.Target)
	}
	return append(args, "-t", scopeTarget(t.Scope, t.Target)), nil
}

// OptionValue is the value of one option.
type OptionValue struct {
	// Set is false when the table holds no value for the option (and no
	// parent table either, for non-global reads), or the option is an
	// empty array.
	Set bool
	// Value is the value of a scalar option, or of one array item named
	// with an index ("command-alias[2]").
	Value string
	// Array holds the items of an array option by index; nil for scalars.
	Array map[int]string
	// Inherited reports that the value comes from a parent table.
	Inherited bool
}

// ShowOption reads option name from table t in one round trip. A read
// that is not global reports the value in force (-A): inherited from the
// global table when the object has none of its own.
func (s *Server) ShowOption(ctx context.Context, t OptionTable, name string) (OptionValue, error) {
	flags, err := t.flags()
	if err != nil {
		return OptionValue{}, err
	}
	if !optionName.MatchString(name) {
		return OptionValue{}, errorf(KindInvalid, "%q is not an option name", name)
	}
	if !t.Global {
		flags = append(flags, "-A")
	}
	// The listing says whether the option is set, is an array and with
	// which indexes; -v gives the values unescaped.
	rs, err := s.exec(ctx,
		controlmode.NewCommand("show-options", flags...).Text(name),
		controlmode.NewCommand("show-options", append(flags, "-v")...).Text(name))
	if err != nil {
		return OptionValue{}, err
	}
	rel := s.release()
	listed := rs[0].Lines
	for i, line := range listed {
		listed[i] = rel.DecodePrinted(line)
	}
	values := rs[1].Lines
	if rel.PrintEncoded() {
		// -v values are printed as they are stored, so the print encoding
		// cannot be undone exactly; the listing escapes them first.
		values = nil
	}
	return parseOption(name, listed, values), nil
}

// optionName is what an option name may be. tmux expands formats in the
// name given to show-options and set-option, so anything else could run
// #(shell commands) on the server.
var optionName = regexp.MustCompile(`^@?[A-Za-z0-9_-]+(\[[0-9]+\])?$`)

// hooks are tmux 3.2-3.6's hook names, besides every after-<command>.
var hooks = map[string]bool{
	"alert-activity": true, "alert-bell": true, "alert-silence": true, "client-active": true,
	"client-attached": true, "client-detached": true, "client-focus-in": true, "client-focus-out": true,
	"client-light-theme": true, "client-dark-theme": true,
	"client-resized": true, "client-session-changed": true, "command-error": true, "pane-died": true,
	"pane-exited": true, "pane-focus-in": true, "pane-focus-out": true, "pane-mode-changed": true,
	"pane-set-clipboard": true, "pane-title-changed": true, "session-closed": true, "session-created": true,
	"session-renamed": true, "session-window-changed": true, "window-layout-changed": true,
	"window-linked": true, "window-pane-changed": true, "window-renamed": true, "window-resized": true,
	"window-unlinked": true,
}

// isHook reports whether option name (perhaps with an [index]) is a hook.
func isHook(name string) bool {
	if i := strings.IndexByte(name, '['); i > 0 {
		name = name[:i]
	}
	return hooks[name] || strings.HasPrefix(name, "after-")
}

// optionKey splits a key of show-options output: "name[3]*" is name,
// index 3, inherited.
func optionKey(key string) (name string, index int, indexed, inherited bool) {
	key, inherited = strings.CutSuffix(key, "*")
	if i := strings.LastIndexByte(key, '['); i > 0 && strings.HasSuffix(key, "]") {
		if n, err := strconv.Atoi(key[i+1 : len(key)-1]); err == nil && n >= 0 {
			return key[:i], n, true, inherited
		}
	}
	return key, 0, false, inherited
}

// parseOption reads the replies of show-options (listed) and show-options
// -v (values) for the option queried; with values nil, the listing alone.
func parseOption(queried string, listed, values []string) OptionValue {
	_, _, queriedIndex, _ := optionKey(queried)
	type item struct {
		index int
		raw   string // the listed value, escaped if a string
	}
	var items []item
	var v OptionValue
	for _, line := range listed {
		key, raw, hasValue := strings.Cut(line, " ")
		_, idx, indexed, inherited := optionKey(key)
		v.Inherited = v.Inherited || inherited
		if !hasValue {
			continue // an empty array prints its bare name
		}
		if !indexed || queriedIndex {
			// A scalar, or one item asked for by index: -v printed it
			// alone, newlines included.
			if values == nil {
				return OptionValue{Set: true, Value: unescapeArg(raw), Inherited: inherited}
			}
			return OptionValue{Set: true, Value: strings.Join(values, "\n"), Inherited: inherited}
		}
		items = append(items, item{idx, raw})
	}
	if len(items) == 0 {
		return OptionValue{Inherited: v.Inherited}
	}
	v.Set, v.Array = true, make(map[int]string, len(items))
	for i, it := range items {
		if len(values) == len(items) {
			v.Array[it.index] = values[i] // one line per item: exact
		} else {
			v.Array[it.index] = unescapeArg(it.raw) // an item spans lines
		}
	}
	return v
}

// unescapeArg decodes a value as show-options lists a string option: bare,
// 'single-quoted' or "double-quoted", vis-encoded inside.
func unescapeArg(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		s = s[1 : len(s)-1]
	}
	out, _ := controlmode.Unvis(s)
	return string(out)
}

// SetOption sets option name in table t to value, stored literally: tmux
// expands no format in it.
func (s *Server) SetOption(ctx context.Context, t OptionTable, name, value string) error {
	flags, err := t.flags()
	if err != nil {
		return err
	}
	if !optionName.MatchString(name) {
		return errorf(KindInvalid, "%q is not an option name", name)
	}
	if isHook(name) {
		// Hooks are options whose values tmux runs as commands; the
		// catalogue has no tool that sets hooks, on purpose.
		return errorf(KindInvalid, "%s is a hook, and hooks cannot be set as options", name)
	}
	_, err = s.exec(ctx, controlmode.NewCommand("set-option", flags...).Text(name, value))
	return err
}

// EnvVar is one variable of a tmux environment.
type EnvVar struct {
	Name  string
	Value string
	// Removed marks a variable removed from the environment (set-environment
	// -r): new processes do not get it, even from the global environment.
	Removed bool
}

// Environment returns the environment of session id or name, or the
// global environment when both are empty, in tmux's order. Hidden
// variables (set-environment -h) are not shown.
func (s *Server) Environment(ctx context.Context, id, name string) ([]EnvVar, error) {
	// -s prints shell commands, with values quoted: unlike the plain form,
	// a value with a newline in it reads back unambiguously.
	rs, err := s.exec(ctx, controlmode.NewCommand("show-environment", append(envTarget(id, name), "-s")...))
	if err != nil {
		return nil, err
	}
	vars, ok := parseShellEnv(s.release().DecodePrinted(strings.Join(rs[0].Lines, "\n")))
	if !ok {
		return vars, errorf(KindRefused, "cannot read the output of show-environment -s")
	}
	return vars, nil
}

// parseShellEnv reads show-environment -s output: lines
// `NAME="value"; export NAME;` (with \ before $ ` " and \) and
// `unset NAME;`. A value may span lines. A backslash before a digit or a
// letter is the print encoding of tmux 3.4 and 3.5 (\033, \r), which
// the shell quoting never makes.
func parseShellEnv(text string) (vars []EnvVar, ok bool) {
	for len(text) > 0 {
		if rest, found := strings.CutPrefix(text, "unset "); found {
			line, after, _ := strings.Cut(rest, "\n")
			n, found := strings.CutSuffix(line, ";")
			if !found {
				return vars, false
			}
			vars = append(vars, EnvVar{Name: n, Removed: true})
			text = after
			continue
		}
		eq := strings.Index(text, "=\"")
		if eq <= 0 || strings.Contains(text[:eq], "\n") {
			return vars, false
		}
		name := text[:eq]
		i := eq + 2
		for ; i < len(text) && text[i] != '"'; i++ {
			if text[i] == '\\' && i+1 < len(text) {
				i++
			}
		}
		value, _ := controlmode.Unvis(text[eq+2 : min(i, len(text))])
		tail := "\"; export " + name + ";"
		if !strings.HasPrefix(text[i:], tail) {
			return vars, false
		}
		vars = append(vars, EnvVar{Name: name, Value: string(value)})
		text = text[i+len(tail):]
		if text != "" {
			if text[0] != '\n' {
				return vars, false
			}
			text = text[1:]
		}
	}
	return vars, true
}

// SetEnvironment sets variable name to value in the environment of session
// id or name, or in the global environment when both are empty.
func (s *Server) SetEnvironment(ctx context.Context, id, sessionName, name, value string) error {
	if name == "" || strings.ContainsAny(name, "=\x00") {
		return errorf(KindInvalid, "invalid variable name %q: it must be non-empty and hold no '='", name)
	}
	_, err := s.exec(ctx, controlmode.NewCommand("set-environment", envTarget(id, sessionName)...).Text(name, value))
	return err
}

// Hook is one command registered on a hook.
type Hook struct {
	Name    string
	Index   int
	Indexed bool // Index is meaningful: hooks are arrays from tmux 3.0
	Command string
}

// Hooks returns the hooks set in table t, or only hook name when name is
// not "", sorted by name and index. Hooks without a command are left out,
// so an unset hook gives none. The server scope reads the global tables:
// session hooks (-g) and window and pane hooks (-gw) together.
func (s *Server) Hooks(ctx context.Context, t OptionTable, name string) ([]Hook, error) {
	var cmds []controlmode.Command
	hook := func(flags ...string) controlmode.Command {
		c := controlmode.NewCommand("show-hooks", flags...)
		if name != "" {
			c = c.Text(name)
		}
		return c
	}
	if t.Scope == ScopeServer {
		cmds = append(cmds, hook("-g"))
		if name == "" {
			cmds = append(cmds, hook("-g", "-w"))
		}
	} else {
		flags, err := t.flags()
		if err != nil {
			return nil, err
		}
		cmds = append(cmds, hook(flags...))
	}
	rs, err := s.exec(ctx, cmds...)
	if err != nil {
		return nil, err
	}
	var hooks []Hook
	seen := map[string]bool{}
	rel := s.release()
	for _, r := range rs {
		for i, line := range r.Lines {
			r.Lines[i] = rel.DecodePrinted(line)
		}
		got := parseHooks(r.Lines)
		names := map[string]bool{}
		for _, h := range got {
			if !seen[h.Name] {
				hooks = append(hooks, h)
				names[h.Name] = true
			}
		}
		for n := range names {
			seen[n] = true
		}
	}
	sort.SliceStable(hooks, func(i, j int) bool {
		if hooks[i].Name != hooks[j].Name {
			return hooks[i].Name < hooks[j].Name
		}
		return hooks[i].Index < hooks[j].Index
	})
	return hooks, nil
}

// parseHooks reads show-hooks output: "name[i] command" per command, and
// the bare name of a hook with none.
func parseHooks(lines []string) []Hook {
	var hooks []Hook
	for _, line := range lines {
		key, cmd, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		name, idx, indexed, _ := optionKey(key)
		hooks = append(hooks, Hook{Name: name, Index: idx, Indexed: indexed, Command: cmd})
	}
	return hooks
}
