package session

import (
	"context"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/modekeys"
)

// What crashes which release is release.Facts' table (internal/release);
// what keeps it from being sent is here.

// refuseCrashingKeys refuses keys sent to pane (a target) with drive_mode
// that a copy-mode table binds to a command that crashes this release,
// while the pane is in copy or view mode, where the keys would run it. It
// looks at the pane in a round trip of its own (before 3.4 no -N guard can
// tell), and only when one of the keys is bound so; a mode entered between
// the look and the keys is missed, as for refuseInModeFirst.
func (kg *keyGuards) refuseCrashingKeys(ctx context.Context, pane string, keys []string) error {
	bad := kg.host.modeKeys().Crashing(keys)
	if len(bad) == 0 {
		return nil
	}
	rs, err := kg.host.exec(ctx, controlmode.NewCommand("display-message", "-p", "-t", pane, "#{pane_mode}"))
	if err != nil {
		return err
	}
	mode := strings.Join(rs[0].Lines, "")
	if mode != "copy-mode" && mode != "view-mode" {
		return nil
	}
	return fix(errorf(KindRefused,
		"pane %s is in %s, where %s runs a copy-selection command (a binding of its copy-mode table), which crashes tmux %s: the whole server, with every session on it (fixed in 3.4); nothing was sent. "+
			"Leave the mode first (the key q), or send keys without those",
		pane, mode, quotedList(bad), kg.host.release().Version()), RemedyLeaveMode)

}

// sendKeyNames returns the keys a's send-keys deliver, as key tables name
// them (see modekeys.Keys).
func sendKeyNames(a SendKeysArgs) []string {
	args := []string{a.Keys}
	if a.KeyList != nil {
		args = a.KeyList
	}
	var keys []string
	for _, k := range args {
		if k != "" {
			keys = append(keys, modekeys.Keys(k, a.Literal, isKeyName(k))...)
		}
	}
	if a.Enter {
		keys = append(keys, "Enter")
	}
	return keys
}

// batchCrashing is refuseCrashingKeys for the ops of a batch line whose
// targets are targets: the index of the first op refused, and its
// refusal; -1 and nil if none is.
func (kg *keyGuards) batchCrashing(ctx context.Context, ops []SendKeysOp, targets []string) (int, error) {
	for k, op := range ops[:len(targets)] {
		if err := kg.refuseCrashingKeys(ctx, targets[k], sendKeyNames(op.SendKeysArgs)); err != nil {
			return k, err
		}
	}
	return -1, nil
}
