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
	"strings"
	"unicode/utf8"
)

// Table holds the keys of the copy-mode and copy-mode-vi tables bound to a
// command that waits for a prompt in the pane.
type Table struct {
	emacs, vi map[string]bool
}

// Parse reads the two tables as list-keys -F '#{key_string} #{key_command}'
// prints them, one binding a line.
func Parse(emacs, vi []string) *Table {
	return &Table{emacs: waiting(emacs), vi: waiting(vi)}
}

func waiting(lines []string) map[string]bool {
	keys := map[string]bool{}
	for _, l := range lines {
		key, command, ok := strings.Cut(l, " ")
		if ok && Waits(command) {
			keys[key] = true
		}
	}
	return keys
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
