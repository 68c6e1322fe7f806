package paneread

import (
	"slices"
	"testing"
)

func TestEchoFilter(t *testing.T) {
	cases := []struct {
		name    string
		typed   []string
		fresh   int      // how many of typed the input typed; 0: all
		lines   []string // completed lines, in order
		program []string // those that are not echo
	}{
		{"command then output", []string{"sleep 2; echo DONE_42"}, 0,
			[]string{"$ sleep 2; echo DONE_42", "DONE_42", "$ "}, []string{"DONE_42", "$ "}},
		{"echo from mid-line", []string{"sleep 2; echo DONE_42"}, 0,
			[]string{"sleep 2; echo DONE_42", "DONE_42"}, []string{"DONE_42"}},
		{"suppressed history", []string{" ls"}, 0,
			[]string{"$  ls", "a b c"}, []string{"a b c"}},
		{"typed ahead, echoed twice", []string{"make test all"}, 0,
			[]string{"make test all", "old output", "$ make test all", "ok"}, []string{"old output", "ok"}},
		{"short input skipped once", []string{"y"}, 0,
			[]string{"Continue? [y/N] y", "ready, honestly", "done by"}, []string{"ready, honestly", "done by"}},
		{"several lines", []string{"for i in 1 2", "do echo $i; done"}, 0,
			[]string{"$ for i in 1 2", "> do echo $i; done", "1", "2"}, []string{"1", "2"}},
		{"no echo (a password)", []string{"hunter2secret"}, 0,
			[]string{"ok"}, []string{"ok"}},
		{"nothing typed", nil, 0,
			[]string{"^C", "$ "}, []string{"^C", "$ "}},
		// fzf was given 42, then Enter: its echo was before the Enter,
		// and the 42 it prints is its answer.
		{"short, typed by an earlier input", []string{"42"}, -1,
			[]string{"42", "picked 42"}, []string{"42", "picked 42"}},
		{"short, echoed where typed", []string{"42"}, 1,
			[]string{"> 42", "42", "picked 42"}, []string{"42", "picked 42"}},
		{"short, not echoed before the program printed", []string{"42"}, 1,
			[]string{"selected:", "42"}, []string{"selected:", "42"}},
		{"long, printed back by the program", []string{"hello ahead"}, -1,
			[]string{"got:hello ahead", "You said: hello ahead"}, []string{"got:hello ahead", "You said: hello ahead"}},
		{"long, echoed where typed, then printed back", []string{"hello ahead"}, 1,
			[]string{"hello ahead", "got:hello ahead", "$ hello ahead"}, []string{"got:hello ahead"}},
		{"long, typed by an earlier input, echoed again", []string{"sleep 2; echo DONE_42"}, -1,
			[]string{"$ sleep 2; echo DONE_42", "DONE_42"}, []string{"DONE_42"}},
		// zsh drew "sleep " as it read it and the rest, typed ahead, only
		// when Enter came: after the Enter's mark, on the typed row.
		{"long, its rest drawn after the Enter", []string{`sleep 0.3; echo DONE_4""2 DONE_42`}, -1,
			[]string{`        0.3; echo DONE_4""2 DONE_42`, "DONE_42 DONE_42"}, []string{"DONE_42 DONE_42"}},
		// fish was still drawing the line when the Enter went in, then
		// drew it whole again on the row: a piece, then the line.
		{"long, a piece of it then all of it after the Enter", []string{`sleep 0.3; echo DONE_4""2 DONE_42`}, -1,
			[]string{`0.sleep 0.3; echo DONE_4""2 DONE_42`, "DONE_42 DONE_42"}, []string{"DONE_42 DONE_42"}},
		{"long, a word of it printed from the row's start", []string{`sleep 0.3; echo DONE_4""2 DONE_42`}, -1,
			[]string{"sleep", "echo"}, []string{"sleep", "echo"}},
		{"long, output that is its end, not first", []string{"echo hello world again"}, -1,
			[]string{"", "hello world again"}, []string{"", "hello world again"}},
		{"short, its end printed first", []string{"142"}, -1,
			[]string{"42"}, []string{"42"}},
		// A shell given two lines reads the second once the first has
		// printed, and echoes it after its prompt.
		{"several commands", []string{"echo a", "echo b", "echo c"}, 0,
			[]string{"# echo a", "a", "# echo b", "b", "# echo c", "c", "# "}, []string{"a", "b", "c", "# "}},
		{"several commands, one read at the line before", []string{"cd /src", "grep -r TODO ."}, 0,
			[]string{"$ cd /src", "$ grep -r TODO .", "x.go: // TODO"}, []string{"x.go: // TODO"}},
		{"a later line printed back, not after a prompt", []string{"echo a", "say b"}, 0,
			[]string{"$ echo a", "a", "say b", "got: say b"}, []string{"a", "say b", "got: say b"}},
		{"a later line not echoed (a password), then the next", []string{"login", "hunter2", "ls"}, 0,
			[]string{"$ login", "Password:", "$ ls", "a b"}, []string{"Password:", "a b"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fresh := c.fresh
			switch fresh {
			case 0:
				fresh = len(c.typed)
			case -1:
				fresh = 0
			}
			e := NewEchoFilter(c.typed, fresh)
			var got []string
			for _, l := range c.lines {
				if !e.Line(l) {
					got = append(got, l)
				}
			}
			if !slices.Equal(got, c.program) {
				t.Fatalf("got %q, want %q", got, c.program)
			}
			if want := len(c.lines) - len(c.program); e.Skipped() != want || len(e.Lines()) != want {
				t.Fatalf("skipped %d (%q), want %d", e.Skipped(), e.Lines(), want)
			}
		})
	}
}

func TestEchoFilterPartial(t *testing.T) {
	e := NewEchoFilter([]string{"sleep 2; echo DONE_42"}, 1)
	for l, want := range map[string]bool{
		"$ sleep 2; ec":           true, // the echo, half written
		"$ sleep 2; echo DONE_42": true, // written, the newline still to come
		"Password: ":              false,
		"":                        false,
	} {
		if got := e.Partial(l); got != want {
			t.Errorf("partial(%q): got %v, want %v", l, got, want)
		}
	}
	if (*EchoFilter)(nil).Partial("x") || (*EchoFilter)(nil).Line("x") {
		t.Error("a nil filter took a line for echo")
	}
}

// TestOutputLineEditorStillDrawing: an Enter that typed nothing went in
// while fish was still drawing the long line typed before it (CI, tmux
// 3.6b): what it draws next on the row, the end of the line or the line
// again, is not output until the row ends, and then it is echo.
func TestOutputLineEditorStillDrawing(t *testing.T) {
	typed := []string{`sleep 0.3; echo DONE_4""2 DONE_42`}
	for _, c := range []struct{ name, before, after, rest string }{
		{"its end", `$ sleep 0.3; echo DONE_4""2 `, "DONE_4", "2"},
		{"a piece in its middle", `$ sleep 0.3; echo DONE_4""2 DONE_42`, "\x1b[18Decho DO", ""},
		{"two pieces", `$ sleep 0.3; echo DONE_4""2 DONE_42`, "\r\x1b[2Csleep\x1b[11CDONE_4", ""},
		{"a piece, then the line again", `$ sleep 0.3; echo DONE_4""2 `, `0.3sleep 0.3; echo DON`, `E_4""2 DONE_42`},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := Output{Echo: NewEchoFilter(typed, 0)}
			o.Prime([]byte(c.before))
			if lines, partial := o.Write([]byte(c.after)); len(lines) != 0 || partial != "" {
				t.Fatalf("the row drawn on after the Enter: got %q and %q, want nothing yet", lines, partial)
			}
			lines, partial := o.Write([]byte(c.rest + "\r\nDONE_42 DONE_42\r\n$ "))
			if !slices.Equal(lines, []string{"DONE_42 DONE_42"}) || partial != "$ " {
				t.Fatalf("after the row: got %q and %q, want the line printed, then the prompt", lines, partial)
			}
		})
	}
	// A line the program prints is not held back: the row of the echo
	// ended first.
	o := Output{Echo: NewEchoFilter(typed, 0)}
	o.Prime([]byte(`$ sleep 0.3; echo DONE_4""2 DONE_42`))
	if _, partial := o.Write([]byte("\r\nDONE_42")); partial != "DONE_42" {
		t.Fatalf("output after the echo's row: partial %q, want DONE_42", partial)
	}
}

func TestLastEcho(t *testing.T) {
	rows := []string{"$ make", "old", "$ make", "building", "$ "}
	if got := LastEcho(rows, []string{"make"}); got != 2 {
		t.Fatalf("got %d, want 2", got)
	}
	if got := LastEcho(rows, []string{"deploy"}); got != -1 {
		t.Fatalf("got %d, want -1", got)
	}
}

func TestOutputLeavesEchoOut(t *testing.T) {
	o := Output{Echo: NewEchoFilter([]string{"sleep 1; echo READY"}, 1)}
	// The echo arrives in two pieces: neither may be taken for output.
	lines, partial := o.Write([]byte("$ sleep 1; echo RE"))
	if len(lines) != 0 || partial != "" {
		t.Fatalf("half the echo: got %q %q, want nothing", lines, partial)
	}
	lines, partial = o.Write([]byte("ADY\r\n"))
	if len(lines) != 0 || partial != "" {
		t.Fatalf("the rest of the echo: got %q %q, want nothing", lines, partial)
	}
	lines, partial = o.Write([]byte("READY\r\n$ "))
	if !slices.Equal(lines, []string{"READY"}) || partial != "$ " {
		t.Fatalf("output: got %q %q, want READY, then the prompt", lines, partial)
	}
}

func TestEchoRows(t *testing.T) {
	cases := []struct {
		name      string
		rows      []string
		at, col   int
		typed     []string
		kept, ech []string
	}{
		{"the prompt's row", []string{"$ ls", "a b"}, 0, 2, []string{"ls"}, []string{"a b"}, []string{"$ ls"}},
		// fzf printed its pick above the query row the keys went in on,
		// and its status on that row.
		{"drawn above, and over, the row", []string{"42", "picked 42", "$"}, 1, 2, []string{"42"}, []string{"42", "picked 42", "$"}, nil},
		{"a line editor's second echo", []string{"make test all", "ok", "$ make test all"}, 0, 0, []string{"make test all"}, []string{"ok"}, []string{"make test all", "$ make test all"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kept, echo := EchoRows(c.rows, c.at, c.col, c.typed)
			if !slices.Equal(kept, c.kept) || !slices.Equal(echo, c.ech) {
				t.Fatalf("got %q and echo %q, want %q and %q", kept, echo, c.kept, c.ech)
			}
		})
	}
}
