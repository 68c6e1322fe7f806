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

// parseNotification reads a notification line outside a reply block.
func parseNotification(s string) Notification {
	name, rest, _ := strings.Cut(s, " ")
	if name == "%end" || name == "%error" {
		return Unknown{Line: s, Err: ProtocolError(name + " outside a block")}
	}
	parse, known := notifications[name]
	if !known {
		return Unknown{Line: s}
	}
	n, why := parse(rest)
	if n == nil {
		if why == "" {
			why = "malformed " + name
		}
		return Unknown{Line: s, Err: ProtocolError(why)}
	}
	return n
}

// noteParser reads what follows a notification's name. It returns nil for
// a malformed line, with why when "malformed NAME" does not say it.
type noteParser func(rest string) (n Notification, why string)

// notifications are the parsers of the notifications tmux sends, by name.
var notifications = map[string]noteParser{
	"%output":                parseOutput,
	"%extended-output":       parseExtendedOutput,
	"%pause":                 onID('%', func(p string) Notification { return Pause{Pane: p} }),
	"%continue":              onID('%', func(p string) Notification { return Continue{Pane: p} }),
	"%pane-mode-changed":     onID('%', func(p string) Notification { return PaneModeChanged{Pane: p} }),
	"%layout-change":         parseLayoutChange,
	"%window-add":            onID('@', func(w string) Notification { return WindowAdd{Window: w} }),
	"%unlinked-window-add":   onID('@', func(w string) Notification { return WindowAdd{Window: w, Unlinked: true} }),
	"%window-close":          onID('@', func(w string) Notification { return WindowClose{Window: w} }),
	"%unlinked-window-close": onID('@', func(w string) Notification { return WindowClose{Window: w, Unlinked: true} }),
	"%window-renamed":        onIDAnd('@', func(w, n string) Notification { return WindowRenamed{Window: w, Name: n} }),
	"%unlinked-window-renamed": onIDAnd('@', func(w, n string) Notification {
		return WindowRenamed{Window: w, Name: n, Unlinked: true}
	}),
	"%window-pane-changed": onIDAnd('@', func(w, p string) Notification {
		if !isID(p, '%') {
			return nil
		}
		return WindowPaneChanged{Window: w, Pane: p}
	}),
	"%session-changed":        onIDAnd('$', func(id, n string) Notification { return SessionChanged{Session: id, Name: n} }),
	"%session-renamed":        onIDAnd('$', func(id, n string) Notification { return SessionRenamed{Session: id, Name: n} }),
	"%client-session-changed": parseClientSessionChanged,
	"%client-detached":        always(func(c string) Notification { return ClientDetached{Client: c} }),
	"%sessions-changed":       always(func(string) Notification { return SessionsChanged{} }),
	"%session-window-changed": onIDAnd('$', func(id, w string) Notification {
		if !isID(w, '@') {
			return nil
		}
		return SessionWindowChanged{Session: id, Window: w}
	}),
	"%subscription-changed": parseSubscriptionChanged,
	"%paste-buffer-changed": always(func(b string) Notification { return PasteBufferChanged{Name: b} }),
	"%paste-buffer-deleted": always(func(b string) Notification { return PasteBufferChanged{Name: b, Deleted: true} }),
	"%message":              always(func(m string) Notification { return Message{Text: unvisMessage(m)} }),
	"%config-error":         always(func(e string) Notification { return ConfigError{Text: e} }),
	"%exit":                 always(func(r string) Notification { return Exit{Reason: r} }),
}

// always is a parser of a notification whose rest cannot be malformed.
func always(f func(rest string) Notification) noteParser {
	return func(rest string) (Notification, string) { return f(rest), "" }
}

// onID is a parser of a notification whose rest is one id with sigil.
func onID(sigil byte, f func(id string) Notification) noteParser {
	return func(rest string) (Notification, string) {
		if !isID(rest, sigil) {
			return nil, ""
		}
		return f(rest), ""
	}
}

// onIDAnd is a parser of a notification whose rest is an id with sigil,
// then a space and the rest (which f may still find malformed: nil).
func onIDAnd(sigil byte, f func(id, rest string) Notification) noteParser {
	return func(rest string) (Notification, string) {
		id, more, _ := strings.Cut(rest, " ")
		if !isID(id, sigil) {
			return nil, ""
		}
		return f(id, more), ""
	}
}

func parseOutput(rest string) (Notification, string) {
	pane, data, ok := strings.Cut(rest, " ")
	if !ok || !isID(pane, '%') {
		return nil, ""
	}
	return Output{Pane: pane, Data: unescapeOutput(data)}, ""
}

// parseExtendedOutput reads "%PANE AGE ... : DATA".
func parseExtendedOutput(rest string) (Notification, string) {
	pane, tail, ok := strings.Cut(rest, " ")
	if !ok || !isID(pane, '%') {
		return nil, ""
	}
	meta, data, ok := strings.Cut(tail, " : ")
	if !ok {
		// An empty payload leaves "AGE :" with nothing after the colon.
		meta, ok = strings.CutSuffix(tail, " :")
		if !ok {
			return nil, ""
		}
	}
	age, _, _ := strings.Cut(meta, " ")
	ms, err := strconv.ParseInt(age, 10, 64)
	if err != nil {
		return nil, "malformed %extended-output age"
	}
	return Output{Pane: pane, Data: unescapeOutput(data), Extended: true, AgeMS: ms}, ""
}

// parseLayoutChange reads "@WINDOW LAYOUT [VISIBLE-LAYOUT [FLAGS]]".
func parseLayoutChange(rest string) (Notification, string) {
	f := strings.SplitN(rest, " ", 4)
	if !isID(f[0], '@') || len(f) < 2 {
		return nil, ""
	}
	for len(f) < 4 {
		f = append(f, "")
	}
	return LayoutChange{Window: f[0], Layout: f[1], VisibleLayout: f[2], Flags: f[3]}, ""
}

// parseClientSessionChanged reads "CLIENT $SESSION [NAME]".
func parseClientSessionChanged(rest string) (Notification, string) {
	f := strings.SplitN(rest, " ", 3)
	if len(f) < 2 || !isID(f[1], '$') {
		return nil, ""
	}
	n := ""
	if len(f) == 3 {
		n = f[2]
	}
	return ClientSessionChanged{Client: f[0], Session: f[1], Name: n}, ""
}

// parseSubscriptionChanged reads "NAME $S @W INDEX %P ... : VALUE".
func parseSubscriptionChanged(rest string) (Notification, string) {
	meta, value, ok := strings.Cut(rest, " : ")
	if !ok {
		meta, ok = strings.CutSuffix(rest, " :")
	}
	f := strings.Fields(meta)
	if !ok || len(f) < 5 {
		return nil, ""
	}
	return SubscriptionChanged{Name: f[0], Session: f[1], Window: f[2], WindowIndex: f[3], Pane: f[4], Value: value}, ""
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
