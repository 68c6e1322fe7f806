package mcp

// The argument groups the tools' input types share. Each input type is
// beside its tool's declaration, in tools_<domain>.go. Argument names, types
// and defaults are libtmux-mcp's; teardown_session's are the Julia port's.
// A handler receives them validated, with defaults applied.
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
