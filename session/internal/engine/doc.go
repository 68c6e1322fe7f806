// Package engine follows tmux panes: the waits for text and for quiet,
// the hold for a first prompt, run_command and the follower of its
// commands, the shell's command marks, key presses, capture_since and the
// reads of tmux's grid.
//
// An [Engine] reaches tmux only through its [Host]: a line of commands
// and its replies, a pane's stream and its watch, a target resolved, the
// release's facts, the pane's foreground program and the input noted as
// sent. Package session's Server is the host it has in the program, and
// embeds it, so the engine's exported methods are the Server's; its tests
// drive the waits with a fake host and a stream fed by hand, with no tmux
// (engine_fake_test.go).
//
// The words the engine and package session share (a [PaneRef], the
// [SendKeysArgs] of a key press, a [Foreground], the owner a context
// carries) are defined here, and session re-declares them.
//
// # Where things live
//
//   - follow.go: paneFollow, the one follower of a pane's output that
//     every wait and read below stands on, its answers to the pane's end
//     and to the end of the client that delivered its output, and loop,
//     the one loop of every follower (the waits, a key's reaction,
//     run_command's follower, the wait for agent states), each of which
//     gives it only a step; until is loop with a wait's timeout.
//   - wait.go: what every wait shares (its arguments, results, entry look
//     and matching) and the wait for quiet; wait_text.go: the wait for
//     text; first_prompt.go: the hold for a shell's first prompt;
//     pane_exit.go: the wait for a pane's program to exit, holding
//     remain-on-exit for the wait only; agent_state.go: what a pane is
//     doing (idle, working, blocked, done), from the facts this process
//     holds and a look, which internal/agentstate classifies, and
//     wait_state.go: the wait for agent states.
//   - grid.go: places in tmux's grid read with input, and the rows a wait
//     reads from there; capture_since.go, capture_grid.go:
//     capture_since's cursors and its read of tmux's grid from a cursor's
//     row.
//   - press_keys.go: a key list pressed one key at a time, as a person
//     presses them.
//   - run_command.go: running a command in a pane's shell, whose line and
//     markers are internal/shellrun's; run_follow.go: following it to its
//     end, past the call's timeout, under an id; run_drawn.go: its output
//     read from the rows it was drawn on; marks.go: the shell's command
//     marks (OSC 133) tmux 3.8 records.
//   - refs.go: the words shared with package session; outside.go: what
//     session's own followers of a pane (the agent states, recordings)
//     use of the engine, as functions, for an Engine's exported methods
//     are the Server's; hooks.go: what session's real-tmux tests look at.
//
// # Concurrency
//
// An Engine is safe for concurrent use: its commands (run_follow.go's
// commandSet) and its prompt memory guard themselves, and every call on
// its Host may come from any goroutine.
package engine
