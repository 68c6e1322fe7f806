package mcp

// Session tools.
func sessionTools() []*toolDef {
	session := needsTarget("session_name", "session_id")
	return []*toolDef{
		addTool("list_windows", TierReadonly, annReadOnly,
			"List the windows of a session, or of every session.",
			(*TmuxBackend).ListWindows, lists, alwaysLoad(), cutToScope(cutWindows)),
		addTool("get_session_info", TierReadonly, annReadOnly,
			"Describe one session.",
			(*TmuxBackend).GetSessionInfo, reads, resultAs("list_sessions")),
		addTool("create_window", TierMutating, annCreate,
			"Create a window with one pane in a session.",
			(*TmuxBackend).CreateWindow, writes, manage, session, resultAs("list_windows"),
			execArgs("environment")),
		addTool("rename_session", TierMutating, annMutating,
			"Rename a session; ids stay valid.",
			(*TmuxBackend).RenameSession, writes, manage, session, resultAs("list_sessions")),
		addTool("kill_session", TierDestructive, annDestructive,
			"Kill a session and all its windows. Refuses the session this MCP server runs in.",
			(*TmuxBackend).KillSession, writes, teardown, session),
		addTool("select_window", TierMutating, annMutating,
			"Make a window active, by id, index or direction.",
			(*TmuxBackend).SelectWindow, writes, manage, needsTarget("window_id", "window_index", "direction"), resultAs("list_windows"),
			scopeRuleBoth("targets in scope (a direction alone: the oldest session)")),
		addTool("teardown_session", TierMutating, annSeed,
			"Destroy an exact generation-bound session created by this application. Borrowed sessions are refused.",
			(*TmuxBackend).TeardownSession, touchesNone, manage, seedSchemas(),
			scopeRuleBoth("only sessions it created, as in every scope")),
	}
}

// The input types of the session tools.
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
		StartDirectory string    `json:"start_directory,omitempty" mcp:"len=4096;line"`
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
