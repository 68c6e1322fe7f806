// Package session is what a tmux server is to the rest of the program: a
// connection that heals, a live model of its sessions, windows and panes,
// the sessions this process owns, and typed operations on them.
//
// A [Manager] hands out one [Server] per tmux socket. A Server connects
// lazily through one control-mode client ([controlmode.Conn]), reads the
// server's generation on every connect, keeps its model current from
// notifications, and reconnects by itself when the client is detached, its
// session is killed or the server restarts. Operations build their commands
// only through [controlmode.NewCommand] and cost one round trip where tmux
// allows. The package speaks tmux: what its errors mean to an MCP client,
// and which pane a call that names none should read, are the caller's.
// It reads no environment; the caller passes what it needs in [Options].
//
// The servers of a Manager run on one [Host]: this machine, or another
// reached through one OpenSSH connection ([NewSSH]), over which the control
// client, its watchers and every one-shot tmux run as sessions.
//
// # Where things live
//
// The connection:
//
//   - manager.go: [Manager], its [Options] and [Socket].
//   - link.go: the control clients' lives (connect, dial, the supervisor
//     that reconnects, leaving a session about to be killed, Close), and
//     watchers.go the extra clients that follow other sessions' panes and
//     feed pane output into the streams (pausing and resuming). A link is
//     built from a way to start clients, the gate and the events it tells
//     its Server; it knows nothing else of the Server.
//   - clients.go: starting a control client on the Server's host (or a
//     test's fake), why one could not start, and clientRef.
//   - server.go: running commands: send (one line on a given client,
//     through the gate), exec (connect, resend what is safe to resend),
//     execChange (exec that marks the model dirty); oneshot.go: forkTmux,
//     the only fork of tmux, for what the shared channel must not carry
//     (blocking commands) or cannot (no session yet). commands.go: the
//     one table of what each tmux command is (reads, ends a session,
//     blocks), from which the gate's hold, resending and effects follow.
//   - resync.go: reading a new client's server, and keeping the model in
//     step with it; model.go: the live model and its row formats;
//     subscribe.go: telling listeners of changes.
//   - release.go: the Server's release, whose facts (what each tmux release
//     does differently, and what crashes it) are internal/release's, and
//     nothing else asks the version; modes.go: the prompt the main client
//     holds and the keys refused in copy mode; crash.go: the keys refused
//     because they would crash the release.
//   - host.go, host_local.go, ssh.go: where tmux runs (the Host interface,
//     this machine, another one through ssh); each Host does what differs
//     there itself, and nothing asks which kind of host it is; procwait_*.go:
//     waiting for a process to exit.
//
// The operations:
//
//   - targets.go: how a PaneRef or WindowRef becomes a tmux target, and
//     tmux ids; placement.go: where sessions, windows and panes are;
//     socket_name.go: what a socket name may be; tags.go: a user option's
//     values as set on each session, window and pane.
//   - ops_read.go, ops_capture.go, ops_page.go: reading the model and
//     panes; ops_session.go, ops_window.go, ops_pane.go: sessions, windows
//     and panes; spawn.go: what starts a shell; ops_buffers.go,
//     ops_options.go: buffers, options, environment and hooks;
//     ops_server.go: a server's status and its end; probe_servers.go and
//     probe_remote.go: finding the servers on a host.
//   - input.go: what input was sent to which pane.
//   - engine.go: the pane-following engine, internal/engine, which holds
//     the waits (for text, quiet, a first prompt, a pane's exit, agent
//     states), a pane's agent state, run_command and its follower, key
//     presses, capture_since and the grid reads, and reaches tmux only
//     through its Host interface: a Server is its host (engineHost) and
//     embeds it, so the engine's exported methods are the Server's; the
//     words both speak (PaneRef, Pane, SendKeysArgs, the waits' arguments
//     and results) are the engine's, re-declared in engine_words.go. Its
//     own tests drive its waits with a fake host and no tmux.
//   - agent_record.go: reading an agent CLI's own record (Claude Code's
//     transcript) on the Server's host, for the engine; recording.go: the
//     recordings of panes, internal/recording, which a Server embeds and
//     hosts as it does the engine; channel.go: wait-for channels.
//   - foreground.go, foreground_ssh.go: how the Server's host reads
//     whether a pane's foreground program is blocked reading its terminal
//     (internal/foreground): /proc in this process, a script, or one sh
//     kept on the ssh connection.
//   - errors.go, effects.go, owned.go: errors, what a call did, and the
//     sessions this process created.
//
// The parts that need no tmux are packages of their own, each with its
// own tests: internal/errs (the [Error] every operation returns, whose
// names this package re-declares), internal/release (what each tmux
// release does differently, read from its version), internal/panestream (a pane's output
// with byte offsets), internal/termtext (output rendered into the lines a
// reader sees), internal/rows (tmux -F row formats), internal/crashgate
// (the lock that keeps our clients from crashing tmux), internal/modekeys
// (the copy-mode keys that would hold a client), internal/shellrun (the
// line run_command types, its markers, and reading a shell's prompt),
// internal/foreground (what the kernel tells of a pane's foreground
// program, and the scripts and prober that read it elsewhere) and
// internal/paneread (a pane's text as a person reads it: the echo of
// typed input taken out, grid rows trimmed as they show, patterns, the
// tail of an answer).
//
// # Concurrency
//
// Managers and Servers are safe for concurrent use. The model is owned by
// its Server: notifications are applied on the connection's reader
// goroutine under a short lock, and structural changes trigger one
// debounced resync in a single round trip. The control clients and their
// state (the main client, its generation and session, the dial under way,
// the watchers) have one owner, the Server's link, which alone writes
// them; every step of a client's life goes through it, and Close waits for
// the goroutines it starts.
//
// Where one lock is taken while another is held, the order is:
//
//   - Manager.mu before a Server's locks: a Server made for a closed
//     Manager is closed under it.
//   - link.mu before owned.mu (a new generation drops the old one's
//     sessions), clientRef.mu (a watcher's client is looked at) and the
//     model's mu (a dropped client's model is emptied). link.mu is never
//     held across tmux I/O, the gate or a wait.
//   - a panestream.Set's mu before a Stream's mu.
//   - the gate's rw before its mu.
//
// No other lock is taken while another is held, except that listeners
// run under the listeners' read lock.
//
// # Errors
//
// Operations return *[Error], whose [Kind] says what sort of failure it is
// and whose Written field says whether the operation may have changed
// tmux. Written is stamped where the I/O happens (a line sent on a client,
// a one-shot tmux, a connect), from the same reading of what tmux did that
// [WatchEffects] records, which tells a caller whether a whole sequence of
// operations may have changed anything.
package session
