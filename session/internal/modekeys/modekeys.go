// Package modekeys finds the keys whose copy-mode binding would hold the
// control client that sent them until a person answers, and builds the
// guard that makes tmux refuse such keys, atomically, instead of running
// the binding.
//
// send-keys gives a key for a pane in copy mode or view mode to the mode's
// key table (copy-mode, or copy-mode-vi with mode-keys vi) and runs the
// bound command after send-keys, in the queue of the client that sent it.
// From tmux 3.8 the default bindings of g, f, F, t, T, :, /, ?, the digits
// and M-1 to M-9 open their prompt in the pane (command-prompt -P), and a
// prompt that waits (no -b, no -i) holds that queue until someone types
// into the pane: for a control client, every later command with it. A
// prompt held open by the client does not stop a pane prompt, so the keys
// themselves must not be sent.
//
// Whether the pane is in copy mode, and which table it uses, is decided by
// tmux when the keys arrive, not by us before: the guard is a -N repeat
// count that expands to 0 exactly when the pane is in a copy-table mode
// whose table binds one of the keys to such a prompt. send-keys refuses a
// count of 0 ("repeat count too small"), and tmux drops the rest of the
// line with it, so nothing is sent.
package modekeys

import (
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// Table holds the keys of the copy-mode and copy-mode-vi tables bound to a
// command that waits for a prompt in the pane, and those bound to a
// command that crashes the tmux release read.
type Table struct {
	emacs, vi map[string]bool
	crashing  map[string]bool // in either table
}

// Parse reads the two tables as list-keys -F '#{key_string} #{key_command}'
// prints them, one binding a line.
func Parse(emacs, vi []string) *Table {
	return ParseCrashing(emacs, vi, nil)
}

// ParseCrashing is [Parse] that also finds the keys bound to a command
// (a copy-mode command, as send-keys -X gives it) for which crashes
// reports true; nil finds none.
func ParseCrashing(emacs, vi []string, crashes func(command string) bool) *Table {
	t := &Table{emacs: bound(emacs, Waits), vi: bound(vi, Waits), crashing: map[string]bool{}}
	if crashes != nil {
		runs := func(command string) bool { return slices.ContainsFunc(strings.Fields(command), crashes) }
		maps.Copy(t.crashing, bound(emacs, runs))
		maps.Copy(t.crashing, bound(vi, runs))
	}
	return t
}

// bound returns the keys of lines whose command is.
func bound(lines []string, is func(command string) bool) map[string]bool {
	keys := map[string]bool{}
	for _, l := range lines {
		key, command, ok := strings.Cut(l, " ")
		if ok && is(command) {
			keys[key] = true
		}
	}
	return keys
}

// Crashing returns the keys among keys (as [Keys] gives them) that a
// copy-mode table binds to a command that crashes tmux, each once.
func (t *Table) Crashing(keys []string) []string {
	if t == nil {
		return nil
	}
	var out []string
	for _, k := range keys {
		if t.crashing[k] && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// Waits reports whether a bound command opens a prompt in the pane and
// waits for it to be answered: command-prompt with -P and with neither -b
// (do not wait) nor -i (incremental, which never waits). A command list
// ("a ; b", or a braced body) waits if any of its command-prompts does.
func Waits(command string) bool {
	words := strings.Fields(command)
	for i, w := range words {
		if w != "command-prompt" {
			continue
		}
		flags := promptFlags(words[i+1:])
		if strings.ContainsRune(flags, 'P') && !strings.ContainsAny(flags, "bi") {
			return true
		}
	}
	return false
}

// promptFlags returns the boolean flags of command-prompt's words: letters
// up to the first one that takes a value (-I, -p, -t, -T), whose value is
// the rest of the word or the next word.
func promptFlags(words []string) string {
	var flags strings.Builder
	for i := 0; i < len(words); i++ {
		w := words[i]
		if len(w) < 2 || w[0] != '-' || w == "--" {
			break
		}
		for j := 1; j < len(w); j++ {
			if strings.IndexByte("IptT", w[j]) >= 0 {
				if j == len(w)-1 {
					i++ // the value is the next word
				}
				break
			}
			flags.WriteByte(w[j])
		}
	}
	return flags.String()
}

// copyMode is true, as a tmux format, when the pane is in a mode whose keys
// go to the copy-mode tables: copy mode, or view mode (run-shell output).
const copyMode = "#{||:#{==:#{pane_mode},copy-mode},#{==:#{pane_mode},view-mode}}"

// Guard returns the -N value that makes send-keys refuse keys (tmux key
// names, one a key as [Keys] gives them) while the pane is in a copy-table
// mode that binds one of them to a waiting prompt, and the keys that would
// have opened one, in emacs keys then vi keys. With no such key it returns
// "" and nothing: the keys are sent as they are.
func (t *Table) Guard(keys []string) (count string, waiting []string) {
	if t == nil {
		return "", nil
	}
	var inEmacs, inVi bool
	seen := map[string]bool{}
	for _, k := range keys {
		e, v := t.emacs[k], t.vi[k]
		inEmacs, inVi = inEmacs || e, inVi || v
		if (e || v) && !seen[k] {
			seen[k] = true
			waiting = append(waiting, k)
		}
	}
	var table string
	switch {
	case inEmacs && inVi:
		table = "1"
	case inEmacs:
		table = "#{!=:#{mode-keys},vi}"
	case inVi:
		table = "#{==:#{mode-keys},vi}"
	default:
		return "", nil
	}
	return "#{?#{&&:" + copyMode + "," + table + "},0,1}", waiting
}

// Keys returns the keys send-keys delivers one at a time for arg: arg
// itself when it is a key name (and not literal), else each of its
// characters, named as tmux names them in key tables.
func Keys(arg string, literal, keyName bool) []string {
	if !literal && keyName {
		return []string{arg}
	}
	keys := make([]string, 0, len(arg))
	for len(arg) > 0 {
		r, n := utf8.DecodeRuneInString(arg)
		arg = arg[n:]
		keys = append(keys, runeKey(r))
	}
	return keys
}

// runeKey names the key a typed character is in a key table.
func runeKey(r rune) string {
	switch r {
	case ' ':
		return "Space"
	case '\t':
		return "Tab"
	case '\r':
		return "Enter"
	case 0x1b:
		return "Escape"
	case 0x7f:
		return "BSpace"
	}
	if r < 0x20 {
		return "C-" + string(rune(r+0x60))
	}
	return string(r)
}

// FromListKeys turns lines as list-keys -T TABLE prints them before tmux
// 3.4, which has no -F ("bind-key [-r] -T TABLE KEY COMMAND..."), into
// the "KEY COMMAND" lines [Parse] reads. The key is unescaped as tmux
// escaped it (a backslash before a special character, or quotes).
func FromListKeys(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		w := strings.Fields(l)
		i := 0
		if i < len(w) && w[i] == "bind-key" {
			i++
		}
		for i < len(w) && strings.HasPrefix(w[i], "-") {
			if w[i] == "-T" || w[i] == "-N" {
				i++ // the flag's value
			}
			i++
		}
		if i+1 >= len(w) {
			continue
		}
		out = append(out, unescapeKey(w[i])+" "+strings.Join(w[i+1:], " "))
	}
	return out
}

// unescapeKey undoes args_escape on a key name.
func unescapeKey(k string) string {
	if len(k) >= 2 && (k[0] == '"' || k[0] == '\'') && k[len(k)-1] == k[0] {
		k = k[1 : len(k)-1]
	}
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		if k[i] == '\\' && i+1 < len(k) {
			i++
		}
		b.WriteByte(k[i])
	}
	return b.String()
}
