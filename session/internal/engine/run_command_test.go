package engine

import (
	"fmt"
	"strings"
	"testing"
)

func TestOutputLinesBounds(t *testing.T) {
	for _, c := range []struct {
		name       string
		max, bytes int
		lines      []string
		want       []string
		trunc      bool
		dropped    int
	}{
		{"all", 0, 0, []string{"a", "b"}, []string{"a", "b"}, false, 0},
		{"lines", 2, 0, []string{"a", "b", "c"}, []string{"b", "c"}, true, 1},
		{"bytes", 0, 5, []string{"aa", "bb", "c"}, []string{"bb", "c"}, true, 1},
		{"the newest line cut", 0, 3, []string{"a", "héllo"}, []string{"llo"}, true, 1},
		{"both", 3, 5, []string{"1", "2", "3", "4", "5"}, []string{"4", "5"}, true, 3},
	} {
		o := &outputLines{max: c.max, maxBytes: c.bytes}
		for _, l := range c.lines {
			o.add(l)
		}
		got, dropped, cut, next := o.since(0, 0, 0)
		trunc := dropped > 0 || cut
		if next != len(c.lines) {
			t.Errorf("%s: next %d, want %d", c.name, next, len(c.lines))
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") || trunc != c.trunc || dropped != c.dropped {
			t.Errorf("%s: got %q %v %d, want %q %v %d", c.name, got, trunc, dropped, c.want, c.trunc, c.dropped)
		}
	}
	// Read from a line on: what no answer covered yet, the newest kept.
	o := &outputLines{max: 3}
	for _, l := range []string{"1", "2", "3", "4", "5"} {
		o.add(l)
	}
	if got, left, _, next := o.since(2, 0, 0); fmt.Sprint(got, left, next) != "[3 4 5] 0 5" {
		t.Errorf("since 2: got %v, %d left out, next %d", got, left, next)
	}
	if got, left, _, next := o.since(1, 2, 0); fmt.Sprint(got, left, next) != "[4 5] 2 5" {
		t.Errorf("since 1, 2 lines: got %v, %d left out, next %d", got, left, next)
	}
	if got, left, _, next := o.since(5, 0, 0); fmt.Sprint(got, left, next) != "[] 0 5" {
		t.Errorf("since the end: got %v, %d left out, next %d", got, left, next)
	}
	// Memory stays bounded while a command prints without end.
	o = &outputLines{max: 10, maxBytes: 1 << 10}
	for i := range 100000 {
		o.add(fmt.Sprintf("line %d", i))
		if len(o.lines) > 20 || o.size > 2<<10+64 {
			t.Fatalf("after %d lines: %d held, %d bytes", i, len(o.lines), o.size)
		}
	}
}
