package mcp

import "github.com/tmux-mcp/tmux-mcp/session"

// Input types, one per tool, ordered by domain as in backend.go. Argument
// names, types and defaults are libtmux-mcp's; teardown_session's are the
// Julia port's. A Backend receives them validated, with defaults applied.
//
// Besides the jsonschema description tag, fields carry an mcp tag that this
// package turns into schema limits (see applyTags):
//
//	len=N      string at most N bytes (for a list of strings: each item)
//	line       no CR or LF (enforced, not advertised)
//	min=X max=X xmin=X   numeric bounds (xmin: exclusive minimum)
//	enum=a|b   allowed values
//	default=J  schema default, a JSON literal
//	items=N minitems=N   list length bounds
//	pattern=RE regular expression; must come last

// Common argument groups, embedded in the input types.
type (
	// Socket selects the tmux server by socket name.
	Socket struct {
		SocketName string `json:"socket_name,omitempty" mcp:"len=128;line"`
	}
	// PaneTarget names a pane: pane_id, else the first pane of the window or
	// session named.
	PaneTarget struct {
		PaneID      string `json:"pane_id,omitempty" mcp:"len=64;line;pattern=^%[0-9]+$"`
		SessionName string `json:"session_name,omitempty" mcp:"len=64;line"`
		SessionID   string `json:"session_id,omitempty" mcp:"len=64;line;pattern=^[$][0-9]+$"`
		WindowID    string `json:"window_id,omitempty" mcp:"len=64;line;pattern=^@[0-9]+$"`
	}
	// SessionTarget names a session.
	SessionTarget struct {
		SessionName string `json:"session_name,omitempty" mcp:"len=64;line"`
		SessionID   string `json:"session_id,omitempty" mcp:"len=64;line;pattern=^[$][0-9]+$"`
	}
	// WindowTarget names a window: window_id, else window_index in the session named.
	WindowTarget struct {
		WindowID    string `json:"window_id,omitempty" mcp:"len=64;line;pattern=^@[0-9]+$"`
		WindowIndex string `json:"window_index,omitempty" mcp:"len=16;line;pattern=^[0-9]+$"`
		SessionName string `json:"session_name,omitempty" mcp:"len=64;line"`
		SessionID   string `json:"session_id,omitempty" mcp:"len=64;line;pattern=^[$][0-9]+$"`
	}
	// Paging selects one page of a listing (see List).
	Paging struct {
		Limit  int `json:"limit,omitempty" jsonschema:"Rows per page; 0 for all." mcp:"min=0;max=100000;default=100"`
		Offset int `json:"offset,omitempty" jsonschema:"Rows to skip." mcp:"min=0;max=100000000;default=0"`
	}
	// OptionScope selects an option or hook table.
	OptionScope struct {
		Scope  string `json:"scope,omitempty" jsonschema:"Option scope." mcp:"enum=server|session|window|pane"`
		Target string `json:"target,omitempty" jsonschema:"Session name, @window or %pane; needs scope." mcp:"len=64;line"`
		Global bool   `json:"global_,omitempty" jsonschema:"Global table (-g)." mcp:"default=false"`
	}
)

// Server tools.
type (
	// ListServersIn is the input of list_servers.
	ListServersIn struct {
		ExtraSocketPaths []string `json:"extra_socket_paths,omitempty" jsonschema:"More socket paths to probe." mcp:"items=64;len=4096;line"`
	}
	// ListSessionsIn is the input of list_sessions.
	ListSessionsIn struct {
		Filters StringMap `json:"filters,omitempty" jsonschema:"Field lookups such as {\"session_name__contains\": \"dev\"}."`
		Paging
		Socket
	}
	// GetServerInfoIn is the input of get_server_info.
	GetServerInfoIn struct{ Socket }
	// CreateSessionIn is the input of create_session.
	CreateSessionIn struct {
		SessionName    string    `json:"session_name,omitempty" jsonschema:"Name for the new session." mcp:"len=64;line"`
		WindowName     string    `json:"window_name,omitempty" jsonschema:"Name for the initial window." mcp:"len=64;line"`
		StartDirectory string    `json:"start_directory,omitempty" jsonschema:"Start directory." mcp:"len=4096;line"`
		X              *int      `json:"x,omitempty" jsonschema:"Width of the initial window." mcp:"min=1;max=10000"`
		Y              *int      `json:"y,omitempty" jsonschema:"Height of the initial window." mcp:"min=1;max=10000"`
		Environment    StringMap `json:"environment,omitempty" jsonschema:"Session environment variables, visible to tmux and later panes: pass references, not secrets."`
		Socket
		SuppressPersistentHistory bool `json:"suppress_persistent_history,omitempty" jsonschema:"Shell writes no history." mcp:"default=false"`
	}
	// KillServerIn is the input of kill_server.
	KillServerIn struct{ Socket }
)

// The listings of every session name no target; their rows are cut to the scope.
func (ListSessionsIn) targets() reach  { return reach{} }
func (GetServerInfoIn) targets() reach { return reach{} }

// Batch tools.
type (
	// ToolCallOperation is one call of a batch.
	ToolCallOperation struct {
		Tool      string     `json:"tool" jsonschema:"Tool name." mcp:"len=128;line"`
		Arguments JSONObject `json:"arguments,omitempty" jsonschema:"Arguments of the nested call." mcp:"default={}"`
	}
	// ToolCallBatchIn is the input of call_readonly_tools_batch, call_mutating_tools_batch and call_destructive_tools_batch.
	ToolCallBatchIn struct {
		Operations []ToolCallOperation `json:"operations" jsonschema:"Calls to run in order." mcp:"minitems=1;items=1000"`
		OnError    string              `json:"on_error,omitempty" mcp:"enum=stop|continue;default=\"stop\""`
	}
)

// Session tools.
type (
	// ListWindowsIn is the input of list_windows.
	ListWindowsIn struct {
		SessionTarget
		Filters StringMap `json:"filters,omitempty" jsonschema:"Field lookups such as {\"window_name__contains\": \"dev\"}."`
		Paging
		Socket
	}
	// GetSessionInfoIn is the input of get_session_info.
	GetSessionInfoIn struct {
		SessionTarget
		Socket
	}
	// CreateWindowIn is the input of create_window.
	CreateWindowIn struct {
		SessionTarget
		WindowName     string    `json:"window_name,omitempty" jsonschema:"Name for the new window." mcp:"len=64;line"`
		StartDirectory string    `json:"start_directory,omitempty" jsonschema:"Start directory." mcp:"len=4096;line"`
		Attach         bool      `json:"attach,omitempty" jsonschema:"Make the new window active." mcp:"default=false"`
		Direction      string    `json:"direction,omitempty" jsonschema:"Place it before or after the current window." mcp:"enum=before|after"`
		Environment    StringMap `json:"environment,omitempty" jsonschema:"Variables for the new window's process."`
		Socket
		SuppressPersistentHistory bool `json:"suppress_persistent_history,omitempty" jsonschema:"Shell writes no history." mcp:"default=false"`
	}
	// RenameSessionIn is the input of rename_session.
	RenameSessionIn struct {
		NewName string `json:"new_name" jsonschema:"New session name." mcp:"len=64;line"`
		SessionTarget
		Socket
	}
	// KillSessionIn is the input of kill_session.
	KillSessionIn struct {
		SessionTarget
		Socket
	}
	// SelectWindowIn is the input of select_window.
	SelectWindowIn struct {
		WindowID    string `json:"window_id,omitempty" mcp:"len=64;line;pattern=^@[0-9]+$"`
		WindowIndex string `json:"window_index,omitempty" mcp:"len=16;line;pattern=^[0-9]+$"`
		Direction   string `json:"direction,omitempty" jsonschema:"Relative move instead of an id or index." mcp:"enum=next|previous|last"`
		SessionTarget
		Socket
	}
	// TeardownSessionIn is the input of teardown_session.
	TeardownSessionIn struct {
		SessionID  string `json:"sessionId" jsonschema:"Valid UTF-8; at most 64 bytes" mcp:"len=64"`
		Generation string `json:"generation" jsonschema:"Valid UTF-8; at most 128 bytes" mcp:"len=128"`
	}
)

func (in SelectWindowIn) targets() reach {
	return reach{list: refs("", in.WindowID, in.SessionID, in.SessionName)}
}

// Window tools.
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
		StartDirectory string    `json:"start_directory,omitempty" jsonschema:"Start directory." mcp:"len=4096;line"`
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

// Pane input tools.
type (
	// RunCommandIn is the input of run_command.
	RunCommandIn struct {
		Command string `json:"command" jsonschema:"Shell command." mcp:"len=1048576"`
		PaneTarget
		Timeout         float64 `json:"timeout,omitempty" jsonschema:"Seconds; clamped to the server's ceiling." mcp:"xmin=0;max=86400;default=30"`
		MaxLines        int     `json:"max_lines,omitempty" jsonschema:"Newest lines kept; 0 for 2000 (256 KB at most)." mcp:"min=0;max=1000000"`
		SuppressHistory *bool   `json:"suppress_history,omitempty" jsonschema:"Prefix a space so the shell skips history; default LIBTMUX_SUPPRESS_HISTORY (on)."`
		Background      bool    `json:"background,omitempty" jsonschema:"Return at once with command_id, for wait_for_command." mcp:"default=false"`
		Socket
	}
	// SendKeysIn is the input of send_keys.
	SendKeysIn struct {
		Keys KeyList `json:"keys" jsonschema:"One tmux key name (C-c, Escape, Up) or else text as typed (\"Escape :wq\" types those words). A list: key names and texts, pressed one at a time, each after the program reacted."`
		PaneTarget
		Enter           bool `json:"enter,omitempty" jsonschema:"Press Enter after the keys (also after C-c); false: the keys alone." mcp:"default=true"`
		Literal         bool `json:"literal,omitempty" jsonschema:"Send keys as text, without key-name lookup." mcp:"default=false"`
		SuppressHistory bool `json:"suppress_history,omitempty" jsonschema:"Prefix a space so the shell skips history." mcp:"default=false"`
		DriveMode       bool `json:"drive_mode,omitempty" jsonschema:"Send even in copy or another tmux mode, to drive it (else refused)." mcp:"default=false"`
		PaceMs          int  `json:"pace_ms,omitempty" jsonschema:"A list: the most ms to wait for a reaction to each key; 0 sends all at once." mcp:"min=0;max=10000;default=250"`
		Socket
	}
	// SendKeysOperation is one input of send_keys_batch.
	SendKeysOperation struct {
		Keys            string `json:"keys" jsonschema:"Text or tmux key names." mcp:"len=1048576"`
		PaneID          string `json:"pane_id,omitempty" mcp:"len=64;line;pattern=^%[0-9]+$"`
		SessionName     string `json:"session_name,omitempty" mcp:"len=64;line"`
		SessionID       string `json:"session_id,omitempty" mcp:"len=64;line;pattern=^[$][0-9]+$"`
		WindowID        string `json:"window_id,omitempty" mcp:"len=64;line;pattern=^@[0-9]+$"`
		Enter           bool   `json:"enter,omitempty" jsonschema:"Press Enter after the keys." mcp:"default=true"`
		Literal         bool   `json:"literal,omitempty" jsonschema:"Send keys as text." mcp:"default=false"`
		SuppressHistory bool   `json:"suppress_history,omitempty" jsonschema:"Prefix a space." mcp:"default=false"`
		DriveMode       bool   `json:"drive_mode,omitempty" jsonschema:"Send also in a tmux mode." mcp:"default=false"`
	}
	// SendKeysBatchIn is the input of send_keys_batch.
	SendKeysBatchIn struct {
		Operations []SendKeysOperation `json:"operations" jsonschema:"Inputs to send in order." mcp:"minitems=1;items=1000"`
		OnError    string              `json:"on_error,omitempty" mcp:"enum=stop|continue;default=\"stop\""`
		Timeout    *float64            `json:"timeout,omitempty" jsonschema:"Seconds for the whole batch." mcp:"xmin=0;max=86400"`
		Socket
	}
	// PasteTextIn is the input of paste_text.
	PasteTextIn struct {
		Text    string `json:"text" jsonschema:"Text to paste." mcp:"len=1048576"`
		PaneID  string `json:"pane_id,omitempty" mcp:"len=64;line;pattern=^%[0-9]+$"`
		Bracket bool   `json:"bracket,omitempty" jsonschema:"Use bracketed paste." mcp:"default=true"`
		SessionTarget
		WindowID string `json:"window_id,omitempty" mcp:"len=64;line;pattern=^@[0-9]+$"`
		Socket
	}
	// PipePaneIn is the input of pipe_pane.
	PipePaneIn struct {
		PaneID     string `json:"pane_id,omitempty" mcp:"len=64;line;pattern=^%[0-9]+$"`
		OutputPath string `json:"output_path,omitempty" jsonschema:"File to append output to; omit to stop." mcp:"len=4096;line"`
		Append     bool   `json:"append,omitempty" jsonschema:"Append rather than truncate." mcp:"default=true"`
		SessionTarget
		WindowID string `json:"window_id,omitempty" mcp:"len=64;line;pattern=^@[0-9]+$"`
		Socket
	}
	// WaitForChannelIn is the input of wait_for_channel.
	WaitForChannelIn struct {
		Channel string  `json:"channel" jsonschema:"Channel signalled by tmux wait-for -S." mcp:"len=128;pattern=^[A-Za-z0-9_.:-]+$"`
		Timeout float64 `json:"timeout,omitempty" jsonschema:"Seconds; clamped to the server's ceiling." mcp:"xmin=0;max=86400;default=30"`
		Socket
	}
	// WaitForCommandIn is the input of wait_for_command.
	WaitForCommandIn struct {
		CommandID string  `json:"command_id" mcp:"len=64;line"`
		Timeout   float64 `json:"timeout,omitempty" jsonschema:"Seconds; clamped to the server's ceiling." mcp:"xmin=0;max=86400;default=30"`
		Socket
	}
	// SignalChannelIn is the input of signal_channel.
	SignalChannelIn struct {
		Channel string `json:"channel" jsonschema:"Channel to signal." mcp:"len=128;pattern=^[A-Za-z0-9_.:-]+$"`
		Socket
	}
)

// targets of send_keys_batch: every row's.
func (in SendKeysBatchIn) targets() reach {
	var r reach
	for _, op := range in.Operations {
		r = r.with(refs(op.PaneID, op.WindowID, op.SessionID, op.SessionName))
	}
	return r
}

func (in PasteTextIn) targets() reach {
	return reach{list: refs(in.PaneID, in.WindowID, in.SessionID, in.SessionName)}
}

func (in PipePaneIn) targets() reach {
	return reach{list: refs(in.PaneID, in.WindowID, in.SessionID, in.SessionName)}
}

// Pane reading tools.
type (
	// CapturePaneIn is the input of capture_pane.
	CapturePaneIn struct {
		PaneTarget
		Start    *int `json:"start,omitempty" jsonschema:"First line; 0 is the top of the screen, negative reaches into history." mcp:"min=-10000000;max=100000"`
		End      *int `json:"end,omitempty" jsonschema:"Last line." mcp:"min=-10000000;max=100000"`
		MaxLines int  `json:"max_lines,omitempty" jsonschema:"Newest lines kept; 0: all." mcp:"min=0;max=1000000;default=500"`
		Socket
	}
	// CaptureSinceIn is the input of capture_since.
	CaptureSinceIn struct {
		Cursor string `json:"cursor,omitempty" jsonschema:"Cursor from the previous call; omit to start." mcp:"len=4096;line"`
		PaneTarget
		MaxLines int `json:"max_lines,omitempty" jsonschema:"Newest lines kept; 0: all." mcp:"min=0;max=1000000;default=500"`
		MaxBytes int `json:"max_bytes,omitempty" jsonschema:"Bytes to keep, newest last; 0 keeps all." mcp:"min=0;max=1048576;default=128000"`
		Socket
	}
	// SnapshotPaneIn is the input of snapshot_pane.
	SnapshotPaneIn struct {
		PaneTarget
		MaxLines int `json:"max_lines,omitempty" jsonschema:"Newest lines kept; 0: all." mcp:"min=0;max=1000000;default=500"`
		Socket
	}
	// SearchPanesIn is the input of search_panes.
	SearchPanesIn struct {
		Pattern string `json:"pattern" jsonschema:"Text to find; a regular expression when regex is true." mcp:"len=4096;line"`
		Regex   bool   `json:"regex,omitempty" jsonschema:"Treat pattern as a regular expression." mcp:"default=false"`
		SessionTarget
		MatchCase              bool `json:"match_case,omitempty" jsonschema:"Match case." mcp:"default=false"`
		ContentStart           *int `json:"content_start,omitempty" jsonschema:"First line to search; negative reaches into history." mcp:"min=-10000000;max=100000"`
		ContentEnd             *int `json:"content_end,omitempty" jsonschema:"Last line to search." mcp:"min=-10000000;max=100000"`
		MaxMatchedLinesPerPane int  `json:"max_matched_lines_per_pane,omitempty" jsonschema:"Matching lines kept per pane, newest last." mcp:"min=1;max=100000;default=50"`
		Limit                  int  `json:"limit,omitempty" jsonschema:"Panes per page; 0 for no limit." mcp:"min=0;max=100000;default=500"`
		Offset                 int  `json:"offset,omitempty" jsonschema:"Panes to skip." mcp:"min=0;max=100000;default=0"`
		Socket
	}
	// WaitForTextIn is the input of wait_for_text.
	WaitForTextIn struct {
		Patterns []string `json:"patterns,omitempty" jsonschema:"Success patterns; omit to wait for any new output." mcp:"minitems=1;items=64;len=4096;line"`
		Stop     []string `json:"stop,omitempty" jsonschema:"Failure patterns that end the wait at once." mcp:"items=64;len=4096;line"`
		Absent   []string `json:"absent,omitempty" jsonschema:"Must be off screen for a match to count." mcp:"items=64;len=4096;line"`
		Regex    bool     `json:"regex,omitempty" jsonschema:"Treat patterns as regular expressions." mcp:"default=false"`
		PaneTarget
		Timeout   float64 `json:"timeout,omitempty" jsonschema:"Seconds; clamped to the server's ceiling." mcp:"xmin=0;max=86400;default=8"`
		Interval  float64 `json:"interval,omitempty" jsonschema:"Least seconds between screen reads." mcp:"min=0.01;max=60;default=0.05"`
		MatchCase bool    `json:"match_case,omitempty" jsonschema:"Match case." mcp:"default=false"`
		Since     string  `json:"since,omitempty" jsonschema:"input: after this server's last input, echo left out (default after input); start: from now; screen: the screen too (default otherwise)." mcp:"enum=input|start|screen"`
		Socket
	}
	// WaitForContentChangeIn is the input of wait_for_content_change.
	WaitForContentChangeIn struct {
		PaneTarget
		Timeout      float64 `json:"timeout,omitempty" jsonschema:"Seconds; clamped to the server's ceiling." mcp:"xmin=0;max=86400;default=8"`
		Interval     float64 `json:"interval,omitempty" jsonschema:"Unused: waits wake on output." mcp:"min=0.01;max=60;default=0.05"`
		QuietMs      int     `json:"quiet_ms,omitempty" jsonschema:"Until the pane prints nothing this many ms (a TUI or agent done); 0: the first change." mcp:"min=0;max=3600000;default=0"`
		UntilReading bool    `json:"until_reading,omitempty" jsonschema:"With quiet_ms: and its program waits reading the terminal, if known."`
		Socket
	}
	// GetPaneInfoIn is the input of get_pane_info.
	GetPaneInfoIn struct {
		PaneTarget
		Socket
	}
	// FindPaneByPositionIn is the input of find_pane_by_position.
	FindPaneByPositionIn struct {
		Corner string `json:"corner" jsonschema:"Window corner." mcp:"enum=top-left|top-right|bottom-left|bottom-right"`
		WindowTarget
		Socket
	}
	// DisplayMessageIn is the input of display_message.
	DisplayMessageIn struct {
		FormatString string `json:"format_string" jsonschema:"tmux format such as #{pane_current_command}; #( is refused." mcp:"len=4096;line"`
		PaneTarget
		Socket
	}
)

// targets of capture_since: the pane named, and the cursor's.
func (in CaptureSinceIn) targets() reach {
	r := in.PaneTarget.targets()
	if pane, ok := session.CursorPane(in.Cursor); ok && in.Cursor != "" {
		r = r.with(refs(pane, "", "", ""))
	}
	return r
}

// targets of display_message: the pane, and the format, which can reach
// beyond it.
func (in DisplayMessageIn) targets() reach {
	r := in.PaneTarget.targets()
	r.format = in.FormatString
	return r
}

// Pane layout, mode and lifecycle tools.
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
		StartDirectory string    `json:"start_directory,omitempty" jsonschema:"Start directory." mcp:"len=4096;line"`
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

// Option, environment, buffer and hook tools.
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
