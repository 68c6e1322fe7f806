// Package paneread reads a pane's text as a person reads it: output rendered
// into lines with the echo of typed input taken out ([Output],
// [EchoFilter]), rows of tmux's grid trimmed as they show ([Readable]),
// patterns matched against them ([Matcher]), the last lines kept for an
// answer ([Tail]), and which rows output moved the cursor over
// ([RowTracker]).
//
// It knows nothing of tmux's commands or of a pane's stream: the caller
// gives it bytes, rows and where the cursor is.
//
// # Concurrency
//
// Its values are not safe for concurrent use; each reader keeps its own. A
// Matcher does not change once compiled and may be shared.
package paneread
