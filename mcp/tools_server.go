package mcp

import "context"

// Server and batch tools.
func serverTools() []*toolDef {
	return []*toolDef{
		addTool("list_servers", TierReadonly, annReadOnly,
			"List live tmux servers under $TMUX_TMPDIR and at any extra socket paths.",
			(*TmuxBackend).ListServers, touchesNone,
			scopeRule("anything",
				"anything (session counts include every session)")),
		addTool("list_sessions", TierReadonly, annReadOnly,
			"List tmux sessions. Start here to discover targets.",
			(*TmuxBackend).ListSessions, lists, cutToScope(cutSessions)),
		addTool("get_server_info", TierReadonly, annReadOnly,
			"Report whether the tmux server runs, its socket, version and session count.",
			(*TmuxBackend).GetServerInfo, lists, resultAs("list_servers"), cutToScope(cutServerInfo),
			scopeRule("everything",
				"counts only sessions in scope")),
		addTool("create_session", TierMutating, annSeed,
			"Create a tmux session with one window and pane; returns its ids and the generation teardown_session needs.",
			(*TmuxBackend).CreateSession, touchesNone, manage, requiredMembers(),
			scopeRuleBoth("anything: the new session is in scope at once"),
			execArgs("environment")),
		addTool("kill_server", TierDestructive, annDestructive,
			"Kill the tmux server and every session on it. Refuses the server this MCP server runs in.",
			(*TmuxBackend).KillServer, touchesServer, teardown),

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

// The input types of the server tools.
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
		StartDirectory string    `json:"start_directory,omitempty" mcp:"len=4096;line"`
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

// The input types of the batch tools.
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
