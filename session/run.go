package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// RunArgs are the arguments of [Server.RunCommand].
type RunArgs struct {
	Pane    PaneRef
	Command string
	Timeout time.Duration
	// MaxLines keeps only the newest lines of output; 0 keeps them all.
	MaxLines int
	// SuppressHistory types a space first, so shells that ignore lines
	// starting with one (HISTCONTROL=ignorespace, zsh's
	// HIST_IGNORE_SPACE) keep the command out of their history.
	SuppressHistory bool
}

// RunResult is the outcome of [Server.RunCommand].
type RunResult struct {
	PaneID          string
	ExitStatus      int  // valid unless TimedOut
	TimedOut        bool // the command had not finished when the timeout passed
	Output          []string
	OutputTruncated bool
	TruncatedLines  int
	Elapsed         time.Duration
}

// shells are the programs RunCommand types into. fish has its own syntax.
var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true,
	"mksh": true, "ash": true, "yash": true, "busybox": true, "fish": true}

// RunCommand types command into the pane's shell and returns its exit
// status and its complete output, read from the pane's output stream, so
// output longer than the screen is kept. The command runs in the shell
// itself (cd and exports persist), between two markers unique to the call
// that its output cannot forge. Nothing but the command line is typed:
// no temporary file, no tmux wait-for on the shared channel.
func (s *Server) RunCommand(ctx context.Context, a RunArgs) (RunResult, error) {
	start := time.Now()
	if strings.IndexByte(a.Command, 0) >= 0 {
		return RunResult{}, errorf(CodeInvalidArguments, false, "command contains a NUL byte")
	}
	if a.SuppressHistory && strings.ContainsAny(a.Command, "\r\n") {
		return RunResult{}, errorf(CodeInvalidArguments, false, "with suppress_history the command must be a single line")
	}
	pane, err := s.ResolvePane(ctx, a.Pane, false)
	if err != nil {
		return RunResult{}, err
	}
	// The pane's state and its session (for the output stream) in one
	// round trip.
	rs, err := s.exec(ctx, controlmode.NewCommand("display-message", "-p", "-t", pane,
		"#{pane_current_command}\t#{alternate_on}\t#{pane_in_mode}\t#{pane_dead}\t#{session_id}"))
	if err != nil {
		return RunResult{}, err
	}
	f := strings.Split(strings.Join(rs[0].Lines, ""), "\t")
	if len(f) != 5 || !strings.HasPrefix(f[4], "$") {
		return RunResult{}, errorf(CodeNotFound, true, "can't find pane: %s", pane)
	}
	program := strings.TrimPrefix(f[0], "-")
	switch {
	case f[3] == "1":
		return RunResult{}, errorf(CodeTmuxError, false, "pane %s is dead; respawn it first", pane)
	case !shells[program]:
		return RunResult{}, errorf(CodeTmuxError, false, "pane %s is running %q, not a shell at its prompt; run_command types into a shell (bash, zsh, sh)", pane, f[0])
	case f[1] == "1" || f[2] == "1":
		return RunResult{}, errorf(CodeTmuxError, false, "pane %s is in a mode or on the alternate screen, not at a shell prompt", pane)
	}

	st, release, err := s.watchPaneIn(pane, f[4])
	if err != nil {
		return RunResult{}, err
	}
	defer release()
	cursor, _ := st.position()

	mark := make([]byte, 8)
	_, _ = rand.Read(mark) // never fails
	tag := "__tmcp_" + hex.EncodeToString(mark)
	line := commandLine(program, tag, a.Command)
	if a.SuppressHistory {
		line = " " + line
	}
	pre := inputStart{ends: map[string]int64{pane: cursor}}
	if _, err := s.exec(ctx,
		controlmode.NewCommand("send-keys", "-t", pane, "-l").Text(line),
		controlmode.NewCommand("send-keys", "-t", pane, "Enter")); err != nil {
		return RunResult{}, err
	}
	s.noteInput(pre, pane, line, true)

	res := RunResult{PaneID: pane}
	out := &outputLines{max: a.MaxLines}
	var text lineReader
	begun := false
	wctx, cancel := context.WithTimeout(ctx, a.Timeout)
	defer cancel()
	for {
		if err := st.wait(wctx, cursor); err != nil {
			if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
				res.TimedOut = true
				if begun {
					out.add(text.line())
				}
				res.Output, res.OutputTruncated, res.TruncatedLines = out.result()
				res.Elapsed = time.Since(start)
				return res, nil
			}
			return RunResult{}, fromExec(err)
		}
		r := st.read(cursor)
		cursor = r.next
		if r.connLost {
			return RunResult{}, errorf(CodeConnectionLost, true, "the tmux client following pane %s ended while the command ran; its outcome is unknown", pane)
		}
		text.write(r.data)
		for _, l := range text.take() {
			// A shell may print its continuation prompt ("> ") before
			// the first marker, on the same line.
			switch i := strings.Index(l, tag+"_E:"); {
			case !begun:
				begun = strings.HasSuffix(l, tag+"_S")
			case i >= 0:
				code, err := strconv.Atoi(l[i+len(tag)+3:])
				if err != nil {
					return RunResult{}, errorf(CodeTmuxError, true, "cannot read the exit status from %q", l)
				}
				res.ExitStatus = code
				out.dropTrailingEmpty()
				res.Output, res.OutputTruncated, res.TruncatedLines = out.result()
				res.Elapsed = time.Since(start)
				return res, nil
			default:
				out.add(l)
			}
		}
		if r.paused || r.missed > 0 {
			out.lost = true
		}
		if r.gone {
			return RunResult{}, errorf(CodeNotFound, true, "pane %s exited while the command ran", pane)
		}
	}
}

// commandLine is what RunCommand types: the start marker, the command in a
// group of the shell itself, and the end marker with the exit status. The
// markers are printed with the tag split in two, so the echo of the typed
// line never contains them whole. The command ends with a newline inside
// the group, so a trailing comment cannot swallow the closing brace.
func commandLine(shell, tag, command string) string {
	half := len(tag) / 2
	a, b := tag[:half], tag[half:]
	if shell == "fish" {
		return "printf '%s%s_S\\n' " + a + " " + b + "; begin; " + command + "\nend; printf '\\n%s%s_E:%s\\n' " + a + " " + b + " $status"
	}
	return "printf '%s%s_S\\n' " + a + " " + b + "; { " + command + "\n}; printf '\\n%s%s_E:%s\\n' " + a + " " + b + " \"$?\""
}

// outputLines keeps the output of a command, the newest max lines when
// max > 0.
type outputLines struct {
	max     int
	lines   []string
	dropped int
	lost    bool // tmux discarded output while the command ran
}

func (o *outputLines) add(l string) {
	o.lines = append(o.lines, l)
	if o.max > 0 && len(o.lines) > 2*o.max {
		n := len(o.lines) - o.max
		o.dropped += n
		o.lines = append([]string(nil), o.lines[n:]...)
	}
}

// dropTrailingEmpty removes the empty line the end marker's leading
// newline makes when the output already ended with one.
func (o *outputLines) dropTrailingEmpty() {
	if n := len(o.lines); n > 0 && o.lines[n-1] == "" {
		o.lines = o.lines[:n-1]
	}
}

func (o *outputLines) result() (lines []string, truncated bool, dropped int) {
	lines, dropped = o.lines, o.dropped
	if o.max > 0 && len(lines) > o.max {
		dropped += len(lines) - o.max
		lines = lines[len(lines)-o.max:]
	}
	if lines == nil {
		lines = []string{}
	}
	return lines, dropped > 0 || o.lost, dropped
}
