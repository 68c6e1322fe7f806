package mcp

import (
	"testing"
)

// TestEffectsSayWhatTheCallDid checks the envelope's effects against what
// each failed call did to a real tmux: "none" when it only read, or when
// tmux refused its command for a missing target; "possible" once a command
// that changes tmux ran.
func TestEffectsSayWhatTheCallDid(t *testing.T) {
	env := newTmuxEnv(t, protocolVersions[len(protocolVersions)-1], nil)
	env.fx.NewSession(t, "a", "cat")
	for _, tt := range []struct {
		tool          string
		args          map[string]any
		code, effects string
	}{
		// Reads of a missing pane.
		{"get_pane_info", map[string]any{"pane_id": "%999"}, CodeNotFound, EffectsNone},
		{"capture_pane", map[string]any{"pane_id": "%999"}, CodeNotFound, EffectsNone},
		{"display_message", map[string]any{"pane_id": "%999", "format_string": "#{pane_id}"}, CodeNotFound, EffectsNone},
		// Commands that change tmux, refused for their missing target.
		{"send_keys", map[string]any{"pane_id": "%999", "keys": "x"}, CodeNotFound, EffectsNone},
		{"create_window", map[string]any{"session_name": "nosuch"}, CodeNotFound, EffectsNone},
		{"kill_pane", map[string]any{"pane_id": "%999"}, CodeNotFound, EffectsNone},
		// set-buffer ran before paste-buffer found no pane.
		{"paste_text", map[string]any{"pane_id": "%999", "text": "x"}, CodeNotFound, EffectsPossible},
		// Refused before anything was sent.
		{"send_keys", map[string]any{"keys": "x"}, CodeTargetRequired, EffectsNone},
	} {
		e := env.fail(t, tt.tool, tt.args)
		if e.Code != tt.code || e.Effects != tt.effects || e.Retryable {
			t.Errorf("%s(%v): got %+v; want %s, effects %s, not retryable", tt.tool, tt.args, e, tt.code, tt.effects)
		}
	}
}
