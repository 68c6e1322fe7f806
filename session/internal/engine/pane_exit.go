package engine

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/errs"
)

// PaneExit is the outcome of [Engine.WaitPaneExit].
type PaneExit struct {
	PaneID string
	// Exited reports that the pane's program ended: with Status when
	// HasStatus, else killed by Signal (a name, "TERM") when tmux says
	// which (3.3 and later). A pane that was already dead when the wait
	// began answers at once.
	Exited    bool
	Status    int
	HasStatus bool
	Signal    string
	// Signaled reports that a signal ended the program, also on tmux 3.2,
	// which does not say which one.
	Signaled bool
	// Closed reports that the pane went away without dying first (it, its
	// window or its session was killed, or the server exited).
	Closed bool
	// Removed reports that the dead pane was closed after its status was
	// read: remain-on-exit was held for the wait only, and the pane's own
	// setting would not have kept it.
	Removed bool
	// Unreported says why an exit has neither status nor signal: the
	// release did not report them (3.3a loses a held pane's status now
	// and then: release.losesDeadStatus). "" when either is known.
	Unreported string
	// TimedOut reports that the program still ran when the wait ended.
	TimedOut bool
	Elapsed  time.Duration
}

// paneDeathFormat prints what display-message says of a pane's death, in
// the order readDeath reads.
const paneDeathFormat = "#{pane_id}\t#{pane_dead}\t#{pane_dead_status}\t#{pane_dead_signal}"

// readDeath reads a line printed by paneDeathFormat for pane into e; gone
// is true when the line is not that pane's.
func readDeath(pane, line string, e *PaneExit) (dead, gone bool) {
	f := strings.Split(line, "\t")
	if len(f) != 4 || f[0] != pane {
		return false, true
	}
	if f[1] != "1" {
		return false, false
	}
	e.Exited = true
	if n, err := strconv.Atoi(f[2]); err == nil {
		e.Status, e.HasStatus = n, true
	} else {
		// tmux learns the status as it reaps the program, and runs
		// pane-died only then: dead with no status is a signal (3.2 names
		// none), or, on 3.3, one of the deaths it never reaps
		// (release.losesDeadStatus), which only a timeout finds.
		e.Signal, e.Signaled = f[3], f[3] != ""
	}
	return true, false
}

// keeps reports whether a pane whose remain-on-exit is value stays, dead,
// after its program ended as e says.
func keeps(value string, e PaneExit) bool {
	switch value {
	case "on", "key":
		return true
	case "failed":
		return !(e.HasStatus && e.Status == 0)
	}
	return false
}

// WaitPaneExit waits, for up to timeout, for pane's program to end (pane
// is a pane id) and answers its exit status or the signal that killed it.
//
// For the wait, the pane's remain-on-exit is set on, so tmux keeps the
// dead pane and its status, and a pane-died hook of ours (at an index of
// the hook's array no one uses) signals a wait-for channel of its own,
// waited on in a tmux process of its own: no polling. Then, however the
// wait ends (death, timeout, cancellation), the hook is removed and the
// pane's own remain-on-exit is put back, in one round trip that also reads
// the pane: a pane that died while held is answered, and closed if its own
// setting would not have kept it.
func (e *Engine) WaitPaneExit(ctx context.Context, pane string, timeout time.Duration) (PaneExit, error) {
	start := time.Now()
	res := PaneExit{PaneID: pane}
	rel, err := e.host.ConnectedRelease(ctx)
	if err != nil {
		return res, err
	}
	if rel.CrashesHoldingDeadPanes() {
		return res, errs.Errorf(errs.KindRefused, "tmux %s can crash, with every session on it, when a pane kept by remain-on-exit dies while a control client follows its output (fixed in 3.3): waiting for pane %s to exit needs 3.3 or later; nothing was changed", rel.Version(), pane)
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails
	tag := hex.EncodeToString(b)
	channel := "tmux-mcp-exit-" + tag
	hook := fmt.Sprintf("pane-died[%d]", 100000+int(binary.BigEndian.Uint16(b)))
	rs, err := e.host.Exec(ctx,
		controlmode.NewCommand("show-options", "-p", "-q", "-v", "-t", pane, "remain-on-exit"),
		controlmode.NewCommand("display-message", "-p", "-t", pane, "#{pane_id}\t#{remain-on-exit}\t#{pane_pid}\t#{pane_tty}"),
		controlmode.NewCommand("set-option", "-p", "-t", pane, "remain-on-exit", "on"),
		controlmode.NewCommand("set-hook", "-p", "-t", pane, hook, "wait-for -S "+channel),
		controlmode.NewCommand("display-message", "-p", "-t", pane, paneDeathFormat))
	if err != nil {
		if len(rs) > 2 && rs[2].Err == nil {
			err = errs.AfterChange(err)
		}
		return res, err
	}
	own := strings.Join(rs[0].Lines, "")
	f := strings.Split(strings.Join(rs[1].Lines, ""), "\t")
	if len(f) != 4 || f[0] != pane {
		return res, errs.Errorf(errs.KindNotFound, "can't find pane: %s", pane)
	}
	before := f[1]
	dead, _ := readDeath(pane, strings.Join(rs[4].Lines, ""), &res)
	var waitErr error
	if !dead {
		var exited <-chan struct{}
		if rel.LosesDeadStatus() {
			// pane-died never runs for a death whose status tmux loses:
			// the program's exit is watched here too, where that can be.
			if ch, stop, ok := e.host.WatchPaneProcess(f[2], f[3]); ok {
				defer stop()
				exited = ch
			}
		}
		waitErr = e.awaitDeath(ctx, pane, channel, timeout, exited)
	}
	// Put everything back, whatever ended the wait: the caller's context
	// may be gone, the round trip must still be made.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookTimeout)
	defer cancel()
	restore := controlmode.NewCommand("set-option", "-p", "-t", pane, "remain-on-exit", own)
	if own == "" {
		restore = controlmode.NewCommand("set-option", "-p", "-u", "-t", pane, "remain-on-exit")
	}
	rs, err = e.host.Exec(rctx,
		controlmode.NewCommand("set-hook", "-p", "-u", "-t", pane, hook),
		restore,
		controlmode.NewCommand("display-message", "-p", "-t", pane, paneDeathFormat))
	res.Elapsed = time.Since(start)
	switch {
	case err != nil && errs.IsNotFound(err):
		res.Closed = !res.Exited
		res.Unreported = unreported(rel, res)
		return res, nil
	case err != nil:
		var fail *errs.Error
		if errors.As(err, &fail) && fail.Kind == errs.KindNoServer {
			res.Closed = !res.Exited
			res.Unreported = unreported(rel, res)
			return res, nil
		}
		return res, errs.AfterChange(err)
	}
	wasDead := res.Exited
	dead, gone := readDeath(pane, strings.Join(rs[2].Lines, ""), &res)
	switch {
	case gone:
		res.Closed = !res.Exited
	case !dead && waitErr != nil:
		return res, waitErr
	case !dead:
		res.TimedOut = true
	case !wasDead && !keeps(before, res):
		// It stayed only because we held it: close it as tmux would have.
		if _, err := e.host.ExecChange(rctx, controlmode.NewCommand("kill-pane", "-t", pane)); err == nil || errs.IsNotFound(err) {
			res.Removed = true
		}
	}
	res.Unreported = unreported(rel, res)
	return res, nil
}

// unreported says why e, an exit, has neither status nor signal; "" when
// it has one, or is no exit.
func unreported(rel Release, e PaneExit) string {
	switch {
	case !e.Exited || e.HasStatus || e.Signaled:
		return ""
	case rel.LosesDeadStatus():
		return "tmux " + rel.Version() + " did not report it: this release now and then never reaps a pane's program that remain-on-exit keeps, and loses its status (fixed in 3.4)"
	}
	return "tmux " + rel.Version() + " reported the pane dead with neither exit status nor signal"
}

// awaitDeath returns once the pane-died hook signalled channel, the pane
// may have gone (a structural change), timeout passed or ctx ended, or
// the pane's program exited (exited, nil when not watched) and tmux has
// marked the pane dead. Its error is the wait-for process's, when it
// failed before any of these.
func (e *Engine) awaitDeath(ctx context.Context, pane, channel string, timeout time.Duration, exited <-chan struct{}) error {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	changed := make(chan struct{}, 1)
	stop := e.host.Subscribe(func(structure bool, _ string) {
		if structure {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	defer stop()
	signalled := make(chan error, 1)
	go func() {
		// It also returns when the server exits: the pane is looked at.
		err := e.host.WaitFor(wctx, channel)
		signalled <- err
	}()
	var settle <-chan time.Time
	settles := 0
	for {
		select {
		case <-exited:
			// tmux learns of it in a turn of its loop of its own: look
			// until it has, a few times, after this one event.
			exited, settle = nil, time.After(0)
		case <-settle:
			var x PaneExit
			rs, err := e.host.Exec(wctx, controlmode.NewCommand("display-message", "-p", "-t", pane, paneDeathFormat))
			dead, gone := readDeath(pane, strings.Join(rs0(rs), ""), &x)
			settles++
			// Dead with no status: tmux may still reap it (and run the
			// hook), or never will (release.losesDeadStatus).
			if err != nil || gone || dead && (x.HasStatus || x.Signaled || settles == 50) {
				cancel()
				<-signalled
				return nil
			}
			settle = nil // alive after them all: the hook, or the timeout, tells
			if settles < 50 {
				settle = time.After(10 * time.Millisecond)
			}
		case err := <-signalled:
			if wctx.Err() != nil {
				return nil
			}
			return err
		case <-wctx.Done():
			cancel()
			<-signalled
			return nil
		case <-changed:
			// A pane killed, its window or session closed: is it still there?
			rs, err := e.host.Exec(wctx, controlmode.NewCommand("display-message", "-p", "-t", pane, "#{pane_id}"))
			if err != nil || strings.Join(rs[0].Lines, "") != pane {
				cancel()
				<-signalled
				return nil
			}
		}
	}
}

// rs0 returns the lines of the first reply, none when there is none.
func rs0(rs []controlmode.Reply) []string {
	if len(rs) == 0 {
		return nil
	}
	return rs[0].Lines
}
