package session

import (
	"strings"
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
type inputStart map[string]int64

// beforeInput returns the streams' ends, for noteInput.
func (s *Server) beforeInput() inputStart { return s.streams.ends() }

// noteInput records that tmux has answered input this process sent to
// pane: text typed (empty for key names such as C-c), then Enter if enter.
// pre is from beforeInput, called before the input was sent.
func (s *Server) noteInput(pre inputStart, pane, text string, enter bool) {
	if !isPaneID(pane) {
		return
	}
	s.streams.get(pane).noteInput(pre[pane], s.fed(pane), text, enter)
}

// fed reports whether a client of ours is delivering pane's output: the
// main client's session holds it, or a watcher is attached to its session.
func (s *Server) fed(pane string) bool {
	p, ok := s.model.paneByID(pane)
	if !ok {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.SessionID == s.attached && s.conn != nil {
		return true
	}
	w, ok := s.watchers[p.SessionID]
	return ok && w.ref.conn() != nil && w.ref.conn().Err() == nil
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

// typedText returns the text send-keys types for keys: keys itself when
// literal or when it is not a key name, else nothing.
func typedText(keys string, literal bool) string {
	if !literal && isKeyName(keys) {
		return ""
	}
	return keys
}

// longEcho is the length from which a typed line is taken to be echoed
// wherever a line ends with it: a program seldom prints a whole command
// line. Shorter typed lines ("y") are skipped once only.
const longEcho = 8

// echoFilter tells the pane's echo of typed input from what a program
// printed. A line is the echo of a typed line when, blanks at its end
// trimmed, it ends with that typed line: a shell echoes the prompt, then
// what was typed. Typed lines are looked for in order; a long typed line
// seen again later (typed ahead, then echoed again by the shell's line
// editor when it read it) is skipped again.
type echoFilter struct {
	pending []string // typed lines not yet seen echoed
	echoed  []string // long typed lines seen echoed
	skipped int      // lines taken for echo
}

func newEchoFilter(typed []string) *echoFilter {
	e := &echoFilter{}
	for _, t := range typed {
		if t = strings.TrimSpace(t); t != "" {
			e.pending = append(e.pending, t)
		}
	}
	return e
}

// line reports whether the completed line l is echo.
func (e *echoFilter) line(l string) bool {
	if e == nil {
		return false
	}
	l = strings.TrimRight(l, " \t")
	if len(e.pending) > 0 && strings.HasSuffix(l, e.pending[0]) {
		if len([]rune(e.pending[0])) >= longEcho {
			e.echoed = append(e.echoed, e.pending[0])
		}
		e.pending = e.pending[1:]
		e.skipped++
		return true
	}
	for _, t := range e.echoed {
		if strings.HasSuffix(l, t) {
			e.skipped++
			return true
		}
	}
	return false
}

// partial reports whether the unfinished line l may be echo still being
// written: it ends with the start of the next typed line (or with a long
// typed line already echoed), so its end is not yet known.
func (e *echoFilter) partial(l string) bool {
	if e == nil {
		return false
	}
	l = strings.TrimRight(l, " \t")
	if len(e.pending) > 0 {
		t := e.pending[0]
		for k := min(len(t), len(l)); k >= 1; k-- {
			if strings.HasSuffix(l, t[:k]) {
				return true
			}
		}
	}
	for _, t := range e.echoed {
		for k := min(len(t), len(l)); k >= longEcho; k-- {
			if strings.HasSuffix(l, t[:k]) {
				return true
			}
		}
	}
	return false
}

// lastEcho returns the index of the last of rows that is the echo of the
// last typed line, or -1.
func lastEcho(rows []string, typed []string) int {
	var last string
	for _, t := range typed {
		if t = strings.TrimSpace(t); t != "" {
			last = t
		}
	}
	if last == "" {
		return -1
	}
	for i := len(rows) - 1; i >= 0; i-- {
		if strings.HasSuffix(strings.TrimRight(rows[i], " \t"), last) {
			return i
		}
	}
	return -1
}

// outputText is a pane's output as lines a person reads, with the echo of
// typed input taken out.
type outputText struct {
	text lineReader
	echo *echoFilter // nil: nothing to take out
}

// write consumes b and returns the completed lines that are not echo, and
// the line still being written ("" when it is empty or may be echo).
func (o *outputText) write(b []byte) (lines []string, partial string) {
	o.text.write(b)
	for _, l := range o.text.take() {
		if !o.echo.line(l) {
			lines = append(lines, l)
		}
	}
	if p := o.text.line(); !o.echo.partial(p) {
		partial = p
	}
	return lines, partial
}
