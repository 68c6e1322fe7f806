package main

import (
	"bytes"
	"io"
	"net/http"

	"github.com/tmux-mcp/tmux-mcp/mcp/tasks"
)

// legacyTasks hands a tools/call's params.task (how a 2025-11-25 client,
// VS Code, asks for an MCP task) on to the task layer, in _meta: go-sdk
// drops params it does not know before any middleware sees them. It reads
// at most maxBodyBytes and one byte more, and passes on what it read, so
// the SDK's own body cap still answers a longer body.
func legacyTasks(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Body != nil {
			body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
			if err != nil {
				http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
				return
			}
			if len(body) <= maxBodyBytes {
				body = tasks.LegacyMessage(body)
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		next.ServeHTTP(w, r)
	})
}
