// Package release answers what one tmux release does that command builders
// and parsers must know. A Server reads its tmux server's version once per
// connection and asks its [Facts]; every difference between the releases we
// support (3.2a to 3.8) is answered here, and nowhere else.
//
// The facts, from each release's source (cmd-queue.c, server-client.c,
// utf8.c, session.c, cmd-paste-buffer.c, cmd-save-buffer.c, resize.c):
//
//   - What a command prints (cmdq_print: show-options, show-environment,
//     show-hooks, display-message -p, list-* -F) reaches a control client
//     raw in 3.2, 3.3 and from 3.6, but vis-encoded in 3.4 and 3.5
//     (VIS_OCTAL|VIS_CSTYLE|VIS_NOSLASH: control bytes as \ooo or \r, tab
//     and newline as they are, backslashes not doubled), and in 3.4 a $
//     before a letter, _ or { gains a backslash as well.
//   - show-buffer prints vis-encoded content up to 3.3, raw from 3.4.
//   - paste-buffer turns control characters into ^X text from 3.7 unless
//     given -S, which 3.7 adds.
//   - 3.7 refuses names (sessions, windows, buffers) that are not valid
//     printable UTF-8; older releases store them vis-encoded.
//   - Up to 3.4 a session name's "$x" is stored as "\$x".
//   - 3.4 expands a format in capture-pane's -S and -E.
//   - 3.5 adds the mirrored layouts.
//   - From 3.8 copy mode's bindings open their prompts in the pane, and a
//     key bound to one holds the client that sent it (session/modes.go).
//   - 3.8 keeps when a pane last printed (pane_last_output_time), which a
//     quiet wait uses for a pane no client of ours followed.
//   - 3.8 records the OSC 133 marks a shell prints (input.c
//     input_osc_133): whether a command runs, the exit status its D mark
//     carried, when it started and ended, when the prompt was last drawn
//     (session/internal/engine/marks.go). 3.4 to 3.7 keep only A and C as line
//     flags; 3.2 and 3.3 drop the sequence.
//   - In 3.2, new-session -x/-y do not size the window while window-size is
//     "latest": the window takes the size of the client that ran the
//     command, less its status line.
//   - In 3.2, delete-buffer of a missing buffer succeeds silently.
//   - In 3.2, capture-pane -J pads every line with spaces to the pane's
//     width; later releases stop at the last cell written.
//
// What crashes which release, and what keeps it from happening, is the
// table in crash.go.
//
// Three differences are not answered here: %config-error (3.4 and later)
// is parsed on every release and changes nothing in the model; the
// no-detach-on-destroy client flag (3.6 and later) is not used, because the
// version is known only after our client has attached, and on every
// release a client of ours leaves a session before it is killed; and
// command-prompt -b (3.3 and later, where the wait it avoids came in) is
// tried and dropped on refusal by holdPrompt (session/modes.go), which runs before
// the version is read.
package release

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/errs"
)

// Facts are one release's, read from its #{version} by [Of].
type Facts struct {
	version      string // as #{version} prints it: "3.3a", "next-3.6", "master"
	major, minor int    // 0.0 when the version could not be read
}

// Of reads a #{version} string. A version it cannot read ("master",
// a fork's name) is taken as a development build, so as the newest.
func Of(version string) Facts {
	r := Facts{version: version}
	v := strings.TrimPrefix(version, "next-")
	maj, rest, ok := strings.Cut(v, ".")
	a, err := strconv.Atoi(maj)
	if !ok || err != nil {
		r.major, r.minor = 1<<20, 0
		return r
	}
	n := 0
	for n < len(rest) && '0' <= rest[n] && rest[n] <= '9' {
		n++
	}
	b, err := strconv.Atoi(rest[:n])
	if err != nil {
		r.major, r.minor = 1<<20, 0
		return r
	}
	r.major, r.minor = a, b
	return r
}

// AtLeast reports whether the release is major.minor or later.
func (r Facts) AtLeast(major, minor int) bool {
	return r.major > major || r.major == major && r.minor >= minor
}

// PrintEncoded reports whether what commands print reaches us vis-encoded.
func (r Facts) PrintEncoded() bool { return r.AtLeast(3, 4) && !r.AtLeast(3, 6) }

// PrintEscapesDollar reports whether the print encoding also puts a
// backslash before a $ that starts a name.
func (r Facts) PrintEscapesDollar() bool { return r.AtLeast(3, 4) && !r.AtLeast(3, 5) }

// ShowBufferEncoded reports whether show-buffer prints content vis-encoded.
func (r Facts) ShowBufferEncoded() bool { return !r.AtLeast(3, 4) }

// PasteFlags are the flags that make paste-buffer deliver a buffer's bytes
// unchanged.
func (r Facts) PasteFlags() []string {
	if r.AtLeast(3, 7) {
		return []string{"-S"}
	}
	return nil
}

// RefusesUnprintableNames reports whether tmux refuses session, window and
// buffer names that hold control characters or invalid UTF-8.
func (r Facts) RefusesUnprintableNames() bool { return r.AtLeast(3, 7) }

// PrintableName reports whether tmux 3.7 accepts name: valid UTF-8 with no
// ASCII control character or DEL (utf8_isvalid).
func PrintableName(name string) bool {
	if !utf8.ValidString(name) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] == 0x7f {
			return false
		}
	}
	return true
}

// CheckName refuses a name that the release would refuse, with the reason,
// so that nothing is sent; what is "a session", "a window" or "a buffer".
func (r Facts) CheckName(what, name string) error {
	if !r.RefusesUnprintableNames() || PrintableName(name) {
		return nil
	}
	return errs.Errorf(errs.KindInvalid,
		"tmux %s refuses %s name holding control characters or invalid UTF-8: %q", r.version, what, name)
}

// BindsPanePrompts reports whether copy mode's default bindings open their
// prompts in the pane (command-prompt -P), where a prompt waits for a
// person whatever prompt the client holds: from 3.8 (see modes.go).
func (r Facts) BindsPanePrompts() bool { return r.AtLeast(3, 8) }

// ExpandsRepeatCount reports whether send-keys expands formats in its -N
// repeat count, which lets tmux itself refuse keys for a pane in a mode
// when they arrive (#{?pane_in_mode,0,1}): from 3.4. Before, the pane's
// mode is looked at in a round trip of its own first.
func (r Facts) ExpandsRepeatCount() bool { return r.AtLeast(3, 4) }

// KnowsLastOutput reports whether tmux keeps when a pane last printed
// (#{pane_last_output_time}, whole seconds): from 3.8.
func (r Facts) KnowsLastOutput() bool { return r.AtLeast(3, 8) }

// RecordsCommandMarks reports whether tmux records a shell's OSC 133
// marks per pane (#{pane_command_running}, #{pane_command_status} and
// their times): from 3.8.
func (r Facts) RecordsCommandMarks() bool { return r.AtLeast(3, 8) }

// ExpandsCaptureRange reports whether capture-pane expands a format in
// -S and -E, evaluated as the capture runs.
func (r Facts) ExpandsCaptureRange() bool { return r.AtLeast(3, 4) }

// HasMirroredLayouts reports whether main-*-mirrored layouts exist.
func (r Facts) HasMirroredLayouts() bool { return r.AtLeast(3, 5) }

// NewSessionIgnoresSize reports whether new-session's -x and -y are lost
// on a window that follows its clients' size, so the size must be set
// with resize-window after.
func (r Facts) NewSessionIgnoresSize() bool { return !r.AtLeast(3, 3) }

// LosesDeadStatus reports whether tmux may never learn the exit status of
// a remain-on-exit pane's program: 3.3a, now and then, leaves such a pane
// dead with no status and no time of death, for good. RunCommand then
// answers that the shell exited, its status unknown.
func (r Facts) LosesDeadStatus() bool { return r.AtLeast(3, 3) && !r.AtLeast(3, 4) }

// DeletesMissingBuffers reports whether delete-buffer of a buffer that does
// not exist succeeds, so a missing buffer must be looked for first.
func (r Facts) DeletesMissingBuffers() bool { return !r.AtLeast(3, 3) }

// Normalize makes the replies rs to cmds read the same on every release:
// on 3.2 the padding of joined captures is trimmed (which also trims
// spaces a program printed at the end of a line, as 3.2 cannot tell them
// apart).
func (r Facts) Normalize(cmds []controlmode.Command, rs []controlmode.Reply) {
	if r.AtLeast(3, 3) {
		return
	}
	for i, c := range cmds {
		if i >= len(rs) || c.Name() != "capture-pane" || !hasFlag(c, "-J") {
			continue
		}
		for j, line := range rs[i].Lines {
			rs[i].Lines[j] = strings.TrimRight(line, " ")
		}
	}
}

// hasFlag reports whether command c was given flag among its flags.
func hasFlag(c controlmode.Command, flag string) bool {
	for _, w := range strings.Fields(c.String()) {
		if w == "--" {
			return false
		}
		if w == flag || w == "'"+flag+"'" {
			return true
		}
	}
	return false
}

// TextField is the format that prints free-text field name (a name, a
// title, a path) so that [Facts.DecodeText] gives back its exact bytes
// on every release: #{q:} puts a backslash before every backslash and
// shell-special character, so no backslash of the value can be taken for
// one of the print encoding's escapes.
func TextField(name string) string { return "#{q:" + name + "}" }

// DecodeText returns the value of a field printed by [TextField].
func (r Facts) DecodeText(s string) string {
	if r.PrintEscapesDollar() {
		s = undoDollarEscapes(s)
	}
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	out, _ := controlmode.Unvis(s)
	return string(out)
}

// DecodePrinted undoes the print encoding of a line whose text tmux
// escaped itself, with a backslash before each backslash: show-options
// listings and show-hooks (args_escape), show-environment -s. On releases
// that print raw it returns the line unchanged.
func (r Facts) DecodePrinted(s string) string {
	if r.PrintEscapesDollar() {
		return undoDollarEscapes(s)
	}
	return s
}

// DecodeLoose undoes the print encoding of a line of free text that tmux
// did not escape, as display-message -p prints a caller's format. It is
// exact unless the text holds a backslash before a digit or one of a b f
// r v (or, on 3.4, before $): tmux prints those the same as the escapes it
// makes, and they are read as escapes.
func (r Facts) DecodeLoose(s string) string {
	if !r.PrintEncoded() {
		return s
	}
	s = r.DecodePrinted(s)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		d := s[i+1]
		switch {
		case '0' <= d && d <= '7' && i+3 < len(s) && isOctal(s[i+2]) && isOctal(s[i+3]):
			b.WriteByte((d-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
		case strings.IndexByte(looseLetters, d) >= 0:
			b.WriteByte(looseControls[strings.IndexByte(looseLetters, d)])
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// looseLetters are the C-style escapes DecodeLoose reads, standing for
// looseControls: all of vis(3)'s but \t and \n, which tmux prints raw.
const looseLetters, looseControls = "abvfr", "\a\b\v\f\r"

func isOctal(c byte) bool { return '0' <= c && c <= '7' }

// undoDollarEscapes removes the backslash tmux 3.4's print encoding puts
// before a $ that is followed by a letter, _ or {. In text that tmux
// escaped itself every such $ already had a backslash before it, so the
// one to remove is always the one right before the $.
func undoDollarEscapes(s string) string {
	if !strings.Contains(s, `\$`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+2 < len(s) && s[i+1] == '$' && startsName(s[i+2]) {
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func startsName(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || c == '{'
}

// Version is the release as #{version} prints it.
func (r Facts) Version() string { return r.version }
