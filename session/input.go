package session

import (
	"context"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
	"github.com/tmux-mcp/tmux-mcp/session/internal/recording"
)

// What a wait needs to know of the input this process sends to panes: where
// in the pane's output stream it was sent, and how to tell the pane's echo
// of the typed text from what the program printed in answer.
//
// "After the input" means after the last send-keys (or paste) this process
// sent to the pane: output the pane printed before it went out is never
// matched by a wait that follows input. Input from other clients (a
// person typing, another tool) cannot be seen through control mode; to a
// wait it is output like any other.

// inputStart is the end of every pane's output stream just before input is
// sent: the echo of input can reach a stream (on another client's reader,
// or on the same one while the caller is still waking) before the caller
// learns that tmux took the input, so the end after the reply may be past
// it. Output from here on counts as after the input; what a pane prints
// between this and tmux taking the input (well under a millisecond)
// counts too.
type inputStart struct {
	ends map[string]int64
	// cols holds the cursor's column in panes whose stream does not hold
	// the start of the cursor's line: the column the echo starts at tells
	// where a line editor wraps it (zsh redraws the row it wraps onto).
	cols map[string]int
}

// inputTo is input about to be sent: its target and the text it types.
type inputTo struct{ target, text string }

// promptRoom is how wide a prompt may be for beforeInput to take a typed
// line as short enough not to wrap.
const promptRoom = 40

// beforeInput returns the streams' ends, for noteInput. For inputs to a
// pane whose stream lacks the start of the cursor's line, with a typed
// line long enough to wrap, it also reads the cursor's column (one round
// trip, only then).
func (s *Server) beforeInput(ctx context.Context, ins ...inputTo) inputStart {
	pre := inputStart{ends: s.streams.Ends()}
	var cmds []controlmode.Command
	var panes []string
	for _, in := range ins {
		t := in.target
		if !isPaneID(t) || !mayWrap(in.text, s.paneWidth(t)) {
			continue
		}
		if _, known := s.streams.Get(t).LineBefore(pre.ends[t]); !known {
			cmds = append(cmds, controlmode.NewCommand("display-message", "-p", "-t", t, "#{cursor_x}"))
			panes = append(panes, t)
		}
	}
	if len(cmds) == 0 {
		return pre
	}
	rs, err := s.exec(ctx, cmds...)
	if err != nil && len(rs) != len(cmds) {
		return pre // best effort: the echo of a long line may then be misread
	}
	pre.cols = make(map[string]int, len(panes))
	for i, p := range panes {
		if n, err := strconv.Atoi(strings.Join(rs[i].Lines, "")); err == nil && rs[i].Err == nil {
			pre.cols[p] = n
		}
	}
	return pre
}

// mayWrap reports whether a line of text typed after a prompt may wrap in
// a pane width columns wide (0: unknown).
func mayWrap(text string, width int) bool {
	for _, l := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if width == 0 || utf8.RuneCountInString(l)+promptRoom >= width {
			return true
		}
	}
	return false
}

// noteInput records that tmux has answered input this process sent to
// pane: text typed (empty for key names such as C-c), then Enter if enter.
// pre is from beforeInput, called before the input was sent; mark is where
// the cursor was in the grid, read on the input's line (unknown if not).
func (s *Server) noteInput(pre inputStart, pane, text string, enter bool, mark panestream.GridMark) {
	s.noteInputAs(pre, pane, text, enter, mark, "")
}

// noteInputAs is noteInput for input that a recording of the pane marks
// with label rather than with the text typed (a command line that
// runs a command, marked with the command).
func (s *Server) noteInputAs(pre inputStart, pane, text string, enter bool, mark panestream.GridMark, label string) {
	if !isPaneID(pane) {
		return
	}
	col, ok := pre.cols[pane]
	if !ok {
		col = -1
	}
	s.streams.Get(pane).NoteInput(pre.ends[pane], col, s.fed(pane), text, enter, mark)
	recording.NoteInput(s.Recordings, pane, pre.ends[pane], text, enter, label)
}

// fed reports whether a client of ours is delivering pane's output: the
// main client's session holds it, or a watcher is attached to its session.
func (s *Server) fed(pane string) bool {
	p, ok := s.model.paneByID(pane)
	if !ok {
		return false
	}
	return s.link.feeds(p.SessionID)
}

// paneWidth returns pane's width as the model knows it, 0 if it does not.
func (s *Server) paneWidth(pane string) int {
	p, _ := s.model.paneByID(pane)
	return p.Width
}

// keyNames are the tmux key names send-keys takes as keys, not text, besides
// single characters with modifiers.
var keyNames = map[string]bool{"Enter": true, "Escape": true, "Tab": true, "BTab": true, "BSpace": true,
	"Space": true, "Up": true, "Down": true, "Left": true, "Right": true, "Home": true, "End": true,
	"PageUp": true, "PgUp": true, "PageDown": true, "PgDn": true, "NPage": true, "PPage": true,
	"IC": true, "Insert": true, "DC": true, "Delete": true, "Any": true}

// isKeyName reports whether send-keys (without -l) takes k as a key name
// such as C-c, M-x, Enter or F5, rather than as text to type.
func isKeyName(k string) bool {
	if k == "" {
		return false
	}
	base := k
	for len(base) > 2 && (base[1] == '-') && strings.ContainsRune("CMScms", rune(base[0])) {
		base = base[2:]
	}
	if base != k && len([]rune(base)) == 1 {
		return true // C-c, M-x, S-Left is below
	}
	if len(base) == 2 && base[0] == '^' {
		return true // ^C
	}
	if keyNames[base] {
		return true
	}
	if strings.HasPrefix(base, "F") && len(base) <= 3 && strings.Trim(base[1:], "0123456789") == "" && len(base) > 1 {
		return true
	}
	return strings.HasPrefix(base, "KP") && len(base) > 2 && !strings.ContainsRune(base, ' ')
}

// TypesText reports whether send-keys with keys as its one argument (with
// -l if literal) types text, rather than pressing a key such as C-c.
func TypesText(keys string, literal bool) bool { return typedText(keys, literal) != "" }

// typedText returns the text send-keys types for keys: keys itself when
// literal or when it is not a key name, else nothing.
func typedText(keys string, literal bool) string {
	if !literal && isKeyName(keys) {
		return ""
	}
	return keys
}
