// Package controlmode speaks tmux's control-mode protocol over one persistent
// `tmux -C` client whose terminal is a pseudo-terminal.
//
// A [Conn] starts the client ([Start]), or takes the input and output of a
// client that something else runs ([Open]); it reads the client's output on
// one goroutine and writes commands on another. Any number of goroutines may call [Conn.Exec] at once:
// their command lines are written without waiting for earlier replies
// (pipelined) and replies are matched to callers in send order by their
// %begin/%end guards. Notifications (%output, %window-add, %sessions-changed,
// ...) are decoded into typed values and handed to [Options.OnNotification]
// and to [Subscription]s.
//
// Commands are built only with [NewCommand] and its methods, which quote every
// argument with [Quote], so text from callers can never become a second
// command, a format or a flag.
//
// The package knows the protocol and nothing about what commands mean.
//
// # Concurrency
//
// All methods of [Conn] are safe for concurrent use. The reader goroutine owns
// the parser and the queue of pending replies; it never blocks on a consumer,
// because a control client that stops reading can freeze the whole tmux
// server. [Options.OnNotification] runs on the reader goroutine and must
// return quickly; a [Subscription] that falls behind loses events and is told
// how many with a [Lost] notification.
//
// # Cancellation
//
// A command cannot be taken back once it is written: tmux runs it whatever the
// caller does. When the context passed to [Conn.Exec] is cancelled, Exec
// returns the context's error at once, but the reply slot stays queued until
// tmux answers, so replies to later calls are never attributed to the wrong
// caller. That holds while tmux reads nothing too: a line the caller could
// not finish writing is handed on to the writer goroutine. A context that is
// already done before anything is written returns without writing.
//
// When the connection ends (%exit, EOF, [Conn.Close]) every pending call
// fails at once with an error that wraps [ErrClosed]; [Conn.Done] is closed
// and [Conn.Err] says why. A call whose line had not been written yet also
// wraps [ErrNotSent]: tmux never saw it.
//
// A tmux that stops answering (a stopped server, or a command that holds
// this client's queue, such as a prompt opened on it) would hold every
// later call. [Options.ReplyTimeout] bounds that: when the oldest waiting
// call has waited that long for its reply, the Conn kills the client and
// ends as above, with an error that also wraps [ErrUnresponsive].
package controlmode
