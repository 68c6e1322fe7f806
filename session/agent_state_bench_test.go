package session

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkListStates_1000 measures what the agent states of 1,000 panes
// add to listing them: the listing (one list-panes) with ListStates,
// against the listing alone, both timed in turn against the same server
// in this process; the ratio of the medians is the figure. prog is what
// the panes run: cat (a program that is no shell: its cursor's row is
// read) or sh (a shell: nothing is asked of tmux).
func BenchmarkListStates_1000(b *testing.B) {
	for _, name := range []string{"cat", "sh"} {
		prog := name
		if name == "cat" {
			prog = "exec cat" // not sh -c cat, which tmux would name sh
		}
		b.Run(name, func(b *testing.B) {
			fx, s := newTestServer(b)
			for n := range 10 {
				name := fmt.Sprintf("big%d", n)
				var args []string
				for w := range 10 {
					target := fmt.Sprintf("%s:%d", name, w)
					if w == 0 {
						args = append(args, "new-session", "-d", "-s", name, "-x", "200", "-y", "60", prog, ";")
					} else {
						args = append(args, "new-window", "-d", "-t", target, prog, ";")
					}
					for range 9 {
						args = append(args, "split-window", "-d", "-t", target, prog, ";", "select-layout", "-t", target, "tiled", ";")
					}
				}
				fx.Tmux(b, args[:len(args)-1]...)
			}
			ctx := context.Background()
			list := func() []Pane {
				ps, err := s.Panes(ctx, PaneScope{})
				if err != nil || len(ps) != 1000 {
					b.Fatalf("listed %d panes: %v", len(ps), err)
				}
				return ps
			}
			list() // warm
			var plain, with []time.Duration
			states := map[string]int{}
			for b.Loop() {
				t0 := time.Now()
				list()
				plain = append(plain, time.Since(t0))
				t0 = time.Now()
				st := s.ListStates(ctx, list())
				with = append(with, time.Since(t0))
				for _, a := range st {
					states[a.State]++
				}
			}
			med := func(ds []time.Duration) float64 {
				slices.Sort(ds)
				return float64(ds[len(ds)/2].Microseconds())
			}
			b.ReportMetric(med(plain), "list-µs")
			b.ReportMetric(med(with), "list+states-µs")
			b.ReportMetric(med(with)/med(plain), "x-list")
			var seen []string
			for k, v := range states {
				seen = append(seen, fmt.Sprintf("%s:%d", k, v))
			}
			b.Logf("states seen: %s", strings.Join(seen, " "))
		})
	}
}
