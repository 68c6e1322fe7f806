package release

import "slices"

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
//	| layout's name ("tiledx")               |            |                                            | layout strings (session/ops_window.go)         |
//	| refresh-client -B subscription with    | 3.3a-3.6   | tmux issue #4916; control_check_subs_timer | never combined (controlmode, session/link.go)  |
//	| wait-exit, client lingering            |            |                                            |                                                |
//	| a control client attaching while       | 3.2a-3.6b  | this project's tests; tmux checks the      | the crash gate (session/internal/crashgate)    |
//	| another creates a session              | (< 3.7)    | client's state since 3.7 (PR 4980)         |                                                |
//	| a pane kept by remain-on-exit dying    | 3.2a       | this project's tests (control_write_pending | wait_for_pane_exit, which holds remain-on-exit |
//	| while a control client has its output  |            | after the pane's event is freed)           | refuses 3.2 (CrashesHoldingDeadPanes)          |
//	| pending (2 in 10 tries)                |            |                                            |                                                |
//
// CrashesHoldingDeadPanes reports whether a pane kept dead by
// remain-on-exit can crash the server as it dies, when a control client
// follows its output: 3.2.
func (r Facts) CrashesHoldingDeadPanes() bool { return !r.AtLeast(3, 3) }

// crashCommands are the copy-mode commands (send-keys -X) that crash a
// release older than 3.4.
var crashCommands = []string{"copy-selection", "copy-selection-and-cancel", "copy-selection-no-clear"}

// Crashes reports whether the copy-mode command crashes this release.
func (r Facts) Crashes(command string) bool {
	return !r.AtLeast(3, 4) && slices.Contains(crashCommands, command)
}

// CrashesInCopyMode reports whether some copy-mode command Crashes this
// release, so that its key tables must be read at connect.
func (r Facts) CrashesInCopyMode() bool { return !r.AtLeast(3, 4) }
