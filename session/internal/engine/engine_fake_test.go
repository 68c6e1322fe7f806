package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/agentstate"
	"github.com/tmux-mcp/tmux-mcp/session/internal/errs"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
)

// The engine's own tests drive its waits through a fake Host, as
// rueidis tests its mux with mock wires: one pane, %1, whose stream the
// test feeds by hand (output, the pane's end, the end of the client that
// delivered it) and whose screen the fake's capture-pane shows, with no
// tmux. They run in synctest bubbles: time passes only when every
// goroutine waits, so a timeout is an event like the others, and a wait
// that stops making progress ends at its timeout at once.

const (
	fakePane    = "%1"
	fakeSession = "$1" // the session tmux puts the pane in
)

// fakeHost is a Host with one pane.
type fakeHost struct {
	t  *testing.T
	st *panestream.Stream

	mu      sync.Mutex
	src     uint64   // the client delivering the pane's output now
	screen  []string // what capture-pane shows
	gone    bool     // tmux no longer finds the pane
	rejoin  error    // what watching the pane again answers; nil: a new client follows it
	watches int      // watches of the pane asked for
	looks   int      // readEntry's looks tmux answered
	// model is the session the model puts the pane in ("" is fakeSession,
	// where tmux has it), and unfed says no client of ours is attached to
	// it yet.
	model string
	unfed bool
	// keys are what the pane does when a key is pressed: prints the
	// text, or exits if it is "exit"; no entry, nothing.
	keys    map[string]string
	pressed []string
	// records are what the agent's record holds at each read.
	records     []agentstate.Recorded
	recordReads int
}

func newFakeHost(t *testing.T, screen ...string) *fakeHost {
	return &fakeHost{t: t, st: panestream.New(), screen: screen}
}

func (h *fakeHost) Exec(_ context.Context, cmds ...controlmode.Command) ([]controlmode.Reply, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	rs := make([]controlmode.Reply, len(cmds))
	for i, c := range cmds {
		if h.gone {
			return nil, errs.Errorf(errs.KindNotFound, "can't find pane: %s", fakePane)
		}
		switch text := c.String(); {
		case c.Name() == "capture-pane":
			rs[i].Lines = slices.Clone(h.screen)
		case strings.Contains(text, "#{pane_id} #{alternate_on}"): // readEntry
			h.looks++
			rs[i].Lines = []string{fakePane + " 0 0 0 2000 0 80 0 " + fakeSession}
		case strings.Contains(text, sinceFormat): // markNowCommand
			rs[i].Lines = []string{fakePane + " 0 2000 0 0 80 24 0 " + fakeSession}
		case strings.Contains(text, "#{pane_id} #{session_id} #{pane_last_output_time}"): // quietEntry
			h.looks++
			rs[i].Lines = []string{fakePane + " " + fakeSession + " "}
		case strings.Contains(text, "#{pane_id} #{history_size}"): // readRows
			rs[i].Lines = []string{fakePane + " 0 2000 0 0 80 0 0"}
		default:
			h.t.Errorf("the fake host runs no %s", text)
		}
	}
	return rs, nil
}

func (h *fakeHost) WatchPane(context.Context, string) (*panestream.Stream, func(), error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.watches++
	switch {
	case h.gone:
		return nil, nil, errs.Errorf(errs.KindNotFound, "can't find pane: %s", fakePane)
	case h.watches > 1 && h.rejoin != nil:
		return nil, nil, h.rejoin
	}
	h.src++
	h.st.Adopt(h.src)
	return h.st, func() {}, nil
}

func (h *fakeHost) WatchPaneIn(pane, _ string) (*panestream.Stream, func(), error) {
	return h.WatchPane(context.Background(), pane)
}

// WatchPaneFed counts as a watch, made without asking tmux: the model
// knows the pane whether or not tmux still has it.
func (h *fakeHost) WatchPaneFed(pane string) (*panestream.Stream, func(), string, bool) {
	h.mu.Lock()
	model, unfed := h.model, h.unfed
	h.watches++
	h.src++
	h.st.Adopt(h.src)
	h.mu.Unlock()
	if unfed {
		return nil, nil, "", false
	}
	if model == "" {
		model = fakeSession
	}
	return h.st, func() {}, model, true
}

func (h *fakeHost) ResolvePane(_ context.Context, ref PaneRef) (string, error) {
	if ref.PaneID != fakePane {
		return "", errs.Errorf(errs.KindNotFound, "can't find pane: %s", ref.PaneID)
	}
	return fakePane, nil
}

func (h *fakeHost) Release() Release                                      { return fakeRelease{} }
func (h *fakeHost) PaneForeground(context.Context, string) Foreground     { return Foreground{} }
func (h *fakeHost) Foreground(context.Context, string, string) Foreground { return Foreground{} }
func (h *fakeHost) Socket() fmt.Stringer                                  { return fakeSocket{} }
func (h *fakeHost) Generation() string                                    { return "g1" }
func (h *fakeHost) SyncStream(context.Context, *panestream.Stream) error  { return nil }
func (h *fakeHost) Fed(string) bool                                       { return true }
func (h *fakeHost) PaneWidth(string) int                                  { return 80 }

func (h *fakeHost) NoteInput(map[string]int64, string, string, bool, panestream.GridMark, string) {
	h.t.Error("the waits type nothing")
}

// SendKeys presses one key, as pressKeys sends them, and the pane reacts
// to it at once.
func (h *fakeHost) SendKeys(_ context.Context, ref PaneRef, a SendKeysArgs) (string, error) {
	h.mu.Lock()
	gone := h.gone
	h.mu.Unlock()
	if gone || ref.PaneID != fakePane {
		return "", errs.Errorf(errs.KindNotFound, "can't find pane: %s", ref.PaneID)
	}
	if len(a.KeyList) != 1 {
		h.t.Errorf("keys %q pressed together", a.KeyList)
	}
	key := a.KeyList[0]
	h.pressed = append(h.pressed, key)
	switch out := h.keys[key]; out {
	case "exit":
		h.apply(streamEvent{closed: true}, nil)
	default:
		h.apply(streamEvent{output: out}, nil)
	}
	return fakePane, nil
}

func (h *fakeHost) TypeLine(context.Context, string, string) ([]controlmode.Command, func(context.Context, error) (bool, error), error) {
	h.t.Error("the waits type no command")
	return nil, func(_ context.Context, err error) (bool, error) { return false, err }, nil
}

func (h *fakeHost) ConnectedRelease(context.Context) (Release, error) { return h.Release(), nil }

// fakeRelease is the facts of tmux 3.3a: no last output time, no command
// marks, no format in capture-pane's range, a dead pane's status now and
// then lost.
type fakeRelease struct{}

func (fakeRelease) KnowsLastOutput() bool         { return false }
func (fakeRelease) RecordsCommandMarks() bool     { return false }
func (fakeRelease) ExpandsCaptureRange() bool     { return false }
func (fakeRelease) CrashesHoldingDeadPanes() bool { return false }
func (fakeRelease) LosesDeadStatus() bool         { return true }
func (fakeRelease) Version() string               { return "3.3a" }

// The wait for a pane's exit is not driven on the fake host.

func (h *fakeHost) ExecChange(ctx context.Context, cmds ...controlmode.Command) ([]controlmode.Reply, error) {
	h.t.Error("the waits change nothing")
	return h.Exec(ctx, cmds...)
}

func (h *fakeHost) Subscribe(func(bool, string)) func() { return func() {} }

func (h *fakeHost) WaitFor(ctx context.Context, _ string) error {
	<-ctx.Done()
	return ctx.Err()
}

func (h *fakeHost) WatchPaneProcess(string, string) (<-chan struct{}, func(), bool) {
	return nil, nil, false
}

// A pane's agent state is not read on the fake host.

func (h *fakeHost) PaneTarget(ref PaneRef) (string, error) { return ref.PaneID, nil }

func (h *fakeHost) PaneInfoCommand(target string) controlmode.Command {
	return controlmode.NewCommand("display-message", "-p", "-t", target, "#{pane_id}")
}

func (h *fakeHost) PaneInfoOf(_ controlmode.Reply, target string) (Pane, error) {
	return Pane{ID: target}, nil
}

func (h *fakeHost) Stream(string) (*panestream.Stream, bool) { return h.st, true }
func (h *fakeHost) Feeds(string) bool                        { return true }

func (h *fakeHost) Capture(ctx context.Context, ref PaneRef, _ CaptureArgs) (string, []string, error) {
	rs, err := h.Exec(ctx, CaptureCommand(CaptureArgs{}, ref.PaneID))
	if err != nil {
		return "", nil, err
	}
	return ref.PaneID, rs[0].Lines, nil
}

// RecordAnswer answers the fake's records in turn, the last one again and
// again; none: the agent keeps no record.
func (h *fakeHost) RecordAnswer(context.Context, string, string) (agentstate.Recorded, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recordReads++
	if len(h.records) == 0 {
		return agentstate.Recorded{}, false
	}
	r := h.records[0]
	if len(h.records) > 1 {
		h.records = h.records[1:]
	}
	return r, true
}

// fakeSocket names the fake's server.
type fakeSocket struct{}

func (fakeSocket) String() string { return "fake" }

// A streamEvent is one thing that happens to the pane while a wait
// follows it; the zero fields do nothing.
type streamEvent struct {
	after  time.Duration // time passes first
	output string        // the pane prints
	screen []string      // capture-pane shows this from now on
	closed bool          // the pane goes away
	lost   bool          // the client delivering its output ends
	rejoin error         // and watching the pane again answers this
	cancel bool          // the caller gives up
}

// apply makes ev happen, once the wait is waiting.
func (h *fakeHost) apply(ev streamEvent, cancel func()) {
	if ev.after > 0 {
		time.Sleep(ev.after)
	}
	h.mu.Lock()
	if ev.screen != nil {
		h.screen = ev.screen
	}
	if ev.rejoin != nil {
		h.rejoin = ev.rejoin
	}
	if ev.closed {
		h.gone = true
	}
	src := h.src
	h.mu.Unlock()
	if ev.output != "" {
		h.st.Append(src, []byte(ev.output))
	}
	if ev.closed {
		h.st.Close()
	}
	if ev.lost {
		h.st.SourceEnded(src)
	}
	if ev.cancel {
		cancel()
	}
}

// drive runs wait in a synctest bubble on a fake host showing screen, and
// makes the events happen one by one, each once every goroutine waits. It
// returns what wait answered and how much (fake) time it took.
func drive[R any](t *testing.T, screen []string, events []streamEvent, wait func(ctx context.Context, e *Engine) (R, error)) (res R, took time.Duration, err error) {
	t.Helper()
	return driveHost(t, func(h *fakeHost) { h.screen = screen }, events, wait)
}

// driveHost is drive with the fake host set up by setup.
func driveHost[R any](t *testing.T, setup func(h *fakeHost), events []streamEvent, wait func(ctx context.Context, e *Engine) (R, error)) (res R, took time.Duration, err error) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		h := newFakeHost(t)
		setup(h)
		e := New(h, nil)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		start := time.Now()
		type answer struct {
			res  R
			err  error
			took time.Duration
		}
		done := make(chan answer, 1)
		go func() {
			r, err := wait(ctx, e)
			done <- answer{r, err, time.Since(start)}
		}()
		for _, ev := range events {
			synctest.Wait()
			h.apply(ev, cancel)
		}
		a := <-done
		res, err, took = a.res, a.err, a.took
	})
	return res, took, err
}

// wantError checks err against the kind and words a case wants; kind 0
// wants no error.
func wantError(t *testing.T, err error, kind errs.Kind, words string) {
	t.Helper()
	var e *errs.Error
	switch {
	case kind == 0 && err != nil:
		t.Fatalf("error %v, want none", err)
	case kind == 0:
	case !errors.As(err, &e):
		t.Fatalf("error %v, want a %s *errs.Error", err, kind)
	case e.Kind != kind || !strings.Contains(e.Msg, words):
		t.Fatalf("error %q (%s), want %s with %q", e.Msg, e.Kind, kind, words)
	}
}

var errServerGone = errs.Errorf(errs.KindNoServer, "no server running on the socket")

// TestEngineWaitForText runs WaitForText against stream events: each way
// a wait can end (a match in output or on the screen, a stop pattern, the
// pane's end, the end of the client that delivered its output, with and
// without another to follow it, the timeout, the caller's end) has one
// answer.
func TestEngineWaitForText(t *testing.T) {
	const timeout = 5 * time.Second
	for _, tc := range []struct {
		name     string
		screen   []string // at the wait's start
		patterns []string
		events   []streamEvent
		outcome  string
		lines    []string  // MatchedLines
		kind     errs.Kind // the error's; 0 for none
		words    string
		took     time.Duration // how long the wait took, when it is known
	}{
		{name: "output matches", events: []streamEvent{{output: "working\r\ndone\r\n"}},
			outcome: OutcomeMatched, lines: []string{"done"}},
		{name: "a line in two chunks", events: []streamEvent{{output: "do"}, {after: time.Second, output: "ne\r\n"}},
			outcome: OutcomeMatched, lines: []string{"done"}, took: time.Second},
		{name: "the line being printed matches", events: []streamEvent{{output: "$ done"}},
			outcome: OutcomeMatched, lines: []string{"$ done"}},
		{name: "the screen at the start matches", screen: []string{"$ make", "done"},
			outcome: OutcomeMatched, lines: []string{"done"}},
		{name: "a stop pattern", events: []streamEvent{{output: "error: no rule\r\n"}},
			outcome: OutcomeStopped, lines: []string{"error: no rule"}},
		{name: "a stop pattern wins a tie", events: []streamEvent{{output: "done with error\r\n"}},
			outcome: OutcomeStopped},
		{name: "any output, with no pattern", patterns: []string{}, events: []streamEvent{{output: "x"}},
			outcome: OutcomeAnyOutput},
		{name: "no output: the timeout", outcome: OutcomeTimeout, took: timeout},
		{name: "other output: the timeout", events: []streamEvent{{output: "working\r\n"}, {after: time.Second, output: "still\r\n"}},
			outcome: OutcomeTimeout, took: timeout},
		{name: "the pane exits", events: []streamEvent{{output: "working\r\n"}, {after: time.Second, closed: true}},
			kind: errs.KindNotFound, words: "pane %1 exited while waiting", took: time.Second},
		{name: "the pane's last output before it exits", events: []streamEvent{{output: "done\r\n", closed: true}},
			outcome: OutcomeMatched, lines: []string{"done"}},
		{name: "the client ends and another follows", events: []streamEvent{{lost: true}, {after: time.Second, output: "done\r\n"}},
			outcome: OutcomeMatched, lines: []string{"done"}, took: time.Second},
		{name: "the client ends, and the grid shows the match", events: []streamEvent{{screen: []string{"done"}, lost: true}},
			outcome: OutcomeMatched, lines: []string{"done"}},
		{name: "the client ends and no other can follow", events: []streamEvent{{lost: true, rejoin: errServerGone}},
			kind: errs.KindConnLost, words: "no other could follow it"},
		{name: "the client ends and the pane is gone", events: []streamEvent{{lost: true, rejoin: errs.Errorf(errs.KindNotFound, "can't find pane: %%1")}},
			kind: errs.KindNotFound, words: "exited while waiting"},
		{name: "the caller gives up", events: []streamEvent{{after: time.Second, cancel: true}},
			kind: errs.KindCancelled, took: time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := WaitArgs{Pane: PaneRef{PaneID: fakePane}, Patterns: []string{"done"}, Stop: []string{"error"}, Timeout: timeout}
			if tc.patterns != nil {
				a.Patterns = tc.patterns
			}
			screen := tc.screen
			if screen == nil {
				screen = []string{"$ make"}
			}
			res, took, err := drive(t, screen, tc.events, func(ctx context.Context, e *Engine) (WaitResult, error) {
				return e.WaitForText(ctx, a)
			})
			wantError(t, err, tc.kind, tc.words)
			if tc.kind != 0 {
				return
			}
			if res.Outcome != tc.outcome || tc.lines != nil && !slices.Equal(res.MatchedLines, tc.lines) {
				t.Errorf("outcome %q with %q, want %q with %q (tail %q)", res.Outcome, res.MatchedLines, tc.outcome, tc.lines, res.Tail)
			}
			if tc.took != 0 && took != tc.took {
				t.Errorf("the wait took %v, want %v", took, tc.took)
			}
		})
	}
}

// TestEngineWaitQuiet runs WaitQuiet against stream events: the quiet
// period is counted from the last output, and the pane's end and the
// client's end have the answers the text wait has.
func TestEngineWaitQuiet(t *testing.T) {
	const timeout, quiet = 5 * time.Second, time.Second
	printEvery := func(d time.Duration, n int) []streamEvent {
		evs := make([]streamEvent, n)
		for i := range evs {
			evs[i] = streamEvent{after: d, output: "."}
		}
		return evs
	}
	for _, tc := range []struct {
		name   string
		quiet  time.Duration
		events []streamEvent
		want   QuietResult // Quiet, TimedOut, Changed and Bytes
		kind   errs.Kind
		words  string
		took   time.Duration
	}{
		{name: "quiet from the start", quiet: quiet, want: QuietResult{Quiet: true}, took: quiet},
		{name: "quiet after the last output", quiet: quiet,
			events: []streamEvent{{after: 500 * time.Millisecond, output: "ab"}, {after: 700 * time.Millisecond, output: "c"}},
			want:   QuietResult{Quiet: true, Changed: true, Bytes: 3}, took: 2200 * time.Millisecond},
		{name: "never quiet: the timeout", quiet: quiet, events: printEvery(400*time.Millisecond, 14),
			want: QuietResult{TimedOut: true, Changed: true, Bytes: 12}, took: timeout},
		{name: "the first output, with no quiet time", events: []streamEvent{{after: 300 * time.Millisecond, output: "x"}},
			want: QuietResult{Changed: true, Bytes: 1}, took: 300 * time.Millisecond},
		{name: "the pane exits", quiet: quiet, events: []streamEvent{{after: 500 * time.Millisecond, closed: true}},
			kind: errs.KindNotFound, words: "pane %1 exited while waiting", took: 500 * time.Millisecond},
		{name: "the client ends and another follows", quiet: quiet, events: []streamEvent{{after: 500 * time.Millisecond, lost: true}},
			want: QuietResult{Quiet: true}, took: 1500 * time.Millisecond},
		{name: "the client ends and no other can follow", quiet: quiet,
			events: []streamEvent{{after: 500 * time.Millisecond, lost: true, rejoin: errServerGone}},
			kind:   errs.KindConnLost, words: "no other could follow it"},
		{name: "the caller gives up", quiet: 10 * time.Second, events: []streamEvent{{after: time.Second, cancel: true}},
			kind: errs.KindCancelled, took: time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := QuietArgs{Pane: PaneRef{PaneID: fakePane}, Quiet: tc.quiet, Timeout: timeout}
			res, took, err := drive(t, nil, tc.events, func(ctx context.Context, e *Engine) (QuietResult, error) {
				return e.WaitQuiet(ctx, a)
			})
			wantError(t, err, tc.kind, tc.words)
			if tc.kind != 0 {
				return
			}
			got := QuietResult{Quiet: res.Quiet, TimedOut: res.TimedOut, Changed: res.Changed, Bytes: res.Bytes}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if tc.took != 0 && took != tc.took {
				t.Errorf("the wait took %v, want %v", took, tc.took)
			}
		})
	}
}

// TestEnginePressKeys presses keys one at a time against a fake pane
// that reacts to each at once, or not at all, or exits: each key waits
// for its reaction, a silent key is told, and a pane that exits after
// the last key is that key's answer, before it a failure after some keys.
func TestEnginePressKeys(t *testing.T) {
	for _, tc := range []struct {
		name    string
		keys    []string
		react   map[string]string
		pressed []string
		silent  []int
		kind    errs.Kind
		words   string
	}{
		{name: "each key reacts", keys: []string{"j", "j", "Enter"}, react: map[string]string{"j": "\x1b[B", "Enter": "picked\r\n"},
			pressed: []string{"j", "j", "Enter"}},
		{name: "a silent key", keys: []string{"j", "x", "Enter"}, react: map[string]string{"j": "\x1b[B", "Enter": "picked\r\n"},
			pressed: []string{"j", "x", "Enter"}, silent: []int{1}},
		{name: "the last key ends the program", keys: []string{"j", "q"}, react: map[string]string{"j": "\x1b[B", "q": "exit"},
			pressed: []string{"j", "q"}},
		{name: "the program ends before the last key", keys: []string{"q", "j"}, react: map[string]string{"q": "exit"},
			pressed: []string{"q"}, kind: errs.KindNotFound, words: "the first 1 of 2 keys were pressed, then the next failed: pane %1 exited while waiting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h *fakeHost
			res, _, err := driveHost(t, func(fh *fakeHost) { h, fh.keys = fh, tc.react }, nil, func(ctx context.Context, e *Engine) (Pressed, error) {
				return e.PressKeys(ctx, PaneRef{PaneID: fakePane}, SendKeysArgs{KeyList: tc.keys}, time.Second)
			})
			wantError(t, err, tc.kind, tc.words)
			if !slices.Equal(h.pressed, tc.pressed) {
				t.Errorf("pressed %q, want %q", h.pressed, tc.pressed)
			}
			if tc.kind == 0 && (!slices.Equal(res.Keys, tc.pressed) || !slices.Equal(res.Silent, tc.silent)) {
				t.Errorf("got keys %q silent %v, want %q silent %v", res.Keys, res.Silent, tc.pressed, tc.silent)
			}
		})
	}
}

// TestEngineAwaitReaction runs a key's wait for its reaction (the loop
// with reaction as its step) against stream events: it ends settle after
// the last output, at pace at the latest, at once when the pane goes, and
// says whether anything printed.
func TestEngineAwaitReaction(t *testing.T) {
	const pace, settle = time.Second, 100 * time.Millisecond
	for _, tc := range []struct {
		name    string
		events  []streamEvent
		reacted bool
		took    time.Duration
		kind    errs.Kind
	}{
		{name: "silence lasts the pace", took: pace},
		{name: "one output, then settle", events: []streamEvent{{after: 30 * time.Millisecond, output: "x"}},
			reacted: true, took: 130 * time.Millisecond},
		{name: "each output restarts settle", events: []streamEvent{{after: 30 * time.Millisecond, output: "x"},
			{after: 80 * time.Millisecond, output: "y"}, {after: 80 * time.Millisecond, output: "z"}},
			reacted: true, took: 290 * time.Millisecond},
		{name: "output that never settles lasts the pace", events: []streamEvent{{output: "a"},
			{after: 90 * time.Millisecond, output: "b"}, {after: 90 * time.Millisecond, output: "c"},
			{after: 90 * time.Millisecond, output: "d"}, {after: 90 * time.Millisecond, output: "e"},
			{after: 90 * time.Millisecond, output: "f"}, {after: 90 * time.Millisecond, output: "g"},
			{after: 90 * time.Millisecond, output: "h"}, {after: 90 * time.Millisecond, output: "i"},
			{after: 90 * time.Millisecond, output: "j"}, {after: 90 * time.Millisecond, output: "k"},
			{after: 90 * time.Millisecond, output: "l"}, {after: 90 * time.Millisecond, output: "m"}},
			reacted: true, took: pace},
		{name: "the pane goes", events: []streamEvent{{after: 30 * time.Millisecond, output: "bye"}, {closed: true}},
			reacted: true, took: 30 * time.Millisecond, kind: errs.KindNotFound},
		{name: "the caller gives up", events: []streamEvent{{after: 50 * time.Millisecond, cancel: true}},
			took: 50 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reacted, took, err := drive(t, nil, tc.events, func(ctx context.Context, e *Engine) (bool, error) {
				f, err := e.followPane(ctx, fakePane)
				if err != nil {
					return false, err
				}
				defer f.stop()
				return awaitReaction(ctx, f, pace, settle)
			})
			wantError(t, err, tc.kind, "exited while waiting")
			if reacted != tc.reacted || took != tc.took {
				t.Errorf("reacted %v after %v, want %v after %v", reacted, took, tc.reacted, tc.took)
			}
		})
	}
}

// TestEngineWaitAfterInput runs WaitForText after input this process
// typed (SinceInput): the pane's echo of the typed line is not matched,
// what it printed after the input is, also when it came before the wait.
func TestEngineWaitAfterInput(t *testing.T) {
	const timeout = 5 * time.Second
	for _, tc := range []struct {
		name    string
		before  string // the pane printed this after the input, before the wait
		events  []streamEvent
		outcome string
		lines   []string
		echo    int // EchoSkipped
	}{
		{name: "the echo is not the answer", events: []streamEvent{{output: "make\r\n"}},
			outcome: OutcomeTimeout, echo: 1},
		{name: "the answer after the echo", events: []streamEvent{{output: "make\r\nmake: nothing to do\r\n"}},
			outcome: OutcomeMatched, lines: []string{"make: nothing to do"}, echo: 1},
		{name: "the answer came before the wait", before: "make\r\nmake: nothing to do\r\n",
			outcome: OutcomeMatched, lines: []string{"make: nothing to do"}, echo: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			setup := func(h *fakeHost) {
				h.screen = []string{"$ make"}
				h.st.Adopt(1)
				h.st.Append(1, []byte("$ "))
				pre, _ := h.st.Position()
				h.st.NoteInput(pre, 2, true, "make", true, panestream.GridMark{})
				h.st.Append(1, []byte(tc.before))
			}
			a := WaitArgs{Pane: PaneRef{PaneID: fakePane}, Patterns: []string{"make"}, Timeout: timeout}
			res, _, err := driveHost(t, setup, tc.events, func(ctx context.Context, e *Engine) (WaitResult, error) {
				return e.WaitForText(ctx, a)
			})
			wantError(t, err, 0, "")
			if res.Since != SinceInput || res.Outcome != tc.outcome || tc.lines != nil && !slices.Equal(res.MatchedLines, tc.lines) || res.EchoSkipped != tc.echo {
				t.Errorf("since %q: outcome %q with %q, echo skipped %d; want %q with %q, echo %d (tail %q)",
					res.Since, res.Outcome, res.MatchedLines, res.EchoSkipped, tc.outcome, tc.lines, tc.echo, res.Tail)
			}
		})
	}
}

// TestEngineWaitStart starts waits for text as the model and tmux place
// the pane: a wait on a pane whose session a client of ours delivers
// looks once; one on a pane that moved since the model saw it, or whose
// session no client delivers yet, watches the pane's session first and
// looks after it; one on a pane tmux no longer has answers not found.
func TestEngineWaitStart(t *testing.T) {
	for _, tc := range []struct {
		name           string
		model          string // the session the model puts the pane in; "" is tmux's
		unfed, gone    bool
		looks, watches int
		kind           errs.Kind
		words          string
	}{
		{name: "fed", looks: 1, watches: 1},
		{name: "moved to another session", model: "$2", looks: 2, watches: 2},
		{name: "no client on its session", unfed: true, looks: 1, watches: 2},
		{name: "gone", gone: true, looks: 0, watches: 1, kind: errs.KindNotFound, words: "can't find pane: %1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h *fakeHost
			res, _, err := driveHost(t, func(fh *fakeHost) {
				h, fh.model, fh.unfed, fh.gone, fh.screen = fh, tc.model, tc.unfed, tc.gone, []string{"$ make", "done"}
			}, nil, func(ctx context.Context, e *Engine) (WaitResult, error) {
				return e.WaitForText(ctx, WaitArgs{Pane: PaneRef{PaneID: fakePane}, Patterns: []string{"done"}, Timeout: time.Second})
			})
			wantError(t, err, tc.kind, tc.words)
			if tc.kind == 0 && res.Outcome != OutcomeMatched {
				t.Errorf("outcome %q, want %q", res.Outcome, OutcomeMatched)
			}
			if h.looks != tc.looks || h.watches != tc.watches {
				t.Errorf("%d looks and %d watches, want %d and %d", h.looks, h.watches, tc.looks, tc.watches)
			}
		})
	}
}
