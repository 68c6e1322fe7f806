package cast

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// parsed is a recording read back as the asciicast v3 spec says.
type parsed struct {
	header map[string]any
	events []event
}

type event struct {
	at   float64 // seconds since the start, summed from the intervals
	code string
	data string
}

// parse reads a recording and checks it against the v3 spec: a header
// object with version 3 and term.cols/rows, then events [interval, code,
// data] with a non-negative interval, a known code and string data, every
// line valid JSON and UTF-8.
func parse(t *testing.T, b []byte) parsed {
	t.Helper()
	var p parsed
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<24)
	var clock float64
	for n := 0; sc.Scan(); n++ {
		line := sc.Bytes()
		if !utf8.Valid(line) {
			t.Fatalf("line %d is not UTF-8: %q", n+1, line)
		}
		if n == 0 {
			if err := json.Unmarshal(line, &p.header); err != nil {
				t.Fatalf("header %q: %v", line, err)
			}
			if p.header["version"] != 3.0 {
				t.Fatalf("header version %v, want 3", p.header["version"])
			}
			term, _ := p.header["term"].(map[string]any)
			if _, ok := term["cols"].(float64); !ok {
				t.Fatalf("header term %v has no cols", p.header["term"])
			}
			if _, ok := term["rows"].(float64); !ok {
				t.Fatalf("header term %v has no rows", p.header["term"])
			}
			continue
		}
		var ev []any
		if err := json.Unmarshal(line, &ev); err != nil || len(ev) != 3 {
			t.Fatalf("event line %d %q: not [interval, code, data] (%v)", n+1, line, err)
		}
		iv, ok1 := ev[0].(float64)
		code, ok2 := ev[1].(string)
		data, ok3 := ev[2].(string)
		if !ok1 || !ok2 || !ok3 || iv < 0 || !strings.Contains("oimrx", code) || len(code) != 1 {
			t.Fatalf("event line %d %q: bad types or values", n+1, line)
		}
		clock += iv
		p.events = append(p.events, event{clock, code, data})
	}
	if len(p.header) == 0 {
		t.Fatal("no header")
	}
	return p
}

func TestRecording(t *testing.T) {
	var b bytes.Buffer
	t0 := time.Unix(1_700_000_000, 0)
	w, err := New(&b, Header{Cols: 80, Rows: 24, Term: "tmux-256color", Start: t0, Title: "%1"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.Output(ms(100), []byte("$ ")))
	must(w.Marker(ms(150), "send_keys: ls"))
	must(w.Input(ms(150), "ls\r"))
	must(w.Output(ms(200), []byte("ls\r\n\xe2\x82"))) // a euro sign cut in two
	must(w.Output(ms(250), []byte("\xac <a&b>\r\n"))) // its end
	must(w.Resize(ms(300), 100, 30))
	must(w.Output(ms(290), []byte("late"))) // before the previous event: at its time
	must(w.Exit(ms(400), 0))
	must(w.Close(ms(400), ""))
	p := parse(t, b.Bytes())
	if p.header["timestamp"] != 1_700_000_000.0 || p.header["title"] != "%1" || p.header["term"].(map[string]any)["type"] != "tmux-256color" {
		t.Errorf("header %v", p.header)
	}
	want := []event{
		{0.1, "o", "$ "}, {0.15, "m", "send_keys: ls"}, {0.15, "i", "ls\r"}, {0.2, "o", "ls\r\n"},
		{0.25, "o", "€ <a&b>\r\n"}, {0.3, "r", "100x30"}, {0.3, "o", "late"}, {0.4, "x", "0"},
	}
	if len(p.events) != len(want) {
		t.Fatalf("events %v, want %v", p.events, want)
	}
	for i, e := range p.events {
		if e.code != want[i].code || e.data != want[i].data || e.at-want[i].at > 1e-9 || want[i].at-e.at > 1e-9 {
			t.Errorf("event %d: %+v, want %+v", i, e, want[i])
		}
	}
	if w.Events() != len(want) || w.Size() != int64(b.Len()) {
		t.Errorf("Events %d Size %d, want %d %d", w.Events(), w.Size(), len(want), b.Len())
	}
	if strings.Contains(b.String(), `\u003c`) {
		t.Errorf("< escaped as HTML: %s", b.String())
	}
}

func TestBound(t *testing.T) {
	var b bytes.Buffer
	t0 := time.Now()
	w, err := New(&b, Header{Cols: 80, Rows: 24, Start: t0}, 200)
	if err != nil {
		t.Fatal(err)
	}
	var full error
	for i := range 100 {
		if full = w.Output(t0.Add(time.Duration(i)*time.Millisecond), []byte("0123456789")); full != nil {
			break
		}
	}
	if !errors.Is(full, ErrFull) {
		t.Fatalf("past the bound: %v, want ErrFull", full)
	}
	if b.Len() > 200 || int64(b.Len()) != w.Size() {
		t.Fatalf("%d bytes written (Size %d), bound 200", b.Len(), w.Size())
	}
	if err := w.Close(t0.Add(time.Second), "stopped: the recording reached its size bound (200)"); err != nil {
		t.Fatal(err)
	}
	if b.Len() > 200+closingRoom {
		t.Fatalf("%d bytes after Close, bound 200+%d", b.Len(), closingRoom)
	}
	p := parse(t, b.Bytes())
	last := p.events[len(p.events)-1]
	if last.code != "m" || !strings.Contains(last.data, "size bound") {
		t.Fatalf("last event %+v, want the closing marker", last)
	}
	if _, err := New(&bytes.Buffer{}, Header{Cols: 80, Rows: 24, Start: t0, Title: strings.Repeat("t", 300)}, 100); !errors.Is(err, ErrFull) {
		t.Fatalf("a header past the bound: %v, want ErrFull", err)
	}
}

func TestInvalidUTF8(t *testing.T) {
	var b bytes.Buffer
	t0 := time.Now()
	w, _ := New(&b, Header{Cols: 80, Rows: 24, Start: t0}, 0)
	_ = w.Output(t0, []byte("a\xffb\xc3"))
	_ = w.Close(t0, "")
	p := parse(t, b.Bytes())
	got := ""
	for _, e := range p.events {
		got += e.data
	}
	if got != "a\uFFFDb\uFFFD" {
		t.Fatalf("got %q", got)
	}
}

func TestIncompleteTail(t *testing.T) {
	for in, want := range map[string]int{"": 0, "a": 0, "\xe2": 1, "\xe2\x82": 2, "\xe2\x82\xac": 0,
		"\xf0\x9f\x98": 3, "\xf0\x9f\x98\x80": 0, "\x82": 0, "a\xc3": 1, "\xff": 0} {
		if got := incompleteTail([]byte(in)); got != want {
			t.Errorf("incompleteTail(%q) = %d, want %d", in, got, want)
		}
	}
}
