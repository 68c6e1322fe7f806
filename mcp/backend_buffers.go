package mcp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// Paste buffers. As in libtmux-mcp, every buffer load_buffer makes gets a
// fresh name in this server's namespace, tmux_mcp_<32 hex>_<logical name>,
// and paste_buffer, show_buffer and delete_buffer touch nothing else: the
// user's buffers (clipboard history among them) stay out of reach.
//
// A buffer belongs to the identity that loaded it (a bearer token over
// HTTP, session.WithOwner): the second half of its 32 hex digits is a tag
// of that identity and the first half, keyed with this process's secret,
// so another token cannot use it even when it learns the name (tmux
// list-buffers in a pane shows every name). Another token's buffer is
// answered as a missing one is (not_found), before anything reaches tmux:
// to that token it does not exist, and its recovery is the same, load its
// own. The process itself (stdio, --no-auth) is one identity and may use
// any buffer of this namespace, as before, those of earlier runs included.

// bufferPrefix starts the name of every buffer these tools make.
const bufferPrefix = "tmux_mcp_"

// bufferNameRE matches the names load_buffer makes.
var bufferNameRE = regexp.MustCompile(`^tmux_mcp_[0-9a-f]{32}_[A-Za-z0-9_.-]{1,64}$`)

// logicalNameRE matches the logical names load_buffer accepts.
var logicalNameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// bufferKey keys the owner tags of this process's buffer names.
var bufferKey = func() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails
	return b
}()

// bufferTag is the owner tag that follows random in a buffer name.
func bufferTag(owner, random string) string {
	mac := hmac.New(sha256.New, bufferKey)
	mac.Write([]byte(owner + "\x00" + random))
	return hex.EncodeToString(mac.Sum(nil)[:8])
}

// newBufferName returns a fresh buffer name for logical ("buf" when empty),
// owned by owner.
func newBufferName(owner, logical string) (string, error) {
	if logical == "" {
		logical = "buf"
	}
	if !logicalNameRE.MatchString(logical) {
		return "", Errorf(CodeInvalidArguments, EffectsNone, "invalid logical_name %q: use 1 to 64 letters, digits, '_', '.' or '-'", logical)
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails
	random := hex.EncodeToString(b)
	return bufferPrefix + random + bufferTag(owner, random) + "_" + logical, nil
}

// ownsBuffer reports whether the caller of ctx may use buffer name, a
// name checkBuffer accepted.
func ownsBuffer(ctx context.Context, name string) bool {
	owner := session.OwnerOf(ctx)
	if owner == "" {
		return true
	}
	hexes := strings.TrimPrefix(name, bufferPrefix)[:32]
	return hmac.Equal([]byte(hexes[16:]), []byte(bufferTag(owner, hexes[:16])))
}

// checkBuffer refuses a name load_buffer did not make, and a buffer of
// another identity as tmux answers a missing one (missing, with %s for
// the name).
func checkBuffer(ctx context.Context, name, missing string) error {
	if !bufferNameRE.MatchString(name) {
		return Errorf(CodeInvalidArguments, EffectsNone,
			"invalid buffer_name %q: only buffers made by load_buffer (%s<32 hex>_<name>) can be used", name, bufferPrefix).
			WithSuggestion("Pass the buffer_name that load_buffer returned.")
	}
	if !ownsBuffer(ctx, name) {
		return Errorf(CodeNotFound, EffectsNone, missing, name)
	}
	return nil
}

// What tmux answers for a missing buffer, by command.
const (
	noBuffer      = "no buffer %s"
	unknownBuffer = "unknown buffer: %s"
)

// LoadBuffer stores content in a new buffer and returns its name.
func (b *TmuxBackend) LoadBuffer(ctx context.Context, in LoadBufferIn) (BufferRef, error) {
	name, err := newBufferName(session.OwnerOf(ctx), in.LogicalName)
	if err != nil {
		return BufferRef{}, err
	}
	if err := b.server(in.Socket).SetBuffer(ctx, name, in.Content); err != nil {
		return BufferRef{}, err
	}
	return BufferRef{BufferName: name, LogicalName: in.LogicalName}, nil
}

// PasteBuffer pastes a buffer into a pane and keeps the buffer.
func (b *TmuxBackend) PasteBuffer(ctx context.Context, in PasteBufferIn) (Message, error) {
	if err := checkBuffer(ctx, in.BufferName, noBuffer); err != nil {
		return Message{}, err
	}
	ref := paneRef(PaneTarget{PaneID: in.PaneID, SessionName: in.SessionName, SessionID: in.SessionID, WindowID: in.WindowID})
	pane, err := b.server(in.Socket).PasteBuffer(ctx, in.BufferName, ref, in.Bracket)
	if err != nil {
		return Message{}, err
	}
	return Message{Result: fmt.Sprintf("Buffer '%s' pasted to pane %s", in.BufferName, pane)}, nil
}

// ShowBuffer returns a buffer's content, its last max_lines lines when it
// has more.
func (b *TmuxBackend) ShowBuffer(ctx context.Context, in ShowBufferIn) (BufferContent, error) {
	if err := checkBuffer(ctx, in.BufferName, noBuffer); err != nil {
		return BufferContent{}, err
	}
	content, err := b.server(in.Socket).ShowBuffer(ctx, in.BufferName)
	if err != nil {
		return BufferContent{}, err
	}
	res := BufferContent{BufferName: in.BufferName, Content: content}
	if in.MaxLines > 0 {
		lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
		if drop := len(lines) - in.MaxLines; drop > 0 {
			res.Content = strings.Join(lines[drop:], "\n")
			res.ContentTruncated, res.ContentTruncatedLines = true, drop
		}
	}
	return res, nil
}

// DeleteBuffer deletes a buffer.
func (b *TmuxBackend) DeleteBuffer(ctx context.Context, in DeleteBufferIn) (Message, error) {
	if err := checkBuffer(ctx, in.BufferName, unknownBuffer); err != nil {
		return Message{}, err
	}
	if err := b.server(in.Socket).DeleteBuffer(ctx, in.BufferName); err != nil {
		return Message{}, err
	}
	return Message{Result: fmt.Sprintf("Buffer '%s' deleted", in.BufferName)}, nil
}
