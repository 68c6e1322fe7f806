package session

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestWaitQuiet(t *testing.T) {
	s, attached, other := attachedAndOther(t)
	for _, c := range []struct{ name, pane string }{{"attached session", attached}, {"other session", other}} {
		t.Run(c.name, func(t *testing.T) {
			ctx := testCtx(t)
			ref := PaneRef{PaneID: c.pane}
			waitPrompt(t, s, c.pane)
			// Five lines 50 ms apart, then nothing for a long time. The
			// quiet period is 1 s, not a few of those gaps: on a loaded
			// machine (2 cores under the matrix and -race tests) a gap
			// grew past 300 ms once, and that is quiet indeed.
			if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: "for i in 1 2 3 4 5; do echo tick$i; sleep 0.05; done; sleep 30", Enter: true}); err != nil {
				t.Fatal(err)
			}
			r, err := s.WaitQuiet(ctx, QuietArgs{Pane: ref, Quiet: time.Second, Timeout: 20 * time.Second})
			if err != nil || !r.Quiet || !r.Changed || r.TimedOut {
				t.Fatalf("got %+v %v, want quiet after output", r, err)
			}
			// The last tick came about 200 ms after the input; quiet 1 s after.
			if r.Elapsed < 1200*time.Millisecond {
				t.Fatalf("quiet after %v, before the program finished printing", r.Elapsed)
			}
			_, lines, err := s.Capture(ctx, ref, CaptureArgs{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "tick5") }) {
				t.Fatalf("quiet, but tick5 is not on screen: %q", lines)
			}
			t.Logf("quiet after %v, woke %v after the quiet period ended", r.Elapsed, r.Wake)

			// Quiet already: the pane printed nothing for longer than asked.
			r, err = s.WaitQuiet(ctx, QuietArgs{Pane: ref, Quiet: 100 * time.Millisecond, Timeout: 20 * time.Second})
			if err != nil || !r.Quiet || r.Elapsed > 2*time.Second {
				t.Fatalf("already quiet: got %+v %v", r, err)
			}
			// No quiet period: the first output ends the wait, and none
			// comes here.
			r, err = s.WaitQuiet(ctx, QuietArgs{Pane: ref, Timeout: 200 * time.Millisecond})
			if err != nil || !r.TimedOut || r.Changed {
				t.Fatalf("no output: got %+v %v", r, err)
			}
			if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: "C-c"}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestQuietWakeTime measures how late a quiet wait wakes after the quiet
// period ends: the figure in docs/tools.md.
func TestQuietWakeTime(t *testing.T) {
	s, pane, _ := attachedAndOther(t)
	ctx := testCtx(t)
	ref := PaneRef{PaneID: pane}
	waitPrompt(t, s, pane)
	var wakes []time.Duration
	for range 20 {
		if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: "echo x", Enter: true}); err != nil {
			t.Fatal(err)
		}
		r, err := s.WaitQuiet(ctx, QuietArgs{Pane: ref, Quiet: 50 * time.Millisecond, Timeout: 20 * time.Second})
		if err != nil || !r.Quiet {
			t.Fatalf("got %+v %v", r, err)
		}
		wakes = append(wakes, r.Wake)
	}
	slices.Sort(wakes)
	t.Logf("quiet wait, 50 ms quiet: woke after the quiet period by median %v, max %v (20 waits)", wakes[len(wakes)/2], wakes[len(wakes)-1])
	if wakes[len(wakes)/2] > time.Second {
		t.Fatalf("median wake %v: the wait does not wake on its timer", wakes[len(wakes)/2])
	}
}
