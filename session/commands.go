package session

import "github.com/tmux-mcp/tmux-mcp/controlmode"

// command is what this package needs to know of one tmux command. The
// gate's hold ([holdFor]), whether a line may be sent again ([readOnly])
// and what a call changed ([WatchEffects]) all follow from it.
type command struct {
	// reads: the command changes nothing in tmux and queues no
	// notification. A line of reads may be sent again on the next client,
	// has no effects, and needs no gate.
	reads bool
	// endsSession: the command can end a session, by name or by taking its
	// last window or pane away. It holds the gate alone.
	endsSession bool
	// blocks: the command may wait for as long as it likes (see
	// [blocking]), so it is never sent on the shared channel unless a flag
	// makes it return at once (wait-for -S), and it takes no gate, whose
	// holders it would hold up as long.
	blocks bool
}

// commands describes every tmux command this package runs. A name not in
// it is taken as the zero command: one that changes tmux, ends no session
// and does not block, which is the safe guess for the gate and for
// effects. The changes are listed all the same, so that a test can tell a
// command nobody thought about from one that takes the default on purpose.
var commands = map[string]command{
	"capture-pane":     {reads: true},
	"display-message":  {reads: true},
	"has-session":      {reads: true},
	"list-buffers":     {reads: true},
	"list-keys":        {reads: true},
	"list-clients":     {reads: true},
	"list-panes":       {reads: true},
	"list-sessions":    {reads: true},
	"list-windows":     {reads: true},
	"show-buffer":      {reads: true},
	"show-environment": {reads: true},
	"show-hooks":       {reads: true},
	"show-options":     {reads: true},

	// break-pane of a window's only pane moves the window out of its
	// session; join-pane and move-pane take a pane from its window.
	"break-pane":    {endsSession: true},
	"join-pane":     {endsSession: true},
	"kill-pane":     {endsSession: true},
	"kill-server":   {endsSession: true},
	"kill-session":  {endsSession: true},
	"kill-window":   {endsSession: true},
	"move-pane":     {endsSession: true},
	"move-window":   {endsSession: true},
	"unlink-window": {endsSession: true},

	"wait-for": {blocks: true},

	"clear-history":   {},
	"command-prompt":  {},
	"copy-mode":       {},
	"delete-buffer":   {},
	"last-window":     {},
	"new-session":     {},
	"new-window":      {},
	"next-window":     {},
	"paste-buffer":    {},
	"pipe-pane":       {},
	"previous-window": {},
	"refresh-client":  {},
	"rename-session":  {},
	"rename-window":   {},
	"resize-pane":     {},
	"resize-window":   {},
	"respawn-pane":    {},
	"save-buffer":     {}, // forked with "-": it only reads, but is counted as a change
	"select-layout":   {},
	"select-pane":     {},
	"select-window":   {},
	"send-keys":       {},
	"set-buffer":      {},
	"set-environment": {},
	"set-hook":        {}, // a wait's own hooks (internal/engine: pane_exit.go, marks.go)
	"set-option":      {},
	"split-window":    {},
	"swap-pane":       {},
	"switch-client":   {},
}

// gateHold is how a command takes the gate; a line takes it as its most
// demanding command does.
type gateHold int

const (
	noHold     gateHold = iota // a read: tmux notifies no one
	sharedHold                 // a command that can change tmux
	loneHold                   // a command that can end a session
)

// holdFor returns how the command called name takes the gate.
func holdFor(name string) gateHold {
	switch c := commands[name]; {
	case c.endsSession:
		return loneHold
	case c.reads, c.blocks:
		return noHold
	}
	return sharedHold
}

// readOnly reports whether every command of a line only reads.
func readOnly(cmds []controlmode.Command) bool {
	for _, c := range cmds {
		if !commands[c.Name()].reads {
			return false
		}
	}
	return true
}

// blocking reports whether a one-shot with args may wait for as long as
// it likes: a command that blocks, unless a flag makes it signal, lock or
// unlock instead (wait-for's -S, -L and -U).
func blocking(args []string) bool {
	if !commands[commandName(args)].blocks {
		return false
	}
	for _, a := range args {
		if a == "-S" || a == "-L" || a == "-U" {
			return false
		}
	}
	return true
}
