package mcp

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type progressKey struct{}

// withProgress lets a handler report progress on req, when the
// client asked for it with a progress token.
func withProgress(ctx context.Context, req *sdk.CallToolRequest) context.Context {
	if req == nil || req.Params == nil || req.Params.GetProgressToken() == nil || req.Session == nil {
		return ctx
	}
	return context.WithValue(ctx, progressKey{}, req)
}

// reportProgress sends notifications/progress for the call ctx belongs to,
// if its client asked for them. total may be 0 when unknown.
func reportProgress(ctx context.Context, progress, total float64, message string) {
	req, ok := ctx.Value(progressKey{}).(*sdk.CallToolRequest)
	if !ok {
		return
	}
	_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ // Best effort: the client may be gone.
		ProgressToken: req.Params.GetProgressToken(),
		Progress:      progress,
		Total:         total,
		Message:       message,
	})
}
