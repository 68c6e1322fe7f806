package mcp

import (
	"context"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type progressKey struct{}

// progressReporter reports a call's progress until the call has answered: a
// notifications/progress after the result names a token the client has
// forgotten, and Claude Code ends the stdio transport on one.
type progressReporter struct {
	req *sdk.CallToolRequest

	mu   sync.Mutex
	done bool
}

// withProgress lets a handler report progress on req, when the
// client asked for it with a progress token. The returned end must be
// called before the call's result is sent: no progress is sent after.
func withProgress(ctx context.Context, req *sdk.CallToolRequest) (context.Context, func()) {
	if req == nil || req.Params == nil || req.Params.GetProgressToken() == nil || req.Session == nil {
		return ctx, func() {}
	}
	p := &progressReporter{req: req}
	return context.WithValue(ctx, progressKey{}, p), func() {
		p.mu.Lock()
		p.done = true
		p.mu.Unlock()
	}
}

// reportProgress sends notifications/progress for the call ctx belongs to,
// if its client asked for them and the call has not answered yet. total
// may be 0 when unknown.
func reportProgress(ctx context.Context, progress, total float64, message string) {
	p, ok := ctx.Value(progressKey{}).(*progressReporter)
	if !ok {
		return
	}
	// Sent under the lock, so that end waits for a notification on its way.
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	_ = p.req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ // Best effort: the client may be gone.
		ProgressToken: p.req.Params.GetProgressToken(),
		Progress:      progress,
		Total:         total,
		Message:       message,
	})
}
