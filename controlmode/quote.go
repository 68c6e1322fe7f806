package controlmode

import (
	"strings"
)

// Quote returns s as one token of tmux's command language that tmux reads
// back as exactly s: it is single-quoted, with ' written as '\” and every
// control byte written as a double-quoted octal escape, so no LF, CR or other
// control byte ever reaches the wire. Quote fails only for text containing a
// NUL byte, which tmux cannot represent.
//
// Quote does not guard against a leading '-': text that is not the value of
// a flag belongs after "--", which [Command.Text] writes.
func Quote(s string) (string, error) {
	var b strings.Builder
	if err := appendQuoted(&b, s); err != nil {
		return "", err
	}
	return b.String(), nil
}

// bareSafe reports whether s can be written without quotes: tmux's lexer
// gives these bytes no meaning (no $ or ~ expansion, no comment, no braces,
// no separators). A bare word that starts with % is a token only if it is
// all % and digits (a pane id); any other (%1:on) is read as a condition
// such as %if, and the line is a syntax error.
func bareSafe(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '%' && strings.Trim(s, "%0123456789") != "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '_' || c == '-' || c == '%' || c == '@' || c == ':' || c == '.' || c == ',' || c == '/' || c == '+':
		default:
			return false
		}
	}
	return true
}

func appendQuoted(b *strings.Builder, s string) error {
	if bareSafe(s) {
		b.WriteString(s)
		return nil
	}
	if strings.IndexByte(s, 0) >= 0 {
		return invalidf("argument contains a NUL byte")
	}
	if s == "" {
		b.WriteString("''")
		return nil
	}
	// Adjacent quoted strings join into one token, so the text is a run of
	// single-quoted spans broken by escapes for the bytes that cannot stand
	// inside single quotes.
	open := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			if open {
				b.WriteByte('\'')
				open = false
			}
			b.WriteString(`\'`)
		case c < 0x20 || c == 0x7f:
			if open {
				b.WriteByte('\'')
				open = false
			}
			b.WriteString(`"\`)
			b.WriteByte('0' + c>>6)
			b.WriteByte('0' + (c>>3)&7)
			b.WriteByte('0' + c&7)
			b.WriteByte('"')
		default:
			if !open {
				b.WriteByte('\'')
				open = true
			}
			b.WriteByte(c)
		}
	}
	if open {
		b.WriteByte('\'')
	}
	return nil
}

// Command is one tmux command with its arguments already quoted. The zero
// value is not a command; build one with [NewCommand]. A Command that could
// not be built carries its error, and [Conn.Exec] refuses it before writing
// anything.
type Command struct {
	name string
	text string
	err  error
	// positional is set once "--" was written: no flag may follow.
	positional bool
}

// NewCommand returns the command name with args as its flags and flag
// values, each quoted with [Quote]. The name must be a tmux command name
// (lower-case letters and '-').
func NewCommand(name string, args ...string) Command {
	c := Command{name: name}
	if !validName(name) {
		c.err = invalidf("bad command name %q", name)
		return c
	}
	var b strings.Builder
	b.WriteString(name)
	c.text = b.String()
	return c.Args(args...)
}

func validName(name string) bool {
	if name == "" || name[0] == '-' {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; (c < 'a' || c > 'z') && c != '-' {
			return false
		}
	}
	return true
}

// Args returns c with args appended as flags or flag values.
func (c Command) Args(args ...string) Command {
	if c.err != nil || len(args) == 0 {
		return c
	}
	if c.positional {
		c.err = invalidf("%s: flag after positional text", c.name)
		return c
	}
	return c.append(args)
}

// Text returns c with args appended as positional arguments, after a "--"
// so that text beginning with '-' is never taken for a flag. It may be
// called once.
func (c Command) Text(args ...string) Command {
	if c.err != nil {
		return c
	}
	if c.positional {
		c.err = invalidf("%s: Text called twice", c.name)
		return c
	}
	c.positional = true
	c.text += " --"
	return c.append(args)
}

func (c Command) append(args []string) Command {
	var b strings.Builder
	b.WriteString(c.text)
	for _, a := range args {
		b.WriteByte(' ')
		if err := appendQuoted(&b, a); err != nil {
			c.err = err
			return c
		}
	}
	c.text = b.String()
	return c
}

// Name returns the command's name.
func (c Command) Name() string { return c.name }

// String returns the command as it is written to tmux.
func (c Command) String() string { return c.text }

// Err returns the error that stops the command from being sent, if any.
func (c Command) Err() error {
	if c.err == nil && c.name == "" {
		return invalidf("empty command")
	}
	return c.err
}
