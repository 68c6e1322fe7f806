package session

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// castEvent is one event of a recording, timed from its start.
type castEvent struct {
	at   float64
	code string
	data string
}

// readCast reads an asciicast v3 file: its header and events.
func readCast(t *testing.T, path string) (map[string]any, []castEvent) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	var head map[string]any
	var evs []castEvent
	clock := 0.0
	for sc.Scan() {
		if head == nil {
			if err := json.Unmarshal(sc.Bytes(), &head); err != nil {
				t.Fatalf("header %q: %v", sc.Text(), err)
			}
			continue
		}
		var e [3]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("event %q: %v", sc.Text(), err)
		}
		clock += e[0].(float64)
		evs = append(evs, castEvent{clock, e[1].(string), e[2].(string)})
	}
	return head, evs
}

func TestRecordPane(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	fx.NewSession(t, "rec", "env", "PS1=$ ", "sh")
	pane := paneOf(t, s, "rec")
	waitPrompt(t, s, pane)
	dir := filepath.Join(t.TempDir(), "recordings")
	rec, err := s.StartRecording(ctx, PaneRef{PaneID: pane}, RecordArgs{Dir: dir, MaxBytes: 1 << 20, MaxDuration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Active || filepath.Dir(rec.Path) != dir || rec.Pane != pane {
		t.Fatalf("started: %+v", rec)
	}
	if _, err := s.StartRecording(ctx, PaneRef{PaneID: pane}, RecordArgs{Dir: dir, MaxBytes: 1 << 20, MaxDuration: time.Minute}); !isKind(err, KindRefused) {
		t.Fatalf("a second recording of the pane: %v, want refused", err)
	}
	if _, err := s.SendKeys(ctx, PaneRef{PaneID: pane}, SendKeysArgs{Keys: "echo $((6*7))", Literal: true, Enter: true}); err != nil {
		t.Fatal(err)
	}
	if r, err := s.WaitForText(ctx, WaitArgs{Pane: PaneRef{PaneID: pane}, Patterns: []string{"42"}, Timeout: 20 * time.Second}); err != nil || r.Outcome != OutcomeMatched {
		t.Fatalf("no 42: %+v %v", r, err)
	}
	fx.Tmux(t, "resize-window", "-t", pane, "-x", "100", "-y", "30")
	waitFor(t, "the resize in the recording", func() bool {
		_, evs := readCast(t, rec.Path)
		for _, e := range evs {
			if e.code == "r" {
				return true
			}
		}
		return false
	})
	// A foreign owner sees nothing.
	if _, err := s.RecordingStatus(WithOwner(ctx, "other"), PaneRef{PaneID: pane}); !IsNotFound(err) {
		t.Fatalf("another owner's status: %v, want not found", err)
	}
	if _, err := s.StopRecording(WithOwner(ctx, "other"), PaneRef{PaneID: pane}); !IsNotFound(err) {
		t.Fatalf("another owner's stop: %v, want not found", err)
	}
	got, err := s.StopRecording(ctx, PaneRef{PaneID: pane})
	if err != nil || got.Active || got.Ended != EndStopped {
		t.Fatalf("stopped: %+v %v", got, err)
	}
	fi, err := os.Stat(got.Path)
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Size() != got.Bytes {
		t.Fatalf("the file: %v %v (bytes %d)", fi.Mode(), err, got.Bytes)
	}
	head, evs := readCast(t, got.Path)
	if head["version"] != 3.0 {
		t.Fatalf("header %v", head)
	}
	// The marker of the input goes before its echo; what follows it is
	// the echo and the answer, then the resize.
	var before, after strings.Builder
	last := -1.0
	marker, resize := -1, -1
	for i, e := range evs {
		if e.at < last {
			t.Fatalf("event %d goes back in time: %+v", i, evs)
		}
		last = e.at
		switch {
		case e.code == "o" && marker < 0:
			before.WriteString(e.data)
		case e.code == "o" && resize < 0:
			after.WriteString(e.data)
		case e.code == "m" && strings.Contains(e.data, "echo $((6*7))"):
			marker = i
		case e.code == "r":
			resize = i
			if e.data != "100x30" {
				t.Errorf("resize %q, want 100x30", e.data)
			}
		}
	}
	if marker < 0 || resize < marker || strings.Contains(before.String(), "6*7") || !strings.Contains(after.String(), "echo $((6*7))\r\n42\r\n") {
		t.Fatalf("marker at %d, resize at %d, output before %q, after %q", marker, resize, before.String(), after.String())
	}
	if e := evs[len(evs)-1]; e.code != "m" || !strings.Contains(e.data, EndStopped) {
		t.Fatalf("last event %+v", e)
	}
}

// TestRecordingBounds: a recording ends at its size and time bounds and
// when its pane exits, and says why in the file and its status.
func TestRecordingBounds(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	fx.NewSession(t, "keep") // the server outlives the pane
	fx.NewSession(t, "b", "env", "PS1=$ ", "sh")
	pane := paneOf(t, s, "b")
	waitPrompt(t, s, pane)
	dir := filepath.Join(t.TempDir(), "r")
	ended := func(want string) Recording {
		t.Helper()
		var got Recording
		waitFor(t, "the recording's end", func() bool {
			r, err := s.RecordingStatus(ctx, PaneRef{PaneID: pane})
			got = r
			return err == nil && !r.Active
		})
		if got.Ended != want {
			t.Fatalf("ended %q, want %q: %+v", got.Ended, want, got)
		}
		_, evs := readCast(t, got.Path)
		if e := evs[len(evs)-1]; e.code != "m" || !strings.Contains(e.data, want) {
			t.Fatalf("last event %+v, want a marker saying %q", e, want)
		}
		return got
	}

	rec, err := s.StartRecording(ctx, PaneRef{PaneID: pane}, RecordArgs{Dir: dir, MaxBytes: 4096, MaxDuration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	fx.Tmux(t, "send-keys", "-t", pane, "-l", "i=0; while [ $i -lt 400 ]; do echo line$i; i=$((i+1)); done")
	fx.Tmux(t, "send-keys", "-t", pane, "Enter")
	got := ended(EndMaxBytes)
	if got.Bytes > 4096+256 || got.Path != rec.Path {
		t.Fatalf("%d bytes, bound 4096: %+v", got.Bytes, got)
	}

	if _, err := s.StartRecording(ctx, PaneRef{PaneID: pane}, RecordArgs{Dir: dir, MaxBytes: 1 << 20, MaxDuration: 300 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	ended(EndMaxTime)

	if _, err := s.StartRecording(ctx, PaneRef{PaneID: pane}, RecordArgs{Dir: dir, MaxBytes: 1 << 20, MaxDuration: time.Minute}); err != nil {
		t.Fatal(err)
	}
	fx.Tmux(t, "send-keys", "-t", pane, "exit", "Enter")
	ended(EndPaneGone)

	for _, a := range []RecordArgs{{Dir: dir, MaxBytes: 0, MaxDuration: time.Minute}, {Dir: dir, MaxBytes: RecordBytesCeiling + 1, MaxDuration: time.Minute},
		{Dir: dir, MaxBytes: 1, MaxDuration: 0}, {Dir: dir, MaxBytes: 1, MaxDuration: RecordDurationCeiling + time.Second}} {
		if _, err := s.StartRecording(ctx, PaneRef{PaneID: pane}, a); !isKind(err, KindInvalid) {
			t.Errorf("%+v: %v, want invalid", a, err)
		}
	}
}

// TestRecordingDirectory attacks where recordings go: a symbolic link, a
// directory others can write to, a relative path; none gets a file.
func TestRecordingDirectory(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	fx.NewSession(t, "d", "sh")
	pane := paneOf(t, s, "d")
	base := t.TempDir()
	real := filepath.Join(base, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	notDir := filepath.Join(base, "file")
	if err := os.WriteFile(notDir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{link, open, notDir, "relative/dir", filepath.Join(real, "..", "open")} {
		_, err := s.StartRecording(ctx, PaneRef{PaneID: pane}, RecordArgs{Dir: dir, MaxBytes: 1 << 20, MaxDuration: time.Minute})
		if err == nil {
			t.Errorf("recording into %s: no error", dir)
			continue
		}
		t.Logf("%s: %v", dir, err)
	}
	for _, d := range []string{real, open} {
		if es, _ := os.ReadDir(d); len(es) != 0 {
			t.Errorf("%s holds %v", d, es)
		}
	}
	// A fresh directory is made closed to others.
	fresh := filepath.Join(base, "state", "recordings")
	rec, err := s.StartRecording(ctx, PaneRef{PaneID: pane}, RecordArgs{Dir: fresh, MaxBytes: 1 << 20, MaxDuration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("%s: %v %v", fresh, fi.Mode(), err)
	}
	if _, err := s.StopRecording(ctx, PaneRef{PaneID: pane}); err != nil || filepath.Dir(rec.Path) != fresh {
		t.Fatal(rec.Path, err)
	}
}

// TestRecordingEndsWithItsServer: closing the Server ends its recordings,
// each file whole and saying why.
func TestRecordingEndsWithItsServer(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	fx.NewSession(t, "c", "sh")
	pane := paneOf(t, s, "c")
	rec, err := s.StartRecording(ctx, PaneRef{PaneID: pane}, RecordArgs{Dir: filepath.Join(t.TempDir(), "r"), MaxBytes: 1 << 20, MaxDuration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, evs := readCast(t, rec.Path)
	if e := evs[len(evs)-1]; e.code != "m" || !strings.Contains(e.data, EndClosed) {
		t.Fatalf("last event %+v, want a marker saying %q", e, EndClosed)
	}
}
