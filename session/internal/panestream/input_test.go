package panestream

import (
	"slices"
	"strings"
	"testing"
)

func TestNoteInputJoinsALine(t *testing.T) {
	p := New()
	p.Append(1, []byte("$ "))
	p.NoteInput(0, -1, true, "git commit -m ", false, GridMark{})
	end, _ := p.Position()
	p.NoteInput(end, -1, true, "'fix'", false, GridMark{})
	in := p.LastInput()
	if !slices.Equal(in.Typed, []string{"git commit -m 'fix'"}) || in.Offset != 2 || !in.Fed || in.Enter {
		t.Fatalf("typed onto one line: got %+v", in)
	}
	p.NoteInput(end, -1, true, "", true, GridMark{})
	if in := p.LastInput(); !slices.Equal(in.Typed, []string{"git commit -m 'fix'"}) || !in.Enter {
		t.Fatalf("then Enter: got %+v", in)
	}
	// A new line after Enter; the mark is never after what was there
	// before the input was sent.
	p.NoteInput(1, -1, false, "ls\npwd", true, GridMark{})
	if in := p.LastInput(); !slices.Equal(in.Typed, []string{"ls", "pwd"}) || in.Offset != 1 || in.Fed {
		t.Fatalf("a new line: got %+v", in)
	}
}

func TestInputMark(t *testing.T) {
	t.Run("none yet", func(t *testing.T) {
		p := New()
		if in := p.LastInput(); in.Sent || in.Offset != 0 || len(in.Typed) != 0 || !in.At.IsZero() {
			t.Fatalf("got %+v, want the zero mark", in)
		}
	})
	t.Run("never past the end", func(t *testing.T) {
		// pre comes from before the input; a stream started again since
		// (a new Stream after Retain) is shorter.
		p := New()
		p.Append(1, []byte("abc"))
		p.NoteInput(100, 7, true, "x", false, GridMark{})
		in := p.LastInput()
		if in.Offset != 3 || in.Col != 7 || !in.Sent || in.At.IsZero() {
			t.Fatalf("got offset %d, col %d, sent %v, at %v; want offset 3, col 7, sent, a time", in.Offset, in.Col, in.Sent, in.At)
		}
	})
	t.Run("keeps the last 64 lines", func(t *testing.T) {
		p := New()
		var lines []string
		for i := range 100 {
			lines = append(lines, strings.Repeat("l", i+1))
		}
		p.NoteInput(0, -1, true, strings.Join(lines, "\r"), true, GridMark{})
		if in := p.LastInput(); !slices.Equal(in.Typed, lines[36:]) {
			t.Fatalf("got %d lines starting with %q, want the last 64", len(in.Typed), in.Typed[0])
		}
	})
	t.Run("a copy", func(t *testing.T) {
		p := New()
		p.NoteInput(0, -1, true, "echo hi", false, GridMark{})
		p.LastInput().Typed[0] = "changed"
		if in := p.LastInput(); !slices.Equal(in.Typed, []string{"echo hi"}) {
			t.Fatalf("after changing a returned mark: got %q, want [echo hi]", in.Typed)
		}
	})
	t.Run("a key name starts no line", func(t *testing.T) {
		// C-c after Enter: nothing typed, the next line starts empty.
		p := New()
		p.NoteInput(0, -1, true, "sleep 9", true, GridMark{})
		p.NoteInput(0, -1, true, "", false, GridMark{})
		if in := p.LastInput(); len(in.Typed) != 0 || in.Enter {
			t.Fatalf("got %+v, want nothing typed and no Enter", in)
		}
	})
}

// TestGroupInputs notes keys pressed one at a time, with output between
// them, in a group: the keys before the first Enter are noted as ever, and
// from that Enter on the stream's input is the one those keys sent at once
// would make.
func TestGroupInputs(t *testing.T) {
	end := func(p *Stream) int64 { e, _ := p.Position(); return e }
	grid := GridMark{Known: true, Row: 3, Col: 16}
	p := New()
	p.Append(1, []byte("$ "))
	endGroup := p.GroupInputs()
	p.NoteInput(end(p), -1, true, "echo", false, GridMark{Known: true, Row: 3, Col: 2})
	p.Append(1, []byte("echo"))
	p.NoteInput(end(p), -1, true, " a", false, GridMark{Known: true, Row: 3, Col: 6})
	p.Append(1, []byte(" a"))
	if in := p.LastInput(); in.Offset != 6 || !slices.Equal(in.Typed, []string{"echo a"}) || in.Enter {
		t.Fatalf("before the first Enter: got %+v, want the keys noted one by one", in)
	}
	at := end(p)
	p.NoteInput(at, -1, true, "", true, grid)
	p.Append(1, []byte("\r\na\r\n$ "))
	p.NoteInput(end(p), -1, true, "echo b", false, GridMark{Known: true, Row: 5, Col: 2})
	p.Append(1, []byte("echo b"))
	p.NoteInput(end(p), -1, true, "", true, GridMark{Known: true, Row: 5, Col: 8})
	endGroup()
	got := p.LastInput()

	one := New()
	one.Append(1, []byte("$ "))
	one.NoteInput(2, -1, true, "echo", false, GridMark{Known: true, Row: 3, Col: 2})
	one.Append(1, []byte("echo"))
	one.NoteInput(6, -1, true, " a", false, GridMark{Known: true, Row: 3, Col: 6})
	one.Append(1, []byte(" a"))
	one.NoteInput(at, -1, true, "\necho b", true, grid)
	want := one.LastInput()
	if got.Offset != at || !slices.Equal(got.Typed, []string{"echo a", "echo b"}) || got.Fresh != 1 || !got.Enter ||
		!slices.Equal(got.Typed, want.Typed) || got.Fresh != want.Fresh || got.Grid != want.Grid || got.Cursor != want.Cursor {
		t.Fatalf("grouped: got %+v\nwant %+v", got, want)
	}

	// Once the group has ended, an input is its own.
	p.NoteInput(end(p), -1, true, "ls", false, GridMark{})
	if in := p.LastInput(); in.Offset != end(p) || !slices.Equal(in.Typed, []string{"ls"}) {
		t.Fatalf("after the group: got %+v", in)
	}
	// A group's end does not end a group opened after it.
	first := p.GroupInputs()
	second := p.GroupInputs()
	first()
	at = end(p)
	p.NoteInput(at, -1, true, "", true, GridMark{})
	p.NoteInput(end(p)+5, -1, true, "x", false, GridMark{})
	second()
	if in := p.LastInput(); in.Offset != at || !slices.Equal(in.Typed, []string{"ls", "x"}) || in.Fresh != 1 {
		t.Fatalf("in the second group: got %+v", in)
	}
}
