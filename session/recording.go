package session

import (
	"context"

	"github.com/tmux-mcp/tmux-mcp/session/internal/engine"
	"github.com/tmux-mcp/tmux-mcp/session/internal/recording"
)

// The recordings of panes are internal/recording's: a Server embeds its
// Recordings, so their exported methods (StartRecording, StopRecording,
// RecordingStatus) are the Server's, and is the host through which alone
// they reach tmux (recordingHost). Their words are re-declared here.

// RecordArgs say where a recording goes and when it ends.
type RecordArgs = recording.RecordArgs

// A Recording is what [Server.RecordingStatus] and the calls that start
// and stop one say about it.
type Recording = recording.Recording

// The bounds of recordings.
const (
	// MaxRecordings is how many recordings may run at once on one Server.
	MaxRecordings = recording.MaxRecordings
	// RecordBytesCeiling is the largest size bound a recording may have.
	RecordBytesCeiling = recording.RecordBytesCeiling
	// RecordDurationCeiling is the longest time bound a recording may have.
	RecordDurationCeiling = recording.RecordDurationCeiling
)

// Why recordings end ([Recording.Ended]).
const (
	EndStopped   = recording.EndStopped
	EndMaxBytes  = recording.EndMaxBytes
	EndMaxTime   = recording.EndMaxTime
	EndPaneGone  = recording.EndPaneGone
	EndConnLost  = recording.EndConnLost
	EndClosed    = recording.EndClosed
	EndWriteFail = recording.EndWriteFail
)

// recordingHost is a Server as its recordings' host (recording.Host); it
// runs lines, syncs streams and subscribes as the engine's host does.
type recordingHost struct{ engineHost }

var _ recording.Host = recordingHost{}

func (h recordingHost) PaneID(ctx context.Context, target string) (string, error) {
	rs, err := h.exec(ctx, paneIDCommand(target))
	if err != nil {
		return "", err
	}
	return paneIDOf(rs[0], target)
}

func (h recordingHost) FollowPaneIn(pane, sessionID string) (engine.Follow, error) {
	return engine.FollowPaneIn(h.Engine, pane, sessionID)
}

func (h recordingHost) StreamEnd(pane string) int64 {
	end, _ := h.streams.Get(pane).Position()
	return end
}

func (h recordingHost) Spawn(fn func()) bool { return h.link.spawn(fn) }

func (h recordingHost) Stopped() <-chan struct{} { return h.link.stopped() }
