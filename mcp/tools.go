package mcp

import "context"

// The tool declarations, by domain, in the order of the Backend interface.
// Each is all this package knows of a tool: its name, tier, annotations and
// description; its handler, a Backend method expression whose types are
// the tool's input and result; its scope class (touchesNone, lists, reads,
// writes, touchesServer); above the readonly tier its toolset (manage,
// execute, teardown); and options for the rest (scopeRule when its class's
// words do not say what it may do, execArgs, needsTarget, resultAs, ...).
// What a call targets, its input type says (targets.go).
//
// Tiers and annotation presets are libtmux-mcp's, except create_session and
// teardown_session, which carry the annotations of their seed documents.

// Server and batch tools.
func serverTools() []*toolDef {
	return []*toolDef{
		addTool("list_servers", TierReadonly, annReadOnly,
			"List live tmux servers under $TMUX_TMPDIR and at any extra socket paths.",
			Backend.ListServers, touchesNone,
			scopeRule("anything",
				"anything (session counts include every session)")),
		addTool("list_sessions", TierReadonly, annReadOnly,
			"List tmux sessions. Start here to discover targets.",
			Backend.ListSessions, lists),
		addTool("get_server_info", TierReadonly, annReadOnly,
			"Report whether the tmux server runs, its socket, version and session count.",
			Backend.GetServerInfo, lists, resultAs("list_servers"),
			scopeRule("everything",
				"counts only sessions in scope")),
		addTool("create_session", TierMutating, annSeed,
			"Create a tmux session with one window and pane; returns its ids and the generation teardown_session needs.",
			Backend.CreateSession, touchesNone, manage, requiredMembers(),
			scopeRuleBoth("anything: the new session is in scope at once"),
			execArgs("environment")),
		addTool("kill_server", TierDestructive, annDestructive,
			"Kill the tmux server and every session on it. Refuses the server this MCP server runs in.",
			Backend.KillServer, touchesServer, teardown),

		batchTool("call_readonly_tools_batch", TierReadonly, annReadOnly,
			"Run up to 1000 read-only tool calls in order; each row reports its own result.",
			touchesNone,
			scopeRuleBoth("each row checked as its own call")),
		batchTool("call_read_tools_batch", TierReadonly, annReadOnly,
			"libtmux-mcp's newer name for call_readonly_tools_batch: the same tool.",
			touchesNone, resultAs("call_readonly_tools_batch"),
			scopeRuleBoth("each row checked as its own call")),
		batchTool("call_mutating_tools_batch", TierMutating, annBatch,
			"Run up to 1000 read-only or mutating tool calls in order; each row reports its own result.",
			touchesNone, execute, resultAs("call_readonly_tools_batch"),
			scopeRuleBoth("each row checked as its own call")),
		batchTool("call_destructive_tools_batch", TierDestructive, annBatch,
			"Run up to 1000 tool calls of any tier in order; each row reports its own result.",
			touchesNone, teardown, resultAs("call_readonly_tools_batch"),
			scopeRuleBoth("each row checked as its own call")),
	}
}

// batchTool declares a call_*_tools_batch tool: this package runs its
// rows, each through the whole call path, calling tools of tier at most.
func batchTool(name string, tier Tier, ann Annotations, desc string, opts ...toolOption) *toolDef {
	d := declare(name, tier, ann, desc, func(ctx context.Context, s *server, in ToolCallBatchIn) (ToolCallBatchResult, error) {
		return s.runBatch(ctx, tier, in)
	}, opts...)
	d.batch = true
	return d
}

// Session tools.
func sessionTools() []*toolDef {
	session := needsTarget("session_name", "session_id")
	return []*toolDef{
		addTool("list_windows", TierReadonly, annReadOnly,
			"List the windows of a session, or of every session.",
			Backend.ListWindows, lists, alwaysLoad()),
		addTool("get_session_info", TierReadonly, annReadOnly,
			"Describe one session.",
			Backend.GetSessionInfo, reads, resultAs("list_sessions")),
		addTool("create_window", TierMutating, annCreate,
			"Create a window with one pane in a session.",
			Backend.CreateWindow, writes, manage, session, resultAs("list_windows"),
			execArgs("environment")),
		addTool("rename_session", TierMutating, annMutating,
			"Rename a session; ids stay valid.",
			Backend.RenameSession, writes, manage, session, resultAs("list_sessions")),
		addTool("kill_session", TierDestructive, annDestructive,
			"Kill a session and all its windows. Refuses the session this MCP server runs in.",
			Backend.KillSession, writes, teardown, session),
		addTool("select_window", TierMutating, annMutating,
			"Make a window active, by id, index or direction.",
			Backend.SelectWindow, writes, manage, needsTarget("window_id", "window_index", "direction"), resultAs("list_windows"),
			scopeRuleBoth("targets in scope (a direction alone: the oldest session)")),
		addTool("teardown_session", TierMutating, annSeed,
			"Destroy an exact generation-bound session created by this application. Borrowed sessions are refused.",
			Backend.TeardownSession, touchesNone, manage, seedSchemas(),
			scopeRuleBoth("only sessions it created, as in every scope")),
	}
}

// Window tools.
func windowTools() []*toolDef {
	window := needsTarget("window_id", "window_index", "session_name", "session_id")
	return []*toolDef{
		addTool("list_panes", TierReadonly, annReadOnly,
			"List the panes of a window, a session, or the whole server.",
			Backend.ListPanes, lists, alwaysLoad()),
		addTool("get_window_info", TierReadonly, annReadOnly,
			"Describe one window.",
			Backend.GetWindowInfo, reads, resultAs("list_windows")),
		addTool("split_window", TierMutating, annCreate,
			"Split a pane or window into a new pane; returns the new pane.",
			Backend.SplitWindow, writes, manage, needsTarget("pane_id", "window_id", "window_index", "session_name", "session_id"), resultAs("list_panes"),
			execArgs("shell", "environment")),
		addTool("rename_window", TierMutating, annMutating,
			"Rename a window; ids stay valid.",
			Backend.RenameWindow, writes, manage, window, resultAs("list_windows")),
		addTool("kill_window", TierDestructive, annDestructive,
			"Kill a window and all its panes. Refuses the window this MCP server runs in.",
			Backend.KillWindow, writes, teardown),
		addTool("select_layout", TierMutating, annMutating,
			"Arrange a window's panes in a layout.",
			Backend.SelectLayout, writes, manage, window, resultAs("list_windows")),
		addTool("resize_window", TierMutating, annMutating,
			"Resize a window.",
			Backend.ResizeWindow, writes, manage, window, resultAs("list_windows")),
		addTool("move_window", TierMutating, annMutating,
			"Move a window to another index or session.",
			Backend.MoveWindow, writes, manage, window, resultAs("list_windows"),
			scopeRuleBoth("the window and the destination in scope")),
	}
}

// paneTarget is the needsTarget set of tools that take a pane target.
func paneTarget() toolOption {
	return needsTarget("pane_id", "session_name", "session_id", "window_id")
}

// Pane input tools.
func paneInputTools() []*toolDef {
	return []*toolDef{
		addTool("run_command", TierMutating, annShell,
			"Run a command in the pane's shell; return its exit status and all its output. cd and export persist; multi-line commands are fine.",
			Backend.RunCommand, writes, execute, paneTarget(), selfBounded()),
		addTool("send_keys", TierMutating, annShell,
			"Send keys to a pane, then Enter unless enter is false (also after C-c).",
			Backend.SendKeys, writes, execute, paneTarget()),
		addTool("send_keys_batch", TierMutating, annShell,
			"Send several inputs to panes in order.",
			Backend.SendKeysBatch, writes, execute,
			scopeRuleBoth("every row's target in scope, else nothing is sent")),
		addTool("paste_text", TierMutating, annShell,
			"Paste text, multi-line included, into a pane through a tmux buffer.",
			Backend.PasteText, writes, execute, paneTarget()),
		addTool("pipe_pane", TierMutating, annShell,
			"Append a pane's output to a file, or stop doing so.",
			Backend.PipePane, writes, execute, paneTarget()),
		addTool("wait_for_channel", TierMutating, annMutating,
			"Wait until a tmux wait-for channel is signalled; a timeout is an error.",
			Backend.WaitForChannel, touchesNone, manage, selfBounded(),
			scopeRuleBoth("anything (channels belong to no session)")),
		addTool("wait_for_command", TierMutating, annReadOnly,
			"Wait for a run_command's command to end; same result.",
			Backend.WaitForCommand, touchesNone, execute, selfBounded(), resultAs("run_command"),
			scopeRuleBoth("the runner's own commands (checked when they ran)")),
		addTool("signal_channel", TierMutating, annMutating,
			"Signal a tmux wait-for channel.",
			Backend.SignalChannel, touchesServer, manage,
			scopeRuleBoth("refused (it wakes any waiter on the server)")),
	}
}

// Pane reading tools. With no target they read a default pane and say which.
func paneReadTools() []*toolDef {
	return []*toolDef{
		addTool("capture_pane", TierReadonly, annReadOnly,
			"Read the text of a pane; the newest lines are kept when it is cut.",
			Backend.CapturePane, reads),
		addTool("capture_since", TierReadonly, annReadOnly,
			"Read what a pane printed since the previous call's cursor.",
			Backend.CaptureSince, reads,
			scopeRule("anything",
				"the cursor's or target's pane in scope")),
		addTool("snapshot_pane", TierReadonly, annReadOnly,
			"Read a pane's screen, cursor, mode and scroll state in one call.",
			Backend.SnapshotPane, reads, alwaysLoad()),
		addTool("search_panes", TierReadonly, annReadOnly,
			"Find panes whose text matches a pattern.",
			Backend.SearchPanes, lists,
			scopeRule("everything",
				"only panes in scope, paged after the cut")),
		addTool("wait_for_text", TierReadonly, annReadOnly,
			"Wait for a pane to print text matching a pattern: after this server's input, only later output, never the echo; in full-screen programs, the screen.",
			Backend.WaitForText, reads, selfBounded()),
		addTool("wait_for_content_change", TierReadonly, annReadOnly,
			"Wait until a pane prints, or with quiet_ms is quiet that long. Output since this server's input counts, even before the call.",
			Backend.WaitForContentChange, reads, selfBounded()),
		addTool("get_pane_info", TierReadonly, annReadOnly,
			"Describe one pane.",
			Backend.GetPaneInfo, reads, resultAs("list_panes")),
		addTool("find_pane_by_position", TierReadonly, annReadOnly,
			"Find the pane in a corner of a window.",
			Backend.FindPaneByPosition, reads, resultAs("list_panes")),
		addTool("display_message", TierReadonly, annReadOnly,
			"Expand a tmux format string for a pane.",
			Backend.DisplayMessage, reads,
			scopeRule("anything",
				"targets in scope; no #{S:} loops or client_ variables")),
	}
}

// Pane layout, mode and lifecycle tools.
func paneLayoutTools() []*toolDef {
	return []*toolDef{
		addTool("select_pane", TierMutating, annMutating,
			"Make a pane active, by id or direction.",
			Backend.SelectPane, writes, manage, needsTarget("pane_id", "direction"), resultAs("list_panes"),
			scopeRuleBoth("targets in scope (a direction alone: the oldest session)")),
		addTool("swap_pane", TierMutating, annCreate,
			"Swap two panes.",
			Backend.SwapPane, writes, manage, resultAs("list_panes"),
			scopeRuleBoth("both panes in scope")),
		addTool("resize_pane", TierMutating, annMutating,
			"Resize or zoom a pane.",
			Backend.ResizePane, writes, manage, paneTarget(), resultAs("list_panes")),
		addTool("set_pane_title", TierMutating, annMutating,
			"Set a pane's title.",
			Backend.SetPaneTitle, writes, manage, paneTarget(), resultAs("list_panes")),
		addTool("clear_pane", TierMutating, annDestructive,
			"Clear a pane's screen and history.",
			Backend.ClearPane, writes, teardown, paneTarget()),
		addTool("enter_copy_mode", TierMutating, annCreate,
			"Put a pane in copy mode, optionally scrolled up.",
			Backend.EnterCopyMode, writes, manage, paneTarget(), resultAs("list_panes")),
		addTool("exit_copy_mode", TierMutating, annMutating,
			"Leave copy mode.",
			Backend.ExitCopyMode, writes, manage, paneTarget(), resultAs("list_panes")),
		addTool("respawn_pane", TierMutating, annDestructive,
			"Restart a pane's process, killing the running one unless kill is false. Refuses this MCP server's pane.",
			Backend.RespawnPane, writes, execute, resultAs("list_panes")),
		addTool("kill_pane", TierDestructive, annDestructive,
			"Kill a pane. Refuses the pane this MCP server runs in.",
			Backend.KillPane, writes, teardown),
	}
}

// Option, environment, buffer and hook tools.
func optionTools() []*toolDef {
	return []*toolDef{
		addTool("show_option", TierReadonly, annReadOnly,
			"Read a tmux option.",
			Backend.ShowOption, reads,
			scopeRule("anything",
				"a session, window or pane table in scope, named by target")),
		addTool("set_option", TierMutating, annMutating,
			"Set a tmux option.",
			Backend.SetOption, writes, execute,
			scopeRuleBoth("a session, window or pane table in scope, named by target; no server options")),
		addTool("show_environment", TierReadonly, annReadOnly,
			"Read a session's environment, or the global one.",
			Backend.ShowEnvironment, reads,
			scopeRule("anything",
				"a session in scope; not the global environment")),
		addTool("set_environment", TierMutating, annMutating,
			"Set a variable in a session's or the global environment; later panes inherit it.",
			Backend.SetEnvironment, writes, execute,
			scopeRuleBoth("a session in scope; not the global environment")),
		addTool("load_buffer", TierMutating, annShell,
			"Store text in a new tmux buffer and return its name.",
			Backend.LoadBuffer, touchesNone, manage,
			scopeRuleBoth("anything (MCP buffers belong to no session)")),
		addTool("paste_buffer", TierMutating, annShell,
			"Paste a buffer made by load_buffer into a pane.",
			Backend.PasteBuffer, writes, execute, paneTarget()),
		addTool("show_buffer", TierReadonly, annReadOnly,
			"Read a buffer made by load_buffer.",
			Backend.ShowBuffer, touchesNone,
			scopeRuleBoth("anything (MCP buffers belong to no session)")),
		addTool("delete_buffer", TierMutating, annMutating,
			"Delete a buffer made by load_buffer.",
			Backend.DeleteBuffer, touchesNone, teardown,
			scopeRuleBoth("anything (MCP buffers belong to no session)")),
		addTool("show_hooks", TierReadonly, annReadOnly,
			"List the tmux hooks of a scope.",
			Backend.ShowHooks, reads,
			scopeRule("anything",
				"a session, window or pane table in scope, named by target")),
		addTool("show_hook", TierReadonly, annReadOnly,
			"Read one tmux hook.",
			Backend.ShowHook, reads, resultAs("show_hooks"),
			scopeRule("anything",
				"a session, window or pane table in scope, named by target")),
	}
}
