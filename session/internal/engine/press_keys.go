package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tmux-mcp/tmux-mcp/session/internal/errs"
)

// Keys pressed as a person presses them.
//
// send-keys with several keys writes them to the pane's terminal at once,
// and a program reads them in one read: a TUI that handles a burst
// differently from separate presses (Claude Code's folder-trust dialog
// took "Down Enter" as Enter on the first item) does the wrong thing. So a
// key list can be pressed one key at a time, the next once the program
// has reacted to the last.

// keySettle is how long a program that reacted to a key must print
// nothing before the next key is pressed: it has finished drawing.
const keySettle = 30 * time.Millisecond

// Pressed is what became of the keys of [Engine.PressKeys].
type Pressed struct {
	PaneID string
	Keys   []string // the keys pressed, in order, Enter included
	// Silent holds the indexes into Keys of the keys after which the pane
	// printed nothing within the pace: the program did not react (or not
	// yet).
	Silent []int
}

// PressKeys presses a's key list (then Enter, if a.Enter) one key at a
// time. After each key it waits for the pane's program to react: its
// first output, then keySettle without output, all within pace; with no
// output by pace the key drew no reaction, and the next is pressed. Each
// key goes as [Host] SendKeys sends it, mode guard included. A failure
// after some keys were pressed says how many; a pane that exits before
// its last key was pressed is such a failure, one that exits after it is
// not.
func (e *Engine) PressKeys(ctx context.Context, ref PaneRef, a SendKeysArgs, pace time.Duration) (Pressed, error) {
	return e.pressKeys(ctx, ref, a, pace, keySettle, true)
}

// lineSettle is keySettle for a shell's line editor, which has taken a
// text in once it has drawn it: the Enter need not wait for more.
const lineSettle = 3 * time.Millisecond

// TypeThenEnter types a.Keys, a text, then presses Enter once the program
// has reacted to the text (its echo drawn, within pace), as a person
// does: a program that reads the text and the Enter in one burst may act
// on the Enter before it has taken the text in (fzf picked its first
// item, not the one typed). It does not wait for the Enter's reaction.
// Pressed.Silent holds 0 when the pane printed nothing after the text
// within pace. atShell says the pane's program is a shell at its line
// editor, which has taken the text in once it has drawn it: the Enter
// then waits lineSettle after the drawing, not keySettle.
func (e *Engine) TypeThenEnter(ctx context.Context, ref PaneRef, a SendKeysArgs, pace time.Duration, atShell bool) (Pressed, error) {
	a.KeyList, a.Enter = nil, true
	settle := keySettle
	if atShell {
		settle = lineSettle
	}
	return e.pressKeys(ctx, ref, a, pace, settle, false)
}

// pressKeys is PressKeys with settle for keySettle; awaitLast says
// whether to wait for the reaction to the last key too.
func (e *Engine) pressKeys(ctx context.Context, ref PaneRef, a SendKeysArgs, pace, settle time.Duration, awaitLast bool) (Pressed, error) {
	keys := slices.DeleteFunc(slices.Clone(a.KeyList), func(k string) bool { return k == "" })
	if a.KeyList == nil {
		keys = []string{a.Keys}
	}
	if a.SuppressHistory && len(keys) > 0 {
		if a.Literal || a.KeyList == nil {
			keys[0] = " " + keys[0]
		} else {
			keys = append([]string{"Space"}, keys...)
		}
	}
	pane, err := e.host.ResolvePane(ctx, ref)
	if err != nil {
		return Pressed{}, err
	}
	f, err := e.followPane(ctx, pane)
	if err != nil {
		return Pressed{}, err
	}
	defer f.stop()
	// From the first Enter on, the keys are one input, as when one line
	// sends them all: a wait for what the pane printed since the input
	// counts from that Enter (the text before it was drawn before it
	// went in), and knows the echo of every line typed after it.
	defer f.st.GroupInputs()()
	all := len(keys)
	if a.Enter {
		all++
	}
	res := Pressed{PaneID: pane}
	for i := range all {
		one := SendKeysArgs{DriveMode: a.DriveMode}
		if i < len(keys) {
			one.KeyList, one.Literal = keys[i:i+1], a.Literal
		} else {
			one.KeyList = []string{"Enter"}
		}
		f.skip()
		if _, err := e.host.SendKeys(ctx, PaneRef{PaneID: pane}, one); err != nil {
			if i > 0 && errs.IsNotFound(err) {
				err = paneExited(pane) // after a key before, whose reaction it was
			}
			return res, pressedThen(i, all, err)
		}
		res.Keys = append(res.Keys, one.KeyList[0])
		if i == all-1 && !awaitLast {
			break
		}
		reacted, err := awaitReaction(ctx, f, pace, settle)
		switch {
		case err != nil && i == all-1 && errs.IsNotFound(err):
			return res, nil // the last key ended the pane's program: its answer
		case err != nil:
			return res, pressedThen(i+1, all, err)
		}
		if !reacted {
			res.Silent = append(res.Silent, i)
		}
	}
	return res, nil
}

// awaitReaction waits, for at most pace, until the pane has printed past
// f's cursor and then settle passed without output. It reports whether
// the pane printed; an error is the end of the following (the pane went
// away).
func awaitReaction(ctx context.Context, f *paneFollow, pace, settle time.Duration) (bool, error) {
	pctx, cancel := context.WithTimeout(ctx, pace)
	defer cancel()
	r := &reaction{ctx: ctx, f: f, settle: settle, settled: time.NewTimer(time.Hour)}
	r.settled.Stop()
	defer r.settled.Stop()
	_ = f.loop(pctx, r.settled.C, r) // else pace passed, or the caller ended
	return r.reacted, r.err
}

// A reaction is awaitReaction's step: output starts (and restarts) the
// settle timer, whose tick ends the wait.
type reaction struct {
	ctx     context.Context // the caller's: a rejoin outlives pace
	f       *paneFollow
	settle  time.Duration
	settled *time.Timer
	reacted bool
	err     error // the read's: the end of the following
}

func (r *reaction) tick(context.Context) bool { return true }

func (r *reaction) output(context.Context) (bool, error) {
	rd, err := r.f.read(r.ctx)
	r.reacted = r.reacted || printed(rd) > 0
	if err != nil {
		r.err = err
		return false, err
	}
	if r.reacted {
		r.settled.Reset(r.settle)
	}
	return false, nil
}

// pressedThen is the failure of key i of n pressed one at a time: the
// keys before it were pressed.
func pressedThen(i, n int, err error) error {
	var e *errs.Error
	if i == 0 || !errors.As(err, &e) {
		return err
	}
	c := *e
	c.Msg = fmt.Sprintf("the first %d of %d keys were pressed, then the next failed: %s", i, n, e.Msg)
	c.Written = true
	return &c
}
