package session

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRunCommandLastFrame: a command that draws a block of lines again in
// place (two progress bars, moved up and redrawn) answers with the last
// frame, as the pane shows it, in every shell, also when its line wraps
// and its last line has no newline; output that places the cursor by
// absolute position, whose rows are not known, keeps every frame.
func TestRunCommandLastFrame(t *testing.T) {
	shells := append(slices.Clone(testShells), []string{"fish", "--no-config"})
	// Valid in every shell: printf alone. The frames are drawn by the
	// program's printf, not typed, so no frame is in the command's echo.
	const bars = `printf 'start\n'; printf 'a: %s0%%\nb: %s0%%\n\033[2A' 1 1 2 2; printf '\033[Ka: 30%%\n\033[Kb: 30%%\n'; printf tail`
	for _, shell := range shells {
		t.Run(shell[0], func(t *testing.T) {
			s, pane := shellSession(t, shell...)
			ctx := testCtx(t)
			ref := PaneRef{PaneID: pane}
			want := []string{"start", "a: 30%", "b: 30%", "tail"}
			for _, command := range []string{bars, strings.Repeat(" ", 100) + bars} {
				r, err := s.RunCommand(ctx, RunArgs{Pane: ref, Command: command, Timeout: 30 * time.Second})
				if err != nil || !slices.Equal(r.Output, want) {
					t.Fatalf("a %d-byte line: got %q %v, want the last frame %q", len(command), r.Output, err, want)
				}
			}
			r, err := s.RunCommand(ctx, RunArgs{Pane: ref, Command: `printf 'start\n'; printf 'a: 10\n\033[1;1Ha: 30\n'; printf end`, Timeout: 30 * time.Second})
			if err != nil || !slices.Equal(r.Output, []string{"start", "a: 10", "a: 30", "end"}) {
				t.Fatalf("an absolute position: got %q %v, want every frame", r.Output, err)
			}
		})
	}
}
