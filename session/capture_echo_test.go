package session

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCaptureSinceShowsCommandsNotTheirLines reads, from a run_command's
// output_cursor, the commands run_command ran after it, from the pane's
// stream: newest first, and oldest first page by page. Each command shows
// as the shell shows it once its line ran ("$ seq 1 5"), never the line
// that runs it with its markers, and paging reads every line once.
func TestCaptureSinceShowsCommandsNotTheirLines(t *testing.T) {
	for _, shell := range testShells {
		t.Run(shell[0], func(t *testing.T) {
			s, pane := shellSession(t, shell...)
			ctx := testCtx(t)
			ref := PaneRef{PaneID: pane}
			run := func(cmd string, maxLines int) RunResult {
				t.Helper()
				r, err := s.RunCommand(ctx, RunArgs{Pane: ref, Command: cmd, MaxLines: maxLines, Timeout: 30 * time.Second})
				if err != nil || r.TimedOut || r.ExitStatus != 0 {
					t.Fatalf("%q: got %+v, %v", cmd, r, err)
				}
				return r
			}
			cursor := run("seq 101 130", 2).Cursor
			if cursor == "" {
				t.Fatal("run_command cut its output and gave no cursor")
			}
			run("seq 1 5", 0)
			run("echo done-x", 0)
			want := []string{"$ seq 1 5", "1", "2", "3", "4", "5", "$ echo done-x", "done-x"}
			clean := func(how string, lines []string) {
				t.Helper()
				for _, l := range lines {
					if strings.Contains(l, "7717") || strings.Contains(l, "eval") {
						t.Fatalf("%s: a line run_command typed shows: %q", how, l)
					}
				}
				i := slices.Index(lines, "130")
				if i < 0 || !slices.Equal(lines[i+1:min(i+1+len(want), len(lines))], want) {
					t.Fatalf("%s: got %q, want 130 then %q", how, lines, want)
				}
			}
			r, err := s.CaptureSince(ctx, SinceArgs{Pane: ref, Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			clean("newest first", r.Lines)
			var paged []string
			for page := cursor; ; {
				r, err := s.CaptureSince(ctx, SinceArgs{Pane: ref, Cursor: page, Oldest: true, MaxLines: 3})
				if err != nil {
					t.Fatal(err)
				}
				if len(r.Lines) == 0 {
					break
				}
				if len(paged) > 100 {
					t.Fatalf("paging does not end: %q", paged)
				}
				paged, page = append(paged, r.Lines...), r.Cursor
			}
			clean("oldest first, 3 lines a page", paged)
		})
	}
}
