package mcp

import (
	"context"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestResources(t *testing.T) {
	f := newFake()
	f.results["get_pane_info"] = PaneInfo{PaneID: "%3"}
	f.results["capture_pane"] = Message{Result: "hello"}
	f.results["get_session_info"] = SessionInfo{SessionID: "$1", SessionName: "a/b", WindowCount: 1}
	f.results["list_windows"] = List[WindowInfo]{Result: []WindowInfo{{WindowID: "@1", PaneCount: 1}}}
	cs := connect(t, f, nil, "")
	ctx := context.Background()

	var n int
	for _, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 6 {
		t.Errorf("got %d resource templates, want 6", n)
	}

	for _, uri := range []string{"tmux://panes/%3", "tmux://panes/3", "tmux://panes/%253?socket_name=s"} {
		res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		if in := f.input("get_pane_info").(GetPaneInfoIn); in.PaneID != "%3" {
			t.Errorf("%s: backend got pane %q, want %%3", uri, in.PaneID)
		}
		if got := res.Contents[0].Text; got != `{"pane_id":"%3"}` {
			t.Errorf("%s: got %s", uri, got)
		}
	}
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "tmux://panes/3/content"})
	if err != nil || res.Contents[0].Text != "hello" || res.Contents[0].MIMEType != "text/plain" {
		t.Errorf("content: got %+v, %v", res, err)
	}
	res, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "tmux://sessions/a%2Fb"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Contents[0].Text, `{"session_id":"$1","session_name":"a/b","window_count":1,"windows":[{"window_id":"@1","pane_count":1}]}`; got != want {
		t.Errorf("session: got %s, want %s", got, want)
	}
	if in := f.input("list_windows").(ListWindowsIn); in.SessionName != "a/b" {
		t.Errorf("session name decoded to %q", in.SessionName)
	}
	res, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "tmux://sessions"})
	if err != nil || res.Contents[0].Text != "[]" {
		t.Errorf("sessions: got %+v, %v; want []", res, err)
	}

	f.errs["get_pane_info"] = sessionErr{CodeNotFound, EffectsNone}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "tmux://panes/7"}); err == nil {
		t.Error("missing pane: want an error")
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "tmux://nothing/here"}); err == nil {
		t.Error("unknown resource: want an error")
	}
}

func TestPrompts(t *testing.T) {
	cs := connect(t, newFake(), nil, "")
	ctx := context.Background()
	var names []string
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if p.Description == "" {
			t.Errorf("prompt %s has no description", p.Name)
		}
		names = append(names, p.Name)
	}
	slices.Sort(names)
	if want := []string{"build_dev_workspace", "diagnose_failing_pane", "interrupt_gracefully", "run_and_wait"}; !slices.Equal(names, want) {
		t.Errorf("got prompts %v, want %v", names, want)
	}
	res, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "run_and_wait", Arguments: map[string]string{"command": "make test", "pane_id": "%2"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Messages[0].Content.(*sdk.TextContent).Text; !strings.Contains(text, "make test") || !strings.Contains(text, "run_command") {
		t.Errorf("run_and_wait text: %s", text)
	}
	if _, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "run_and_wait", Arguments: map[string]string{"pane_id": "%2"}}); err == nil {
		t.Error("missing required prompt argument: want an error")
	}
}
