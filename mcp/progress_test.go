package mcp

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressRunner reports progress once while it runs a call, and hands
// the call's context out, so that a test can report on it afterwards.
type progressRunner struct{ ctxs chan context.Context }

func (p progressRunner) runTool(ctx context.Context, _ *toolDef, _ any) (any, error) {
	reportProgress(ctx, 1, 2, "during")
	p.ctxs <- ctx
	return WaitForTextResult{}, nil
}

// TestNoProgressAfterResult: a call's progress stops with its result; a
// late report (a wait's ticker racing its end) sends nothing, for a
// client such as Claude Code ends the transport on an unknown token.
func TestNoProgressAfterResult(t *testing.T) {
	run := progressRunner{ctxs: make(chan context.Context, 1)}
	srv, err := newServer(run, &Options{Safety: "readonly"})
	if err != nil {
		t.Fatal(err)
	}
	var got atomic.Int32
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "0"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) { got.Add(1) },
	})
	cs, err := c.Connect(context.Background(), ct, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "wait_for_text",
		Arguments: map[string]any{"patterns": []string{"x"}}, Meta: sdk.Meta{"progressToken": "p1"}})
	if err != nil || res.IsError {
		t.Fatalf("got %v %v", res, err)
	}
	callCtx := <-run.ctxs
	reportProgress(callCtx, 2, 2, "after the result")
	// A notification sent before the ping's answer arrives before it; the
	// client's handler runs on its own goroutine, so wait for the one sent
	// during the call first.
	deadline := time.Now().Add(5 * time.Second)
	for got.Load() < 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // the client's handler goroutine; no event to wait on
	}
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // a late notification's handler, had one come
	if n := got.Load(); n != 1 {
		t.Fatalf("got %d progress notifications, want 1 (the one during the call)", n)
	}
}
