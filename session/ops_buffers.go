package session

import (
	"context"
	"strconv"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// Paste buffers. tmux keeps them in one flat namespace per server, shared
// with the user (and the system clipboard, through set-clipboard): the
// buffers this package touches are named, never the top one.
//
// Buffer names are limited to letters, digits, '_', '.' and '-': tmux
// prints them raw in %paste-buffer-changed, so a name holding a newline
// could forge a notification line, and they go inside formats.

// MaxBufferName is the longest buffer name the operations accept.
const MaxBufferName = 256

// checkBufferName refuses a name outside the accepted alphabet.
func checkBufferName(name string) error {
	if name == "" || len(name) > MaxBufferName {
		return errorf(KindInvalid, "buffer name must be 1 to %d bytes", MaxBufferName)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return errorf(KindInvalid, "invalid buffer name %q: use letters, digits, '_', '.' and '-'", name)
		}
	}
	return nil
}

// bufferSizeCommand prints the size in bytes of buffer name, and an empty
// line for every other buffer. (A format condition rather than
// list-buffers -f, which older servers lack.)
func bufferSizeCommand(name string) controlmode.Command {
	return controlmode.NewCommand("list-buffers", "-F", "#{?#{==:#{buffer_name},"+name+"},#{buffer_size},}")
}

// bufferSize reads the reply of bufferSizeCommand; -1 when the buffer is
// not listed.
func bufferSize(r controlmode.Reply) int {
	for _, l := range r.Lines {
		if l == "" {
			continue
		}
		if n, err := strconv.Atoi(l); err == nil {
			return n
		}
	}
	return -1
}

// SetBuffer stores content in buffer name, replacing what it held, and
// checks in the same round trip that tmux holds all of it. tmux keeps no
// empty buffers, so empty content is refused.
func (s *Server) SetBuffer(ctx context.Context, name, content string) error {
	if err := checkBufferName(name); err != nil {
		return err
	}
	if content == "" {
		return errorf(KindInvalid, "buffer content is empty: tmux keeps no empty buffers")
	}
	rs, err := s.exec(ctx,
		controlmode.NewCommand("set-buffer", "-b", name).Text(content),
		bufferSizeCommand(name))
	if err != nil {
		return err
	}
	if n := bufferSize(rs[1]); n != len(content) {
		return afterChange(errorf(KindRefused, "buffer %s holds %d bytes after set-buffer, want %d", name, n, len(content)))
	}
	return nil
}

// PasteBuffer pastes buffer name into the pane ref names and returns the
// pane's id. Bracket asks for bracketed paste (-p), which tmux uses only
// when the pane's program has turned it on. Line feeds become carriage
// returns, as when a person pastes. The buffer is kept.
func (s *Server) PasteBuffer(ctx context.Context, name string, ref PaneRef, bracket bool) (string, error) {
	if err := checkBufferName(name); err != nil {
		return "", err
	}
	t := refTarget(ref)
	if ref == (PaneRef{SessionName: ref.SessionName}) && t != "" {
		t = sessionNameTarget(ref.SessionName) // a bare "=name" names no pane
	}
	if t == "" {
		return "", fix(errorf(KindNoTarget, "no target given: a pane, window or session is needed"), RemedyPane)
	}
	rel, err := s.connectedRelease(ctx)
	if err != nil {
		return "", err
	}
	paste := append([]string{"-b", name, "-t", t}, rel.PasteFlags()...)
	if bracket {
		paste = append(paste, "-p")
	}
	// The pane first: a missing target fails before anything is pasted.
	rs, err := s.exec(ctx,
		controlmode.NewCommand("display-message", "-p", "-t", t, "#{pane_id}"),
		controlmode.NewCommand("paste-buffer", paste...))
	if err != nil {
		return "", err
	}
	if len(rs[0].Lines) != 1 || !strings.HasPrefix(rs[0].Lines[0], "%") {
		return "", errorf(KindNotFound, "can't find pane: %s", t)
	}
	return rs[0].Lines[0], nil
}

// ShowBuffer returns the exact content of buffer name.
//
// Up to tmux 3.3 show-buffer prints the content vis-encoded (\\, \t, \r,
// \ooo for control and invalid UTF-8 bytes, \$ before a name; newlines as
// they are), from 3.4 raw; the buffer's size, read on the same line, proves
// the reading. When it does not match (a NUL, or a line ending tmux
// rewrote), the content is read raw through a one-shot save-buffer
// instead.
func (s *Server) ShowBuffer(ctx context.Context, name string) (string, error) {
	if err := checkBufferName(name); err != nil {
		return "", err
	}
	rs, err := s.exec(ctx,
		controlmode.NewCommand("show-buffer", "-b", name),
		bufferSizeCommand(name))
	if err != nil {
		return "", err
	}
	size := bufferSize(rs[1])
	text := strings.Join(rs[0].Lines, "\n")
	if !s.release().ShowBufferEncoded() {
		if len(text) == size {
			return text, nil
		}
	} else if out, ok := controlmode.Unvis(text); ok && len(out) == size {
		return string(out), nil
	}
	return s.saveBuffer(ctx, name)
}

// saveBuffer reads buffer name raw, through a one-shot tmux process.
func (s *Server) saveBuffer(ctx context.Context, name string) (string, error) {
	out, _, err := s.shots.forkTmux(ctx, "save-buffer", "-b", name, "-")
	return out, err
}

// DeleteBuffer deletes buffer name.
func (s *Server) DeleteBuffer(ctx context.Context, name string) error {
	if err := checkBufferName(name); err != nil {
		return err
	}
	rel, err := s.connectedRelease(ctx)
	if err != nil {
		return err
	}
	if rel.DeletesMissingBuffers() {
		// Looked for first, so a missing buffer fails as later releases
		// fail it.
		rs, err := s.exec(ctx, bufferSizeCommand(name))
		if err != nil {
			return err
		}
		if bufferSize(rs[0]) < 0 {
			return errorf(KindNotFound, "unknown buffer: %s", name)
		}
	}
	_, err = s.exec(ctx, controlmode.NewCommand("delete-buffer", "-b", name))
	return err
}
