package engine

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/agentstate"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
)

// An Engine follows panes (see the package doc). It reaches tmux only
// through its Host, so its waits can be driven by a fake host and a
// stream fed by hand.
type Engine struct {
	host    Host
	log     *slog.Logger // nil: no log
	cmds    commandSet   // the commands RunCommand typed, followed to their end
	prompts promptMemory // the prompt each pane's shell drew after a command
	agents  agentMemory  // the agent CLI found in each pane

	// gridLooks counts the reads of a pane's grid waits make (readRows),
	// for the benchmarks: how many a flood costs.
	gridLooks atomic.Int64
}

// New returns an Engine that reaches tmux through host and logs to log
// (nil: no log).
func New(host Host, log *slog.Logger) *Engine {
	return &Engine{host: host, log: log}
}

// Close ends the commands RunCommand follows; the next ones fail.
func (e *Engine) Close() { e.cmds.close() }

// GridLooks returns how many reads of a pane's grid e's waits have made,
// for the benchmarks: how many a flood costs. (A function: an Engine's
// exported methods are package session's Server's.)
func GridLooks(e *Engine) int64 { return e.gridLooks.Load() }

// Host is what the engine needs of tmux: a line of commands and its
// replies, a pane's stream and its watch, a target resolved, the
// release's facts, and the pane's foreground program. Package session's
// Server is one.
type Host interface {
	// Exec runs cmds as one line and returns a reply for each.
	Exec(ctx context.Context, cmds ...controlmode.Command) ([]controlmode.Reply, error)
	// WatchPane returns pane's stream, fed until release is called.
	WatchPane(ctx context.Context, pane string) (st *panestream.Stream, release func(), err error)
	// WatchPaneIn is WatchPane for a pane whose session is known.
	WatchPaneIn(pane, sessionID string) (st *panestream.Stream, release func(), err error)
	// WatchPaneFed is WatchPane without a round trip, when a client
	// already delivers the session the model puts pane in, which it
	// returns for the caller to check; ok is false otherwise.
	WatchPaneFed(pane string) (st *panestream.Stream, release func(), sessionID string, ok bool)
	// ResolvePane returns the id of the pane ref names.
	ResolvePane(ctx context.Context, ref PaneRef) (string, error)
	// Release returns the facts of the tmux release connected to, and
	// ConnectedRelease those of the one it connects to if it is not.
	Release() Release
	ConnectedRelease(ctx context.Context) (Release, error)
	// PaneForeground reads what pane's foreground program does, and
	// Foreground what the one on tty, under the shell pid, does.
	PaneForeground(ctx context.Context, pane string) Foreground
	Foreground(ctx context.Context, pid, tty string) Foreground
	// Socket names the server, for the answer of one that is gone, and
	// Generation its current life, which capture_since's cursors carry.
	Socket() fmt.Stringer
	Generation() string
	// SyncStream returns once st holds all the pane printed before it
	// was called.
	SyncStream(ctx context.Context, st *panestream.Stream) error

	// The input sent to panes: whether a pane's output was followed, its
	// width and height as last read, and noting a line typed into pane
	// whose stream ended at ends[pane] before it.
	Fed(pane string) bool
	PaneWidth(pane string) int
	NoteInput(ends map[string]int64, pane, text string, enter bool, mark panestream.GridMark, label string)
	// SendKeys sends keys as the send_keys tool does.
	SendKeys(ctx context.Context, ref PaneRef, a SendKeysArgs) (string, error)
	// TypeLine returns the commands that type line into pane and press
	// Enter, guarded against the pane's copy mode, and what tells a
	// refusal of the guard (again: the pane left its mode) from another
	// error of the line.
	TypeLine(ctx context.Context, pane, line string) (cmds []controlmode.Command, refused func(ctx context.Context, err error) (again bool, _ error), err error)

	// For the wait for a pane's exit: ExecChange is Exec for commands
	// that change the server's structure; Subscribe calls f for every
	// change tmux tells of (structure, or output of pane) until cancel is
	// called, on a client's reader goroutine; WaitFor blocks in tmux's
	// wait-for on channel until it is signalled, the server exits or ctx
	// ends; WatchPaneProcess watches the exit of a pane's program, pid on
	// tty, where it can (a server on this machine; ok false otherwise).
	ExecChange(ctx context.Context, cmds ...controlmode.Command) ([]controlmode.Reply, error)
	Subscribe(f func(structure bool, pane string)) (cancel func())
	WaitFor(ctx context.Context, channel string) error
	WatchPaneProcess(pid, tty string) (exited <-chan struct{}, stop func(), ok bool)

	// For a pane's agent state: PaneTarget is the tmux target of the pane
	// ref names; PaneInfoCommand prints target's row, which PaneInfoOf
	// reads; Stream is pane's output stream, if one is kept; Feeds reports
	// whether a client of ours delivers the output of session sessionID;
	// Capture reads a pane's text; RecordAnswer reads the latest answer in
	// the record of the agent CLI agent whose process is pid, and whether
	// the CLI keeps one.
	PaneTarget(ref PaneRef) (string, error)
	PaneInfoCommand(target string) controlmode.Command
	PaneInfoOf(r controlmode.Reply, target string) (Pane, error)
	Stream(pane string) (*panestream.Stream, bool)
	Feeds(sessionID string) bool
	Capture(ctx context.Context, ref PaneRef, a CaptureArgs) (paneID string, lines []string, err error)
	RecordAnswer(ctx context.Context, agent, pid string) (agentstate.Recorded, bool)
}

// Release is what the engine asks of the tmux release connected to
// (package session's release facts answer it).
type Release interface {
	// KnowsLastOutput reports whether tmux keeps when a pane last printed
	// (pane_last_output_time).
	KnowsLastOutput() bool
	// RecordsCommandMarks reports whether tmux records the OSC 133 marks a
	// shell prints.
	RecordsCommandMarks() bool
	// ExpandsCaptureRange reports whether capture-pane expands a format in
	// its -S and -E.
	ExpandsCaptureRange() bool
	// CrashesHoldingDeadPanes reports whether tmux can crash when a pane
	// kept by remain-on-exit dies while a control client follows it, and
	// LosesDeadStatus whether it now and then loses such a pane's status.
	CrashesHoldingDeadPanes() bool
	LosesDeadStatus() bool
	// Version is the release as #{version} prints it.
	Version() string
}

// lookTimeout bounds a look the engine makes past its caller's context
// (at a command's end, after the caller gave up): as long as package
// session gives one attempt to start its control client, which the look
// may need.
const lookTimeout = 10 * time.Second
