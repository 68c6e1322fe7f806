package session

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/modekeys"
	"github.com/tmux-mcp/tmux-mcp/session/internal/release"
)

// keyGuards keeps send-keys from driving a pane's mode with keys not
// meant for it, from holding the control client in a prompt, and from
// sending keys that crash the server's release (crash.go; the table of
// what crashes which release is internal/release's). A type of its
// own, not Server methods: it reaches tmux only through its host.
type keyGuards struct {
	host guardHost
	log  *slog.Logger
	sock string // the server's socket, in messages
}

// guardHost is what the key guards need of a Server: lines on a given
// client and on the main one, the main client connected, and what that
// connect read (the release, its mode-key table).
type guardHost interface {
	send(ctx context.Context, c *controlmode.Conn, cmds ...controlmode.Command) ([]controlmode.Reply, error)
	exec(ctx context.Context, cmds ...controlmode.Command) ([]controlmode.Reply, error)
	connect(ctx context.Context) error
	release() release.Facts
	modeKeys() *modekeys.Table
}

// serverGuards is a Server as its key guards' host.
type serverGuards struct{ *Server }

var _ guardHost = serverGuards{}

func (h serverGuards) connect(ctx context.Context) error {
	_, err := h.link.connect(ctx)
	return err
}

func (h serverGuards) modeKeys() *modekeys.Table { return h.link.modeKeys() }

// Keys sent to a pane in a mode.
//
// send-keys gives a key for a pane in copy mode or view mode to the mode's
// key table (copy-mode, or copy-mode-vi with mode-keys vi) and runs the
// command bound to it as if the client that sent send-keys had pressed the
// key (cmd-send-keys.c, cmd_send_keys_inject_key: key_bindings_dispatch
// with the command's client, inserted after send-keys in that client's
// queue). For us that client is the control client. Text goes the same
// way, a character at a time, with -l or without. Several default bindings
// open a prompt on that client: g (goto line), f F t T (jump), C-r C-s
// (incremental search), M-1 to M-9 (repeat count) in emacs keys; : / ? f F
// t T and 1 to 9 in vi keys.
//
// From tmux 3.3, command-prompt without -b waits for its prompt to be
// answered before the client's next command runs (CMD_RETURN_WAIT; the
// incremental search, -i, does not wait). Nobody answers a prompt on a
// control client: its queue stops there for good, and every later call on
// it with it. tmux 3.2 opens the prompt and goes on.
//
// In every version command-prompt does nothing on a client that has a
// prompt open already (cmd_command_prompt_exec returns at once when
// prompt_string is set). So the main client holds a prompt of its own open
// from the moment it attaches, and never answers it: a binding's
// command-prompt then returns at once, and the key does nothing. Modes
// that open prompts themselves (the filter and search of choose-tree and
// the other tree modes, customize-mode) replace it with theirs without
// waiting, and the client still holds a prompt. What else a binding could
// run on the client and wait for (a user's confirm-before, display-menu, or
// run-shell without -b) the liveness deadline catches (see
// Options.ReplyDeadline).

// holdPromptText is the held prompt's text; no one sees it, a control
// client has no status line.
const holdPromptText = "tmux-mcp holds this prompt so that keys it sends open none"

// holdPrompt opens the prompt that client c holds. Its template is a
// command that does nothing, in case someone answers it (send-keys -K -c,
// 3.4+). A failure is logged: the liveness deadline still bounds a stall.
//
// The one difference between releases: -b (do not wait) exists from 3.3,
// where the wait came in; 3.2 has no -b (a parse error) and never waits,
// so there the prompt is opened without it. Asking tmux, rather than
// reading the version, keeps a fork or a development build right too.
func (kg *keyGuards) holdPrompt(ctx context.Context, c *controlmode.Conn) {
	hold := func(flags ...string) error {
		args := append(flags, "-p", holdPromptText)
		_, err := kg.host.send(ctx, c, controlmode.NewCommand("command-prompt", args...).Text("display-message -p ''"))
		return err
	}
	err := hold("-b")
	var ce *controlmode.CommandError
	if errors.As(err, &ce) {
		err = hold() // 3.2: no -b, and no wait
	}
	if err != nil {
		kg.log.Warn("opening the held prompt failed; a key for a pane in a mode may stall the control client until the reply deadline", "socket", kg.sock, "err", err)
	}
}

// Keys that open a prompt in the pane (tmux 3.8 and later).
//
// 3.8's copy-mode bindings open their prompts in the pane (command-prompt
// -P), which the held prompt does not stop, and such a prompt holds the
// client that sent the key until a person types into the pane. So the keys
// bound to one are never sent to a pane in copy or view mode: tmux itself
// refuses them, by the guard of package modekeys, and the call answers
// that nothing was sent and how to leave the mode.

// readModeKeys reads, on client c, which keys of the copy-mode tables open
// a waiting prompt in the pane. Bindings changed later are read at the next
// connect; until then the liveness deadline bounds a stall. A failure (a
// table the user deleted) is logged, and that table guards nothing.
func (kg *keyGuards) readModeKeys(ctx context.Context, c *controlmode.Conn, rel release.Facts) *modekeys.Table {
	read := func(table string) []string {
		cmd := controlmode.NewCommand("list-keys", "-T", table, "-F", "#{key_string} #{key_command}")
		if !rel.AtLeast(3, 4) {
			cmd = controlmode.NewCommand("list-keys", "-T", table) // no -F yet
		}
		rs, err := kg.host.send(ctx, c, cmd)
		if err != nil {
			kg.log.Warn("reading a copy-mode key table failed; its keys that open a prompt in the pane are not refused", "socket", kg.sock, "table", table, "err", err)
			return nil
		}
		if !rel.AtLeast(3, 4) {
			return modekeys.FromListKeys(rs[0].Lines)
		}
		return rs[0].Lines
	}
	return modekeys.ParseCrashing(read("copy-mode"), read("copy-mode-vi"), rel.Crashes)
}

// Keys for a pane in a mode.
//
// Keys sent to a pane in copy mode (or another mode: choose-tree, clock)
// drive the mode, not the program in the pane, which is not what a call
// that types into a program means. So keys are refused when the pane is
// in a mode, unless the call says it means to drive the mode. From 3.4
// tmux decides it as the keys arrive (-N with a format); before, one look
// at the pane comes first, and a mode entered in between is missed.

// A keyGuard is what send-keys must refuse, decided by tmux when the keys
// arrive: a pane in any mode (anyMode, for keys not meant for one), and
// from 3.8 the keys whose copy-mode binding opens a waiting pane prompt.
type keyGuard struct {
	table   *modekeys.Table
	anyMode bool
}

// guardFor returns the guard of keys sent by a call that means to drive
// the pane's mode (drive), or does not. It connects first: the guard
// depends on the server's release.
func (kg *keyGuards) guardFor(ctx context.Context, drive bool) (keyGuard, error) {
	guard, err := kg.guards(ctx)
	if err != nil {
		return keyGuard{}, err
	}
	return guard(drive), nil
}

// guards is guardFor for calls of both kinds, with one connect.
func (kg *keyGuards) guards(ctx context.Context) (func(drive bool) keyGuard, error) {
	if err := kg.host.connect(ctx); err != nil {
		return nil, err
	}
	table, anyMode := kg.host.modeKeys(), kg.host.release().ExpandsRepeatCount()
	return func(drive bool) keyGuard { return keyGuard{table: table, anyMode: anyMode && !drive} }, nil
}

// guarded is what a guard made tmux refuse: keys for a pane in any mode,
// or in copy mode the keys waiting names.
type guarded struct {
	anyMode bool
	waiting []string
}

func (g guarded) join(o guarded) guarded {
	return guarded{anyMode: g.anyMode || o.anyMode, waiting: append(g.waiting, o.waiting...)}
}

// sendKeysCommand is send-keys of args to target (-l with literal), with
// the guard g as its -N repeat count; refused says what it refuses.
func sendKeysCommand(target string, literal bool, args []string, g keyGuard) (cmd controlmode.Command, refused guarded) {
	flags := []string{"-t", target}
	if literal {
		flags = append(flags, "-l")
	}
	switch {
	case g.anyMode:
		flags = append(flags, "-N", "#{?pane_in_mode,0,1}")
		refused.anyMode = true
	case g.table != nil:
		var all []string
		for _, a := range args {
			all = append(all, modekeys.Keys(a, literal, isKeyName(a))...)
		}
		var count string
		if count, refused.waiting = g.table.Guard(all); count != "" {
			flags = append(flags, "-N", count)
		}
	}
	return controlmode.NewCommand("send-keys", flags...).Text(args...), refused
}

// refuseInModeFirst refuses keys not meant for a mode when pane (a pane
// id or target) is in one, by a look before they are sent: for tmux
// before 3.4, where the guard cannot tell. It returns nil at once on later
// releases, or when drive is set.
func (kg *keyGuards) refuseInModeFirst(ctx context.Context, drive bool, pane string) error {
	if drive || kg.host.release().ExpandsRepeatCount() {
		return nil
	}
	_, err := kg.firstInMode(ctx, []string{pane})
	return err
}

// firstInMode looks at panes in one round trip and returns the index of
// the first in a mode, and its refusal; -1 and nil if none is. A look that
// fails fails the send before any key: the index of its pane (0 for a
// stuck server) and the error.
func (kg *keyGuards) firstInMode(ctx context.Context, panes []string) (int, error) {
	cmds := make([]controlmode.Command, len(panes))
	for i, p := range panes {
		cmds[i] = controlmode.NewCommand("display-message", "-p", "-t", p, "#{pane_id} #{pane_mode}")
	}
	rs, err := kg.host.exec(ctx, cmds...)
	if err != nil && len(rs) != len(cmds) {
		return 0, err
	}
	for i, r := range rs {
		if r.Err != nil {
			return i, fromExec(r.Err) // a look: nothing was sent
		}
		if id, mode, _ := strings.Cut(strings.Join(r.Lines, ""), " "); mode != "" {
			return i, inModeError(id, mode)
		}
	}
	return -1, nil
}

// inModeError is the refusal of keys not meant for the mode pane is in.
func inModeError(pane, mode string) error {
	return fix(errorf(KindRefused, "pane %s is in %s: keys sent now would drive the mode, not the program in the pane; nothing was sent. "+
		"Leave the mode first, or send the keys as meant for the mode", pane, mode), RemedyDriveMode)

}

// refusedInMode turns the error of keys refused by their guard into the
// answer to give, naming the pane's mode as tmux reads it now (one round
// trip, only after a refusal); other errors, and errors of unguarded keys,
// pass. again reports that the pane is in no mode the guard refuses any
// more (it was left in between): nothing was sent, and the keys may be
// sent again.
func (kg *keyGuards) refusedInMode(ctx context.Context, err error, pane string, refused guarded) (again bool, _ error) {
	// The guard expands to 0 in a mode it refuses, which tmux answers
	// with "repeat count too small"; any other failure is tmux's own.
	var ce *controlmode.CommandError
	if !refused.anyMode && len(refused.waiting) == 0 || !errors.As(err, &ce) || !strings.Contains(ce.Msg, "repeat count too small") {
		return false, err
	}
	mode := "copy or view mode"
	if rs, merr := kg.host.exec(ctx, controlmode.NewCommand("display-message", "-p", "-t", pane, "#{pane_mode}")); merr == nil {
		m := strings.Join(rs[0].Lines, "")
		switch {
		case refused.anyMode && m != "":
			return false, inModeError(pane, m)
		case m == "copy-mode" || m == "view-mode":
			mode = m
		default:
			kg.log.Info("keys refused in a mode, and the pane is not in it now", "pane", pane, "mode", m)
			return true, errorf(KindRefused, "pane %s left its mode while the keys were checked; nothing was sent: send them again", pane)
		}
	}
	if refused.anyMode {
		return false, inModeError(pane, mode)
	}
	return false, fix(errorf(KindRefused,
		"pane %s is in %s, where %s would open a prompt in the pane (tmux %s binds them to command-prompt -P) that holds tmux-mcp's control client until a person answers it; nothing was sent. "+
			"Leave the mode first (the key q), or send keys without those",
		pane, mode, quotedList(refused.waiting), kg.host.release().Version()), RemedyLeaveMode)

}

// quotedList is keys as "a", "b" and "c".
func quotedList(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = strconv.Quote(k)
	}
	if len(q) == 1 {
		return "the key " + q[0]
	}
	return "the keys " + strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// paneName is the pane id when known, else the target the caller named.
func paneName(id, target string) string {
	if id != "" {
		return id
	}
	return target
}

// batchInMode is firstInMode for the ops of a batch line whose targets
// are targets, before 3.4: the index of the first op not meant for a mode
// whose pane is in one, and its refusal.
func (kg *keyGuards) batchInMode(ctx context.Context, ops []SendKeysOp, targets []string) (int, error) {
	if kg.host.release().ExpandsRepeatCount() {
		return -1, nil
	}
	var look []string
	var at []int
	for k, op := range ops[:len(targets)] {
		if !op.DriveMode {
			look, at = append(look, targets[k]), append(at, k)
		}
	}
	if len(look) == 0 {
		return -1, nil
	}
	k, err := kg.firstInMode(ctx, look)
	if k < 0 {
		return -1, nil
	}
	return at[k], err
}
