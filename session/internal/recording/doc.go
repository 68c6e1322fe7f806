// Package recording records tmux panes: an asciicast v3 file of what a
// pane printed, taken from the output stream its waits follow (a
// recording is one more reader of it; nothing polls), with markers where
// this process sent it input and resizes where its size changed.
//
// Its [Recordings] are package session's, which the Server embeds and
// which reach tmux only through their [Host].
//
// # Concurrency
//
// Recordings are safe for concurrent use. Each recording runs on one
// goroutine the Server's Close waits for; the set of them, and each one's
// state read by status calls, have locks of their own.
package recording
