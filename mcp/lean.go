package mcp

import (
	"math"
	"strings"
	"time"
	"unicode"
)

// What a wait's answer carries of the pane's text is context for an agent,
// which pays for every byte: the lines that matched, and a short tail of
// what was seen. Both leave out what only fills space: padding, blank
// lines, lines with no letter or digit (spinners, rules, box borders), and
// in the tail the lines already given as matched. The pane's text as it is
// stays one capture_pane away.

// Caps of a wait's answer, which keep its default answer under 2 KB.
const (
	leanMatchedLines = 8    // matched lines kept, the first ones
	leanMatchedBytes = 768  // bytes of matched lines, the first always kept
	leanLineBytes    = 256  // bytes kept of one line
	leanTextBytes    = 1280 // bytes of matched lines and tail together
)

// leanLines returns lines without padding, as a person would quote them,
// leaving out those with no letter or digit.
func leanLines(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if !strings.ContainsFunc(l, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			continue
		}
		out = append(out, clip(l, leanLineBytes))
	}
	return out
}

// clip cuts s to at most n bytes, on a character boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// leanWait returns a wait's matched lines and tail as its answer carries
// them: trimmed, the matched lines within leanMatchedBytes, the tail lean
// and without the matched lines, its newest lines kept within what the
// matched lines leave of leanTextBytes.
func leanWait(matched, tail []string) (m, t []string) {
	// A matched line stays whatever it holds: the pattern chose it.
	for _, l := range matched {
		m = append(m, clip(strings.TrimSpace(l), leanLineBytes))
	}
	if len(m) > leanMatchedLines {
		m = m[:leanMatchedLines]
	}
	budget := leanTextBytes
	seen := make(map[string]bool, len(m))
	for i, l := range m {
		if i > 0 && leanTextBytes-budget+len(l) > leanMatchedBytes {
			m = m[:i]
			break
		}
		seen[l] = true
		budget -= len(l) + 4
	}
	var keep []string
	for _, l := range slicesBackward(leanLines(tail)) {
		if seen[l] {
			continue
		}
		if budget -= len(l) + 4; budget < 0 {
			break
		}
		keep = append(keep, l)
	}
	for i, j := 0, len(keep)-1; i < j; i, j = i+1, j-1 {
		keep[i], keep[j] = keep[j], keep[i]
	}
	return m, keep
}

// slicesBackward returns lines newest first.
func slicesBackward(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[len(lines)-1-i] = l
	}
	return out
}

// seconds is d in seconds to the millisecond, as every answer gives times:
// finer digits are noise to an agent and cost it bytes.
func seconds(d time.Duration) float64 {
	return math.Round(d.Seconds()*1000) / 1000
}
