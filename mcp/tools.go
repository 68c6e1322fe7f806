package mcp

import "context"

// The tool declarations, by domain, in the order of the Backend interface.
// Tiers and annotation presets are libtmux-mcp's, except create_session and
// teardown_session, which carry the annotations of their seed documents.

// Server and batch tools.
func serverTools() []*toolDef {
	return []*toolDef{
		addTool("list_servers", TierReadonly, annReadOnly,
			"List live tmux servers under $TMUX_TMPDIR, plus any extra socket paths given.",
			Backend.ListServers),
		addTool("list_sessions", TierReadonly, annReadOnly,
			"List tmux sessions. Start here to discover targets.",
			Backend.ListSessions),
		addTool("get_server_info", TierReadonly, annReadOnly,
			"Report whether the tmux server runs, its socket, version and session count.",
			Backend.GetServerInfo, resultAs("list_servers")),
		addTool("create_session", TierMutating, annSeed,
			"Create a tmux session with one window and one pane. Returns its ids and the generation teardown_session needs.",
			Backend.CreateSession, requiredMembers()),
		addTool("kill_server", TierDestructive, annDestructive,
			"Kill the tmux server and every session on it. Refuses the server this MCP server runs in.",
			Backend.KillServer),

		batchTool("call_readonly_tools_batch", TierReadonly, annReadOnly,
			"Run up to 1000 read-only tool calls in order; each row reports its own result.",
			Backend.CallReadonlyToolsBatch),
		batchTool("call_read_tools_batch", TierReadonly, annReadOnly,
			"libtmux-mcp's newer name for call_readonly_tools_batch: the same tool.",
			Backend.CallReadonlyToolsBatch, resultAs("call_readonly_tools_batch")),
		batchTool("call_mutating_tools_batch", TierMutating, annBatch,
			"Run up to 1000 read-only or mutating tool calls in order; each row reports its own result.",
			Backend.CallMutatingToolsBatch, resultAs("call_readonly_tools_batch")),
		batchTool("call_destructive_tools_batch", TierDestructive, annBatch,
			"Run up to 1000 tool calls of any tier in order; each row reports its own result.",
			Backend.CallDestructiveToolsBatch, resultAs("call_readonly_tools_batch")),
	}
}

func batchTool(name string, tier Tier, ann Annotations, desc string,
	call func(Backend, context.Context, ToolCallBatchIn) (ToolCallBatchResult, error), opts ...toolOption) *toolDef {
	d := addTool(name, tier, ann, desc, call, opts...)
	d.batch = true
	return d
}

// Session tools.
func sessionTools() []*toolDef {
	session := needsTarget("session_name", "session_id")
	return []*toolDef{
		addTool("list_windows", TierReadonly, annReadOnly,
			"List the windows of a session, or of every session.",
			Backend.ListWindows, alwaysLoad()),
		addTool("get_session_info", TierReadonly, annReadOnly,
			"Describe one session.",
			Backend.GetSessionInfo, resultAs("list_sessions")),
		addTool("create_window", TierMutating, annCreate,
			"Create a window with one pane in a session.",
			Backend.CreateWindow, session, resultAs("list_windows")),
		addTool("rename_session", TierMutating, annMutating,
			"Rename a session; ids stay valid.",
			Backend.RenameSession, session, resultAs("list_sessions")),
		addTool("kill_session", TierDestructive, annDestructive,
			"Kill a session and all its windows. Refuses the session this MCP server runs in.",
			Backend.KillSession, session),
		addTool("select_window", TierMutating, annMutating,
			"Make a window active, by id, index or direction.",
			Backend.SelectWindow, needsTarget("window_id", "window_index", "direction"), resultAs("list_windows")),
		addTool("teardown_session", TierMutating, annSeed,
			"Destroy an exact generation-bound session created by this application. Borrowed sessions are refused.",
			Backend.TeardownSession, seedSchemas()),
	}
}

// Window tools.
func windowTools() []*toolDef {
	window := needsTarget("window_id", "window_index", "session_name", "session_id")
	return []*toolDef{
		addTool("list_panes", TierReadonly, annReadOnly,
			"List the panes of a window, a session, or the whole server.",
			Backend.ListPanes, alwaysLoad()),
		addTool("get_window_info", TierReadonly, annReadOnly,
			"Describe one window.",
			Backend.GetWindowInfo, resultAs("list_windows")),
		addTool("split_window", TierMutating, annCreate,
			"Split a pane or window into a new pane; returns the new pane.",
			Backend.SplitWindow, needsTarget("pane_id", "window_id", "window_index", "session_name", "session_id"), resultAs("list_panes")),
		addTool("rename_window", TierMutating, annMutating,
			"Rename a window; ids stay valid.",
			Backend.RenameWindow, window, resultAs("list_windows")),
		addTool("kill_window", TierDestructive, annDestructive,
			"Kill a window and all its panes. Refuses the window this MCP server runs in.",
			Backend.KillWindow),
		addTool("select_layout", TierMutating, annMutating,
			"Arrange a window's panes in a layout.",
			Backend.SelectLayout, window, resultAs("list_windows")),
		addTool("resize_window", TierMutating, annMutating,
			"Resize a window.",
			Backend.ResizeWindow, window, resultAs("list_windows")),
		addTool("move_window", TierMutating, annMutating,
			"Move a window to another index or session.",
			Backend.MoveWindow, window, resultAs("list_windows")),
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
			Backend.RunCommand, paneTarget(), selfBounded()),
		addTool("send_keys", TierMutating, annShell,
			`Send keys, then Enter unless enter is false (also after C-c). keys: one key name or text, or a list pressed in order: ["Escape", ":wq"].`,
			Backend.SendKeys, paneTarget()),
		addTool("send_keys_batch", TierMutating, annShell,
			"Send several inputs to panes in order.",
			Backend.SendKeysBatch),
		addTool("paste_text", TierMutating, annShell,
			"Paste text, multi-line included, into a pane through a tmux buffer.",
			Backend.PasteText, paneTarget()),
		addTool("pipe_pane", TierMutating, annShell,
			"Append a pane's output to a file, or stop doing so.",
			Backend.PipePane, paneTarget()),
		addTool("wait_for_channel", TierMutating, annMutating,
			"Wait until a tmux wait-for channel is signalled; a timeout is an error.",
			Backend.WaitForChannel, selfBounded()),
		addTool("signal_channel", TierMutating, annMutating,
			"Signal a tmux wait-for channel.",
			Backend.SignalChannel),
	}
}

// Pane reading tools. With no target they read a default pane and say which.
func paneReadTools() []*toolDef {
	return []*toolDef{
		addTool("capture_pane", TierReadonly, annReadOnly,
			"Read the text of a pane; the newest lines are kept when it is cut.",
			Backend.CapturePane),
		addTool("capture_since", TierReadonly, annReadOnly,
			"Read what a pane printed since the previous call's cursor. An unfinished last line (a prompt awaiting input) comes last, marked, and again next call.",
			Backend.CaptureSince),
		addTool("snapshot_pane", TierReadonly, annReadOnly,
			"Read a pane's screen with its cursor, mode and scroll state in one call.",
			Backend.SnapshotPane, alwaysLoad()),
		addTool("search_panes", TierReadonly, annReadOnly,
			"Find panes whose text matches a pattern.",
			Backend.SearchPanes),
		addTool("wait_for_text", TierReadonly, annReadOnly,
			"Wait for a pane to print text matching a pattern. After this server's input it matches only later output, never the echo; in full-screen programs, the screen.",
			Backend.WaitForText, selfBounded()),
		addTool("wait_for_content_change", TierReadonly, annReadOnly,
			"Wait until a pane prints, or with quiet_ms until it is quiet that long. Output since this server's input counts, even before the call.",
			Backend.WaitForContentChange, selfBounded()),
		addTool("get_pane_info", TierReadonly, annReadOnly,
			"Describe one pane.",
			Backend.GetPaneInfo, resultAs("list_panes")),
		addTool("find_pane_by_position", TierReadonly, annReadOnly,
			"Find the pane in a corner of a window.",
			Backend.FindPaneByPosition, resultAs("list_panes")),
		addTool("display_message", TierReadonly, annReadOnly,
			"Expand a tmux format string for a pane.",
			Backend.DisplayMessage),
	}
}

// Pane layout, mode and lifecycle tools.
func paneLayoutTools() []*toolDef {
	return []*toolDef{
		addTool("select_pane", TierMutating, annMutating,
			"Make a pane active, by id or direction.",
			Backend.SelectPane, needsTarget("pane_id", "direction"), resultAs("list_panes")),
		addTool("swap_pane", TierMutating, annCreate,
			"Swap two panes.",
			Backend.SwapPane, resultAs("list_panes")),
		addTool("resize_pane", TierMutating, annMutating,
			"Resize or zoom a pane.",
			Backend.ResizePane, paneTarget(), resultAs("list_panes")),
		addTool("set_pane_title", TierMutating, annMutating,
			"Set a pane's title.",
			Backend.SetPaneTitle, paneTarget(), resultAs("list_panes")),
		addTool("clear_pane", TierMutating, annDestructive,
			"Clear a pane's screen and history.",
			Backend.ClearPane, paneTarget()),
		addTool("enter_copy_mode", TierMutating, annCreate,
			"Put a pane in copy mode, optionally scrolled up.",
			Backend.EnterCopyMode, paneTarget(), resultAs("list_panes")),
		addTool("exit_copy_mode", TierMutating, annMutating,
			"Leave copy mode.",
			Backend.ExitCopyMode, paneTarget(), resultAs("list_panes")),
		addTool("respawn_pane", TierMutating, annDestructive,
			"Restart a pane's process, killing the running one unless kill is false. Refuses the pane this MCP server runs in.",
			Backend.RespawnPane, resultAs("list_panes")),
		addTool("kill_pane", TierDestructive, annDestructive,
			"Kill a pane. Refuses the pane this MCP server runs in.",
			Backend.KillPane),
	}
}

// Option, environment, buffer and hook tools.
func optionTools() []*toolDef {
	return []*toolDef{
		addTool("show_option", TierReadonly, annReadOnly,
			"Read a tmux option.",
			Backend.ShowOption),
		addTool("set_option", TierMutating, annMutating,
			"Set a tmux option.",
			Backend.SetOption),
		addTool("show_environment", TierReadonly, annReadOnly,
			"Read a session's environment, or the global one.",
			Backend.ShowEnvironment),
		addTool("set_environment", TierMutating, annMutating,
			"Set a variable in a session's environment, or the global one; future panes inherit it.",
			Backend.SetEnvironment),
		addTool("load_buffer", TierMutating, annShell,
			"Store text in a new tmux buffer and return its name.",
			Backend.LoadBuffer),
		addTool("paste_buffer", TierMutating, annShell,
			"Paste a buffer made by load_buffer into a pane.",
			Backend.PasteBuffer, paneTarget()),
		addTool("show_buffer", TierReadonly, annReadOnly,
			"Read a buffer made by load_buffer.",
			Backend.ShowBuffer),
		addTool("delete_buffer", TierMutating, annMutating,
			"Delete a buffer made by load_buffer.",
			Backend.DeleteBuffer),
		addTool("show_hooks", TierReadonly, annReadOnly,
			"List the tmux hooks of a scope.",
			Backend.ShowHooks),
		addTool("show_hook", TierReadonly, annReadOnly,
			"Read one tmux hook.",
			Backend.ShowHook, resultAs("show_hooks")),
	}
}
