package session

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/session/internal/foreground"
)

// BenchmarkForeground: one look at a pane's foreground program (a shell
// at its prompt) read from /proc in this process, and by the script that
// the ssh host runs (here through a local sh: the remote work without the
// ssh channel), against a control-mode round trip.
func BenchmarkForeground(b *testing.B) {
	if runtime.GOOS != "linux" {
		b.Skip("/proc is Linux's")
	}
	fx, s := newTestServer(b)
	ctx := context.Background()
	fx.NewSession(b, "fg")
	pid := fx.Tmux(b, "display-message", "-p", "-t", "fg:", "#{pane_pid}")
	tty := fx.Tmux(b, "display-message", "-p", "-t", "fg:", "#{pane_tty}")
	median := func(f func()) float64 {
		var ds []time.Duration
		for range 200 {
			start := time.Now()
			f()
			ds = append(ds, time.Since(start))
		}
		slices.Sort(ds)
		return float64(ds[len(ds)/2].Nanoseconds()) / 1e3
	}
	rt := median(func() {
		if _, err := s.exec(ctx, controlmode.NewCommand("display-message", "-p", "x")); err != nil {
			b.Fatal(err)
		}
	})
	var fg Foreground
	local := median(func() { fg = s.Foreground(ctx, pid, tty) })
	if !fg.Known {
		b.Fatalf("the shell at its prompt: got %+v, want it known", fg)
	}
	script := median(func() {
		out, err := runForegroundScript(ctx, s.opts, append([]string{"sh"}, foreground.Args(pid, tty)...))
		if err != nil || !foreground.Read(out, tty).Known {
			b.Fatalf("script: %v: %s", err, out)
		}
	})
	for b.Loop() {
		s.Foreground(ctx, pid, tty)
	}
	b.ReportMetric(local, "proc-µs")
	b.ReportMetric(script, "script-µs")
	b.ReportMetric(rt, "roundtrip-µs")
	b.ReportMetric(local/rt, "x-proc/roundtrip")
	b.ReportMetric(script/rt, "x-script/roundtrip")
}

// TestSSHForegroundProber: over ssh one shell on the host answers every
// look; found gone it is started again, and Close ends it with the
// connection's other sessions.
func TestSSHForegroundProber(t *testing.T) {
	e := newSSHEnv(t, -1)
	ctx := testCtx(t)
	e.fx.NewSession(t, "fg", "env", "PS1=$ ", "ENV=", fixtures.TestShell)
	pid := e.fx.Tmux(t, "display-message", "-p", "-t", "fg:", "#{pane_pid}")
	tty := e.fx.Tmux(t, "display-message", "-p", "-t", "fg:", "#{pane_tty}")
	reading := func() bool { fg := e.srv.Foreground(ctx, pid, tty); return fg.Known && fg.Reading }
	waitFor(t, "the shell to read its terminal", reading)
	first := e.host.prober
	for range 5 {
		if !reading() {
			t.Fatal("a later look: not reading")
		}
	}
	if e.host.prober != first {
		t.Fatal("a new prober for each look, want one")
	}
	first.Stop() // as if it had died
	<-first.Done()
	if !reading() || e.host.prober == first || e.host.prober == nil {
		t.Fatalf("after the prober was killed: reading %v, prober %p (was %p); want a new one reading", reading(), e.host.prober, first)
	}
	e.m.Close()
	e.host.Close()
	if e.host.prober != nil {
		t.Fatal("the prober outlived Close")
	}
	waitFor(t, "sshd's sessions to end", func() bool { return len(e.sshd.Sessions()) == 0 })
}
