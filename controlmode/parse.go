package controlmode

import (
	"strconv"
	"strings"
)

// parser turns control-mode lines into reply blocks and notifications. It
// is a small state machine owned by the reader goroutine.
//
// Inside a block every line is body, even one that begins with '%': command
// output is not escaped, so a pane can show "%end 1 2 1". A block closes only
// on a %end or %error whose three fields equal those of its %begin.
type parser struct {
	open  bool
	guard string // " TIME NUMBER FLAGS" of the open block
	hook  bool   // the open block has flags 0: not a reply to a call
	body  []string
}

type eventKind int

const (
	evNone  eventKind = iota // a line absorbed into an open block
	evReply                  // a flags-1 block closed: the next reply
	evNote                   // a notification, stray line or hook block
)

type event struct {
	kind   eventKind
	lines  []string // evReply: the block's body
	failed bool     // evReply: the block ended with %error
	note   Notification
}

// line consumes one line without its terminating '\n'. The parser keeps no
// reference to b.
func (p *parser) line(b []byte) event {
	if p.open {
		if len(b) > 0 && b[0] == '%' {
			if failed, ok := p.closes(b); ok {
				body := p.body
				p.open, p.body = false, nil
				if p.hook {
					return event{kind: evNote, note: HookOutput{Lines: body, Error: failed}}
				}
				return event{kind: evReply, lines: body, failed: failed}
			}
		}
		p.body = append(p.body, string(b))
		return event{kind: evNone}
	}
	s := string(b)
	if rest, ok := strings.CutPrefix(s, "%begin "); ok {
		flags, ok := parseGuard(rest)
		if !ok {
			return note(Unknown{Line: s, Err: ProtocolError("malformed %begin guard")})
		}
		p.open, p.guard, p.hook, p.body = true, " "+rest, flags&1 == 0, nil
		return event{kind: evNone}
	}
	if len(s) == 0 || s[0] != '%' {
		return note(Stray{Line: s})
	}
	return note(parseNotification(s))
}

func note(n Notification) event { return event{kind: evNote, note: n} }

// closes reports whether b is the end guard of the open block, and whether
// that guard is %error.
func (p *parser) closes(b []byte) (failed, ok bool) {
	switch {
	case len(b) == len("%end")+len(p.guard) && string(b[:4]) == "%end":
		return false, string(b[4:]) == p.guard
	case len(b) == len("%error")+len(p.guard) && string(b[:6]) == "%error":
		return true, string(b[6:]) == p.guard
	}
	return false, false
}

// parseGuard checks "TIME NUMBER FLAGS" and returns FLAGS.
func parseGuard(s string) (flags uint64, ok bool) {
	f := strings.Split(s, " ")
	if len(f) != 3 {
		return 0, false
	}
	for _, x := range f[:2] {
		if _, err := strconv.ParseUint(x, 10, 64); err != nil {
			return 0, false
		}
	}
	flags, err := strconv.ParseUint(f[2], 10, 64)
	return flags, err == nil
}

func parseNotification(s string) Notification {
	name, rest, _ := strings.Cut(s, " ")
	bad := func(why string) Notification { return Unknown{Line: s, Err: ProtocolError(why)} }
	switch name {
	case "%output":
		pane, data, ok := strings.Cut(rest, " ")
		if !ok || !isID(pane, '%') {
			return bad("malformed %output")
		}
		return Output{Pane: pane, Data: unescapeOutput(data)}
	case "%extended-output":
		pane, tail, ok := strings.Cut(rest, " ")
		if !ok || !isID(pane, '%') {
			return bad("malformed %extended-output")
		}
		meta, data, ok := strings.Cut(tail, " : ")
		if !ok {
			// An empty payload leaves "AGE :" with nothing after the colon.
			meta, ok = strings.CutSuffix(tail, " :")
			if !ok {
				return bad("malformed %extended-output")
			}
		}
		age, _, _ := strings.Cut(meta, " ")
		ms, err := strconv.ParseInt(age, 10, 64)
		if err != nil {
			return bad("malformed %extended-output age")
		}
		return Output{Pane: pane, Data: unescapeOutput(data), Extended: true, AgeMS: ms}
	case "%pause", "%continue", "%pane-mode-changed":
		if !isID(rest, '%') {
			return bad("malformed " + name)
		}
		switch name {
		case "%pause":
			return Pause{Pane: rest}
		case "%continue":
			return Continue{Pane: rest}
		}
		return PaneModeChanged{Pane: rest}
	case "%layout-change":
		f := strings.SplitN(rest, " ", 4)
		if !isID(f[0], '@') || len(f) < 2 {
			return bad("malformed %layout-change")
		}
		for len(f) < 4 {
			f = append(f, "")
		}
		return LayoutChange{Window: f[0], Layout: f[1], VisibleLayout: f[2], Flags: f[3]}
	case "%window-add", "%unlinked-window-add", "%window-close", "%unlinked-window-close":
		if !isID(rest, '@') {
			return bad("malformed " + name)
		}
		unlinked := strings.HasPrefix(name, "%unlinked-")
		if strings.HasSuffix(name, "-add") {
			return WindowAdd{Window: rest, Unlinked: unlinked}
		}
		return WindowClose{Window: rest, Unlinked: unlinked}
	case "%window-renamed", "%unlinked-window-renamed":
		w, n, _ := strings.Cut(rest, " ")
		if !isID(w, '@') {
			return bad("malformed " + name)
		}
		return WindowRenamed{Window: w, Name: n, Unlinked: name[1] == 'u'}
	case "%window-pane-changed":
		w, p, _ := strings.Cut(rest, " ")
		if !isID(w, '@') || !isID(p, '%') {
			return bad("malformed %window-pane-changed")
		}
		return WindowPaneChanged{Window: w, Pane: p}
	case "%session-changed", "%session-renamed":
		id, n, _ := strings.Cut(rest, " ")
		if !isID(id, '$') {
			return bad("malformed " + name)
		}
		if name == "%session-changed" {
			return SessionChanged{Session: id, Name: n}
		}
		return SessionRenamed{Session: id, Name: n}
	case "%client-session-changed":
		f := strings.SplitN(rest, " ", 3)
		if len(f) < 2 || !isID(f[1], '$') {
			return bad("malformed %client-session-changed")
		}
		n := ""
		if len(f) == 3 {
			n = f[2]
		}
		return ClientSessionChanged{Client: f[0], Session: f[1], Name: n}
	case "%client-detached":
		return ClientDetached{Client: rest}
	case "%sessions-changed":
		return SessionsChanged{}
	case "%session-window-changed":
		sid, w, _ := strings.Cut(rest, " ")
		if !isID(sid, '$') || !isID(w, '@') {
			return bad("malformed %session-window-changed")
		}
		return SessionWindowChanged{Session: sid, Window: w}
	case "%subscription-changed":
		meta, value, ok := strings.Cut(rest, " : ")
		if !ok {
			meta, ok = strings.CutSuffix(rest, " :")
		}
		f := strings.Fields(meta)
		if !ok || len(f) < 5 {
			return bad("malformed %subscription-changed")
		}
		return SubscriptionChanged{Name: f[0], Session: f[1], Window: f[2], WindowIndex: f[3], Pane: f[4], Value: value}
	case "%paste-buffer-changed", "%paste-buffer-deleted":
		return PasteBufferChanged{Name: rest, Deleted: name == "%paste-buffer-deleted"}
	case "%message":
		return Message{Text: unvisMessage(rest)}
	case "%config-error":
		return ConfigError{Text: rest}
	case "%exit":
		return Exit{Reason: rest}
	case "%end", "%error":
		return bad(name + " outside a block")
	}
	return Unknown{Line: s}
}

// isID reports whether s is sigil followed by decimal digits.
func isID(s string, sigil byte) bool {
	if len(s) < 2 || s[0] != sigil {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isOctal(c byte) bool { return '0' <= c && c <= '7' }

// unescapeOutput decodes %output data: tmux writes bytes below 0x20 and the
// backslash as \ooo and every other byte as it is.
func unescapeOutput(s string) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
			i += 3
			continue
		}
		out = append(out, c)
	}
	return out
}

// unvisMessage decodes %message text, which tmux vis-encodes; text that is
// not valid vis is kept as it came.
func unvisMessage(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	if b, ok := Unvis(s); ok {
		return string(b)
	}
	return s
}
