package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// What list_panes costs on a big server, as an agent sees it over stdio:
// a server of 1,000 panes (10 sessions of 25 windows of 4 panes, each
// running cat), listed with the default page, and with limit 0 (all).

const (
	bigSessions = 10
	bigWindows  = 25 // per session
	bigPanes    = 4  // per window
	bigTotal    = bigSessions * bigWindows * bigPanes
)

// bigServer starts a tmux server of bigTotal panes. Each session is made
// by one tmux command line (new-session, then new-window and split-window
// per window), so building it costs ten forks, not a thousand.
func bigServer(tb testing.TB) *fixtures.Server {
	tb.Helper()
	fx := fixtures.NewServer(tb)
	for s := range bigSessions {
		name := fmt.Sprintf("big%d", s)
		var args []string
		for w := range bigWindows {
			target := fmt.Sprintf("%s:%d", name, w)
			if w == 0 {
				// 80x24 (fixtures' size): room for three splits of the active pane.
				args = append(args, "new-session", "-d", "-s", name, "-x", "80", "-y", "24", "cat", ";")
			} else {
				args = append(args, "new-window", "-d", "-t", target, "cat", ";")
			}
			for range bigPanes - 1 {
				args = append(args, "split-window", "-d", "-t", target, "cat", ";")
			}
		}
		fx.Tmux(tb, args[:len(args)-1]...)
		if s == 0 {
			fx.PID(tb) // recorded for cleanup
		}
	}
	if n := strings.Count(fx.Tmux(tb, "list-panes", "-a", "-F", "#{pane_id}"), "%"); n != bigTotal {
		tb.Fatalf("built %d panes, want %d", n, bigTotal)
	}
	return fx
}

// listPanesCall sends one list_panes call with args and returns the
// response line and its decoded structured result.
func listPanesCall(tb testing.TB, r *rawServer, id int, args string) (string, listPage) {
	tb.Helper()
	r.send(tb, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"list_panes","arguments":%s}}`, id, args))
	line := r.next(tb, 60*time.Second)
	var resp struct {
		Result struct {
			IsError           bool     `json:"isError"`
			StructuredContent listPage `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &resp); err != nil || resp.Result.IsError {
		tb.Fatalf("list_panes %s: %.500s (%v)", args, line, err)
	}
	return line, resp.Result.StructuredContent
}

type listPage struct {
	Result []struct {
		PaneID string `json:"pane_id"`
	} `json:"result"`
	Total      int  `json:"total"`
	NextOffset *int `json:"next_offset"`
}

func startInitialized(tb testing.TB, fx *fixtures.Server) *rawServer {
	tb.Helper()
	r := startRaw(tb, fx)
	r.send(tb, initialize)
	r.next(tb, 30*time.Second)
	r.send(tb, initialized)
	return r
}

// TestListPanesOnAThousandPanes lists a server of 1,000 panes as an agent
// would: the default answer is a page of 100 rows under 100 KB, with the
// total and the offset of the next page; following next_offset visits
// every pane once, in order; and limit 0 still returns all of them within
// the response cap.
func TestListPanesOnAThousandPanes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds a server of 1,000 panes")
	}
	t.Parallel()
	fx := bigServer(t)
	r := startInitialized(t, fx)

	line, page := listPanesCall(t, r, 1, `{}`)
	if len(page.Result) != 100 || page.Total != bigTotal || page.NextOffset == nil || *page.NextOffset != 100 {
		t.Fatalf("default page: %d rows, total %d, next_offset %v; want 100, %d, 100",
			len(page.Result), page.Total, page.NextOffset, bigTotal)
	}
	if len(line) > 100_000 {
		t.Errorf("the default page is %d bytes, over 100,000", len(line))
	}
	t.Logf("list_panes, default page of 100 of %d panes: %d bytes", bigTotal, len(line))

	all, whole := listPanesCall(t, r, 2, `{"limit":0}`)
	if len(whole.Result) != bigTotal || whole.NextOffset != nil {
		t.Fatalf("limit 0: %d rows, next_offset %v; want %d, none", len(whole.Result), whole.NextOffset, bigTotal)
	}
	t.Logf("list_panes, limit 0 (all %d panes): %d bytes", bigTotal, len(all))

	// Following next_offset from the first page visits every pane once,
	// in the order of the whole list.
	var seen []string
	for id, next := 3, page.NextOffset; ; id++ {
		for _, p := range page.Result {
			seen = append(seen, p.PaneID)
		}
		if next == nil {
			break
		}
		if id > 3+bigTotal/100 {
			t.Fatalf("still paging after %d pages", id-2)
		}
		_, page = listPanesCall(t, r, id, fmt.Sprintf(`{"offset":%d}`, *next))
		if page.Total != bigTotal || len(page.Result) != 100 {
			t.Fatalf("offset %d: %d rows, total %d; want 100, %d", *next, len(page.Result), page.Total, bigTotal)
		}
		next = page.NextOffset
	}
	for i, p := range whole.Result {
		if i >= len(seen) || seen[i] != p.PaneID {
			t.Fatalf("pages joined differ from limit 0 at row %d (%d rows seen)", i, len(seen))
		}
	}
	if len(seen) != bigTotal {
		t.Errorf("pages joined: %d rows, want %d", len(seen), bigTotal)
	}
}

// BenchmarkListPanes_1000 measures list_panes over stdio on a server of
// 1,000 panes against a forked `tmux list-panes -a` on the same server, in
// the same process (medians):
//
//	µs/call   list_panes with the default page (100 rows)
//	all-µs    list_panes with limit 0 (all 1,000 rows)
//	fork-µs   a forked tmux list-panes -a (default format)
//	x-fork    µs/call / fork-µs (the bar: at most 2)
//	bytes     the default page's response line
func BenchmarkListPanes_1000(b *testing.B) {
	fx := bigServer(b)
	r := startInitialized(b, fx)
	id := 0
	call := func(args string) (time.Duration, int) {
		id++
		t0 := time.Now()
		line, _ := listPanesCall(b, r, id, args)
		return time.Since(t0), len(line)
	}
	fork := func() time.Duration {
		t0 := time.Now()
		cmd := exec.Command(fx.Bin, fx.Args("list-panes", "-a")...)
		cmd.Env = fx.Env()
		out, err := cmd.Output()
		if err != nil || strings.Count(string(out), "\n") != bigTotal {
			b.Fatalf("fork: %d lines, %v", strings.Count(string(out), "\n"), err)
		}
		return time.Since(t0)
	}
	call(`{}`) // warm
	var lat, allLat, forkLat []time.Duration
	var size int
	for b.Loop() {
		forkLat = append(forkLat, fork())
		d, n := call(`{}`)
		lat, size = append(lat, d), n
		d, _ = call(`{"limit":0}`)
		allLat = append(allLat, d)
	}
	med, f := us(median(lat)), us(median(forkLat))
	b.ReportMetric(med, "µs/call")
	b.ReportMetric(us(median(allLat)), "all-µs")
	b.ReportMetric(f, "fork-µs")
	b.ReportMetric(med/f, "x-fork")
	b.ReportMetric(float64(size), "bytes")
}
