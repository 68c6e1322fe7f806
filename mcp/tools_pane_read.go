package mcp

import "github.com/tmux-mcp/tmux-mcp/session"

// Pane reading tools. With no target they read a default pane and say which.
func paneReadTools() []*toolDef {
	return []*toolDef{
		addTool("capture_pane", TierReadonly, annReadOnly,
			"Read the text of a pane; the newest lines are kept when it is cut.",
			(*TmuxBackend).CapturePane, reads),
		addTool("capture_since", TierReadonly, annReadOnly,
			"Read what a pane printed since the previous call's cursor; order=oldest pages forward. A run_command output_cursor reads also after its pane closed.",
			(*TmuxBackend).CaptureSince, reads,
			scopeRule("anything",
				"the cursor's or target's pane in scope")),
		addTool("snapshot_pane", TierReadonly, annReadOnly,
			"Read a pane's screen, cursor, mode and scroll state in one call.",
			(*TmuxBackend).SnapshotPane, reads, alwaysLoad()),
		addTool("record_pane", TierMutating, annCreate,
			"Record a pane as asciicast v3 (asciinema): output with times, input markers, resizes; a new 0600 file in ~/.local/state/tmux-mcp/recordings, 32 MB, 4 h at most.",
			(*TmuxBackend).RecordPane, reads, manage, needsTarget("pane_id"),
			scopeRule("anything", "pane_id in scope")),
		addTool("search_panes", TierReadonly, annReadOnly,
			"Find panes whose text matches a pattern.",
			(*TmuxBackend).SearchPanes, lists, cutToScope(cutSearch),
			scopeRule("everything",
				"only panes in scope, paged after the cut")),
		addTool("wait_for_text", TierReadonly, annReadOnly,
			"Wait for a pane to print text matching a pattern: after this server's input, only later output, never the echo; in full-screen programs, the screen.",
			(*TmuxBackend).WaitForText, reads, selfBounded()),
		addTool("wait_for_content_change", TierReadonly, annReadOnly,
			"Wait until a pane prints, or with quiet_ms is quiet that long. Output since this server's input counts, even before the call.",
			(*TmuxBackend).WaitForContentChange, reads, selfBounded()),
		addTool("wait_for_agent_state", TierReadonly, annReadOnly,
			"Wait until the first (or all) of pane_ids is in a state of until (see agent_state); answers an agent CLI's reply.",
			(*TmuxBackend).WaitForAgentState, reads, selfBounded()),
		addTool("get_pane_info", TierReadonly, annReadOnly,
			"Describe one pane.",
			(*TmuxBackend).GetPaneInfo, reads, resultAs("list_panes")),
		addTool("find_pane_by_position", TierReadonly, annReadOnly,
			"Find the pane in a corner of a window.",
			(*TmuxBackend).FindPaneByPosition, reads, resultAs("list_panes")),
		addTool("display_message", TierReadonly, annReadOnly,
			"Expand a tmux format string for a pane.",
			(*TmuxBackend).DisplayMessage, reads,
			scopeRule("anything",
				"targets in scope; no #{S:} loops or client_ variables")),
	}
}

// The input types of the pane reading tools.
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
		MaxLines int    `json:"max_lines,omitempty" jsonschema:"Newest lines kept; 0: all." mcp:"min=0;max=1000000;default=500"`
		MaxBytes int    `json:"max_bytes,omitempty" jsonschema:"Bytes to keep, newest last; 0 keeps all." mcp:"min=0;max=1048576;default=128000"`
		Order    string `json:"order,omitempty" jsonschema:"newest: the newest lines when cut; oldest: the first ones, and a cursor after them to page forward." mcp:"enum=newest|oldest;default=\"newest\""`
		Socket
	}
	// SnapshotPaneIn is the input of snapshot_pane.
	SnapshotPaneIn struct {
		PaneTarget
		MaxLines int  `json:"max_lines,omitempty" jsonschema:"Newest lines kept; 0: all." mcp:"min=0;max=1000000;default=500"`
		PNG      bool `json:"png,omitempty" jsonschema:"Add a PNG of the screen as drawn."`
		Socket
	}
	// RecordPaneIn is the input of record_pane.
	RecordPaneIn struct {
		Action string `json:"action" mcp:"enum=start|stop|status"`
		PaneID string `json:"pane_id,omitempty" mcp:"len=64;line;pattern=^%[0-9]+$"`
		Socket
	}
	// SearchPanesIn is the input of search_panes.
	SearchPanesIn struct {
		Pattern string `json:"pattern" jsonschema:"Text to find; a regular expression when regex is true." mcp:"len=4096;line"`
		Regex   bool   `json:"regex,omitempty" jsonschema:"Treat pattern as a regular expression." mcp:"default=false"`
		SessionTarget
		MatchCase              bool `json:"match_case,omitempty" mcp:"default=false"`
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
		MatchCase bool    `json:"match_case,omitempty" mcp:"default=false"`
		Since     string  `json:"since,omitempty" jsonschema:"input (default after input): after our last input, from the cursor's row down, echo left out; start: from now; screen: the whole screen too (default otherwise; fzf's list)." mcp:"enum=input|start|screen"`
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
	// WaitForAgentStateIn is the input of wait_for_agent_state.
	WaitForAgentStateIn struct {
		PaneIDs []string `json:"pane_ids" mcp:"minitems=1;items=256;len=64;line;pattern=^%[0-9]+$"`
		Until   []string `json:"until" mcp:"minitems=1;items=5;enum=idle|working|blocked|done|unknown"`
		All     bool     `json:"all,omitempty"`
		Timeout float64  `json:"timeout,omitempty" mcp:"xmin=0;max=86400;default=8"`
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

// targets of wait_for_agent_state: pane_ids.
func (in WaitForAgentStateIn) targets() reach {
	var r reach
	for _, id := range in.PaneIDs {
		r = r.with(refs(id, "", "", ""))
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

// targets of record_pane: its pane.
func (in RecordPaneIn) targets() reach { return reach{list: refs(in.PaneID, "", "", "")} }
