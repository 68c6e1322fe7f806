package session

import (
	"context"
	"slices"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/modekeys"
)

// What crashes which tmux. A crash takes the whole server down, with every
// session of every user of it, so what crashes a release is never sent to
// it. Each fact says where it comes from and what keeps it from happening.
//
//	| what crashes                           | releases   | source                                     | kept off by                                    |
//	|----------------------------------------|------------|--------------------------------------------|------------------------------------------------|
//	| copy-selection, copy-selection-and-    | 3.2a, 3.3a | libtmux-mcp's copy_selection ("Requires    | crashCommands: keys a copy-mode table binds to |
//	| cancel, copy-selection-no-clear (copy  | (< 3.4)    | tmux >= 3.4"; kills the server); not       | them are refused for a pane in copy or view    |
//	| mode, send-keys -X or a bound key)     |            | reproduced here from a control client      | mode (send_keys, send_keys_batch, press_keys   |
//	|                                        |            |                                            | with drive_mode); no tool sends -X copy-*      |
//	| select-layout NAME that starts with a  | 3.3a       | found by this project's tests              | SelectLayout passes only the preset names and  |
//	| layout's name ("tiledx")               |            |                                            | layout strings (ops_window.go)                 |
//	| refresh-client -B subscription with    | 3.3a-3.6   | tmux issue #4916; control_check_subs_timer | never combined (controlmode, link.go)          |
//	| wait-exit, client lingering            |            |                                            |                                                |
//	| a control client attaching while       | 3.3a       | this project's tests                       | the crash gate (internal/crashgate)            |
//	| another creates a session              |            |                                            |                                                |
//	| a pane kept by remain-on-exit dying    | 3.2a       | this project's tests (control_write_pending | wait_for_pane_exit, which holds remain-on-exit |
//	| while a control client has its output  |            | after the pane's event is freed)           | refuses 3.2 (CrashesHoldingDeadPanes)          |
//	| pending (2 in 10 tries)                |            |                                            |                                                |
//
// CrashesHoldingDeadPanes reports whether a pane kept dead by
// remain-on-exit can crash the server as it dies, when a control client
// follows its output: 3.2.
func (r release) CrashesHoldingDeadPanes() bool { return !r.atLeast(3, 3) }

// crashCommands are the copy-mode commands (send-keys -X) that crash a
// release older than 3.4.
var crashCommands = []string{"copy-selection", "copy-selection-and-cancel", "copy-selection-no-clear"}

// crashes reports whether the copy-mode command crashes this release.
func (r release) crashes(command string) bool {
	return !r.atLeast(3, 4) && slices.Contains(crashCommands, command)
}

// crashesInCopyMode reports whether some copy-mode command crashes this
// release, so that its key tables must be read at connect.
func (r release) crashesInCopyMode() bool { return !r.atLeast(3, 4) }

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
		pane, mode, quotedList(bad), kg.host.release().version), RemedyLeaveMode)

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
