package session

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/session/internal/engine"
)

// inlineRedraw is a shell command that draws like an inline TUI: it writes
// its answer, moves the cursor down a row and erases that row, then writes
// a status line. On screen the answer stays; rebuilt from the bytes as one
// line (which a cursor move down does not leave), it is erased. The typed
// command does not hold the answer's text, so its echo cannot match.
func inlineRedraw(answer string, n int) string {
	return fmt.Sprintf(`sleep 0.3; printf '%s-%%d here\033[1B\r\033[2Kstatus line\n' %d`, answer, n)
}

// TestWaitForTextReadsTheGrid: after output that moves the cursor between
// rows, a wait reads what tmux shows from the input on, so it sees an answer
// that rebuilding lines from the output stream loses; the echo of the
// typed command still never matches, nor does a line from before the input.
func TestWaitForTextReadsTheGrid(t *testing.T) {
	fx, s := newTestServer(t)
	fx.NewSession(t, "tui", "env", "PS1=$ ", "sh")
	pane := paneOf(t, s, "tui")
	waitPrompt(t, s, pane)
	ctx := testCtx(t)
	ref := PaneRef{PaneID: pane}

	// An answer from before the input is on screen: it must not match.
	if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: "echo OLD-ANSWER-7", Enter: true}); err != nil {
		t.Fatal(err)
	}
	if r, err := s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"OLD-ANSWER-7"}, Timeout: 20 * time.Second}); err != nil || !r.Found {
		t.Fatalf("the first answer: %+v %v", r, err)
	}
	for i, since := range []string{"", SinceScreen} {
		n := 40 + i
		// Each command is typed at the prompt, not ahead of it: typed ahead,
		// its echo comes before the prompt and the answer after it, on the
		// prompt's line ("$ ANSWER-40 here", "$ ANSWER-41 here", seen under
		// load, after the first answer and after the previous iteration).
		waitPrompt(t, s, pane)
		if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: inlineRedraw("ANSWER", n), Enter: true}); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("ANSWER-%d here", n)
		a := WaitArgs{Pane: ref, Patterns: []string{fmt.Sprintf("ANSWER-%d", n)}, Since: since, Timeout: 20 * time.Second}
		if since == "" {
			a.Stop = []string{"OLD-ANSWER-7"} // what came before the input never matches
		}
		r, err := s.WaitForText(ctx, a)
		if err != nil || r.Outcome != OutcomeMatched || len(r.MatchedLines) != 1 || r.MatchedLines[0] != want {
			t.Fatalf("since %q: got %+v %v; want %q matched on screen", since, r, err, want)
		}
		if since == "" && r.Since != SinceInput {
			t.Errorf("since: got %q, want input", r.Since)
		}
		if !strings.Contains(fx.Tmux(t, "capture-pane", "-p", "-t", pane), "status line") {
			t.Fatalf("the program did not finish drawing")
		}
	}
}

// TestWaitForTextAbsent: a wait with absent patterns ends once a pattern
// matches and none of them is on the screen: the answer is there while the
// CLI still shows it is busy, and the wait answers only after that is gone.
func TestWaitForTextAbsent(t *testing.T) {
	fx, s := newTestServer(t)
	fx.NewSession(t, "cli", "env", "PS1=$ ", "sh")
	pane := paneOf(t, s, "cli")
	waitPrompt(t, s, pane)
	ctx := testCtx(t)
	ref := PaneRef{PaneID: pane}
	busy := "esc to interrupt"
	// Busy, then the answer with the busy line still under it, then the
	// busy line replaced by an input prompt.
	cli := `sleep 0.2; printf 'working (esc to%sinterrupt)\r' ' '; sleep 0.3; printf '\033[2KANSWER-%d\n(esc to%sinterrupt)' 9 ' '; sleep 0.5; printf '\r\033[2K> ready\n'`
	if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: cli, Enter: true}); err != nil {
		t.Fatal(err)
	}
	r, err := s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"ANSWER-9"}, Absent: []string{busy}, Timeout: 20 * time.Second})
	if err != nil || r.Outcome != OutcomeMatched {
		t.Fatalf("got %+v %v", r, err)
	}
	if screen := fx.Tmux(t, "capture-pane", "-p", "-t", pane); strings.Contains(screen, busy) || !strings.Contains(screen, "ANSWER-9") {
		t.Fatalf("the wait answered with the screen %q; want the answer there and %q gone", screen, busy)
	}
	if _, err := s.WaitForText(ctx, WaitArgs{Pane: ref, Absent: []string{busy}}); err == nil {
		t.Errorf("absent without patterns: no error")
	}
}

// TestWaitForTextPromptSpaces: a prompt's trailing space is matched where
// tmux's grid is read, as where the output stream is: on the screen at the
// start of a wait, and after input once the output moved between rows.
func TestWaitForTextPromptSpaces(t *testing.T) {
	fx, s := newTestServer(t)
	fx.NewSession(t, "p", "env", "PS1=$ ", "sh")
	pane := paneOf(t, s, "p")
	waitPrompt(t, s, pane)
	ctx := testCtx(t)
	ref := PaneRef{PaneID: pane}
	prompt := []string{`^\$ $`}
	r, err := s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: prompt, Regex: true, Since: SinceScreen, Timeout: 10 * time.Second})
	if err != nil || r.Outcome != OutcomeMatched {
		t.Fatalf("the prompt on screen: got %+v %v", r, err)
	}
	// A question drawn, then the row below it erased (the stream's rebuild
	// of lines loses the question there), the cursor back after it.
	question := `printf 'Continue? [y/%s] \033[1B\r\033[2K\033[1A\033[17G' N; read x`
	if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: question, Enter: true}); err != nil {
		t.Fatal(err)
	}
	r, err = s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{`\[y/N\] $`}, Regex: true, Timeout: 10 * time.Second})
	if err != nil || r.Outcome != OutcomeMatched {
		t.Fatalf("the question after input: got %+v %v", r, err)
	}
}

// TestReadRowsAfterScroll: the rows from a mark are read whole after the
// screen scrolled past it, in one read from tmux 3.4 (capture-pane counts
// -S from the history as it runs) and two before.
func TestReadRowsAfterScroll(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	pane, tty := silentPane(t, fx, s, "g")
	drawn := func(text, last string) {
		t.Helper()
		fmt.Fprint(tty, text)
		if r, err := s.WaitForText(ctx, WaitArgs{Pane: PaneRef{PaneID: pane}, Patterns: []string{last}, MatchCase: true, Since: SinceScreen, Timeout: 20 * time.Second}); err != nil || !r.Found {
			t.Fatalf("%s never drawn: %+v %v", last, r, err)
		}
	}
	drawn("before\r\n", "before")
	rs, err := s.exec(ctx, engine.MarkCommand(pane))
	if err != nil {
		t.Fatal(err)
	}
	_, mark, err := engine.MarkOf(rs[0], pane)
	if err != nil || !mark.Known {
		t.Fatalf("mark: %+v %v", mark, err)
	}
	var b strings.Builder
	b.WriteString("MARK-1\r\n")
	for i := range 60 {
		fmt.Fprintf(&b, "filler-%d\r\n", i)
	}
	drawn(b.String(), "filler-59")
	looks := engine.GridLooks(s.Engine)
	rows, err := engine.ReadRowsFrom(ctx, s.Engine, pane, mark)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 61 || rows[0] != "MARK-1" || rows[60] != "filler-59" {
		t.Fatalf("rows from the mark: got %d, %q ... want MARK-1 and 60 fillers", len(rows), rows[:min(len(rows), 3)])
	}
	want := int64(2)
	if s.release().ExpandsCaptureRange() {
		want = 1
	}
	if got := engine.GridLooks(s.Engine) - looks; got != want {
		t.Errorf("read the grid %d times, want %d", got, want)
	}
}

// TestWaitForTextAfterPaste: text pasted with PasteText marks where the
// input starts in tmux's grid, as SendKeys does, so a wait after it reads
// an answer an inline program drew over with cursor movement.
func TestWaitForTextAfterPaste(t *testing.T) {
	fx, s := newTestServer(t)
	fx.NewSession(t, "tui", "env", "PS1=$ ", "sh")
	pane := paneOf(t, s, "tui")
	waitPrompt(t, s, pane)
	ctx := testCtx(t)
	ref := PaneRef{PaneID: pane}
	if _, err := s.PasteText(ctx, ref, inlineRedraw("PASTED", 60)+"\n", false); err != nil {
		t.Fatal(err)
	}
	r, err := s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"PASTED-60 here"}, Timeout: 10 * time.Second})
	if err != nil || r.Outcome != OutcomeMatched || r.Since != SinceInput {
		t.Fatalf("got %+v %v; want the answer matched after the paste", r, err)
	}
}

// TestWaitForTextLineAcrossTheStart: a line whose start the pane printed
// before a wait with since "screen" began, and whose rest came after, is
// matched whole (a shell echoing typed keys when the wait starts).
func TestWaitForTextLineAcrossTheStart(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	pane, tty := silentPane(t, fx, s, "w")
	st, release, err := s.watchPane(ctx, pane)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	fmt.Fprint(tty, "PART-ONE ")
	if w, err := s.WaitForText(ctx, WaitArgs{Pane: PaneRef{PaneID: pane}, Patterns: []string{"PART-ONE"}, Since: SinceScreen, Timeout: 10 * time.Second}); err != nil || !w.Found {
		t.Fatalf("the line's start: %+v %v", w, err)
	}
	if err := s.syncStream(ctx, st); err != nil {
		t.Fatal(err)
	}
	following := st.Following()
	go func() {
		<-following
		fmt.Fprint(tty, "PART-TWO\r\n")
	}()
	r, err := s.WaitForText(ctx, WaitArgs{Pane: PaneRef{PaneID: pane}, Patterns: []string{"PART-ONE PART-TWO"}, Since: SinceScreen, Timeout: 10 * time.Second})
	if err != nil || r.Outcome != OutcomeMatched {
		t.Fatalf("got %+v %v; want the line matched whole", r, err)
	}
}
