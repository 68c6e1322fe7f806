package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readsProgram reads the terminal a read at a time, uncooked, and prints
// what each read brought ("read:abc", and read:\n for Enter); it prints nothing for x, and
// ends at q.
const readsProgram = `stty -icanon -echo min 1 time 0
echo reading-keys
while :; do
	k=$(dd bs=64 count=1 2>/dev/null | od -An -c | tr -d ' \n')
	case "$k" in *q*) break ;; *x*) continue ;; esac
	printf 'read:%s\n' "$k"
done
stty sane
echo done-reading
`

// TestKeyListOneKeyAtATime sends a key list to a program that prints what
// each read of the terminal brings: by default each key comes in a read of
// its own, after the program reacted to the last; with pace_ms 0 the list
// comes in one read. A key the program ignores is named in the answer.
func TestKeyListOneKeyAtATime(t *testing.T) {
	t.Parallel()
	c, _, pane := workflow(t)
	script := filepath.Join(t.TempDir(), "reads")
	if err := os.WriteFile(script, []byte(readsProgram), 0o600); err != nil {
		t.Fatal(err)
	}
	atPrompt(t, c, pane)
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": "sh " + script}, nil)
	c.waitOnScreen(t, pane, "^reading-keys$")

	var m struct{ Result string }
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": []string{"a", "b", "Enter", "c"}, "enter": false}, &m)
	if m.Result != "4 keys pressed one at a time in pane "+pane+"; the pane printed after each" {
		t.Errorf("one at a time: got %q", m.Result)
	}
	c.waitOnScreen(t, pane, `^read:c$`)
	if screen := c.screen(t, pane); !regexp.MustCompile(`(?m)^read:a\nread:b\nread:\\n\nread:c$`).MatchString(screen) {
		t.Fatalf("one at a time: the program's reads were not one key each:\n%s", screen)
	}

	// A key it ignores, named with its place.
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": []string{"d", "x", "e"}, "enter": false, "pace_ms": 300}, &m)
	if !strings.HasSuffix(m.Result, `no output within 300 ms after key 2 ("x")`) {
		t.Errorf("an ignored key: got %q", m.Result)
	}
	c.waitOnScreen(t, pane, `^read:e$`)

	// pace_ms 0: the whole list in one write, as send-keys sends it.
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": []string{"f", "g", "h"}, "enter": false, "pace_ms": 0}, &m)
	if !strings.HasPrefix(m.Result, "Keys sent to pane") {
		t.Errorf("pace_ms 0: got %q", m.Result)
	}
	c.waitOnScreen(t, pane, `^read:fgh$`)

	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": []string{"q"}, "enter": false}, nil)
	c.waitOnScreen(t, pane, "^done-reading$")
}
