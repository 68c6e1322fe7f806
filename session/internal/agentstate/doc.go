// Package agentstate decides what a pane is doing for whoever supervises
// it: idle, working, blocked, done or unknown, from facts observed about
// the pane (its foreground program, whether that program reads the
// terminal, when it last printed, the input this process sent it, the
// commands run_command followed in it, tmux's OSC 133 marks, and the
// screen when it was read). It does no I/O, so every rule is tested
// without tmux.
//
// [Classify] tries the generic rules first (a dead pane, a shell at its
// prompt, a program reading the terminal, a password prompt, a REPL, a
// full-screen program), and for an agent CLI the entry of [Agents] that
// names it: what the CLI draws when it works, asks and is ready. A new
// agent CLI is a new entry there, not new code.
package agentstate
