// Package panestream keeps the output of every pane of one tmux server as
// control mode's %output delivered it, at monotonic byte offsets, so that a
// reader holding an offset gets exactly what came after it or is told what
// it missed.
//
// A [Set] holds one [Stream] per pane. A Stream keeps between [Cap] and
// 2×Cap of its newest bytes and marks in them where output was lost: where
// tmux paused the pane and threw its queued output away ([Stream.Pause]),
// and where the client that delivered it ended ([Stream.SourceEnded]).
// A [Read] says both, and how many bytes after the reader's offset are no
// longer kept. A Stream also remembers where this process last sent the
// pane input ([InputMark]), so that waits can match only what came after.
//
// A window linked into two watched sessions reaches both clients: a Stream
// takes its output from one source client only, and lets another in once
// that source has ended.
//
// # Concurrency
//
// Sets and Streams are safe for concurrent use. Each Stream has its own
// lock, taken after the Set's and never with another Stream's; Append only
// copies bytes, so a client's reader goroutine never blocks on a reader.
// Every change closes the channel [Stream.Position] returned, which is how
// readers wait.
package panestream
