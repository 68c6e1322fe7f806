package engine

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/session/internal/agentstate"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
)

// What package session's own follower of a pane (the recordings) and
// its agent classifier use of the engine.
// Functions, not methods: an Engine's exported methods are the Server's.

// Follow is the engine's follower of one pane's output (paneFollow), for
// a follower of package session's.
type Follow struct{ f *paneFollow }

// FollowPaneIn starts following pane (in session sessionID) from its
// stream's current end.
func FollowPaneIn(e *Engine, pane, sessionID string) (Follow, error) {
	f, err := e.followPaneIn(pane, sessionID)
	return Follow{f}, err
}

// Stop gives the pane's watch back. It may be called more than once.
func (x Follow) Stop() { x.f.stop() }

// Skip moves the cursor to the stream's end without reading: what the
// pane printed so far is not wanted.
func (x Follow) Skip() { x.f.skip() }

// Read takes what the stream holds after the cursor and moves the cursor
// past it, without waiting, with the error that ended the following (see
// paneFollow.read).
func (x Follow) Read(ctx context.Context) (panestream.Read, error) { return x.f.read(ctx) }

// Prompt returns the prompt pane's shell drew after the last command
// RunCommand followed there, "" if none is known.
func Prompt(e *Engine, pane string) string { return e.prompts.load(pane) }

// LastRun is what is known of the command RunCommand typed in pane as
// the pane's last input, the one noted at stream offset at.
func LastRun(e *Engine, pane string, at int64) agentstate.Run { return e.cmds.lastRun(pane, at) }

// lastRun is what is known of the command run_command typed in pane as
// the pane's last input, the one noted at stream offset at.
func (cs *commandSet) lastRun(pane string, at int64) agentstate.Run {
	cs.mu.Lock()
	var last *runningCommand
	for _, c := range cs.order {
		if c.pane == pane {
			last = c
		}
	}
	cs.mu.Unlock()
	if last == nil {
		return agentstate.Run{}
	}
	select {
	case <-last.typed:
	default:
		return agentstate.Run{} // its line is not typed yet
	}
	if last.from != at {
		return agentstate.Run{} // other input came after it
	}
	if !last.ended() {
		return agentstate.Run{Known: true, Running: true}
	}
	r := agentstate.Run{Known: true}
	if last.res.HasStatus {
		n := last.res.ExitStatus
		r.Status = &n
	}
	return r
}

// Stream is the pane's stream the follower reads.
func (x Follow) Stream() *panestream.Stream { return x.f.st }

// Ended is the error of a wait on the pane that failed with err (see
// paneFollow.ended).
func (x Follow) Ended(err error) error { return x.f.ended(err) }
