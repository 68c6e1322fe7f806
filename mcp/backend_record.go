package mcp

import (
	"context"
	"fmt"
	"time"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// The bounds of a record_pane recording (its description says them).
const (
	RecordMaxBytes    = 32 << 20
	RecordMaxDuration = 4 * time.Hour
)

// RecordPane starts, stops or reads the state of the caller's recording of
// a pane (record_pane). The file goes in TmuxOptions.RecordDir, with a
// name the session package makes: no argument names a path.
func (b *TmuxBackend) RecordPane(ctx context.Context, in RecordPaneIn) (Message, error) {
	srv := b.server(in.Socket)
	ref := session.PaneRef{PaneID: in.PaneID}
	var r session.Recording
	var err error
	switch in.Action {
	case "start":
		if b.opts.RecordDir == "" {
			return Message{}, Errorf(CodeInvalidArguments, EffectsNone, "recording is off: this server has no directory for recordings")
		}
		r, err = srv.StartRecording(ctx, ref, session.RecordArgs{Dir: b.opts.RecordDir, MaxBytes: RecordMaxBytes, MaxDuration: RecordMaxDuration})
	case "stop":
		r, err = srv.StopRecording(ctx, ref)
	default:
		r, err = srv.RecordingStatus(ctx, ref)
	}
	if err != nil {
		return Message{}, err
	}
	return Message{Result: recordingText(r)}, nil
}

// recordingText says what a recording holds, in the words record_pane
// answers with: the pane, the file, its size and length, and whether it
// goes on or why it ended.
func recordingText(r session.Recording) string {
	state := "recording"
	if !r.Active {
		state = "ended: " + r.Ended
	}
	return fmt.Sprintf("pane %s %s into %s (%d bytes, %.1f s)", r.Pane, state, r.Path, r.Bytes, r.Duration.Seconds())
}
