package mcp

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// The tools that follow a pane's output stream: waits, run_command and
// capture_since, plus tmux's wait-for channels.

// clamp returns the wait the server allows: the requested seconds, at most
// WaitMax.
func (b *TmuxBackend) clamp(seconds float64) time.Duration {
	d := time.Duration(seconds * float64(time.Second))
	if d <= 0 || d > b.opts.WaitMax {
		d = b.opts.WaitMax
	}
	return d
}

// WaitForText implements wait_for_text.
func (b *TmuxBackend) WaitForText(ctx context.Context, in WaitForTextIn) (WaitForTextResult, error) {
	timeout := b.clamp(in.Timeout)
	args := session.WaitArgs{
		Pane:      paneRef(in.PaneTarget),
		Patterns:  in.Patterns,
		Stop:      in.Stop,
		Absent:    in.Absent,
		Regex:     in.Regex,
		MatchCase: in.MatchCase,
		Timeout:   timeout,
		Since:     in.Since,
		Interval:  time.Duration(in.Interval * float64(time.Second)),
		Progress: func(elapsed time.Duration) {
			reportProgress(ctx, elapsed.Seconds(), timeout.Seconds(), fmt.Sprintf("waiting for text, %.0f s", elapsed.Seconds()))
		},
	}
	srv := b.server(in.Socket)
	if args.Pane.IsZero() {
		// A bad pattern is invalid_arguments whatever the server holds.
		if err := args.Check(); err != nil {
			return WaitForTextResult{}, err
		}
		var err error
		if args.Pane, err = orDefaultPane(ctx, srv, args.Pane); err != nil {
			return WaitForTextResult{}, err
		}
	}
	r, err := srv.WaitForText(ctx, args)
	if err != nil {
		return WaitForTextResult{}, err
	}
	matched, tail := leanWait(r.MatchedLines, r.Tail)
	out := WaitForTextResult{
		Found:              r.Found,
		Outcome:            r.Outcome,
		MatchedLines:       nonNil(matched),
		SawNewOutput:       r.SawNewOutput,
		MatchedAtEntry:     r.MatchedAtEntry,
		StopMatchedAtEntry: r.StopMatchedAtEntry,
		AlternateScreen:    r.AlternateScreen,
		Tail:               nonNil(tail),
		PaneID:             r.PaneID,
		ElapsedSeconds:     seconds(r.Elapsed),
		EffectiveTimeout:   timeout.Seconds(),
		Since:              r.Since,
		MatchedIn:          r.MatchedIn,
		EchoSkipped:        r.EchoSkipped,
	}
	for _, l := range r.EchoLines {
		out.EchoLines = append(out.EchoLines, clip(strings.TrimSpace(l), leanLineBytes))
	}
	if r.MatchedIndex >= 0 {
		i := r.MatchedIndex
		out.MatchedIndex = &i
	}
	return out, nil
}

// WaitForContentChange implements wait_for_content_change.
func (b *TmuxBackend) WaitForContentChange(ctx context.Context, in WaitForContentChangeIn) (ContentChangeResult, error) {
	if in.UntilReading && in.QuietMs == 0 {
		return ContentChangeResult{}, invalidArguments("until_reading needs quiet_ms: the program is looked at once the pane is quiet")
	}
	timeout := b.clamp(in.Timeout)
	srv := b.server(in.Socket)
	pane, err := orDefaultPane(ctx, srv, paneRef(in.PaneTarget))
	if err != nil {
		return ContentChangeResult{}, err
	}
	r, err := srv.WaitQuiet(ctx, session.QuietArgs{
		Pane:    pane,
		Quiet:   time.Duration(in.QuietMs) * time.Millisecond,
		Timeout: timeout,
		Reading: in.UntilReading,
		Progress: func(elapsed time.Duration) {
			reportProgress(ctx, elapsed.Seconds(), timeout.Seconds(), fmt.Sprintf("waiting for the pane to change, %.0f s", elapsed.Seconds()))
		},
	})
	if err != nil {
		return ContentChangeResult{}, err
	}
	return ContentChangeResult{
		Changed:          r.Changed,
		Quiet:            r.Quiet,
		TimedOut:         r.TimedOut,
		OutputBytes:      r.Bytes,
		PaneID:           r.PaneID,
		ElapsedSeconds:   seconds(r.Elapsed),
		EffectiveTimeout: timeout.Seconds(),
		ReadingInput:     readingInput(r.Foreground),
	}, nil
}

// WaitForAgentState waits until a pane, or the first or every one of
// several, is in one of the states asked.
func (b *TmuxBackend) WaitForAgentState(ctx context.Context, in WaitForAgentStateIn) (AgentStateResult, error) {
	if err := session.CheckStates(in.Until); err != nil {
		return AgentStateResult{}, err
	}
	timeout := b.clamp(in.Timeout)
	srv := b.server(in.Socket)
	var panes []session.PaneRef
	for _, id := range in.PaneIDs {
		panes = append(panes, session.PaneRef{PaneID: id})
	}
	r, err := srv.WaitForState(ctx, session.StateWaitArgs{
		Panes:   panes,
		Until:   in.Until,
		All:     in.All,
		Timeout: timeout,
		Progress: func(elapsed time.Duration) {
			reportProgress(ctx, elapsed.Seconds(), timeout.Seconds(), fmt.Sprintf("waiting for a state, %.0f s", elapsed.Seconds()))
		},
	})
	if err != nil {
		return AgentStateResult{}, err
	}
	out := AgentStateResult{TimedOut: r.TimedOut, ElapsedSeconds: seconds(r.Elapsed), Panes: []PaneAgentState{}}
	for _, p := range r.Panes {
		row := PaneAgentState{PaneID: p.PaneID, AgentState: p.State.State, StateDetail: stateDetail(p.State), Answer: p.Answer, AnswerFrom: p.AnswerFrom}
		if p.Reached && !in.All {
			out.Panes = append([]PaneAgentState{row}, out.Panes...)
			continue
		}
		if row.PaneID != "" {
			out.Panes = append(out.Panes, row)
		}
	}
	return out, nil
}

// readingInput is reading_input: nil when the kernel did not tell.
func readingInput(fg *session.Foreground) *bool {
	if fg == nil || !fg.Known {
		return nil
	}
	return &fg.Reading
}

// The bounds of run_command's output: the newest lines, 2000 unless the
// call asks for another number, within 256 KB, so that the answer stays
// well under the response cap (MaxResultBytes) and its exit status always
// comes back; output_cursor reads the rest.
const (
	runCommandLines = 2000
	runCommandBytes = 256 << 10
)

// RunCommand implements run_command.
func (b *TmuxBackend) RunCommand(ctx context.Context, in RunCommandIn) (RunCommandResult, error) {
	timeout := b.clamp(in.Timeout)
	suppress := b.opts.SuppressHistory
	if in.SuppressHistory != nil {
		suppress = *in.SuppressHistory
	}
	srv := b.server(in.Socket)
	r, err := srv.RunCommand(ctx, session.RunArgs{
		Pane:            paneRef(in.PaneTarget),
		Command:         in.Command,
		Timeout:         timeout,
		MaxLines:        cmp.Or(in.MaxLines, runCommandLines),
		MaxBytes:        runCommandBytes,
		SuppressHistory: suppress,
		Background:      in.Background,
		Typed:           commandTask(ctx, srv),
	})
	if err != nil {
		return RunCommandResult{}, err
	}
	return runResult(r, timeout), nil
}

// WaitForCommand implements wait_for_command.
func (b *TmuxBackend) WaitForCommand(ctx context.Context, in WaitForCommandIn) (RunCommandResult, error) {
	timeout := b.clamp(in.Timeout)
	r, err := b.server(in.Socket).WaitForCommand(ctx, session.CommandWaitArgs{ID: in.CommandID, Timeout: timeout,
		MaxLines: in.MaxLines, FromStart: in.FromStart})
	if err != nil {
		return RunCommandResult{}, err
	}
	return runResult(r, timeout), nil
}

func runResult(r session.RunResult, timeout time.Duration) RunCommandResult {
	out := RunCommandResult{
		CommandID:            r.CommandID,
		PaneID:               r.PaneID,
		TimedOut:             r.TimedOut,
		Ended:                string(r.End),
		EndedReason:          r.EndReason,
		ShellExited:          r.ShellExited,
		ElapsedSeconds:       seconds(r.Elapsed),
		Output:               nonNil(r.Output),
		OutputTruncated:      r.OutputTruncated,
		OutputTruncatedLines: r.TruncatedLines,
		OutputEarlierLines:   r.EarlierLines,
		OutputCursor:         r.Cursor,
		EffectiveTimeout:     timeout.Seconds(),
	}
	if r.AwaitingPrompt {
		out.WaitingFor = "waiting for the shell's first prompt; the command is typed once it is drawn"
	}
	if r.HasStatus {
		status := r.ExitStatus
		out.ExitStatus = &status
	}
	return out
}

// CaptureSince implements capture_since.
func (b *TmuxBackend) CaptureSince(ctx context.Context, in CaptureSinceIn) (CaptureSinceResult, error) {
	srv := b.server(in.Socket)
	pane := paneRef(in.PaneTarget)
	if in.Cursor == "" {
		// A cursor names its pane; only a first call may take the default.
		var err error
		if pane, err = orDefaultPane(ctx, srv, pane); err != nil {
			return CaptureSinceResult{}, err
		}
	}
	r, err := srv.CaptureSince(ctx, session.SinceArgs{
		Pane:     pane,
		Cursor:   in.Cursor,
		MaxLines: in.MaxLines,
		MaxBytes: in.MaxBytes,
		Oldest:   in.Order == "oldest",
	})
	if err != nil {
		return CaptureSinceResult{}, err
	}
	return CaptureSinceResult{
		PaneID:         r.PaneID,
		Cursor:         r.Cursor,
		Lines:          nonNil(r.Lines),
		ElapsedSeconds: seconds(r.Elapsed),
		LinesMissed:    r.LinesMissed,
		Truncated:      r.Truncated,
		TruncatedLines: r.TruncatedLines,
		TruncatedBytes: r.TruncatedBytes,

		LastLineUnfinished: r.LastLineUnfinished,
		AlternateScreen:    r.AlternateScreen,
	}, nil
}

// WaitForChannel implements wait_for_channel.
func (b *TmuxBackend) WaitForChannel(ctx context.Context, in WaitForChannelIn) (Message, error) {
	if err := b.server(in.Socket).WaitForChannel(ctx, in.Channel, b.clamp(in.Timeout)); err != nil {
		return Message{}, err
	}
	return Message{Result: fmt.Sprintf("channel %s was signalled", in.Channel)}, nil
}

// WaitForPaneExit implements wait_for_pane_exit.
func (b *TmuxBackend) WaitForPaneExit(ctx context.Context, in WaitForPaneExitIn) (PaneExitResult, error) {
	srv := b.server(in.Socket)
	id, err := b.guardSelfPane(ctx, srv, in.PaneID, "wait_for_pane_exit")
	if err != nil {
		return PaneExitResult{}, err
	}
	e, err := srv.WaitPaneExit(ctx, id, b.clamp(in.Timeout))
	if err != nil {
		return PaneExitResult{}, err
	}
	out := PaneExitResult{Exited: e.Exited, TimedOut: e.TimedOut, PaneClosed: e.Closed, PaneRemoved: e.Removed, StatusUnreported: e.Unreported}
	if e.HasStatus {
		status := e.Status
		out.ExitStatus = &status
	}
	if e.Signaled {
		out.Signal = cmp.Or(e.Signal, "unknown")
	}
	return out, nil
}

// SignalChannel implements signal_channel.
func (b *TmuxBackend) SignalChannel(ctx context.Context, in SignalChannelIn) (Message, error) {
	if err := b.server(in.Socket).SignalChannel(ctx, in.Channel); err != nil {
		return Message{}, err
	}
	return Message{Result: fmt.Sprintf("channel %s signalled", in.Channel)}, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// WatchResource reports changes to what a tmux:// resource shows: the
// server's structure for sessions and windows, and for a pane also its
// output, which keeps flowing (a watcher attached to the pane's session if
// needed) until stop.
func (b *TmuxBackend) WatchResource(ctx context.Context, sock Socket, pane string, changed func()) (func(), error) {
	srv := b.server(sock)
	// Connecting now makes the server's notifications flow.
	if _, err := srv.Sessions(ctx); err != nil {
		return nil, err
	}
	cancel := srv.Subscribe(func(c session.Change) {
		if c.Structure || (pane != "" && c.Pane == pane) {
			changed()
		}
	})
	if pane == "" {
		return cancel, nil
	}
	release, err := srv.FollowPane(ctx, pane)
	if err != nil {
		cancel()
		return nil, err
	}
	return func() { cancel(); release() }, nil
}
