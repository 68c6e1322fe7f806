package main

import (
	"fmt"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/mcp"
)

// scopesTable renders what each tool may do under the owned scopes, from
// the rules the scope check itself enforces.
func scopesTable() string {
	var b strings.Builder
	b.WriteString("| Tool | `owned-write` | `owned` |\n| --- | --- | --- |\n")
	for _, r := range mcp.ScopeRules() {
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.Tool, cell(r.OwnedWrite), cell(r.Owned))
	}
	return b.String()
}
