package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// recording is record_pane's answer as an agent reads it: "pane %5
// recording into PATH (N bytes, S s)", or "ended: WHY" for "recording".
type recording struct {
	PaneID    string
	Path      string
	Recording bool
	Bytes     int64
	Ended     string
}

var recordingText = regexp.MustCompile(`^pane (%[0-9]+) (recording|ended: (.+)) into (.+) \(([0-9]+) bytes, [0-9.]+ s\)$`)

// record calls record_pane and reads its answer.
func (c *client) record(t *testing.T, pane, action string) recording {
	t.Helper()
	var m struct{ Result string }
	c.ok(t, "record_pane", map[string]any{"pane_id": pane, "action": action}, &m)
	f := recordingText.FindStringSubmatch(m.Result)
	if f == nil {
		t.Fatalf("record_pane %s: %q does not read as a recording", action, m.Result)
	}
	n, _ := strconv.ParseInt(f[5], 10, 64)
	return recording{PaneID: f[1], Path: f[4], Recording: f[2] == "recording", Bytes: n, Ended: f[3]}
}

// castFile is an asciicast v3 file read back.
type castFile struct {
	Header struct {
		Version int `json:"version"`
		Term    struct {
			Cols int `json:"cols"`
			Rows int `json:"rows"`
		} `json:"term"`
		Timestamp int64 `json:"timestamp"`
	}
	Events []castEvent
}

type castEvent struct {
	At   float64 // seconds from the start
	Code string
	Data string
}

// readCastFile reads path as asciicast v3: a header line, then events
// [interval, code, data] with intervals that never go back.
func readCastFile(t *testing.T, path string) castFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var c castFile
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	if !sc.Scan() {
		t.Fatalf("%s is empty", path)
	}
	if err := json.Unmarshal(sc.Bytes(), &c.Header); err != nil || c.Header.Version != 3 {
		t.Fatalf("header %q: %v", sc.Text(), err)
	}
	clock := 0.0
	for sc.Scan() {
		var e [3]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("event %q: %v", sc.Text(), err)
		}
		iv, ok1 := e[0].(float64)
		code, ok2 := e[1].(string)
		data, ok3 := e[2].(string)
		if !ok1 || !ok2 || !ok3 || iv < 0 || len(code) != 1 || !strings.Contains("oimrx", code) {
			t.Fatalf("event %q is not [interval >= 0, code, data]", sc.Text())
		}
		clock += iv
		c.Events = append(c.Events, castEvent{clock, code, data})
	}
	return c
}

// output is what the recording's output events print, in order.
func (c castFile) output() string {
	var b strings.Builder
	for _, e := range c.Events {
		if e.Code == "o" {
			b.WriteString(e.Data)
		}
	}
	return b.String()
}

// TestWorkflowRecordPane records a pane while an agent runs commands in
// its shell and drives vi, then plays the file's output into a fresh pane
// of the same size: tmux draws the same screen, so the recording holds
// what was drawn. Markers stand where the agent sent input.
func TestWorkflowRecordPane(t *testing.T) {
	t.Parallel()
	vi := fixtures.NeedProgram(t, "vi")
	state := t.TempDir()
	c, fx, pane := workflow(t, "XDG_STATE_HOME="+state)
	c.run(t, pane, "echo before-the-recording")

	rec := c.record(t, pane, "start")
	dir := filepath.Join(state, "tmux-mcp", "recordings")
	if !rec.Recording || filepath.Dir(rec.Path) != dir || rec.PaneID != pane {
		t.Fatalf("start: got %+v, want a recording in %s", rec, dir)
	}
	if e := c.fail(t, "record_pane", map[string]any{"pane_id": pane, "action": "start"}); e.Code != "tmux_error" || !strings.Contains(e.Message, "being recorded already") {
		t.Fatalf("a second start: got %+v", e)
	}
	c.run(t, pane, "echo answer-$((6*7))")
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("first\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": vi + " -u NONE -i NONE " + file}, nil)
	if outcome := c.waitFor(t, pane, "first"); outcome != "matched" && outcome != "alternate_screen" {
		t.Fatalf("vi did not start: %s", outcome)
	}
	c.ok(t, "send_keys", map[string]any{"pane_id": pane, "keys": []string{"G", "o", "second line", "Escape", ":wq"}}, nil)
	c.waitText(t, pane, prompt)
	c.run(t, pane, "cat "+file)
	st := c.record(t, pane, "status")
	if !st.Recording || st.Bytes == 0 || st.Path != rec.Path {
		t.Fatalf("status: got %+v", st)
	}
	end := c.record(t, pane, "stop")
	if end.Recording || end.Ended != "stopped" || end.Path != rec.Path {
		t.Fatalf("stop: got %+v", end)
	}
	if fi, err := os.Stat(end.Path); err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != end.Bytes {
		t.Fatalf("the file: %v, %v; want 0600 and %d bytes", fi, err, end.Bytes)
	}
	screen := c.screen(t, pane)

	cast := readCastFile(t, end.Path)
	if cast.Header.Term.Cols != 100 || cast.Header.Term.Rows != 40 {
		t.Fatalf("header %+v, want the pane's 100x40", cast.Header)
	}
	last := 0.0
	var markers []string
	for _, e := range cast.Events {
		if e.At < last {
			t.Fatalf("events go back in time at %+v", e)
		}
		last = e.At
		if e.Code == "m" {
			markers = append(markers, e.Data)
		}
	}
	// A marker at each input, in order: the two command lines, vi's, its
	// keys, the last command line; then the end.
	wantMarkers := []string{"echo answer-$((6*7))", vi, "second line", "cat " + file, "recording ended: stopped"}
	at := 0
	for _, m := range markers {
		if at < len(wantMarkers) && strings.Contains(m, wantMarkers[at]) {
			at++
		}
	}
	if at != len(wantMarkers) {
		t.Fatalf("markers %q: want, in order, %q", markers, wantMarkers)
	}
	// The marker of a command line goes before its output.
	out := ""
	for _, e := range cast.Events {
		if e.Code == "m" && strings.Contains(e.Data, "echo answer") {
			if strings.Contains(out, "answer-42") {
				t.Fatalf("the output of the command came before its marker: %q", out)
			}
		}
		if e.Code == "o" {
			out += e.Data
		}
	}
	if !strings.Contains(out, "answer-42") {
		t.Fatalf("the recording lacks the command's output: %q", out)
	}

	// Played into a pane of the same size, the output draws the screen
	// the agent left.
	played := filepath.Join(t.TempDir(), "played")
	if err := os.WriteFile(played, []byte(cast.output()), 0o600); err != nil {
		t.Fatal(err)
	}
	// The pane plays it once its window is the size recorded: before
	// 3.3 a control client's size can set a new window's.
	fx.Tmux(t, "new-session", "-d", "-s", "replay", "-x", "100", "-y", "40",
		fx.Bin+" wait-for sized; stty raw -echo; cat "+played+"; exec sleep 600")
	fx.Tmux(t, "resize-window", "-t", "replay", "-x", "100", "-y", "40")
	fx.Tmux(t, "wait-for", "-S", "sized")
	replay := strings.TrimSpace(fx.Tmux(t, "display-message", "-p", "-t", "replay", "#{pane_id}"))
	want := strings.TrimRight(screen, "\n")
	var got string
	for deadline := time.Now().Add(30 * time.Second); got != want && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		got = strings.TrimRight(c.screen(t, replay), "\n")
	}
	if got != want {
		t.Fatalf("the recording's output draws\n%s\n\nthe pane showed\n%s", got, want)
	}
}
