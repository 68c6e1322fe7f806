package paneread

import (
	"fmt"
	"regexp"
	"strings"
)

// Matcher is a compiled pattern list.
type Matcher []func(string) bool

// Compile compiles patterns: regular expressions (RE2) when regex is set,
// else substrings; case-insensitive unless matchCase. An error names the
// bad pattern.
func Compile(patterns []string, regex, matchCase bool) (Matcher, error) {
	m := make(Matcher, 0, len(patterns))
	for _, p := range patterns {
		if regex {
			if !matchCase {
				p = "(?i)" + p
			}
			re, err := regexp.Compile(p)
			if err != nil {
				return nil, fmt.Errorf("bad regular expression %q: %v", p, err)
			}
			m = append(m, re.MatchString)
			continue
		}
		if matchCase {
			m = append(m, func(s string) bool { return strings.Contains(s, p) })
			continue
		}
		lp := strings.ToLower(p)
		m = append(m, func(s string) bool { return strings.Contains(strings.ToLower(s), lp) })
	}
	return m, nil
}

// First returns the index of the first pattern any line matches, and the
// lines that match it; -1 and nil when none does.
func (m Matcher) First(lines []string) (int, []string) {
	for i, f := range m {
		var hit []string
		for _, l := range lines {
			if f(l) {
				hit = append(hit, l)
			}
		}
		if hit != nil {
			return i, hit
		}
	}
	return -1, nil
}

// Tail keeps the last lines seen, within TailLines lines and TailBytes
// bytes (a line and its newline).
type Tail []string

// The bounds of a Tail.
const (
	TailLines = 20
	TailBytes = 2048
)

// Add appends lines, dropping the oldest beyond the bounds.
func (t *Tail) Add(lines ...string) {
	*t = append(*t, lines...)
	if n := len(*t); n > TailLines {
		*t = (*t)[n-TailLines:]
	}
	size := 0
	for i := len(*t) - 1; i >= 0; i-- {
		size += len((*t)[i]) + 1
		if size > TailBytes {
			*t = (*t)[i+1:]
			break
		}
	}
}
