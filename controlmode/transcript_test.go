package controlmode

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// replay runs a Conn against a recorded tmux: once the Conn has written as
// many lines as the recording's input has, the recorded output is written
// back whole, then the stream ends. The calls are issued in recorded order,
// each only after the one before it is on the wire, and their results are
// returned in that order. Notifications are collected.
func replay(t *testing.T, name string, calls [][]Command) ([]callResult, []Notification, *Conn) {
	t.Helper()
	out := fixtures.Transcript(t, name)
	in := strings.Split(strings.TrimSuffix(string(fixtures.TranscriptInput(t, name)), "\n"), "\n")
	if len(in) != len(calls) {
		t.Fatalf("%s: %d recorded input lines, %d calls given", name, len(in), len(calls))
	}

	ourR, tmuxW := io.Pipe()
	tmuxR, ourW := io.Pipe()
	var mu sync.Mutex
	var notes []Notification
	c := newConn(&Options{OnNotification: func(n Notification) {
		mu.Lock()
		notes = append(notes, n)
		mu.Unlock()
	}})
	c.r, c.w = ourR, ourW
	c.run()
	t.Cleanup(func() { c.Close() })

	written := make(chan string)
	go func() {
		r := bufio.NewReader(tmuxR)
		for range in {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			written <- strings.TrimSuffix(line, "\n")
		}
		_, _ = tmuxW.Write(out)
		_ = tmuxW.Close()
		_, _ = io.Copy(io.Discard, r) // the detach line from Close
	}()

	results := make([]callResult, len(calls))
	var wg sync.WaitGroup
	for i, cmds := range calls {
		wg.Go(func() {
			rs, err := c.Exec(t.Context(), cmds...)
			results[i] = callResult{rs, err}
		})
		select {
		case got := <-written:
			if got != in[i] {
				t.Errorf("line %d: wrote %q, recorded input was %q", i, got, in[i])
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("call %d was never written", i)
		}
	}
	wg.Wait()
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("connection did not end at the end of the transcript")
	}
	mu.Lock()
	defer mu.Unlock()
	return results, notes, c
}

type callResult struct {
	replies []Reply
	err     error
}

func lines(r Reply) string { return strings.Join(r.Lines, "|") }

func has[T Notification](notes []Notification, match func(T) bool) bool {
	for _, n := range notes {
		if v, ok := n.(T); ok && match(v) {
			return true
		}
	}
	return false
}

func noUnknown(t *testing.T, notes []Notification) {
	t.Helper()
	for _, n := range notes {
		if u, ok := n.(Unknown); ok {
			t.Errorf("unknown line %q: %v", u.Line, u.Err)
		}
	}
}

func TestTranscriptFakeEnd(t *testing.T) {
	res, notes, _ := replay(t, "fake-end", [][]Command{{NewCommand("capture-pane", "-p", "-t", "demo")}})
	if res[0].err != nil {
		t.Fatal(res[0].err)
	}
	body := res[0].replies[0].Lines
	want := []string{"%begin 1 2 1", "%end 1 2 1", "%error 1 2 1", "%begin 1 2 0", "%end 1 2 0", "%exit", "%session-changed $9 fake", "%output %0 fake"}
	if len(body) != 24 || strings.Join(body[:len(want)], "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %d lines %q, want the 24 screen rows starting with the fake guards", len(body), body)
	}
	// The fake %exit and %session-changed were body, not notifications.
	if has(notes, func(s SessionChanged) bool { return s.Session == "$9" }) {
		t.Fatal("a line of pane text was taken for a notification")
	}
	noUnknown(t, notes)
}

func TestTranscriptHookBlock(t *testing.T) {
	res, notes, _ := replay(t, "hook-f0", [][]Command{
		{NewCommand("set-hook", "-g", "after-rename-window", "display-message -p hook-ran")},
		{NewCommand("rename-window", "-t", "demo:0", "renamed")},
	})
	for i, r := range res {
		if r.err != nil || len(r.replies) != 1 || len(r.replies[0].Lines) != 0 {
			t.Errorf("call %d: got %+v, want one empty reply", i, r)
		}
	}
	if !has(notes, func(h HookOutput) bool { return lines(Reply{Lines: h.Lines}) == "hook-ran" }) {
		t.Errorf("no HookOutput with hook-ran in %v", notes)
	}
	if !has(notes, func(w WindowRenamed) bool { return w.Window == "@0" && w.Name == "renamed" }) {
		t.Errorf("no WindowRenamed in %v", notes)
	}
	noUnknown(t, notes)
}

func TestTranscriptMultiFail(t *testing.T) {
	res, notes, _ := replay(t, "multi-fail", [][]Command{
		{NewCommand("display-message", "-p", "a"), NewCommand("select-window", "-t", "nosuch"), NewCommand("display-message", "-p", "c")},
		{NewCommand("display-message", "-p", "after")},
	})
	rs := res[0].replies
	var ce *CommandError
	if !errors.As(res[0].err, &ce) || ce.Msg != "can't find window: nosuch" || ce.Command != "select-window" {
		t.Fatalf("got %v, want select-window's error", res[0].err)
	}
	if lines(rs[0]) != "a" || rs[1].Err != res[0].err || rs[2].Err != ErrSkipped {
		t.Fatalf("got %+v", rs)
	}
	if res[1].err != nil || lines(res[1].replies[0]) != "after" {
		t.Fatalf("the next call got %+v, want \"after\"", res[1])
	}
	noUnknown(t, notes)
}

func TestTranscriptParseError(t *testing.T) {
	res, notes, _ := replay(t, "parse-error", [][]Command{
		{NewCommand("frobnicate")},
		{NewCommand("frobnicate"), NewCommand("display-message", "-p", "x")},
		{NewCommand("display-message", "-p", "after")},
	})
	for i := range 2 {
		var ce *CommandError
		if !errors.As(res[i].err, &ce) || !strings.HasPrefix(ce.Msg, "parse error") {
			t.Errorf("call %d: got %v, want a parse error", i, res[i].err)
		}
	}
	if res[1].replies[1].Err != ErrSkipped {
		t.Errorf("second command of a line that did not parse: got %v, want ErrSkipped", res[1].replies[1].Err)
	}
	if res[2].err != nil || lines(res[2].replies[0]) != "after" {
		t.Fatalf("the next call got %+v, want \"after\"", res[2])
	}
	noUnknown(t, notes)
}

func TestTranscriptStrayHookLine(t *testing.T) {
	res, notes, _ := replay(t, "stray-hook", [][]Command{
		{NewCommand("set-hook", "-g", "session-created", "display-message -p X")},
		{NewCommand("new-session", "-d", "-s", "other")},
	})
	for _, r := range res {
		if r.err != nil {
			t.Fatal(r.err)
		}
	}
	if !has(notes, func(s Stray) bool { return s.Line == "X" }) {
		t.Errorf("no Stray X in %v", notes)
	}
	if !has(notes, func(w WindowAdd) bool { return w.Unlinked }) || !has(notes, func(SessionsChanged) bool { return true }) {
		t.Errorf("missing %%unlinked-window-add or %%sessions-changed in %v", notes)
	}
}

func TestTranscriptExitAfterKillServer(t *testing.T) {
	res, notes, c := replay(t, "exit-kill-server", [][]Command{{NewCommand("kill-server")}})
	if res[0].err != nil {
		t.Fatal(res[0].err)
	}
	if !has(notes, func(Exit) bool { return true }) {
		t.Error("no Exit notification")
	}
	var ee *ExitError
	if !errors.As(c.Err(), &ee) || ee.Reason != "" || !errors.Is(c.Err(), ErrClosed) {
		t.Fatalf("got Err %v, want an ExitError with no reason", c.Err())
	}
	if _, err := c.Exec(t.Context(), NewCommand("list-sessions")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Exec after %%exit: got %v, want ErrClosed", err)
	}
}

func TestTranscriptNotifications(t *testing.T) {
	in := strings.Split(strings.TrimSuffix(string(fixtures.TranscriptInput(t, "notifications")), "\n"), "\n")
	// The recorded lines are replayed as raw commands: this test is about
	// what comes back, and each recorded line holds one command.
	calls := make([][]Command, len(in))
	for i, l := range in {
		calls[i] = []Command{{name: strings.Fields(l)[0], text: l}}
	}
	res, notes, _ := replay(t, "notifications", calls)
	for i, r := range res {
		if r.err != nil {
			t.Errorf("line %q: %v", in[i], r.err)
		}
	}
	noUnknown(t, notes)
	for _, want := range []func([]Notification) bool{
		func(n []Notification) bool { return has(n, func(WindowAdd) bool { return true }) },
		func(n []Notification) bool { return has(n, func(WindowRenamed) bool { return true }) },
		func(n []Notification) bool { return has(n, func(SessionRenamed) bool { return true }) },
		func(n []Notification) bool { return has(n, func(LayoutChange) bool { return true }) },
		func(n []Notification) bool { return has(n, func(WindowPaneChanged) bool { return true }) },
		func(n []Notification) bool { return has(n, func(SessionsChanged) bool { return true }) },
		func(n []Notification) bool { return has(n, func(SessionWindowChanged) bool { return true }) },
	} {
		if !want(notes) {
			t.Errorf("a notification kind is missing from %v", notes)
		}
	}
}

func TestTranscriptOutput(t *testing.T) {
	in := strings.Split(strings.TrimSuffix(string(fixtures.TranscriptInput(t, "output")), "\n"), "\n")
	calls := make([][]Command, len(in))
	for i, l := range in {
		calls[i] = []Command{{name: strings.Fields(l)[0], text: l}}
	}
	_, notes, _ := replay(t, "output", calls)
	noUnknown(t, notes)
	var data []byte
	for _, n := range notes {
		if o, ok := n.(Output); ok {
			data = append(data, o.Data...)
		}
	}
	if len(data) == 0 || strings.Contains(string(data), `\015`) || !strings.Contains(string(data), "\r\n") {
		t.Fatalf("output not decoded: %q", data)
	}
	t.Logf("decoded %d bytes of output: %q", len(data), data)
}
