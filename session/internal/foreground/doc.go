// Package foreground reads what the kernel tells of a tmux pane's
// foreground program: whether it is blocked reading the pane's terminal
// (a shell at its prompt, cat, a REPL's input line), running, or sleeping
// on something else.
//
// The foreground process group is the terminal's (tpgid, field 8 of
// /proc/PID/stat of the pane's process; ps -o tpgid on the BSDs and
// macOS). Each thread of its processes is placed in one class:
//
//   - running: state R or D.
//   - reading the terminal: on Linux, wchan n_tty_read (older kernels),
//     or wait_woken in a read of a descriptor that is the pane's terminal
//     (from /proc/PID/syscall; where that cannot be read, a process with
//     no socket and no anon_inode descriptor, the other users of
//     wait_woken), or select/pselect with one descriptor, 0, the pane's
//     terminal (readline's wait: bash, python3's REPL, vi); on the BSDs
//     and macOS, wchan ttyin (ttyraw, ttycan on NetBSD).
//   - waiting on events: epoll, poll, select of several descriptors,
//     kqueue, or a wait the kernel does not name: the program may be
//     waiting for the terminal among other things, which no one can tell
//     from outside (Node, Rust TUIs and other event loops).
//   - neutral: waiting for a child, a futex, a signal.
//   - anything else: sleeping on something that is not the terminal
//     (sleep, a pipe, a socket).
//
// A thread reading the terminal with none running makes the group
// reading; else a thread waiting on events makes it unknown (an event loop
// whose timer or collector thread runs a moment says nothing); else it is
// not reading.
//
// How it is read: on this machine under Linux, from /proc in this
// process ([ReadProc]: a few files, about 0.1 ms here); on the BSDs and
// macOS by a script, one sh ([Args]); over ssh by a loop, one sh kept on
// the shared connection that answers each look ([Prober]). The scripts
// print what the reading in Go prints, a report that [Read] reads. Which
// way a pane is read is package session's choice, by where its server
// runs. Not through the control channel: a control client gets
// run-shell's output after the command's %end, outside any reply, and
// run-shell -b's in the pane's view mode, which it puts the pane in (3.2a
// and next-3.8 alike).
//
// # Concurrency
//
// Everything but a [Prober] is safe for concurrent use; a Prober serves
// one look at a time.
package foreground
