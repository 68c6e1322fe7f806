package mcp

// Window tools.
func windowTools() []*toolDef {
	window := needsTarget("window_id", "window_index", "session_name", "session_id")
	return []*toolDef{
		addTool("list_panes", TierReadonly, annReadOnly,
			"List the panes of a window, a session or the server; agent_state absent: idle.",
			(*TmuxBackend).ListPanes, lists, alwaysLoad(), cutToScope(cutPanes)),
		addTool("get_window_info", TierReadonly, annReadOnly,
			"Describe one window.",
			(*TmuxBackend).GetWindowInfo, reads, resultAs("list_windows")),
		addTool("split_window", TierMutating, annCreate,
			"Split a pane or window into a new pane; returns the new pane.",
			(*TmuxBackend).SplitWindow, writes, manage, needsTarget("pane_id", "window_id", "window_index", "session_name", "session_id"), resultAs("list_panes"),
			execArgs("shell", "environment")),
		addTool("rename_window", TierMutating, annMutating,
			"Rename a window; ids stay valid.",
			(*TmuxBackend).RenameWindow, writes, manage, window, resultAs("list_windows")),
		addTool("kill_window", TierDestructive, annDestructive,
			"Kill a window and all its panes. Refuses the window this MCP server runs in.",
			(*TmuxBackend).KillWindow, writes, teardown),
		addTool("select_layout", TierMutating, annMutating,
			"Arrange a window's panes in a layout.",
			(*TmuxBackend).SelectLayout, writes, manage, window, resultAs("list_windows")),
		addTool("resize_window", TierMutating, annMutating,
			"Resize a window.",
			(*TmuxBackend).ResizeWindow, writes, manage, window, resultAs("list_windows")),
		addTool("move_window", TierMutating, annMutating,
			"Move a window to another index or session.",
			(*TmuxBackend).MoveWindow, writes, manage, window, resultAs("list_windows"),
			scopeRuleBoth("the window and the destination in scope")),
	}
}

// The input types of the window tools.
type (
	// ListPanesIn is the input of list_panes.
	ListPanesIn struct {
		SessionTarget
		WindowID    string    `json:"window_id,omitempty" mcp:"len=64;line;pattern=^@[0-9]+$"`
		WindowIndex string    `json:"window_index,omitempty" mcp:"len=16;line;pattern=^[0-9]+$"`
		Filters     StringMap `json:"filters,omitempty" jsonschema:"Field lookups such as {\"pane_current_command__contains\": \"vim\"}."`
		Paging
		Socket
	}
	// GetWindowInfoIn is the input of get_window_info.
	GetWindowInfoIn struct {
		WindowTarget
		Socket
	}
	// SplitWindowIn is the input of split_window.
	SplitWindowIn struct {
		PaneID string `json:"pane_id,omitempty" jsonschema:"Pane to split; else the window's." mcp:"len=64;line;pattern=^%[0-9]+$"`
		WindowTarget
		Direction      string    `json:"direction,omitempty" jsonschema:"Side of the new pane." mcp:"enum=above|below|left|right"`
		Size           PaneSize  `json:"size,omitempty" jsonschema:"Cells, or a percentage such as 50%."`
		StartDirectory string    `json:"start_directory,omitempty" mcp:"len=4096;line"`
		Shell          string    `json:"shell,omitempty" jsonschema:"Command to run instead of the default shell." mcp:"len=65536"`
		Environment    StringMap `json:"environment,omitempty" jsonschema:"Variables for the new pane's process."`
		Socket
		SuppressPersistentHistory bool `json:"suppress_persistent_history,omitempty" jsonschema:"Shell writes no history." mcp:"default=false"`
	}
	// RenameWindowIn is the input of rename_window.
	RenameWindowIn struct {
		NewName string `json:"new_name" jsonschema:"New window name." mcp:"len=64;line"`
		WindowTarget
		Socket
	}
	// KillWindowIn is the input of kill_window.
	KillWindowIn struct {
		WindowID string `json:"window_id" mcp:"len=64;line;pattern=^@[0-9]+$"`
		Socket
	}
	// SelectLayoutIn is the input of select_layout.
	SelectLayoutIn struct {
		Layout string `json:"layout" jsonschema:"A layout name or a window_layout string." mcp:"len=8192;line;pattern=^(even-horizontal|even-vertical|main-horizontal|main-vertical|tiled|[0-9a-f]{4},[0-9]+x[0-9]+,[0-9]+,[0-9]+[0-9x,{}\\[\\]]*)$"`
		WindowTarget
		Socket
	}
	// ResizeWindowIn is the input of resize_window.
	ResizeWindowIn struct {
		WindowTarget
		Height *int `json:"height,omitempty" jsonschema:"Rows." mcp:"min=1;max=10000"`
		Width  *int `json:"width,omitempty" jsonschema:"Columns." mcp:"min=1;max=10000"`
		Socket
	}
	// MoveWindowIn is the input of move_window.
	MoveWindowIn struct {
		WindowTarget
		DestinationIndex   string `json:"destination_index,omitempty" jsonschema:"Target index; empty for the next free one." mcp:"len=16;line;default=\"\""`
		DestinationSession string `json:"destination_session,omitempty" jsonschema:"Target session name or id; default the window's own." mcp:"len=64;line"`
		Socket
	}
)

func (in ListPanesIn) targets() reach {
	return reach{list: refs("", in.WindowID, in.SessionID, in.SessionName)}
}

func (in SplitWindowIn) targets() reach {
	return reach{list: refs(in.PaneID, in.WindowID, in.SessionID, in.SessionName)}
}

func (in KillWindowIn) targets() reach { return reach{list: refs("", in.WindowID, "", "")} }

// targets of move_window: the window, and the session it moves to.
func (in MoveWindowIn) targets() reach {
	return in.WindowTarget.targets().with(sessionRef(in.DestinationSession))
}
