package mcp

// Option, environment, buffer and hook tools.
func optionTools() []*toolDef {
	return []*toolDef{
		addTool("show_option", TierReadonly, annReadOnly,
			"Read a tmux option.",
			(*TmuxBackend).ShowOption, reads,
			scopeRule("anything",
				"a session, window or pane table in scope, named by target")),
		addTool("set_option", TierMutating, annMutating,
			"Set a tmux option.",
			(*TmuxBackend).SetOption, writes, execute,
			scopeRuleBoth("a session, window or pane table in scope, named by target; no server options")),
		addTool("show_environment", TierReadonly, annReadOnly,
			"Read a session's environment, or the global one.",
			(*TmuxBackend).ShowEnvironment, reads,
			scopeRule("anything",
				"a session in scope; not the global environment")),
		addTool("set_environment", TierMutating, annMutating,
			"Set a variable in a session's or the global environment; later panes inherit it.",
			(*TmuxBackend).SetEnvironment, writes, execute,
			scopeRuleBoth("a session in scope; not the global environment")),
		addTool("load_buffer", TierMutating, annShell,
			"Store text in a new tmux buffer and return its name. The buffer is this client's: over HTTP, another token's paste, show or delete of it is not_found.",
			(*TmuxBackend).LoadBuffer, touchesNone, manage,
			scopeRuleBoth("anything (MCP buffers belong to no session)")),
		addTool("paste_buffer", TierMutating, annShell,
			"Paste a buffer made by load_buffer into a pane.",
			(*TmuxBackend).PasteBuffer, writes, execute, paneTarget()),
		addTool("show_buffer", TierReadonly, annReadOnly,
			"Read a buffer made by load_buffer.",
			(*TmuxBackend).ShowBuffer, touchesNone,
			scopeRuleBoth("anything (MCP buffers belong to no session)")),
		addTool("delete_buffer", TierMutating, annMutating,
			"Delete a buffer made by load_buffer.",
			(*TmuxBackend).DeleteBuffer, touchesNone, teardown,
			scopeRuleBoth("anything (MCP buffers belong to no session)")),
		addTool("show_hooks", TierReadonly, annReadOnly,
			"List the tmux hooks of a scope.",
			(*TmuxBackend).ShowHooks, reads,
			scopeRule("anything",
				"a session, window or pane table in scope, named by target")),
		addTool("show_hook", TierReadonly, annReadOnly,
			"Read one tmux hook.",
			(*TmuxBackend).ShowHook, reads, resultAs("show_hooks"),
			scopeRule("anything",
				"a session, window or pane table in scope, named by target")),
	}
}

// The input types of the option, environment, buffer and hook tools.
type (
	// ShowOptionIn is the input of show_option.
	ShowOptionIn struct {
		Option string `json:"option" jsonschema:"Option name, e.g. history-limit." mcp:"len=256;line;pattern=^@?[A-Za-z0-9_-]+(\\[[0-9]+\\])?$"`
		OptionScope
		Socket
	}
	// SetOptionIn is the input of set_option.
	SetOptionIn struct {
		Option string `json:"option" jsonschema:"Option name." mcp:"len=256;line;pattern=^@?[A-Za-z0-9_-]+(\\[[0-9]+\\])?$"`
		Value  string `json:"value" jsonschema:"New value." mcp:"len=65536"`
		OptionScope
		Socket
	}
	// ShowEnvironmentIn is the input of show_environment.
	ShowEnvironmentIn struct {
		SessionTarget
		Socket
	}
	// SetEnvironmentIn is the input of set_environment.
	SetEnvironmentIn struct {
		Name  string `json:"name" jsonschema:"Variable name." mcp:"len=256;line"`
		Value string `json:"value" jsonschema:"Variable value." mcp:"len=65536"`
		SessionTarget
		Socket
	}
	// LoadBufferIn is the input of load_buffer.
	LoadBufferIn struct {
		Content     string `json:"content" jsonschema:"Buffer content." mcp:"len=1048576"`
		LogicalName string `json:"logical_name,omitempty" jsonschema:"Short label kept in the buffer name." mcp:"len=64;pattern=^[A-Za-z0-9_.-]+$"`
		Socket
	}
	// PasteBufferIn is the input of paste_buffer.
	PasteBufferIn struct {
		BufferName string `json:"buffer_name" jsonschema:"Name from load_buffer." mcp:"len=256;line"`
		PaneID     string `json:"pane_id,omitempty" mcp:"len=64;line;pattern=^%[0-9]+$"`
		Bracket    bool   `json:"bracket,omitempty" jsonschema:"Use bracketed paste." mcp:"default=true"`
		SessionTarget
		WindowID string `json:"window_id,omitempty" mcp:"len=64;line;pattern=^@[0-9]+$"`
		Socket
	}
	// ShowBufferIn is the input of show_buffer.
	ShowBufferIn struct {
		BufferName string `json:"buffer_name" jsonschema:"Name from load_buffer." mcp:"len=256;line"`
		MaxLines   int    `json:"max_lines,omitempty" jsonschema:"Newest lines kept; 0: all." mcp:"min=0;max=1000000;default=500"`
		Socket
	}
	// DeleteBufferIn is the input of delete_buffer.
	DeleteBufferIn struct {
		BufferName string `json:"buffer_name" jsonschema:"Name from load_buffer." mcp:"len=256;line"`
		Socket
	}
	// ShowHooksIn is the input of show_hooks.
	ShowHooksIn struct {
		OptionScope
		Socket
	}
	// ShowHookIn is the input of show_hook.
	ShowHookIn struct {
		HookName string `json:"hook_name" jsonschema:"Hook name, e.g. pane-exited." mcp:"len=128;line;pattern=^[a-z-]+(\\[[0-9]+\\])?$"`
		OptionScope
		Socket
	}
)

// targets of set_option: its table, and the option, since a server option
// is the server's whatever table is named.
func (in SetOptionIn) targets() reach {
	r := in.OptionScope.targets()
	r.option = in.Option
	return r
}

// targets of the environment tools: naming no session means the global
// environment, not the default session.
func (in ShowEnvironmentIn) targets() reach { return environmentTargets(in.SessionTarget) }
func (in SetEnvironmentIn) targets() reach  { return environmentTargets(in.SessionTarget) }

func environmentTargets(t SessionTarget) reach {
	if t.SessionID == "" && t.SessionName == "" {
		return reach{server: true}
	}
	return t.targets()
}

func (in PasteBufferIn) targets() reach {
	return reach{list: refs(in.PaneID, in.WindowID, in.SessionID, in.SessionName)}
}
