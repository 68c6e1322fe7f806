package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/session/internal/agentstate"
)

// TestRecordAnswerCatchesUp: an agent CLI writes its record a moment
// after it draws its screen, so a record whose turn has not ended is read
// again until it has (or for recordLag), and one that is kept but holds
// no text leaves the answer to the screen.
func TestRecordAnswerCatchesUp(t *testing.T) {
	toolOnly := agentstate.Recorded{Lines: []string{"[Bash]"}}
	answered := agentstate.Recorded{Lines: []string{"[Bash]", "ANSWER-2"}, Text: true, Ended: true}
	for _, c := range []struct {
		name    string
		records []agentstate.Recorded
		want    string // the answer; "" for none (the screen's turn)
		reads   int
		took    time.Duration
	}{
		{"no record", nil, "", 1, 0},
		{"ended at once", []agentstate.Recorded{answered}, "[Bash]\nANSWER-2", 1, 0},
		{"written on the third read", []agentstate.Recorded{toolOnly, toolOnly, answered}, "[Bash]\nANSWER-2", 3, 2 * recordRetry},
		{"ended with no text", []agentstate.Recorded{{Lines: []string{"[Bash]"}, Ended: true}}, "", 1, 0},
		{"never ends, some text", []agentstate.Recorded{{Lines: []string{"half"}, Text: true}}, "half", int(recordLag/recordRetry) + 1, recordLag},
		{"never ends, no text", []agentstate.Recorded{toolOnly}, "", int(recordLag/recordRetry) + 1, recordLag},
	} {
		var host *fakeHost
		got, took, _ := driveHost(t, func(h *fakeHost) {
			h.records, host = c.records, h
		}, nil, func(ctx context.Context, e *Engine) (string, error) {
			lines, ok := e.recordAnswer(ctx, "claude", "1")
			if !ok {
				return "", nil
			}
			return strings.Join(lines, "\n"), nil
		})
		if got != c.want || took != c.took || host.recordReads != c.reads {
			t.Errorf("%s: got %q after %v and %d reads, want %q after %v and %d", c.name, got, took, host.recordReads, c.want, c.took, c.reads)
		}
	}
}
