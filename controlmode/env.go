package controlmode

import "strings"

// Unnested returns a copy of env without TMUX and TMUX_PANE, the variables
// tmux sets inside a pane. A tmux started with them takes itself to be
// nested in that pane's session, and without -L or -S reaches that
// pane's server. Every other variable, TMUX_TMPDIR included, is kept.
func Unnested(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			out = append(out, kv)
		}
	}
	return out
}
