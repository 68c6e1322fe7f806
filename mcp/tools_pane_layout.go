package mcp

// Pane layout, mode and lifecycle tools.
func paneLayoutTools() []*toolDef {
	return []*toolDef{
		addTool("select_pane", TierMutating, annMutating,
			"Make a pane active, by id or direction.",
			(*TmuxBackend).SelectPane, writes, manage, needsTarget("pane_id", "direction"), resultAs("list_panes"),
			scopeRuleBoth("targets in scope (a direction alone: the oldest session)")),
		addTool("swap_pane", TierMutating, annCreate,
			"Swap two panes.",
			(*TmuxBackend).SwapPane, writes, manage, resultAs("list_panes"),
			scopeRuleBoth("both panes in scope")),
		addTool("resize_pane", TierMutating, annMutating,
			"Resize or zoom a pane.",
			(*TmuxBackend).ResizePane, writes, manage, paneTarget(), resultAs("list_panes")),
		addTool("set_pane_title", TierMutating, annMutating,
			"Set a pane's title.",
			(*TmuxBackend).SetPaneTitle, writes, manage, paneTarget(), resultAs("list_panes")),
		addTool("clear_pane", TierMutating, annDestructive,
			"Clear a pane's screen and history.",
			(*TmuxBackend).ClearPane, writes, teardown, paneTarget()),
		addTool("enter_copy_mode", TierMutating, annCreate,
			"Put a pane in copy mode, optionally scrolled up.",
			(*TmuxBackend).EnterCopyMode, writes, manage, paneTarget(), resultAs("list_panes")),
		addTool("exit_copy_mode", TierMutating, annMutating,
			"Leave copy mode.",
			(*TmuxBackend).ExitCopyMode, writes, manage, paneTarget(), resultAs("list_panes")),
		addTool("respawn_pane", TierMutating, annDestructive,
			"Restart a pane's process, killing the running one unless kill is false. Refuses this MCP server's pane.",
			(*TmuxBackend).RespawnPane, writes, execute, resultAs("list_panes")),
		addTool("kill_pane", TierDestructive, annDestructive,
			"Kill a pane. Refuses the pane this MCP server runs in.",
			(*TmuxBackend).KillPane, writes, teardown),
	}
}

// The input types of the pane layout, mode and lifecycle tools.
type (
	// SelectPaneIn is the input of select_pane.
	SelectPaneIn struct {
		PaneID      string `json:"pane_id,omitempty" mcp:"len=64;line;pattern=^%[0-9]+$"`
		Direction   string `json:"direction,omitempty" jsonschema:"Relative move instead of pane_id." mcp:"enum=up|down|left|right|last|next|previous"`
		WindowID    string `json:"window_id,omitempty" mcp:"len=64;line;pattern=^@[0-9]+$"`
		WindowIndex string `json:"window_index,omitempty" mcp:"len=16;line;pattern=^[0-9]+$"`
		SessionTarget
		Socket
	}
	// SwapPaneIn is the input of swap_pane.
	SwapPaneIn struct {
		SourcePaneID string `json:"source_pane_id" mcp:"len=64;line;pattern=^%[0-9]+$"`
		TargetPaneID string `json:"target_pane_id" mcp:"len=64;line;pattern=^%[0-9]+$"`
		Socket
	}
	// ResizePaneIn is the input of resize_pane.
	ResizePaneIn struct {
		PaneTarget
		Height *int  `json:"height,omitempty" jsonschema:"Rows." mcp:"min=1;max=10000"`
		Width  *int  `json:"width,omitempty" jsonschema:"Columns." mcp:"min=1;max=10000"`
		Zoom   *bool `json:"zoom,omitempty" jsonschema:"Zoom (true) or unzoom; not with height or width."`
		Socket
	}
	// SetPaneTitleIn is the input of set_pane_title.
	SetPaneTitleIn struct {
		Title string `json:"title" jsonschema:"New pane title." mcp:"len=1024;line"`
		PaneTarget
		Socket
	}
	// ClearPaneIn is the input of clear_pane.
	ClearPaneIn struct {
		PaneTarget
		Socket
	}
	// EnterCopyModeIn is the input of enter_copy_mode.
	EnterCopyModeIn struct {
		PaneID   string `json:"pane_id,omitempty" mcp:"len=64;line;pattern=^%[0-9]+$"`
		ScrollUp *int   `json:"scroll_up,omitempty" jsonschema:"Lines to scroll up." mcp:"min=0;max=10000000"`
		SessionTarget
		WindowID string `json:"window_id,omitempty" mcp:"len=64;line;pattern=^@[0-9]+$"`
		Socket
	}
	// ExitCopyModeIn is the input of exit_copy_mode.
	ExitCopyModeIn struct {
		PaneTarget
		Socket
	}
	// RespawnPaneIn is the input of respawn_pane.
	RespawnPaneIn struct {
		PaneID         string    `json:"pane_id" mcp:"len=64;line;pattern=^%[0-9]+$"`
		Kill           bool      `json:"kill,omitempty" jsonschema:"Kill a running process first (-k)." mcp:"default=true"`
		Shell          string    `json:"shell,omitempty" jsonschema:"Command to run instead of the default shell." mcp:"len=65536"`
		StartDirectory string    `json:"start_directory,omitempty" mcp:"len=4096;line"`
		Environment    StringMap `json:"environment,omitempty" jsonschema:"Variables for the new process."`
		Socket
		SuppressPersistentHistory bool `json:"suppress_persistent_history,omitempty" jsonschema:"Shell writes no history." mcp:"default=false"`
	}
	// KillPaneIn is the input of kill_pane.
	KillPaneIn struct {
		PaneID string `json:"pane_id" mcp:"len=64;line;pattern=^%[0-9]+$"`
		Socket
	}
)

func (in SelectPaneIn) targets() reach {
	return reach{list: refs(in.PaneID, in.WindowID, in.SessionID, in.SessionName)}
}

func (in SwapPaneIn) targets() reach {
	return reach{list: refs(in.SourcePaneID, "", "", "")}.with(refs(in.TargetPaneID, "", "", ""))
}

func (in EnterCopyModeIn) targets() reach {
	return reach{list: refs(in.PaneID, in.WindowID, in.SessionID, in.SessionName)}
}

func (in RespawnPaneIn) targets() reach { return reach{list: refs(in.PaneID, "", "", "")} }
func (in KillPaneIn) targets() reach    { return reach{list: refs(in.PaneID, "", "", "")} }
