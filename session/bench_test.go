package session

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
)

// Benchmarks print their figure and, measured in the same process against
// the same tmux server, the baseline it is compared with, as a ratio.

// forkUS runs `tmux display-message -p x` as a process per call for about
// d and returns µs per call.
func forkUS(b *testing.B, fx *fixtures.Server, d time.Duration) float64 {
	n, start := 0, time.Now()
	for time.Since(start) < d || n < 20 {
		if err := exec.Command(fx.Bin, fx.Args("display-message", "-p", "x")...).Run(); err != nil {
			b.Fatal(err)
		}
		n++
	}
	return float64(time.Since(start).Microseconds()) / float64(n)
}

// roundTripUS measures the raw control-mode round trip for about d.
func roundTripUS(b *testing.B, s *Server, d time.Duration) float64 {
	ctx := context.Background()
	cmd := controlmode.NewCommand("display-message", "-p", "x")
	n, start := 0, time.Now()
	for time.Since(start) < d || n < 100 {
		if _, err := s.exec(ctx, cmd); err != nil {
			b.Fatal(err)
		}
		n++
	}
	return float64(time.Since(start).Microseconds()) / float64(n)
}

func BenchmarkSessions_FromModel(b *testing.B) {
	fx, s := newTestServer(b)
	ctx := context.Background()
	for i := range 5 {
		fx.NewSession(b, fmt.Sprint("s", i))
	}
	if _, err := s.Sessions(ctx); err != nil {
		b.Fatal(err)
	}
	list := controlmode.NewCommand("list-sessions", "-F", s.fmts.sessions.String())
	n, start := 0, time.Now()
	for time.Since(start) < 500*time.Millisecond {
		if _, err := s.exec(ctx, list); err != nil {
			b.Fatal(err)
		}
		n++
	}
	viaTmux := float64(time.Since(start).Nanoseconds()) / float64(n)
	b.ReportAllocs()
	start = time.Now()
	for b.Loop() {
		if got, err := s.Sessions(ctx); err != nil || len(got) != 5 {
			b.Fatal(got, err)
		}
	}
	fromModel := float64(time.Since(start).Nanoseconds()) / float64(b.N)
	b.ReportMetric(viaTmux/1e3, "tmux-µs/read")
	b.ReportMetric(viaTmux/fromModel, "x-faster-than-tmux")
}

// build32 creates 8 windows of 4 panes in session target, one command at
// a time through run.
func build32(target string, run func(args ...string) error) error {
	for w := range 8 {
		win := fmt.Sprintf("%s:%d", target, w+1)
		if err := run("new-window", "-d", "-t", win); err != nil {
			return err
		}
		for range 3 {
			if err := run("split-window", "-d", "-t", win); err != nil {
				return err
			}
		}
	}
	return nil
}

func BenchmarkBuild32Panes(b *testing.B) {
	fx, s := newTestServer(b)
	ctx := context.Background()
	fx.NewSession(b, "base")
	if _, err := s.Sessions(ctx); err != nil {
		b.Fatal(err)
	}
	var engine, fork time.Duration
	for i := 0; b.Loop(); i++ {
		name := fmt.Sprint("e", i)
		fx.Tmux(b, "new-session", "-d", "-s", name, "-x", "200", "-y", "50")
		start := time.Now()
		// All 32 commands on one line: one round trip.
		var cmds []controlmode.Command
		if err := build32(name, func(args ...string) error {
			cmds = append(cmds, controlmode.NewCommand(args[0], args[1:]...))
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		if _, err := s.execChange(ctx, cmds...); err != nil {
			b.Fatal(err)
		}
		engine += time.Since(start)

		name = fmt.Sprint("f", i)
		fx.Tmux(b, "new-session", "-d", "-s", name, "-x", "200", "-y", "50")
		start = time.Now()
		if err := build32(name, func(args ...string) error {
			return exec.Command(fx.Bin, fx.Args(args...)...).Run()
		}); err != nil {
			b.Fatal(err)
		}
		fork += time.Since(start)
		fx.Tmux(b, "kill-session", "-t", "e"+fmt.Sprint(i))
		fx.Tmux(b, "kill-session", "-t", name)
	}
	b.ReportMetric(float64(engine.Microseconds())/float64(b.N), "engine-µs/build")
	b.ReportMetric(float64(fork.Microseconds())/float64(b.N), "fork-µs/build")
	b.ReportMetric(float64(fork)/float64(engine), "x-faster-than-fork")
}

// BenchmarkWaitForText_Wake measures how long wait_for_text takes to
// return after the awaited text is written to the pane's terminal: median
// and p99 over 200 trials.
func BenchmarkWaitForText_Wake(b *testing.B) {
	benchWake(b, func(mark string) string { return mark + "\r\n" })
}

// BenchmarkWaitForText_WakeInline is BenchmarkWaitForText_Wake for a line
// an inline TUI draws: from the top of the screen, then a cursor move down
// and an erase, so only a read of tmux's grid finds it.
func BenchmarkWaitForText_WakeInline(b *testing.B) {
	benchWake(b, func(mark string) string { return "\x1b[H\x1b[J" + mark + "\x1b[1B\r\x1b[2Kstatus" })
}

// benchWake measures, 200 times a round, how long after a pane is written
// what draw(mark) draws a wait for mark returns, as median and p99.
func benchWake(b *testing.B, draw func(mark string) string) {
	_, wk := newWaker(b, draw)
	var lat []time.Duration
	for b.Loop() {
		lat = append(lat, wk.wakes(200)...)
	}
	reportWakes(b, lat)
}

// A waker times waits on one pane: each from the moment what draw(mark)
// draws is written to the pane's terminal to the moment the wait for mark
// returns.
type waker struct {
	b     *testing.B
	s     *Server
	pane  string
	tty   *os.File
	st    *panestream.Stream
	draw  func(mark string) string
	trial int // numbers the marks: a mark already on the screen would match at once
	// marked and drawn, if set, are told of each trial's mark before its
	// wait starts, and when it was drawn once it was.
	marked func(mark string)
	drawn  func(mark string, at time.Time)
	// arrived, if set, is given the pane's output as a second client of
	// the benchmark gets it (see floodApart).
	arrived func(data []byte)
}

// newWaker starts a test server with a session whose pane reads its
// input and prints nothing, and returns the fixture and a waker on it.
func newWaker(b *testing.B, draw func(mark string) string) (*fixtures.Server, *waker) {
	fx, s := newTestServer(b)
	pane, tty := silentPane(b, fx, s, "w")
	return fx, &waker{b: b, s: s, pane: pane, tty: tty, st: s.streams.Get(pane), draw: draw}
}

// wakes times n waits and returns their latencies, sorted.
func (wk *waker) wakes(n int) []time.Duration {
	b, ctx := wk.b, context.Background()
	lat := make([]time.Duration, 0, n)
	for range n {
		wk.trial++
		mark := fmt.Sprintf("wake-%d", wk.trial)
		if wk.marked != nil {
			wk.marked(mark)
		}
		following := wk.st.Following()
		done := make(chan time.Time, 1)
		errc := make(chan error, 1)
		go func() {
			r, err := wk.s.WaitForText(ctx, WaitArgs{Pane: PaneRef{PaneID: wk.pane}, Patterns: []string{mark}, MatchCase: true, Timeout: 10 * time.Second})
			done <- time.Now()
			if err == nil && r.Outcome != OutcomeMatched {
				err = fmt.Errorf("outcome %s: %+v", r.Outcome, r)
			}
			errc <- err
		}()
		// Start the clock only once the wait is following the stream;
		// blocked, not spinning: under a flood the spin took most of a
		// core, which tmux needs, for the round trips before the wait follows.
		select {
		case <-following:
		case <-done:
			b.Fatalf("%s: the wait ended before it followed the stream: %v", mark, <-errc)
		}
		t0 := time.Now()
		if _, err := fmt.Fprint(wk.tty, wk.draw(mark)); err != nil {
			b.Fatal(err)
		}
		if wk.drawn != nil {
			wk.drawn(mark, t0)
		}
		t1 := <-done
		if err := <-errc; err != nil {
			b.Fatal(err)
		}
		lat = append(lat, t1.Sub(t0))
	}
	slices.Sort(lat)
	return lat
}

// reportWakes reports the median and p99 of lat and returns the median.
func reportWakes(b *testing.B, lat []time.Duration) time.Duration {
	reportPercentiles(b, "wake", lat)
	return lat[len(lat)/2]
}

// reportPercentiles reports the median and p99 of lat as name-median-µs
// and name-p99-µs.
func reportPercentiles(b *testing.B, name string, lat []time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), name+"-median-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), name+"-p99-µs")
}

func BenchmarkRunCommand_True(b *testing.B) {
	fx, s := newTestServer(b)
	ctx := context.Background()
	fx.NewSession(b, "sh", "env", "PS1=$ ", "sh")
	pane := paneOf(b, s, "sh")
	waitPrompt(b, s, pane)
	start := time.Now()
	for b.Loop() {
		r, err := s.RunCommand(ctx, RunArgs{Pane: PaneRef{PaneID: pane}, Command: "true", Timeout: 10 * time.Second})
		if err != nil || r.ExitStatus != 0 {
			b.Fatal(r, err)
		}
	}
	us := float64(time.Since(start).Microseconds()) / float64(b.N)
	rt := roundTripUS(b, s, 300*time.Millisecond)
	fork := forkUS(b, fx, 300*time.Millisecond)
	b.ReportMetric(us, "µs/run")
	b.ReportMetric(rt, "round-trip-µs")
	b.ReportMetric(fork, "fork-µs")
}

// BenchmarkRunCommand_TrueBash is BenchmarkRunCommand_True in bash, which
// run_command drives without a fork.
func BenchmarkRunCommand_TrueBash(b *testing.B) {
	fx, s := newTestServer(b)
	ctx := context.Background()
	fx.NewSession(b, "sh", "env", "PS1=$ ", "bash", "--norc", "--noprofile")
	pane := paneOf(b, s, "sh")
	waitPrompt(b, s, pane)
	for b.Loop() {
		r, err := s.RunCommand(ctx, RunArgs{Pane: PaneRef{PaneID: pane}, Command: "true", Timeout: 10 * time.Second})
		if err != nil || r.ExitStatus != 0 {
			b.Fatal(r, err)
		}
	}
}

// BenchmarkSendKeys_CopyModeGuard is send_keys of text with keys that copy
// mode binds to a prompt in the pane ("git tag", guarded from tmux 3.8) and
// of text without ("echo hi", never guarded), alternated call by call to a
// pane running cat, with their medians and ratio: what the guard costs on
// the hot path. Before 3.8 neither is guarded and the ratio is noise.
func BenchmarkSendKeys_CopyModeGuard(b *testing.B) {
	fx, s := newTestServer(b)
	ctx := context.Background()
	fx.NewSession(b, "keys", "cat")
	pane := paneOf(b, s, "keys")
	if _, refused := sendKeysCommands(SendKeysArgs{Keys: "git tag", Literal: true}, pane, mustGuard(b, s)); s.release().BindsPanePrompts() && len(refused.waiting) == 0 {
		b.Fatal("tmux 3.8 and later: git tag is not guarded")
	}
	send := func(text string, drive bool) time.Duration {
		start := time.Now()
		if _, err := s.SendKeys(ctx, PaneRef{PaneID: pane}, SendKeysArgs{Keys: text, Literal: true, DriveMode: drive}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	// plain: keys meant for any mode and opening no prompt, unguarded;
	// prompt: keys that 3.8's copy mode answers with a pane prompt;
	// mode: the default, refused in any mode (a -N format from 3.4, a look
	// first before).
	var plain, prompt, mode []time.Duration
	for b.Loop() {
		plain = append(plain, send("echo hi", true))
		prompt = append(prompt, send("git tag", true))
		mode = append(mode, send("echo hi", false))
	}
	median := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }
	p, g, m := median(plain), median(prompt), median(mode)
	b.ReportMetric(float64(p.Microseconds()), "plain-median-µs")
	b.ReportMetric(float64(g.Microseconds()), "guarded-median-µs")
	b.ReportMetric(float64(g)/float64(p), "guarded/plain")
	b.ReportMetric(float64(m.Microseconds()), "mode-guarded-median-µs")
	b.ReportMetric(float64(m)/float64(p), "mode-guarded/plain")
}

func mustGuard(b *testing.B, s *Server) keyGuard {
	g, err := s.keys.guardFor(context.Background(), true)
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// BenchmarkSendKeys_WaitForText is an agent's step, 200 times a round: a
// line sent with send_keys to a pane whose shell loop answers each line it
// reads, then wait_for_text for the answer (matched after the input, never
// its echo). It
// reports the step's and the wait's median and p99, the lines of commands
// each wait sent on the main client (calls/wait: what it cost to start,
// and any read while it followed), and, measured in the same process, the
// raw round trip with the wait's median as a multiple of it.
func BenchmarkSendKeys_WaitForText(b *testing.B) {
	fx, s := newTestServer(b)
	ctx := context.Background()
	fx.NewSession(b, "step", "sh", "-c", `while read l; do echo "got $l"; done`)
	pane := paneOf(b, s, "step")
	ref := PaneRef{PaneID: pane}
	var steps, waits []time.Duration
	var calls uint64
	n := 0
	for b.Loop() {
		for range 200 {
			n++
			line := fmt.Sprintf("step-%d", n)
			t0 := time.Now()
			if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: line, Literal: true, Enter: true}); err != nil {
				b.Fatal(err)
			}
			t1, before := time.Now(), s.ConnStats().Calls
			r, err := s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"got " + line}, MatchCase: true, Timeout: 10 * time.Second})
			t2 := time.Now()
			if err != nil || r.Outcome != OutcomeMatched {
				b.Fatal(r, err)
			}
			calls += s.ConnStats().Calls - before
			steps, waits = append(steps, t2.Sub(t0)), append(waits, t2.Sub(t1))
		}
	}
	rt := roundTripUS(b, s, 300*time.Millisecond)
	reportPercentiles(b, "step", steps)
	reportPercentiles(b, "wait", waits)
	b.ReportMetric(float64(calls)/float64(len(waits)), "calls/wait")
	b.ReportMetric(rt, "round-trip-µs")
	b.ReportMetric(float64(waits[len(waits)/2].Microseconds())/rt, "wait/round-trip")
}

// BenchmarkCaptureSince is an agent reading what a pane printed since its
// last look: a line printed, seen by a wait, then capture_since with the
// cursor of the look before. It reports capture_since's median and p99,
// the lines of commands each sent on the main client, and, measured in
// the same process, the raw round trip with the median as a multiple of
// it.
func BenchmarkCaptureSince(b *testing.B) {
	fx, s := newTestServer(b)
	ctx := context.Background()
	fx.NewSession(b, "since", "sh", "-c", `while read l; do echo "got $l"; done`)
	pane := paneOf(b, s, "since")
	ref := PaneRef{PaneID: pane}
	res, err := s.CaptureSince(ctx, SinceArgs{Pane: ref})
	if err != nil {
		b.Fatal(err)
	}
	cursor := res.Cursor
	var took []time.Duration
	var calls uint64
	n := 0
	for b.Loop() {
		for range 100 {
			n++
			line := fmt.Sprintf("line-%d", n)
			if _, err := s.SendKeys(ctx, ref, SendKeysArgs{Keys: line, Literal: true, Enter: true}); err != nil {
				b.Fatal(err)
			}
			if r, err := s.WaitForText(ctx, WaitArgs{Pane: ref, Patterns: []string{"got " + line}, MatchCase: true, Timeout: 10 * time.Second}); err != nil || r.Outcome != OutcomeMatched {
				b.Fatal(r, err)
			}
			before, t0 := s.ConnStats().Calls, time.Now()
			res, err := s.CaptureSince(ctx, SinceArgs{Pane: ref, Cursor: cursor})
			took = append(took, time.Since(t0))
			calls += s.ConnStats().Calls - before
			if err != nil || !slices.Contains(res.Lines, "got "+line) {
				b.Fatal(res, err)
			}
			cursor = res.Cursor
		}
	}
	rt := roundTripUS(b, s, 300*time.Millisecond)
	reportPercentiles(b, "capture", took)
	b.ReportMetric(float64(calls)/float64(len(took)), "calls/capture")
	b.ReportMetric(rt, "round-trip-µs")
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/rt, "capture/round-trip")
}
