package shellrun

import "testing"

func TestIsContinuation(t *testing.T) {
	for _, c := range []struct {
		row, last string
		typed     bool
		want      bool
	}{
		{"quote> ", "", false, true},
		{"for dquote> ", "$ ", false, true},
		{"heredoc> ", "% ", false, true},
		{"dev> ", "", false, false}, // a prompt, not a parser state
		{"> ", "$ ", false, true},
		{"> ", "> ", false, false}, // the pane's prompt is "> "
		{"> ", "", false, false},   // never seen: typing is allowed
		{"$ ", "$ ", false, false},
		// A command typed and not started: the shell waits for more.
		{"> ", "", true, true},
		{"> ", "> ", true, true},
		{"dev> ", "", true, true},
		{"$ ", "$ ", true, false},
		{"$ echo hi", "$ ", true, false},
	} {
		if got := IsContinuation(c.row, c.last, c.typed); got != c.want {
			t.Errorf("IsContinuation(%q, %q, %v) = %v, want %v", c.row, c.last, c.typed, got, c.want)
		}
	}
}

func TestPendingInput(t *testing.T) {
	for _, c := range []struct {
		row, last, typed string
		holds            bool
	}{
		{"$ ", "$ ", "", false},
		{"$ touch HALF", "$ ", "touch HALF", true},
		{"$    ", "$ ", "   ", false},
		{"user@host:~/src$ ", "", "", false},
		{"user@host:~/src$ rm -rf x", "", "user@host:~/src$ rm -rf x", true},
		{"user@host:~/src$ rm -rf x", "user@host:~$ ", "user@host:~/src$ rm -rf x", true}, // the prompt changed
		{"❯", "", "", false},
		{"", "", "", false},
	} {
		typed, holds := PendingInput(c.row, c.last)
		if typed != c.typed || holds != c.holds {
			t.Errorf("PendingInput(%q, %q) = %q, %v; want %q, %v", c.row, c.last, typed, holds, c.typed, c.holds)
		}
	}
}

func TestCursorRow(t *testing.T) {
	screen := []string{"$ echo hi", "hi", "$", "❯ x"}
	for _, c := range []struct {
		at   Screen
		want string
	}{
		{Screen{CursorX: 2, CursorY: 0}, "$ "},
		{Screen{CursorX: 2, CursorY: 2}, "$ "}, // the space capture-pane dropped
		{Screen{CursorX: 4, CursorY: 2}, "$   "},
		{Screen{CursorX: 2, CursorY: 3}, "❯ "}, // columns are runes
		{Screen{CursorX: 0, CursorY: 1}, ""},
		{Screen{CursorX: 1, CursorY: 4}, ""}, // off the screen
		{Screen{CursorX: 1, CursorY: -1}, ""},
	} {
		if got := CursorRow(screen, c.at); got != c.want {
			t.Errorf("CursorRow(%+v) = %q, want %q", c.at, got, c.want)
		}
	}
}

func TestSamePrompt(t *testing.T) {
	for _, tc := range []struct {
		row, prompt string
		want        bool
	}{
		{"$ ", "$ ", true},
		{"root@vm /tmp [SIGINT]# ", "root@vm /tmp# ", true}, // fish after C-c
		{"user@host:~/src$ ", "user@host:~/src$ ", true},
		{"[1] user@host:~/src$ ", "user@host:~/src$ ", false}, // begins otherwise
		{"Name: ", "root@vm /tmp# ", false},                   // a program's question
		{"root@vm /tmp# ls", "root@vm /tmp# ", false},         // text typed after it
		{"", "$ ", false},
		{"", "", false},
		{"$ ", "", false},
		{"r# ", "root@vm /tmp# ", false}, // too little of it
	} {
		if got := SamePrompt(tc.row, tc.prompt); got != tc.want {
			t.Errorf("SamePrompt(%q, %q) = %v, want %v", tc.row, tc.prompt, got, tc.want)
		}
	}
}
