package session

import (
	"context"
	"fmt"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

func TestNoteExec(t *testing.T) {
	read := controlmode.NewCommand("display-message", "-p", "-t", "%1", "#{pane_id}")
	write := controlmode.NewCommand("send-keys", "-t", "%1", "x")
	ok := controlmode.Reply{}
	missing := controlmode.Reply{Err: &controlmode.CommandError{Command: "send-keys", Msg: "can't find pane: %9"}}
	refused := controlmode.Reply{Err: &controlmode.CommandError{Command: "send-keys", Msg: "no space for new pane"}}
	tests := []struct {
		name          string
		cmds          []controlmode.Command
		rs            []controlmode.Reply
		err           error
		sent, changed bool
	}{
		{"reads", []controlmode.Command{read, read}, []controlmode.Reply{ok, ok}, nil, true, false},
		{"a write", []controlmode.Command{read, write}, []controlmode.Reply{ok, ok}, nil, true, true},
		{"a write to a missing pane", []controlmode.Command{read, write}, []controlmode.Reply{ok, missing}, missing.Err, true, false},
		{"a write, then a missing pane", []controlmode.Command{write, write}, []controlmode.Reply{ok, missing}, missing.Err, true, true},
		{"a missing pane stops the line", []controlmode.Command{read, write, write}, []controlmode.Reply{ok, missing}, missing.Err, true, false},
		{"a write refused otherwise", []controlmode.Command{write}, []controlmode.Reply{refused}, refused.Err, true, true},
		{"a read refused", []controlmode.Command{read}, []controlmode.Reply{{Err: &controlmode.CommandError{Msg: "bad format"}}}, fmt.Errorf("x: %w", &controlmode.CommandError{Msg: "bad format"}), true, false},
		{"never sent", []controlmode.Command{write}, nil, fmt.Errorf("gone: %w", controlmode.ErrNotSent), false, false},
		{"lost with a write in flight", []controlmode.Command{read, write}, nil, fmt.Errorf("gone: %w", controlmode.ErrClosed), true, true},
		{"lost with reads in flight", []controlmode.Command{read}, nil, fmt.Errorf("gone: %w", controlmode.ErrClosed), true, false},
		{"cancelled with a write in flight", []controlmode.Command{write}, nil, context.Canceled, true, true},
	}
	for _, tt := range tests {
		ctx, effects := WatchEffects(context.Background())
		noteExec(ctx, tt.cmds, tt.rs, tt.err)
		if sent, changed := effects(); sent != tt.sent || changed != tt.changed {
			t.Errorf("%s: sent %v, changed %v; want %v, %v", tt.name, sent, changed, tt.sent, tt.changed)
		}
	}
	noteExec(context.Background(), []controlmode.Command{write}, []controlmode.Reply{ok}, nil) // no watcher: no record, no panic

	ctx, effects := WatchEffects(context.Background())
	noteExec(ctx, []controlmode.Command{write}, []controlmode.Reply{ok}, nil)
	noteExec(ctx, []controlmode.Command{read}, []controlmode.Reply{missing}, missing.Err)
	if _, changed := effects(); !changed {
		t.Error("a failed read after a write: the write is forgotten")
	}
}

func TestNoteRun(t *testing.T) {
	for _, tt := range []struct {
		args          []string
		ran           bool
		sent, changed bool
	}{
		{[]string{"-N", "list-sessions", "-F", "#{session_id}"}, true, true, false},
		{[]string{"-N", "kill-server"}, true, true, true},
		{[]string{"-N", "kill-server"}, false, true, false},
		{[]string{"new-session", "-d"}, true, true, true},
	} {
		ctx, effects := WatchEffects(context.Background())
		noteRun(ctx, tt.args, tt.ran)
		if sent, changed := effects(); sent != tt.sent || changed != tt.changed {
			t.Errorf("%v (ran %v): sent %v, changed %v; want %v, %v", tt.args, tt.ran, sent, changed, tt.sent, tt.changed)
		}
	}
}
