package main

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// vmRSS reads a process's resident memory in bytes from /proc.
func vmRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0 // ended: the caller sees it elsewhere
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestFloodMemoryOverStdio: four panes print without pause while an agent
// waits on each of them over and over and reads one with capture_since:
// the server's memory stays under 64 MB (its soft limit is 40 MiB; see
// main). TMUX_MCP_FLOOD_SECONDS sets the flood's length (10 s; the figure in
// docs/performance.md is from 60).
func TestFloodMemoryOverStdio(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	seconds := 10
	if testing.Short() || raceEnabled {
		// The race detector takes five to ten times the memory: a race
		// build checks that calls keep answering, not the figure.
		seconds = 3
	}
	if v, err := strconv.Atoi(os.Getenv("TMUX_MCP_FLOOD_SECONDS")); err == nil {
		seconds = v
	}
	const limit = 64 << 20
	c, _, first := workflow(t)
	panes := []string{first}
	for range 3 {
		var p struct {
			PaneID string `json:"pane_id"`
		}
		c.ok(t, "split_window", map[string]any{"pane_id": first}, &p)
		panes = append(panes, p.PaneID)
	}
	for _, p := range panes {
		c.waitText(t, p, prompt)
		c.ok(t, "send_keys", map[string]any{"pane_id": p, "keys": "yes 'a line of a flood, printed without pause'", "literal": true}, nil)
	}
	defer func() {
		for _, p := range panes {
			c.ok(t, "send_keys", map[string]any{"pane_id": p, "keys": "C-c", "enter": false}, nil)
		}
	}()
	pid := c.cmd.Process.Pid
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(seconds)*time.Second)
	defer cancel()
	var (
		wg          sync.WaitGroup
		calls, errs atomic.Int64
		firstErr    atomic.Value
	)
	call := func(tool string, args map[string]any) *sdk.CallToolResult {
		res, err := c.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
		calls.Add(1)
		if err != nil || res.IsError {
			errs.Add(1)
			if err == nil {
				err = &callError{textOf(res)}
			}
			firstErr.CompareAndSwap(nil, err.Error())
		}
		return res
	}
	for _, p := range panes {
		wg.Go(func() {
			for ctx.Err() == nil {
				call("wait_for_text", map[string]any{"pane_id": p, "patterns": []string{"never printed"}, "timeout": 1})
			}
		})
	}
	wg.Go(func() {
		cursor := ""
		for ctx.Err() == nil {
			args := map[string]any{"pane_id": panes[0], "max_lines": 100}
			if cursor != "" {
				args = map[string]any{"cursor": cursor, "max_lines": 100}
			}
			res := call("capture_since", args)
			if m, ok := res.StructuredContent.(map[string]any); ok {
				cursor, _ = m["cursor"].(string)
			}
		}
	})
	var peak int64
	start := vmRSS(t, pid)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-tick.C:
			peak = max(peak, vmRSS(t, pid))
		}
	}
	wg.Wait()
	t.Logf("%d s of yes in 4 panes, waits on each and capture_since on one: %d calls (%d errors); RSS %d MiB at start, peak %d MiB",
		seconds, calls.Load(), errs.Load(), start>>20, peak>>20)
	if e := firstErr.Load(); e != nil {
		t.Fatalf("a call failed during the flood: %v", e)
	}
	if peak == 0 || peak > limit && !raceEnabled {
		t.Fatalf("peak RSS %d MiB, want under %d", peak>>20, limit>>20)
	}
}

type callError struct{ text string }

func (e *callError) Error() string { return e.text }
