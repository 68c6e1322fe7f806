package mcp

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// The pane tools that send input or change a pane: they never fall back to
// a default pane (the mcp layer has already answered target_required for a
// call naming none).

// SendKeys sends text or key names to a pane.
func (b *TmuxBackend) SendKeys(ctx context.Context, in SendKeysIn) (Message, error) {
	args := session.SendKeysArgs{Enter: in.Enter, Literal: in.Literal, SuppressHistory: in.SuppressHistory, DriveMode: in.DriveMode}
	if in.Keys.IsList {
		args.KeyList = in.Keys.Keys
	} else if len(in.Keys.Keys) > 0 {
		args.Keys = in.Keys.Keys[0]
	}
	srv := b.server(in.Socket)
	held, err := holdForPrompt(ctx, srv, in, args)
	if err != nil {
		return Message{}, err
	}
	msg, err := sendKeys(ctx, srv, in, args, held.AtShell)
	if err != nil {
		return Message{}, err
	}
	if held.For > 0 {
		msg += fmt.Sprintf("; held %.1f s until the shell drew its first prompt", held.For.Seconds())
	}
	return Message{Result: msg}, nil
}

// holdForPrompt waits, before keys that type text, for the first prompt
// of a shell still starting (see session.HoldForFirstPrompt), and returns
// how long it waited and whether a shell holds the pane. Keys alone
// (C-c) are never held.
func holdForPrompt(ctx context.Context, srv *session.Server, in SendKeysIn, args session.SendKeysArgs) (session.Held, error) {
	texts := args.KeyList
	if !in.Keys.IsList {
		texts = []string{args.Keys}
	}
	for _, k := range texts {
		if session.TypesText(k, args.Literal) {
			return srv.HoldForFirstPrompt(ctx, paneRef(in.PaneTarget))
		}
	}
	return session.Held{}, nil
}

// sendKeys sends the keys as in asks and says what it did; atShell says a
// shell's line editor holds the pane.
func sendKeys(ctx context.Context, srv *session.Server, in SendKeysIn, args session.SendKeysArgs, atShell bool) (string, error) {
	if n := len(args.KeyList); in.Keys.IsList && in.PaceMs > 0 && (n > 1 || n == 1 && in.Enter) {
		p, err := srv.PressKeys(ctx, paneRef(in.PaneTarget), args, time.Duration(in.PaceMs)*time.Millisecond)
		if err != nil {
			return "", err
		}
		return pressedMessage(p, in.PaceMs), nil
	}
	if !in.Keys.IsList && in.Enter && in.PaceMs > 0 && session.TypesText(args.Keys, args.Literal) {
		// A text, then Enter: the Enter once the text has drawn.
		p, err := srv.TypeThenEnter(ctx, paneRef(in.PaneTarget), args, time.Duration(in.PaceMs)*time.Millisecond, atShell)
		if err != nil {
			return "", err
		}
		if len(p.Silent) > 0 {
			return fmt.Sprintf("Keys sent to pane %s, then Enter (%d ms after the text, which drew no output)", p.PaneID, in.PaceMs), nil
		}
		return "Keys sent to pane " + p.PaneID + ", then Enter", nil
	}
	id, err := srv.SendKeys(ctx, paneRef(in.PaneTarget), args)
	if err != nil {
		return "", err
	}
	// Say whether Enter was pressed: after "C-c" it rarely is what was meant.
	if in.Enter {
		return "Keys sent to pane " + id + ", then Enter", nil
	}
	return "Keys sent to pane " + id + " (no Enter)", nil
}

// pressedMessage tells what keys pressed one at a time drew: the keys the
// program did not react to within the pace, by position and name.
func pressedMessage(p session.Pressed, paceMs int) string {
	msg := fmt.Sprintf("%d keys pressed one at a time in pane %s", len(p.Keys), p.PaneID)
	if len(p.Silent) == 0 {
		return msg + "; the pane printed after each"
	}
	quiet := make([]string, len(p.Silent))
	for i, k := range p.Silent {
		quiet[i] = fmt.Sprintf("%d (%q)", k+1, p.Keys[k])
	}
	return msg + fmt.Sprintf("; no output within %d ms after key %s", paceMs, strings.Join(quiet, ", "))
}

// SendKeysBatch sends several inputs in order, as few lines as tmux allows.
func (b *TmuxBackend) SendKeysBatch(ctx context.Context, in SendKeysBatchIn) (SendKeysBatchResult, error) {
	if in.Timeout != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(*in.Timeout*float64(time.Second)))
		defer cancel()
	}
	ops := make([]session.SendKeysOp, len(in.Operations))
	for i, op := range in.Operations {
		ops[i] = session.SendKeysOp{
			Ref:          session.PaneRef{PaneID: op.PaneID, WindowID: op.WindowID, SessionID: op.SessionID, SessionName: op.SessionName},
			SendKeysArgs: session.SendKeysArgs{Keys: op.Keys, Enter: op.Enter, Literal: op.Literal, SuppressHistory: op.SuppressHistory, DriveMode: op.DriveMode},
		}
	}
	outs, stopped := b.server(in.Socket).SendKeysBatch(ctx, ops, in.OnError != "continue")
	var res SendKeysBatchResult
	for i, o := range outs {
		r := SendKeysOperationResult{Index: i, PaneID: o.PaneID, Success: o.Err == nil, ElapsedSeconds: seconds(o.Elapsed)}
		if o.Err != nil {
			r.Error = classify(o.Err).Error()
			res.Failed++
		} else {
			res.Succeeded++
		}
		res.Results = append(res.Results, r)
	}
	if stopped >= 0 {
		res.StoppedAt = &stopped
	}
	return res, nil
}

// PasteText pastes text into a pane through a buffer of its own.
func (b *TmuxBackend) PasteText(ctx context.Context, in PasteTextIn) (Message, error) {
	ref := session.PaneRef{PaneID: in.PaneID, WindowID: in.WindowID, SessionID: in.SessionID, SessionName: in.SessionName}
	id, err := b.server(in.Socket).PasteText(ctx, ref, in.Text, in.Bracket)
	if err != nil {
		return Message{}, err
	}
	return Message{Result: "Text pasted to pane " + id}, nil
}

// PipePane appends a pane's output to a file, or stops doing so.
func (b *TmuxBackend) PipePane(ctx context.Context, in PipePaneIn) (Message, error) {
	if in.OutputPath != "" && strings.TrimSpace(in.OutputPath) == "" {
		return Message{}, invalidArguments("output_path must be a path, or omitted to stop piping")
	}
	ref := session.PaneRef{PaneID: in.PaneID, WindowID: in.WindowID, SessionID: in.SessionID, SessionName: in.SessionName}
	id, err := b.server(in.Socket).PipePane(ctx, ref, in.OutputPath, in.Append)
	if err != nil {
		return Message{}, err
	}
	if in.OutputPath == "" {
		return Message{Result: "Piping stopped for pane " + id}, nil
	}
	return Message{Result: "Piping pane " + id + " to " + in.OutputPath}, nil
}

// SelectPane makes a pane active, by id or by a move within a window.
func (b *TmuxBackend) SelectPane(ctx context.Context, in SelectPaneIn) (PaneInfo, error) {
	srv := b.server(in.Socket)
	var p session.Pane
	var err error
	if in.PaneID != "" {
		p, err = srv.SelectPane(ctx, session.PaneRef{PaneID: in.PaneID})
	} else {
		w := session.WindowRef{WindowID: in.WindowID, WindowIndex: in.WindowIndex, SessionID: in.SessionID, SessionName: in.SessionName}
		p, err = srv.SelectPaneDirection(ctx, w, in.Direction)
	}
	if err != nil {
		return PaneInfo{}, err
	}
	return b.paneInfoOf(srv, p), nil
}

// SwapPane swaps two panes and returns the source, now in the target's
// place.
func (b *TmuxBackend) SwapPane(ctx context.Context, in SwapPaneIn) (PaneInfo, error) {
	srv := b.server(in.Socket)
	p, err := srv.SwapPane(ctx, in.SourcePaneID, in.TargetPaneID)
	if err != nil {
		return PaneInfo{}, err
	}
	return b.paneInfoOf(srv, p), nil
}

// ResizePane resizes or zooms a pane.
func (b *TmuxBackend) ResizePane(ctx context.Context, in ResizePaneIn) (PaneInfo, error) {
	if in.Zoom != nil && (in.Height != nil || in.Width != nil) {
		return PaneInfo{}, invalidArguments("zoom cannot be combined with height or width")
	}
	srv := b.server(in.Socket)
	ref := paneRef(in.PaneTarget)
	var p session.Pane
	var err error
	if in.Zoom != nil {
		p, err = srv.ZoomPane(ctx, ref, *in.Zoom)
	} else {
		var w, h int
		if in.Width != nil {
			w = *in.Width
		}
		if in.Height != nil {
			h = *in.Height
		}
		p, err = srv.ResizePane(ctx, ref, w, h)
	}
	if err != nil {
		return PaneInfo{}, err
	}
	return b.paneInfoOf(srv, p), nil
}

// SetPaneTitle sets a pane's title.
func (b *TmuxBackend) SetPaneTitle(ctx context.Context, in SetPaneTitleIn) (PaneInfo, error) {
	srv := b.server(in.Socket)
	p, err := srv.SetPaneTitle(ctx, paneRef(in.PaneTarget), in.Title)
	if err != nil {
		return PaneInfo{}, err
	}
	return b.paneInfoOf(srv, p), nil
}

// ClearPane clears a pane's screen and history.
func (b *TmuxBackend) ClearPane(ctx context.Context, in ClearPaneIn) (Message, error) {
	id, err := b.server(in.Socket).ClearPane(ctx, paneRef(in.PaneTarget))
	if err != nil {
		return Message{}, err
	}
	return Message{Result: "Pane cleared: " + id}, nil
}

// EnterCopyMode puts a pane in copy mode, optionally scrolled up.
func (b *TmuxBackend) EnterCopyMode(ctx context.Context, in EnterCopyModeIn) (PaneInfo, error) {
	srv := b.server(in.Socket)
	ref := session.PaneRef{PaneID: in.PaneID, WindowID: in.WindowID, SessionID: in.SessionID, SessionName: in.SessionName}
	up := 0
	if in.ScrollUp != nil {
		up = *in.ScrollUp
	}
	p, err := srv.EnterCopyMode(ctx, ref, up)
	if err != nil {
		return PaneInfo{}, err
	}
	return b.paneInfoOf(srv, p), nil
}

// ExitCopyMode takes a pane out of copy mode.
func (b *TmuxBackend) ExitCopyMode(ctx context.Context, in ExitCopyModeIn) (PaneInfo, error) {
	srv := b.server(in.Socket)
	p, err := srv.ExitCopyMode(ctx, paneRef(in.PaneTarget))
	if err != nil {
		return PaneInfo{}, err
	}
	return b.paneInfoOf(srv, p), nil
}

// guardSelfPane resolves pane to its id and refuses the pane this process
// runs in (CONTRACT §4). Resolving only reads, so a refusal has no effects.
func (b *TmuxBackend) guardSelfPane(ctx context.Context, srv *session.Server, pane, tool string) (string, error) {
	if pane == "" {
		return "", Errorf(CodeTargetRequired, EffectsNone, "%s needs a pane_id", tool)
	}
	// Like libtmux-mcp, err toward refusing when the server may be ours.
	self := b.opts.SelfPane != "" && b.selfOn(srv)
	if self && pane == b.opts.SelfPane {
		return "", selfPaneDenied(tool, pane)
	}
	id, err := srv.ResolvePane(ctx, session.PaneRef{PaneID: pane})
	if err != nil {
		return "", err
	}
	if self && id == b.opts.SelfPane {
		return "", selfPaneDenied(tool, id)
	}
	return id, nil
}

func selfPaneDenied(tool, pane string) *ToolError {
	return Errorf(CodeTargetDenied, EffectsNone,
		"%s refused: pane %s is the pane this MCP server runs in; use a manual tmux command if intended", tool, pane)
}

// RespawnPane restarts a pane's process.
func (b *TmuxBackend) RespawnPane(ctx context.Context, in RespawnPaneIn) (PaneInfo, error) {
	srv := b.server(in.Socket)
	id, err := b.guardSelfPane(ctx, srv, in.PaneID, "respawn_pane")
	if err != nil {
		return PaneInfo{}, err
	}
	p, err := srv.RespawnPane(ctx, id, session.RespawnArgs{
		Kill:      in.Kill,
		Shell:     in.Shell,
		SpawnArgs: spawnArgs(in.StartDirectory, in.Environment, in.SuppressPersistentHistory),
	})
	if err != nil {
		return PaneInfo{}, err
	}
	return b.paneInfoOf(srv, p), nil
}

// KillPane kills a pane.
func (b *TmuxBackend) KillPane(ctx context.Context, in KillPaneIn) (Message, error) {
	srv := b.server(in.Socket)
	id, err := b.guardSelfPane(ctx, srv, in.PaneID, "kill_pane")
	if err != nil {
		return Message{}, err
	}
	if err := srv.KillPane(ctx, id); err != nil {
		return Message{}, err
	}
	return Message{Result: "Pane killed: " + id}, nil
}
