package mcp

// ScopeRule says what one tool may do under the two owned scopes; the
// README's table is rendered from these, so it cannot drift from the check.
type ScopeRule struct {
	Tool       string
	OwnedWrite string // what it may do under owned-write
	Owned      string // what it may do under owned
}

// The words of the table, per scope class.
var scopeWords = map[access][2]string{
	accessNone:   {"anything", "anything"},
	accessList:   {"everything", "only rows in scope"},
	accessRead:   {"anything", "targets in scope; no target: the oldest session in scope"},
	accessWrite:  {"targets in scope", "targets in scope"},
	accessServer: {"refused", "refused"},
}

// scopeToolWords are the tools whose rule needs more words than their class.
var scopeToolWords = map[string][2]string{
	"list_servers":                 {"anything", "anything (session counts include every session)"},
	"get_server_info":              {"everything", "counts only sessions in scope"},
	"create_session":               {"anything: the new session is in scope at once", "anything: the new session is in scope at once"},
	"teardown_session":             {"only sessions it created, as in every scope", "only sessions it created, as in every scope"},
	"search_panes":                 {"everything", "only panes in scope, paged after the cut"},
	"display_message":              {"anything", "targets in scope; no #{S:} loops or client_ variables"},
	"select_window":                {"targets in scope (a direction alone: the oldest session)", "targets in scope (a direction alone: the oldest session)"},
	"select_pane":                  {"targets in scope (a direction alone: the oldest session)", "targets in scope (a direction alone: the oldest session)"},
	"swap_pane":                    {"both panes in scope", "both panes in scope"},
	"move_window":                  {"the window and the destination in scope", "the window and the destination in scope"},
	"send_keys_batch":              {"every row's target in scope, else nothing is sent", "every row's target in scope, else nothing is sent"},
	"capture_since":                {"anything", "the cursor's or target's pane in scope"},
	"show_option":                  {"anything", "a session, window or pane table in scope, named by target"},
	"set_option":                   {"a session, window or pane table in scope, named by target; no server options", "a session, window or pane table in scope, named by target; no server options"},
	"show_hooks":                   {"anything", "a session, window or pane table in scope, named by target"},
	"show_hook":                    {"anything", "a session, window or pane table in scope, named by target"},
	"show_environment":             {"anything", "a session in scope; not the global environment"},
	"set_environment":              {"a session in scope; not the global environment", "a session in scope; not the global environment"},
	"wait_for_channel":             {"anything (channels belong to no session)", "anything (channels belong to no session)"},
	"signal_channel":               {"refused (it wakes any waiter on the server)", "refused (it wakes any waiter on the server)"},
	"load_buffer":                  {"anything (MCP buffers belong to no session)", "anything (MCP buffers belong to no session)"},
	"show_buffer":                  {"anything (MCP buffers belong to no session)", "anything (MCP buffers belong to no session)"},
	"delete_buffer":                {"anything (MCP buffers belong to no session)", "anything (MCP buffers belong to no session)"},
	"call_readonly_tools_batch":    {"each row checked as its own call", "each row checked as its own call"},
	"call_read_tools_batch":        {"each row checked as its own call", "each row checked as its own call"},
	"call_mutating_tools_batch":    {"each row checked as its own call", "each row checked as its own call"},
	"call_destructive_tools_batch": {"each row checked as its own call", "each row checked as its own call"},
}

// ScopeRules returns the rule of every tool, in catalogue order.
func ScopeRules() []ScopeRule {
	var rules []ScopeRule
	for _, d := range catalogue() {
		w, ok := scopeToolWords[d.name]
		if !ok {
			w = scopeWords[accessOf(d.name)]
		}
		rules = append(rules, ScopeRule{Tool: d.name, OwnedWrite: w[0], Owned: w[1]})
	}
	return rules
}
