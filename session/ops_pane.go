package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/engine"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
	"github.com/tmux-mcp/tmux-mcp/session/internal/shellrun"
)

// Operations on panes: input, layout, modes and lifecycle. Each is one
// round trip: the action and the read-back of its result share a line.
// Operations that send input first print the target's pane id on the same
// line, so a missing target fails before anything is sent and the caller
// learns which pane a window or session target meant.

// sendKeysCommands returns the send-keys commands of a for target, guarded by g (see
// sendKeysCommand), and what the guard refuses.
func sendKeysCommands(a SendKeysArgs, target string, g keyGuard) (cmds []controlmode.Command, refused guarded) {
	args := []string{a.Keys}
	if a.KeyList != nil {
		args = slices.DeleteFunc(slices.Clone(a.KeyList), func(k string) bool { return k == "" })
	}
	if a.SuppressHistory && len(args) > 0 {
		if a.Literal || a.KeyList == nil {
			args[0] = " " + args[0]
		} else {
			args = append([]string{"Space"}, args...)
		}
	}
	if len(args) > 1 || len(args) == 1 && args[0] != "" {
		cmd, r := sendKeysCommand(target, a.Literal, args, g)
		cmds, refused = append(cmds, cmd), r
	}
	if a.Enter {
		cmd, r := sendKeysCommand(target, false, []string{"Enter"}, g)
		cmds, refused = append(cmds, cmd), refused.join(r)
	}
	return cmds, refused
}

// SendKeys sends keys to the pane ref names and returns its id.
func (s *Server) SendKeys(ctx context.Context, ref PaneRef, a SendKeysArgs) (string, error) {
	t, err := paneTarget(ref)
	if err != nil {
		return "", err
	}
	guard, err := s.keys.guardFor(ctx, a.DriveMode)
	if err != nil {
		return "", err
	}
	if err := s.keys.refuseInModeFirst(ctx, a.DriveMode, t); err != nil {
		return "", err
	}
	if err := s.keys.refuseCrashingKeys(ctx, t, sendKeyNames(a)); err != nil {
		return "", err
	}
	pre := s.beforeInput(ctx, inputTo{t, typedOf(a)})
	sends, refused := sendKeysCommands(a, t, guard)
	cmds := append([]controlmode.Command{engine.MarkCommand(t)}, sends...)
	send := func() (string, panestream.GridMark, error) {
		rs, err := s.exec(ctx, cmds...)
		if len(rs) == 0 {
			return "", panestream.GridMark{}, err
		}
		id, mark, merr := engine.MarkOf(rs[0], t)
		if merr != nil {
			return "", mark, merr
		}
		return id, mark, err
	}
	id, mark, err := send()
	if err != nil {
		again, rerr := s.keys.refusedInMode(ctx, err, paneName(id, t), refused)
		if !again {
			return id, rerr
		}
		if id, mark, err = send(); err != nil {
			_, err = s.keys.refusedInMode(ctx, err, paneName(id, t), refused)
			return id, err
		}
	}
	s.noteInput(pre, id, typedOf(a), endsWithEnter(a), mark)
	return id, nil
}

// endsWithEnter reports whether a's keys end with Enter: pressed after
// them, or the last key of its list (a key list pressed one key at a
// time ends with an Enter of its own).
func endsWithEnter(a SendKeysArgs) bool {
	if a.Enter {
		return true
	}
	if a.Literal || len(a.KeyList) == 0 {
		return false
	}
	k := a.KeyList[len(a.KeyList)-1]
	return k == "Enter" || k == "C-m" || k == "KPEnter"
}

// typedOf is the text a types, for telling its echo from output: of a key
// list, its texts, with a line break for each Enter among its keys.
func typedOf(a SendKeysArgs) string {
	if a.KeyList == nil {
		return typedText(a.Keys, a.Literal)
	}
	var b strings.Builder
	for _, k := range a.KeyList {
		if !a.Literal && (k == "Enter" || k == "C-m" || k == "KPEnter") {
			b.WriteByte('\n')
			continue
		}
		b.WriteString(typedText(k, a.Literal))
	}
	return b.String()
}

// SendKeysOp is one input of [Server.SendKeysBatch].
type SendKeysOp struct {
	Ref PaneRef
	SendKeysArgs
}

// SendKeysOutcome is what became of one [SendKeysOp].
type SendKeysOutcome struct {
	PaneID  string        // the pane the keys went to, when known
	Err     error         // nil on success
	Elapsed time.Duration // the round trip of the line that carried the op; 0 if none did
}

// batchLineBytes caps the commands packed onto one line by SendKeysBatch.
const batchLineBytes = 1 << 20

// SendKeysBatch sends ops in order, packing as many as fit onto each line,
// and returns one outcome per op tried. With stopOnError it stops at the
// first failure and returns its index as stopped; otherwise stopped is -1
// and every op is tried. tmux drops the rest of a line after a failure, so
// the ops after a failed one are sent again on a new line.
func (s *Server) SendKeysBatch(ctx context.Context, ops []SendKeysOp, stopOnError bool) (outs []SendKeysOutcome, stopped int) {
	outs = make([]SendKeysOutcome, 0, len(ops))
	fail := func(err error) bool {
		outs = append(outs, SendKeysOutcome{Err: err})
		return stopOnError
	}
	guardFor, err := s.keys.guards(ctx)
	if err != nil {
		for i := range ops {
			if fail(err) {
				return outs, i
			}
		}
		return outs, -1
	}
	for i := 0; i < len(ops); {
		if _, err := paneTarget(ops[i].Ref); err != nil {
			if fail(err) {
				return outs, i
			}
			i++
			continue
		}
		b := packBatch(ops, i, guardFor)
		// Before 3.4, an op for a pane in a mode ends the line before it,
		// and fails on its own.
		k, err := s.keys.batchInMode(ctx, ops[i:b.end], b.targets)
		if k < 0 {
			// Keys bound to a command that crashes this release, too.
			k, err = s.keys.batchCrashing(ctx, ops[i:b.end], b.targets)
		}
		if k == 0 {
			if fail(err) {
				return outs, i
			}
			i++
			continue
		} else if k > 0 {
			b = packBatch(ops[:i+k], i, guardFor)
		}
		start := time.Now()
		ins := make([]inputTo, len(b.targets))
		for k, tk := range b.targets {
			ins[k] = inputTo{tk, typedOf(ops[i+k].SendKeysArgs)}
		}
		pre := s.beforeInput(ctx, ins...)
		rs, err := s.exec(ctx, b.cmds...)
		elapsed := time.Since(start)
		if err != nil && len(rs) != len(b.cmds) {
			// Nothing is known of this line (a lost connection, a
			// cancelled call): every op on it failed.
			for k := i; k < b.end; k++ {
				if fail(err) {
					return outs, k
				}
			}
			i = b.end
			continue
		}
		next := b.end
		for k := range b.firsts {
			out := s.batchOutcome(ctx, pre, ops[i+k], b, k, rs, elapsed)
			outs = append(outs, out)
			if out.Err == nil {
				continue
			}
			// The failed op; the ops after it on the line never ran.
			if stopOnError {
				return outs, i + k
			}
			next = i + k + 1
			break
		}
		i = next
	}
	return outs, -1
}

// batchLine is the line of ops[start:end] that SendKeysBatch sends.
type batchLine struct {
	cmds    []controlmode.Command
	firsts  []int // index in cmds of each op's markCommand
	targets []string
	refused []guarded // of each op, what its guard refuses
	end     int       // the index in ops after the last op on the line
}

// packBatch packs the ops from ops[start] on, up to the first without a
// target or the line cap, onto one line.
func packBatch(ops []SendKeysOp, start int, guard func(drive bool) keyGuard) batchLine {
	var b batchLine
	size := 0
	b.end = start
	for ; b.end < len(ops); b.end++ {
		t, err := paneTarget(ops[b.end].Ref)
		if err != nil {
			break
		}
		sends, r := sendKeysCommands(ops[b.end].SendKeysArgs, t, guard(ops[b.end].DriveMode))
		add := append([]controlmode.Command{engine.MarkCommand(t)}, sends...)
		n := 0
		for _, c := range add {
			n += len(c.String()) + 3
		}
		if b.end > start && size+n > batchLineBytes {
			break
		}
		size += n
		b.firsts = append(b.firsts, len(b.cmds))
		b.targets = append(b.targets, t)
		b.refused = append(b.refused, r)
		b.cmds = append(b.cmds, add...)
	}
	return b
}

// batchOutcome is what became of op, the k-th on line b, which tmux
// answered with rs: on success its input is noted; a failure is stamped
// with what that op's commands did.
func (s *Server) batchOutcome(ctx context.Context, pre inputStart, op SendKeysOp, b batchLine, k int, rs []controlmode.Reply, elapsed time.Duration) SendKeysOutcome {
	first, end := b.firsts[k], len(b.cmds)
	if k+1 < len(b.firsts) {
		end = b.firsts[k+1]
	}
	for _, r := range rs[first:end] {
		if r.Err == nil {
			continue
		}
		out := SendKeysOutcome{Err: lineError(b.cmds[first:end], rs[first:end], r.Err), Elapsed: elapsed}
		id, _, err := engine.MarkOf(rs[first], b.targets[k])
		if err == nil {
			out.PaneID = id
		}
		_, out.Err = s.keys.refusedInMode(ctx, out.Err, paneName(id, b.targets[k]), b.refused[k])
		return out
	}
	id, mark, _ := engine.MarkOf(rs[first], b.targets[k])
	s.noteInput(pre, id, typedOf(op.SendKeysArgs), op.Enter, mark)
	return SendKeysOutcome{PaneID: id, Elapsed: elapsed}
}

// bufferName returns a fresh name for a buffer this process makes and
// deletes, namespaced so it never touches the user's buffers.
func bufferName() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // never fails
	return "tmux_mcp_" + hex.EncodeToString(b) + "_paste"
}

// PasteText pastes text into the pane ref names through a buffer of its
// own, made and deleted on the same line, and returns the pane's id.
// Bracket asks for bracketed paste (-p), which tmux uses only when the
// pane's program has turned it on. Line feeds become carriage returns, as
// when a person pastes.
func (s *Server) PasteText(ctx context.Context, ref PaneRef, text string, bracket bool) (string, error) {
	t, err := paneTarget(ref)
	if err != nil {
		return "", err
	}
	rel, err := s.connectedRelease(ctx)
	if err != nil {
		return "", err
	}
	// The mark first: it fails for a missing pane, and tells where the
	// pasted text starts in the grid, for a wait after it.
	cmds := []controlmode.Command{engine.MarkCommand(t)}
	name := bufferName()
	if text != "" { // set-buffer makes no buffer for empty text
		paste := append([]string{"-d", "-b", name, "-t", t}, rel.PasteFlags()...)
		if bracket {
			paste = append(paste, "-p")
		}
		cmds = append(cmds,
			controlmode.NewCommand("set-buffer", "-b", name).Text(text),
			controlmode.NewCommand("paste-buffer", paste...))
	}
	pre := s.beforeInput(ctx, inputTo{t, text})
	rs, err := s.exec(ctx, cmds...)
	if err != nil {
		if len(rs) == 3 && rs[1].Err == nil && rs[2].Err != nil {
			// The buffer was made but not pasted. Best effort.
			_, _ = s.exec(context.WithoutCancel(ctx), controlmode.NewCommand("delete-buffer", "-b", name))
		}
		return "", err
	}
	id, mark, err := engine.MarkOf(rs[0], t)
	if err == nil {
		s.noteInput(pre, id, text, strings.HasSuffix(text, "\n"), mark)
	}
	return id, err
}

// PipePane starts piping the output of the pane ref names into the file
// at path (appending, or truncating it first), replacing any pipe the pane
// had; an empty path stops the pipe. It returns the pane's id. A relative
// path is taken from this process's directory; over ssh, from the user's
// home on that host.
func (s *Server) PipePane(ctx context.Context, ref PaneRef, path string, appendTo bool) (string, error) {
	t, err := paneTarget(ref)
	if err != nil {
		return "", err
	}
	pipe := controlmode.NewCommand("pipe-pane", "-t", t)
	if path != "" {
		abs, err := s.host().path(ctx, s.opts, path)
		var lost *Error
		if errors.As(err, &lost) {
			return "", err // the host's connection, not the path
		}
		if err != nil {
			return "", errorf(KindInvalid, "the output file: %v", err)
		}
		redirect := " > "
		if appendTo {
			redirect = " >> "
		}
		// tmux expands formats and strftime sequences in the command.
		cmd := "cat" + redirect + shellrun.Quote(abs)
		cmd = strings.NewReplacer("#", "##", "%", "%%").Replace(cmd)
		pipe = pipe.Text(cmd)
	}
	id, _, err := s.onPane(ctx, t, pipe)
	return id, err
}

// SelectPane makes the pane named by ref active in its window and returns
// it.
func (s *Server) SelectPane(ctx context.Context, ref PaneRef) (Pane, error) {
	t, err := paneTarget(ref)
	if err != nil {
		return Pane{}, err
	}
	return s.paneAction(ctx, t, controlmode.NewCommand("select-pane", "-t", t))
}

// Directions of [Server.SelectPaneDirection].
const (
	DirUp       = "up"
	DirDown     = "down"
	DirLeft     = "left"
	DirRight    = "right"
	DirLast     = "last"
	DirNext     = "next"
	DirPrevious = "previous"
)

var directionFlags = map[string]string{DirUp: "-U", DirDown: "-D", DirLeft: "-L", DirRight: "-R", DirLast: "-l"}

// SelectPaneDirection moves the active pane of the window w names in
// direction (one of the Dir constants) and returns the pane now active.
// next and previous follow pane index order, wrapping; they are computed
// from a listing, since tmux's relative targets (".+") resolve against the
// control client's own window in some versions.
func (s *Server) SelectPaneDirection(ctx context.Context, w WindowRef, direction string) (Pane, error) {
	wt, err := s.windowTarget(ctx, w)
	if err != nil {
		return Pane{}, err
	}
	if flag, ok := directionFlags[direction]; ok {
		rs, err := s.exec(ctx, controlmode.NewCommand("select-pane", flag, "-t", wt), s.paneInfoCommand(wt))
		if err != nil {
			return Pane{}, err
		}
		return s.paneInfoOf(rs[1], wt)
	}
	if direction != DirNext && direction != DirPrevious {
		return Pane{}, errorf(KindInvalid, "unknown direction %q", direction)
	}
	panes, err := s.WindowPanes(ctx, w)
	if err != nil {
		return Pane{}, err
	}
	if len(panes) == 0 {
		return Pane{}, errorf(KindNotFound, "window %s has no panes", wt)
	}
	cur := 0
	for i, p := range panes {
		if p.Active {
			cur = i
		}
	}
	step := 1
	if direction == DirPrevious {
		step = len(panes) - 1
	}
	id := panes[(cur+step)%len(panes)].ID
	return s.paneAction(ctx, id, controlmode.NewCommand("select-pane", "-t", id))
}

// paneAction runs cmds and reads back the pane target names, on one line.
func (s *Server) paneAction(ctx context.Context, target string, cmds ...controlmode.Command) (Pane, error) {
	rs, err := s.exec(ctx, append(cmds, s.paneInfoCommand(target))...)
	if err != nil {
		return Pane{}, err
	}
	return s.paneInfoOf(rs[len(rs)-1], target)
}

// SwapPane swaps the panes src and dst (targets, normally pane ids) and
// returns src, now in dst's place.
func (s *Server) SwapPane(ctx context.Context, src, dst string) (Pane, error) {
	if src == "" || dst == "" {
		return Pane{}, errorf(KindNoTarget, "swapping panes needs both a source and a target pane")
	}
	rs, err := s.execChange(ctx, controlmode.NewCommand("swap-pane", "-s", src, "-t", dst), s.paneInfoCommand(src))
	if err != nil {
		return Pane{}, err
	}
	return s.paneInfoOf(rs[1], src)
}

// ResizePane sets the width and height (0 leaves one as it is) of the
// pane ref names and returns it.
func (s *Server) ResizePane(ctx context.Context, ref PaneRef, width, height int) (Pane, error) {
	t, err := paneTarget(ref)
	if err != nil {
		return Pane{}, err
	}
	args := []string{"-t", t}
	if width > 0 {
		args = append(args, "-x", strconv.Itoa(width))
	}
	if height > 0 {
		args = append(args, "-y", strconv.Itoa(height))
	}
	if width <= 0 && height <= 0 {
		return s.paneAction(ctx, t)
	}
	return s.paneAction(ctx, t, controlmode.NewCommand("resize-pane", args...))
}

// ZoomPane zooms (zoom true) or unzooms the window of the pane ref names
// onto that pane, and returns the pane. It is idempotent: tmux's -Z
// toggles, so the window's state is read first.
func (s *Server) ZoomPane(ctx context.Context, ref PaneRef, zoom bool) (Pane, error) {
	t, err := paneTarget(ref)
	if err != nil {
		return Pane{}, err
	}
	rs, err := s.exec(ctx, controlmode.NewCommand("display-message", "-p", "-t", t, "#{pane_id} #{window_zoomed_flag}"))
	if err != nil {
		return Pane{}, err
	}
	id, flag, ok := strings.Cut(strings.Join(rs[0].Lines, ""), " ")
	if !ok || !strings.HasPrefix(id, "%") {
		return Pane{}, errorf(KindNotFound, "can't find pane: %s", t)
	}
	if (flag == "1") == zoom {
		return s.paneAction(ctx, id)
	}
	return s.paneAction(ctx, id, controlmode.NewCommand("resize-pane", "-Z", "-t", id))
}

// SetPaneTitle sets the title of the pane ref names and returns it. The
// title is taken literally: tmux would expand formats in it.
func (s *Server) SetPaneTitle(ctx context.Context, ref PaneRef, title string) (Pane, error) {
	t, err := paneTarget(ref)
	if err != nil {
		return Pane{}, err
	}
	return s.paneAction(ctx, t, controlmode.NewCommand("select-pane", "-t", t, "-T", formatLiteral(title)))
}

// ClearPane resets the terminal of the pane ref names (send-keys -R, which
// clears the screen) and clears its history, on one line. It returns the
// pane's id.
func (s *Server) ClearPane(ctx context.Context, ref PaneRef) (string, error) {
	t, err := paneTarget(ref)
	if err != nil {
		return "", err
	}
	id, _, err := s.onPane(ctx, t,
		controlmode.NewCommand("send-keys", "-R", "-t", t),
		controlmode.NewCommand("clear-history", "-t", t))
	return id, err
}

// EnterCopyMode puts the pane ref names in copy mode, scrolled up by
// scrollUp lines, and returns it.
func (s *Server) EnterCopyMode(ctx context.Context, ref PaneRef, scrollUp int) (Pane, error) {
	t, err := paneTarget(ref)
	if err != nil {
		return Pane{}, err
	}
	cmds := []controlmode.Command{controlmode.NewCommand("copy-mode", "-t", t)}
	if scrollUp > 0 {
		cmds = append(cmds, controlmode.NewCommand("send-keys", "-t", t, "-X", "-N", strconv.Itoa(scrollUp), "scroll-up"))
	}
	return s.paneAction(ctx, t, cmds...)
}

// ExitCopyMode takes the pane ref names out of copy mode (and any other
// mode) and returns it. A pane in no mode is left as it is.
func (s *Server) ExitCopyMode(ctx context.Context, ref PaneRef) (Pane, error) {
	t, err := paneTarget(ref)
	if err != nil {
		return Pane{}, err
	}
	return s.paneAction(ctx, t, controlmode.NewCommand("copy-mode", "-q", "-t", t))
}

// RespawnArgs are the arguments of [Server.RespawnPane].
type RespawnArgs struct {
	Kill  bool   // kill the running process first (-k)
	Shell string // the command to run; "" runs the pane's original command
	SpawnArgs
}

// RespawnPane restarts the process of pane (a target, normally a pane id)
// and returns the pane. The caller checks self-protection first.
func (s *Server) RespawnPane(ctx context.Context, pane string, a RespawnArgs) (Pane, error) {
	if pane == "" {
		return Pane{}, fix(errorf(KindNoTarget, "respawning needs a pane"), RemedyPane)
	}
	spawn, err := s.host().spawnArgs(ctx, s.opts, a.SpawnArgs)
	if err != nil {
		return Pane{}, err
	}
	args := []string{"-t", pane}
	if a.Kill {
		args = append(args, "-k")
	}
	cmd := controlmode.NewCommand("respawn-pane", append(args, spawn...)...)
	if a.Shell != "" {
		cmd = cmd.Text(a.Shell)
	}
	return s.paneAction(ctx, pane, cmd)
}

// KillPane kills pane (a target, normally a pane id). The caller checks
// self-protection first. Killing a window's last pane closes the window,
// and a session's last window the session: the control client is spared
// as by KillWindow.
func (s *Server) KillPane(ctx context.Context, pane string) error {
	if pane == "" {
		return fix(errorf(KindNoTarget, "killing a pane needs a pane"), RemedyPane)
	}
	s.link.leaveIfLast(ctx, pane)
	if _, err := s.execChange(ctx, controlmode.NewCommand("kill-pane", "-t", pane)); err != nil {
		return err
	}
	s.link.settle(ctx)
	return nil
}
