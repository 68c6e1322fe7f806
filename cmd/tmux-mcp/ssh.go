package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// newHost returns the host --ssh names, or nil for this machine.
func newHost(cfg *config) (session.Host, error) {
	if cfg.ssh == nil {
		return nil, nil
	}
	return session.NewSSH(&session.SSHOptions{Args: cfg.ssh, Env: cfg.env})
}

// parseSSH reads --ssh or LIBTMUX_SSH: empty means this machine. Errors
// wrap errUsage.
func (c *config) parseSSH(spec string) error {
	if strings.TrimSpace(spec) == "" {
		return nil
	}
	words, err := splitWords(spec)
	if err == nil && (len(words) == 0 || words[len(words)-1] == "" || strings.HasPrefix(words[len(words)-1], "-")) {
		err = errors.New("the destination must come last, after any ssh options")
	}
	if err != nil {
		return fmt.Errorf("%w: --ssh / LIBTMUX_SSH %q: %v", errUsage, spec, err)
	}
	c.ssh = words
	return nil
}

// splitWords splits s into words as a POSIX shell does, without expanding
// anything: blanks separate words; single quotes keep everything up to the
// next one; double quotes keep everything but a backslash before $, `, ",
// \ or a newline; a backslash outside quotes keeps the next character. It
// is how --ssh and LIBTMUX_SSH are read.
func splitWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("unterminated single quote")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("unterminated double quote")
			}
			inWord = true
		case c == '\\':
			if i+1 == len(s) {
				return nil, errors.New("a backslash at the end")
			}
			i++
			if s[i] != '\n' {
				w.WriteByte(s[i])
			}
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}
