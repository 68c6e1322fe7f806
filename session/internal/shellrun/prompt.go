package shellrun

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// CursorRow returns the text of the screen's cursor row left of the
// cursor. capture-pane drops trailing spaces: they are put back.
func CursorRow(screen []string, at Screen) string {
	if at.CursorY < 0 || at.CursorY >= len(screen) {
		return ""
	}
	r := []rune(screen[at.CursorY])
	if len(r) >= at.CursorX {
		return string(r[:at.CursorX])
	}
	return string(r) + strings.Repeat(" ", at.CursorX-len(r))
}

// PendingInput reports whether the shell's input line holds text, and
// which: row is the cursor's row left of the cursor, last the prompt this
// pane's shell was last seen to draw ("" if never). Against a known prompt
// the text after it is the input. Otherwise a prompt is taken to end with a
// space or a prompt character, so a row ending in anything else holds text
// typed after the prompt (the whole row is then given, as the prompt cannot
// be told from it).
func PendingInput(row, last string) (string, bool) {
	if last != "" && strings.HasPrefix(row, last) {
		typed := row[len(last):]
		return typed, strings.TrimSpace(typed) != ""
	}
	trimmed := strings.TrimRight(row, " ")
	if trimmed == "" || trimmed != row {
		return "", false
	}
	r, _ := utf8.DecodeLastRuneInString(row)
	if strings.ContainsRune(promptEnds, r) {
		return "", false
	}
	return row, true
}

// promptEnds are characters a prompt may end with when it ends without a
// space.
const promptEnds = "$#%>:)]❯»λ→›"

// zshContinuation matches zsh's continuation prompts ("%_> "): "quote> ",
// "dquote> ", "for dquote> ", "heredoc> ", made of the words of zsh's
// parser states only, so that a prompt such as "dev> " is not one.
var zshContinuation = regexp.MustCompile(`^((` + zshStates + `) )*(` + zshStates + `)> $`)

const zshStates = `for|foreach|select|while|until|repeat|if|then|else|elif|case|function|subsh|cursh|` +
	`array|quote|dquote|bquote|cmdsubst|mathsubst|math|heredoc|heredocd|brace|braceparam|always|cmdand|cmdor|pipe|errpipe`

// IsContinuation reports whether row, the text left of the cursor, is a
// continuation prompt: zsh's, or the "> " of sh and bash in a pane whose
// prompt was seen to be something else (last; "" if never seen). After a
// command was typed and did not start (typed), any "...> " is taken for
// one: the shell is waiting, and a wrong guess only words the error.
// Before typing a wrong guess would refuse a pane that is fine.
func IsContinuation(row, last string, typed bool) bool {
	switch {
	case zshContinuation.MatchString(row):
		return true
	case typed:
		return looseContinuation.MatchString(row)
	}
	return row == "> " && last != "" && last != row
}

// looseContinuation matches "> " (sh, bash) and "quote> ", "dquote> ",
// "for dquote> " (zsh's "%_> "), and also prompts such as "dev> ".
var looseContinuation = regexp.MustCompile(`^[a-z> ]*> ?$`)

// SamePrompt reports whether row, the cursor's row left of the cursor,
// is the shell's prompt drawn again: prompt itself, or a row that ends as
// a prompt does (a space or a prompt character, nothing typed after) and
// begins as prompt does, for at least half of it. Shells put the last
// status or the time in their prompts (fish: "user@host /dir [SIGINT]# "
// after "user@host /dir# "), so the whole text need not repeat; a
// program's own question ("Name: ") shares no such beginning.
func SamePrompt(row, prompt string) bool {
	if row == prompt {
		return row != ""
	}
	if strings.TrimSpace(row) == "" || strings.TrimSpace(prompt) == "" {
		return false
	}
	if _, typed := PendingInput(row, ""); typed {
		return false
	}
	r, p := []rune(row), []rune(strings.TrimRight(prompt, " "))
	n := 0
	for n < len(r) && n < len(p) && r[n] == p[n] {
		n++
	}
	return n >= 2 && 2*n >= len(p)
}
