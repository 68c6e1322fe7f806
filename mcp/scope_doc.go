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

// ScopeRules returns the rule of every tool, in catalogue order.
func ScopeRules() []ScopeRule {
	var rules []ScopeRule
	for _, d := range catalogue() {
		w := d.scopeWords
		if w == ([2]string{}) {
			w = scopeWords[d.access]
		}
		rules = append(rules, ScopeRule{Tool: d.name, OwnedWrite: w[0], Owned: w[1]})
	}
	return rules
}
