package session

import (
	"context"
	"log/slog"
	"sync/atomic"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
)

// A paneEngine follows panes: the waits for text and for quiet, the hold
// for a first prompt, RunCommand and the follower of its commands, the
// shell's command marks, key presses, CaptureSince and the reads of tmux's
// grid. (WaitForState and WaitPaneExit are still the Server's.) It
// reaches tmux only through its paneHost, so its waits can be driven by a
// fake host and a stream fed by hand (engine_fake_test.go); a Server is
// the host it has in the program, and embeds it, so the engine's exported
// methods are the Server's.
type paneEngine struct {
	paneHost
	log     *slog.Logger // nil: no log
	cmds    commandSet   // the commands RunCommand typed, followed to their end
	prompts promptMemory // the prompt each pane's shell drew after a command

	// gridLooks counts the reads of a pane's grid waits make (readRows),
	// for the benchmarks: how many a flood costs.
	gridLooks atomic.Int64
}

// paneHost is what the engine needs of tmux: a line of commands and its
// replies, a pane's stream and its watch, a target resolved, the
// release's facts, and the pane's foreground program. A [Server] is one.
type paneHost interface {
	// exec runs cmds as one line and returns a reply for each.
	exec(ctx context.Context, cmds ...controlmode.Command) ([]controlmode.Reply, error)
	// watchPane returns pane's stream, fed until release is called.
	watchPane(ctx context.Context, pane string) (st *panestream.Stream, release func(), err error)
	// watchPaneIn is watchPane for a pane whose session is known.
	watchPaneIn(pane, sessionID string) (st *panestream.Stream, release func(), err error)
	// watchPaneFed is watchPane without a round trip, when a client
	// already delivers the session the model puts pane in, which it
	// returns for the caller to check; ok is false otherwise.
	watchPaneFed(pane string) (st *panestream.Stream, release func(), sessionID string, ok bool)
	// ResolvePane returns the id of the pane ref names.
	ResolvePane(ctx context.Context, ref PaneRef) (string, error)
	// release returns the facts of the tmux release connected to, and
	// connectedRelease those of the one it connects to if it is not.
	release() release
	connectedRelease(ctx context.Context) (release, error)
	// paneForeground reads what pane's foreground program does, and
	// Foreground what the one on tty, under the shell pid, does.
	paneForeground(ctx context.Context, pane string) Foreground
	Foreground(ctx context.Context, pid, tty string) Foreground
	// Socket names the server, for the answer of one that is gone, and
	// Generation its current life, which capture_since's cursors carry.
	Socket() Socket
	Generation() string
	// syncStream returns once st holds all the pane printed before it
	// was called.
	syncStream(ctx context.Context, st *panestream.Stream) error

	// The input sent to panes (input.go): whether a pane's output was
	// followed, its width as last read, and noting a line typed.
	fed(pane string) bool
	paneWidth(pane string) int
	noteInputAs(pre inputStart, pane, text string, enter bool, mark panestream.GridMark, label string)
	// Keys: SendKeys as the tool does, and the copy-mode guard a typed
	// command line goes through (modes.go).
	SendKeys(ctx context.Context, ref PaneRef, a SendKeysArgs) (string, error)
	guardFor(ctx context.Context, drive bool) (keyGuard, error)
	refusedInMode(ctx context.Context, err error, pane string, refused guarded) (again bool, _ error)
}
