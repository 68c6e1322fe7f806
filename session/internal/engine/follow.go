package engine

import (
	"bytes"
	"context"
	"time"

	"github.com/tmux-mcp/tmux-mcp/session/internal/errs"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
)

// A paneFollow follows one pane's output from a position in its stream:
// every wait and read that follows a pane (WaitForText, WaitQuiet,
// PressKeys, RunCommand and its follower) stands on one, so each way a
// following can end has one answer everywhere:
//
//   - the pane is gone: [errs.KindNotFound], "pane %s exited while waiting";
//   - the client that delivered its output ended and the pane lives: the
//     pane is watched again, by a client of ours, and the following goes
//     on; the read says output may be missing there (Read.ConnLost);
//   - no client can follow it again (the server died): [errs.KindConnLost] or
//     [errs.KindNoServer], retryable.
//
// It holds the pane's watch until stop. Only its caller's goroutine
// touches it.
type paneFollow struct {
	e       *Engine
	pane    string
	st      *panestream.Stream
	release func() // gives the watch back
	cursor  int64  // the stream's position read up to
	// endRead is set once a read found the pane's end, which it answered
	// as the end of the following: a caller that waits again would spin,
	// its stream ready at once for ever, and wait answers the end again
	// instead.
	endRead bool
}

// followPane starts following pane from its stream's end.
func (e *Engine) followPane(ctx context.Context, pane string) (*paneFollow, error) {
	st, release, err := e.host.WatchPane(ctx, pane)
	if err != nil {
		return nil, err
	}
	return newPaneFollow(e, pane, st, release), nil
}

// followEntry starts following pane and reads its entry (readEntry),
// calling at in between: after the stream's position is taken, before the
// look. When a client of ours is attached to the pane's session already
// (the main client's session, or one a watcher is attached to), as the
// model knows it, that costs the look's one round trip: the look reads the
// pane's session too, and if tmux puts the pane there, all it prints
// after the look reaches the stream after the position. Otherwise (the
// model does not know the pane, no client of ours is attached to its
// session, or the pane has moved) the pane's session is read and watched
// first, and the entry read after it, as followPane and readEntry do.
func (e *Engine) followEntry(ctx context.Context, pane string, at func(*paneFollow)) (*paneFollow, entryState, error) {
	if st, release, session, ok := e.host.WatchPaneFed(pane); ok {
		f := newPaneFollow(e, pane, st, release)
		at(f)
		entry, err := e.readEntry(ctx, pane)
		switch {
		case err != nil:
			f.stop()
			return nil, entryState{}, err
		case entry.session == session:
			return f, entry, nil
		}
		f.stop() // the pane has moved to another session
	}
	f, err := e.followPane(ctx, pane)
	if err != nil {
		return nil, entryState{}, err
	}
	at(f)
	entry, err := e.readEntry(ctx, pane)
	if err != nil {
		f.stop()
		return nil, entryState{}, err
	}
	return f, entry, nil
}

// followPaneIn is followPane for a caller that read the pane's session
// already.
func (e *Engine) followPaneIn(pane, sessionID string) (*paneFollow, error) {
	st, release, err := e.host.WatchPaneIn(pane, sessionID)
	if err != nil {
		return nil, err
	}
	return newPaneFollow(e, pane, st, release), nil
}

func newPaneFollow(e *Engine, pane string, st *panestream.Stream, release func()) *paneFollow {
	f := &paneFollow{e: e, pane: pane, st: st, release: release}
	f.cursor, _ = st.Position()
	return f
}

// stop gives the pane's watch back. It may be called more than once.
func (f *paneFollow) stop() {
	f.release()
	f.release = func() {}
}

// skip moves the cursor to the stream's end without reading: what the
// pane printed so far is not wanted.
func (f *paneFollow) skip() {
	f.cursor, _ = f.st.Position()
}

// wait blocks until the stream has something after the cursor (output, a
// pause, the pane's end), tick fires (ticked is true) or ctx ends.
func (f *paneFollow) wait(ctx context.Context, tick <-chan time.Time) (ticked bool, err error) {
	if f.endRead {
		return false, paneExited(f.pane)
	}
	return f.st.WaitOrTick(ctx, f.cursor, tick)
}

// waitFor is wait bounded by d: it reports whether something came.
func (f *paneFollow) waitFor(ctx context.Context, d time.Duration) bool {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	_, err := f.wait(wctx, nil)
	return err == nil
}

// read takes what the stream holds after the cursor and moves the cursor
// past it, without waiting. Like an io.Reader it returns what was read
// with the error that ended the following, and the caller uses the data
// first: the last output of a pane that exited is still its output.
func (f *paneFollow) read(ctx context.Context) (panestream.Read, error) {
	r := f.st.Read(f.cursor)
	f.cursor = r.Next
	f.endRead = f.endRead || r.Gone
	switch {
	case r.Gone:
		return r, paneExited(f.pane)
	case r.ConnLost:
		return r, f.rejoin(ctx)
	}
	return r, nil
}

// rejoin follows the pane again after the client that delivered its
// output ended: the pane's session is watched by a client of ours again,
// the stream the same, in the one round trip that finds the pane's session.
// It fails when the pane is gone or no client can follow it.
func (f *paneFollow) rejoin(ctx context.Context) error {
	f.stop()
	st, release, err := f.e.host.WatchPane(ctx, f.pane)
	switch {
	case errs.IsNotFound(err):
		return paneExited(f.pane)
	case err != nil:
		return errs.Errorf(errs.KindConnLost, "the tmux client following pane %s ended, and no other could follow it: %v; wait again", f.pane, err)
	}
	f.release = release
	if st != f.st {
		// The pane's stream was dropped and made anew meanwhile.
		f.st = st
		f.skip()
	}
	return nil
}

// ended answers err, which a read of tmux made while following the pane
// failed with: a pane tmux no longer finds went away after the following
// began (its stream may not have said so yet), the answer of read.
func (f *paneFollow) ended(err error) error {
	if errs.IsNotFound(err) {
		return paneExited(f.pane)
	}
	return err
}

// paneExited is the answer of a wait whose pane went away.
func paneExited(pane string) error {
	return errs.Errorf(errs.KindNotFound, "pane %s exited while waiting", pane)
}

// A waitStep is one follower's part of the loop every follower of a pane
// runs (see paneFollow.loop): what it does when its timer ticks, and with
// output. Each reports whether the following is over; an error of output
// ends it too. ctx is the loop's.
type waitStep interface {
	tick(ctx context.Context) (over bool)
	output(ctx context.Context) (over bool, err error)
}

// loop is the one loop of every follower of a pane, as a result reader
// owns the loop over its rows: it waits on the pane's stream or tick and
// hands each to w, until w says it is over (nil) or ctx ends or w.output
// fails (that error). The waits (until), a key's reaction
// (awaitReaction), run_command's follower (follower.run) and the wait for
// agent states (watchOutput) all run it; what differs between them is
// only their step.
func (f *paneFollow) loop(ctx context.Context, tick <-chan time.Time, w waitStep) error {
	for {
		ticked, err := f.wait(ctx, tick)
		over := false
		switch {
		case err != nil:
			return err
		case ticked:
			over = w.tick(ctx)
		default:
			over, err = w.output(ctx)
		}
		switch {
		case err != nil:
			return err
		case over:
			return nil
		}
	}
}

// until is loop for a wait with a timeout, each way of whose ending has
// one answer here:
//
//   - w is over: over is true;
//   - the timeout, also when it came during w's own pause or read:
//     timedOut is true;
//   - the caller's end: [errs.KindCancelled] or [errs.KindDeadline] (fromExec);
//   - w.output failed: its error, a pane tmux no longer finds being the
//     pane's end (see ended).
func (f *paneFollow) until(ctx context.Context, timeout time.Duration, tick <-chan time.Time, w waitStep) (timedOut bool, err error) {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	switch err := f.loop(wctx, tick, w); {
	case err == nil:
		return false, nil
	case ctx.Err() != nil:
		return false, errs.FromExec(ctx.Err())
	case wctx.Err() != nil:
		return true, nil
	default:
		return false, f.ended(err)
	}
}

// printed returns how many bytes of output r holds, not counting the marks
// the stream puts where output was lost (NUL bytes, which terminals ignore).
func printed(r panestream.Read) int {
	return len(r.Data) - bytes.Count(r.Data, []byte{0})
}
