package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
	"github.com/tmux-mcp/tmux-mcp/session/internal/shellrun"
	"github.com/tmux-mcp/tmux-mcp/session/internal/termtext"
)

// RunArgs are the arguments of [Server.RunCommand].
type RunArgs struct {
	Pane    PaneRef
	Command string
	Timeout time.Duration
	// MaxLines keeps only the newest lines of output; 0 keeps them all.
	MaxLines int
	// MaxBytes keeps only the newest lines of output within this many
	// bytes (the newest line always, cut to it); 0 keeps them all.
	MaxBytes int
	// SuppressHistory types a space first, so shells that ignore lines
	// starting with one (HISTCONTROL=ignorespace, zsh's
	// HIST_IGNORE_SPACE) keep the command out of their history.
	SuppressHistory bool
}

// RunResult is the outcome of [Server.RunCommand].
type RunResult struct {
	PaneID     string
	ExitStatus int  // valid when HasStatus
	HasStatus  bool // the command ended and its exit status is known
	TimedOut   bool // the command had not finished when the timeout passed
	// ShellExited reports that the shell ended while the command ran (the
	// command was exit, or exec'd a program that ended): the pane is gone,
	// or dead with remain-on-exit, when its status is ExitStatus.
	ShellExited     bool
	Output          []string
	OutputTruncated bool
	TruncatedLines  int
	// Cursor, when the output was cut, reads the whole output with
	// capture_since from the command's start, as far as the pane's stream
	// still holds it.
	Cursor  string
	Elapsed time.Duration
}

// shells are the programs RunCommand types into. fish has its own syntax.
var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true,
	"mksh": true, "ash": true, "yash": true, "busybox": true, "fish": true}

// canonicalMax is the size of a tty's line buffer in canonical mode
// (Linux's N_TTY_BUF_SIZE): sh and dash read lines through it, and a
// longer line is cut.
const canonicalMax = 4096

// startGrace is how long RunCommand waits for the shell to start the
// command before it looks at the pane for the reason it has not: a shell
// at a continuation prompt (left by input typed before) never will.
const startGrace = 2 * time.Second

// RunCommand types command into the pane's shell and returns its exit
// status and its complete output, read from the pane's output stream, so
// output longer than the screen is kept. The shell itself runs the command
// (cd and exports persist), through eval, between two markers that neither
// a person nor capture-pane sees (see internal/shellrun). Nothing but the command
// line is typed: no temporary file, no tmux wait-for on the shared channel.
func (s *Server) RunCommand(ctx context.Context, a RunArgs) (RunResult, error) {
	start := time.Now()
	if strings.IndexByte(a.Command, 0) >= 0 {
		return RunResult{}, errorf(KindInvalid, "command contains a NUL byte")
	}
	pane, err := s.ResolvePane(ctx, a.Pane)
	if err != nil {
		return RunResult{}, err
	}
	p, err := s.probe(ctx, pane)
	if err != nil {
		return RunResult{}, err
	}
	st, release, err := s.watchPaneIn(pane, p.session)
	if err != nil {
		return RunResult{}, err
	}
	defer release()
	cursor, _ := st.Position()
	if !p.dead && !p.mode && (p.program == "tmux" || p.at.CursorX == 0 || p.alt || !shells[p.program]) {
		// Not ready by the first look, which came before the position was
		// taken: look again, or what the pane drew in between (its prompt)
		// would be waited for in vain.
		if p2, err := s.probe(ctx, pane); err == nil {
			p = p2
		}
	}
	// A program just told to quit (less after q) gives the pane back to
	// its shell a moment later: look again as it prints, for a moment,
	// before refusing.
	if !p.dead && !p.mode && (p.alt || !shells[p.program] && p.program != "tmux") {
		p, cursor = s.awaitShell(ctx, pane, st, cursor, p)
	}
	// tmux names a pane just made "tmux" until its shell has started, and
	// a shell's prompt may not be drawn yet (the cursor on column 0): give
	// the prompt a moment to be drawn, and look again. A pane named "tmux"
	// is looked at again even when no prompt came: it may have been drawn
	// before the stream was following the pane (a new client attaching to
	// the pane's session), and the shell is there by now.
	if !p.dead && (p.program == "tmux" || p.at.CursorX == 0) {
		_, drawn := s.awaitPrompt(ctx, st, cursor, nil)
		if !drawn && (p.program == "tmux" || blank(p.screen)) {
			if p2, err := s.probe(ctx, pane); err == nil {
				p = p2
			}
			cursor, _ = st.Position()
			// A new pane whose shell has drawn nothing yet (still reading
			// its rc files): wait once more, or the line would be echoed
			// before its line editor runs and hides it.
			if !p.dead && p.at.CursorX == 0 && blank(p.screen) {
				_, drawn = s.awaitPrompt(ctx, st, cursor, nil)
			}
		}
		if drawn {
			if p2, err := s.probe(ctx, pane); err == nil {
				p = p2
			}
			cursor, _ = st.Position()
		}
	}
	switch {
	case p.dead:
		return RunResult{}, errorf(KindRefused, "pane %s is dead; respawn it first", pane).fix(RemedyRespawn)
	case !shells[p.program]:
		return RunResult{}, errorf(KindRefused,
			"pane %s is running %q, not a shell at its prompt; a command is typed into a shell (bash, zsh, sh). "+
				"Wait for it to finish, or stop it with C-c and no Enter, then retry", pane, p.program).fix(RemedyWaitOrInterrupt)
	case p.mode:
		return RunResult{}, errorf(KindRefused, "pane %s is in copy or view mode, not at a shell prompt; leave the mode, then retry", pane).fix(RemedyLeaveMode)
	case p.alt:
		return RunResult{}, errorf(KindRefused, "pane %s is on the alternate screen (a full-screen program), not at a shell prompt", pane)
	}
	// Typed into a command left incomplete, the line would change what
	// that command means: refuse, having typed nothing.
	if row := shellrun.CursorRow(p.screen, p.at); shellrun.IsContinuation(row, s.lastPrompt(pane), false) {
		return RunResult{}, continuationError(pane, row, false)
	} else if typed, ok := shellrun.PendingInput(row, s.lastPrompt(pane)); ok {
		// Typed after it, the command would run with that text before it
		// (a person's half-typed rm included): refuse, having typed nothing.
		return RunResult{}, errorf(KindRefused,
			"the shell's input line in pane %s holds text typed and not run (%q); the command would run joined to it. "+
				"Nothing was typed. Clear the line (C-u, or C-c with no Enter) or run it (Enter), then retry", pane, typed).fix(RemedyInterrupt)
	}
	at, program := p.at, p.program

	mark := make([]byte, 8)
	_, _ = rand.Read(mark) // never fails
	tag := hex.EncodeToString(mark)
	lead := ""
	if a.SuppressHistory {
		lead = " "
	}
	line, _ := shellrun.Line(program, tag, a.Command, lead, at)
	if (program == "sh" || program == "dash") && len(line) >= canonicalMax {
		return RunResult{}, errorf(KindInvalid,
			"the command is too long for %s in pane %s, which reads lines through the tty (at most %d bytes, and this one takes %d typed); "+
				"write it to a file first (paste it into cat > file) and run that, or use bash or zsh", program, pane, canonicalMax-1, len(line)).fix(RemedyPaste)
	}
	pre := inputStart{ends: map[string]int64{pane: cursor}}
	keys := s.link.modeKeys()
	typeLine, waiting := sendKeysCommand(pane, true, []string{line}, keys)
	enter, w := sendKeysCommand(pane, false, []string{"Enter"}, keys)
	if _, err := s.exec(ctx, typeLine, enter); err != nil {
		_, err = s.refusedInMode(ctx, err, pane, append(waiting, w...))
		return RunResult{}, err
	}
	s.noteInput(pre, pane, line, true, panestream.GridMark{})

	res := RunResult{PaneID: pane}
	out := &outputLines{max: a.MaxLines, maxBytes: a.MaxBytes}
	from := cursor // where the command's output starts, for res.Cursor
	var text termtext.Lines
	scan := shellrun.NewScan(tag)
	finish := func() RunResult {
		if l := text.Line(); l != "" {
			out.add(l)
		}
		res.Output, res.OutputTruncated, res.TruncatedLines = out.result()
		if res.OutputTruncated {
			res.Cursor = s.sinceCursor(ctx, pane, from)
		}
		res.Elapsed = time.Since(start)
		return res
	}
	wctx, cancel := context.WithTimeout(ctx, a.Timeout)
	defer cancel()
	gctx, gcancel := context.WithTimeout(wctx, startGrace)
	defer gcancel()
	for {
		waitCtx := wctx
		if !scan.Begun() && gctx.Err() == nil {
			waitCtx = gctx
		}
		if err := st.Wait(waitCtx, cursor); err != nil {
			switch {
			case ctx.Err() != nil:
				return RunResult{}, afterChange(fromExec(err)) // the command was typed
			case wctx.Err() == nil:
				// The grace ran out before the shell started the command.
				if err := s.notStarted(ctx, pane, false); err != nil {
					return RunResult{}, err
				}
				continue
			case !scan.Begun():
				if err := s.notStarted(ctx, pane, true); err != nil {
					return RunResult{}, err
				}
			}
			if dead, status, ok := s.paneDead(ctx, pane); ok && dead {
				res.ShellExited, res.HasStatus, res.ExitStatus = true, status >= 0, status
				return finish(), nil
			}
			res.TimedOut = true
			return finish(), nil
		}
		r := st.Read(cursor)
		cursor = r.Next
		data, ok := scan.Feed(r.Data)
		if !ok {
			return RunResult{}, afterChange(errorf(KindRefused, "cannot read the exit status the shell in pane %s printed", pane))
		}
		text.Write(data)
		for _, l := range text.Take() {
			out.add(l)
		}
		if scan.Done() {
			res.ExitStatus, res.HasStatus = scan.Status(), true
			if p, ok := s.awaitPrompt(ctx, st, cursor, scan.Rest()); ok {
				prompts.Store(promptKey{s, pane}, p)
			}
			return finish(), nil
		}
		if r.Paused || r.Missed > 0 {
			out.lost = true
		}
		if r.Gone || r.ConnLost {
			// The pane closed, or the client following it ended, which
			// is what happens when the shell of a session's only pane
			// exits: ask tmux which.
			dead, status, ok := s.paneDead(ctx, pane)
			if r.Gone || ok && dead {
				res.ShellExited = true
				res.HasStatus, res.ExitStatus = ok && status >= 0, status
				return finish(), nil
			}
			if r.ConnLost {
				return RunResult{}, afterChange(errorf(KindConnLost, "the tmux client following pane %s ended while the command ran; its outcome is unknown", pane))
			}
		}
	}
}

// exitGrace bounds how long RunCommand waits for a program that holds the
// pane to give it back to the shell; probeEvery spaces the looks.
const (
	exitGrace  = time.Second
	probeEvery = 10 * time.Millisecond
)

// awaitShell looks at the pane again each time it prints, at most every
// probeEvery and for at most exitGrace, until its shell holds it and it
// is off the alternate screen. It returns the last look, and the stream's
// position read before it, so that output drawn after the look (the
// prompt) is still ahead of the cursor.
func (s *Server) awaitShell(ctx context.Context, pane string, st *panestream.Stream, cursor int64, p runProbe) (runProbe, int64) {
	gctx, cancel := context.WithTimeout(ctx, exitGrace)
	defer cancel()
	var last time.Time
	for !p.dead && (p.alt || !shells[p.program]) {
		if st.Wait(gctx, cursor) != nil {
			break
		}
		if !pause(gctx, probeEvery-time.Since(last)) {
			break
		}
		r := st.Read(cursor)
		if r.Gone || r.ConnLost {
			break
		}
		p2, err := s.probe(gctx, pane)
		if err != nil {
			break
		}
		p, cursor, last = p2, r.Next, time.Now()
	}
	return p, cursor
}

// promptGrace bounds how long RunCommand waits for the shell's next
// prompt after the command ended.
const promptGrace = time.Second

// awaitPrompt waits until the shell's output after the end marker (after
// holds what came with the marker) has left the cursor off column 0: its
// next prompt is drawn. So the next call finds the cursor where the prompt
// left it, and a capture right after this call shows the prompt. zsh's
// PROMPT_SP draws and erases a mark on column 0 first.
// It returns the prompt's text on the cursor's row, and reports whether
// it saw the prompt drawn.
func (s *Server) awaitPrompt(ctx context.Context, st *panestream.Stream, cursor int64, after []byte) (string, bool) {
	var text termtext.Lines
	text.Write(after)
	pctx, cancel := context.WithTimeout(ctx, promptGrace)
	defer cancel()
	for text.Cursor() == 0 {
		if st.Wait(pctx, cursor) != nil {
			return "", false
		}
		r := st.Read(cursor)
		cursor = r.Next
		if r.Gone || r.ConnLost {
			return "", false
		}
		text.Write(r.Data)
	}
	return text.BeforeCursor(), true
}

// blank reports whether a screen shows nothing: a pane whose program has
// drawn nothing yet.
func blank(screen []string) bool {
	for _, l := range screen {
		if strings.TrimSpace(l) != "" {
			return false
		}
	}
	return true
}

// prompts holds, per server and pane, the prompt RunCommand last saw the
// pane's shell draw after a command: a plain "> " at the cursor is a
// continuation prompt in a pane whose prompt is something else. An entry
// is a few bytes; they are not removed.
var prompts sync.Map // promptKey -> string

type promptKey struct {
	s    *Server
	pane string
}

func (s *Server) lastPrompt(pane string) string {
	p, _ := prompts.Load(promptKey{s, pane})
	str, _ := p.(string)
	return str
}

func continuationError(pane, row string, typed bool) error {
	what := "nothing was typed"
	if typed {
		what = "this command was taken as part of it, so it did not run"
	}
	e := errorf(KindRefused,
		"the shell in pane %s is at a continuation prompt (%q): it is waiting for the rest of a command typed before "+
			"(an unterminated quote, bracket or here-document); %s. "+
			"Send C-c with no Enter to discard the pending input, then run the command again", pane, row, what).fix(RemedyInterrupt)
	if typed {
		return afterChange(e)
	}
	return e
}

// runProbe is what RunCommand reads of a pane before typing.
type runProbe struct {
	program         string // pane_current_command, without a login shell's "-"
	alt, mode, dead bool
	session         string
	at              shellrun.Screen
	screen          []string
}

// probe reads the pane's state, its session (for the output stream), where
// the line will be echoed and the screen, in one round trip.
func (s *Server) probe(ctx context.Context, pane string) (runProbe, error) {
	rs, err := s.exec(ctx, controlmode.NewCommand("display-message", "-p", "-t", pane,
		"#{pane_current_command}\t#{alternate_on}\t#{pane_in_mode}\t#{pane_dead}\t#{session_id}\t"+
			"#{cursor_x}\t#{cursor_y}\t#{pane_width}\t#{pane_height}"),
		CaptureArgs{}.command(pane))
	if err != nil {
		return runProbe{}, err
	}
	f := strings.Split(strings.Join(rs[0].Lines, ""), "\t")
	if len(f) != 9 || !strings.HasPrefix(f[4], "$") {
		return runProbe{}, errorf(KindNotFound, "can't find pane: %s", pane)
	}
	p := runProbe{program: strings.TrimPrefix(f[0], "-"), alt: f[1] == "1", mode: f[2] == "1", dead: f[3] == "1",
		session: f[4], screen: rs[1].Lines}
	p.at.CursorX, _ = strconv.Atoi(f[5])
	p.at.CursorY, _ = strconv.Atoi(f[6])
	p.at.Width, _ = strconv.Atoi(f[7])
	p.at.Height, _ = strconv.Atoi(f[8])
	return p, nil
}

// paneDead reports whether pane is gone or dead, and the exit status of
// its program when tmux kept it (remain-on-exit), else -1. It reports
// false if tmux could not be asked.
func (s *Server) paneDead(ctx context.Context, pane string) (dead bool, status int, ok bool) {
	qctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	// tmux marks a pane dead when its terminal closes and learns the exit
	// status when it reaps the process, which can be a later turn of its
	// loop (a CI run saw the status missing). No notification says when:
	// ask again, a few times, while the pane is dead without a status.
	for try := 0; ; try++ {
		rs, err := s.exec(qctx, controlmode.NewCommand("display-message", "-p", "-t", pane, "#{pane_dead}\t#{pane_dead_status}"))
		if err != nil {
			var e *Error
			if errors.As(err, &e) && (e.Kind == KindNotFound || e.Kind == KindNoServer) {
				return true, -1, true // gone, or the server with it: its last session ended
			}
			return false, -1, false
		}
		d, st, _ := strings.Cut(strings.Join(rs[0].Lines, ""), "\t")
		if d != "1" {
			return false, -1, true
		}
		if n, err := strconv.Atoi(st); err == nil {
			return true, n, true
		}
		if try == 20 {
			return true, -1, true
		}
		t := time.NewTimer(10 * time.Millisecond)
		select {
		case <-t.C:
		case <-qctx.Done():
			t.Stop()
			return true, -1, true
		}
	}
}

// notStarted looks at a pane whose shell has not started the command it
// was given. It returns the error that names why, or nil if it cannot
// tell yet (final false) and the wait should go on.
func (s *Server) notStarted(ctx context.Context, pane string, final bool) error {
	qctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	p, err := s.probe(qctx, pane)
	if err != nil {
		if final {
			return afterChange(errorf(KindDeadline, "the shell in pane %s did not start the command before the timeout", pane))
		}
		return nil
	}
	if p.dead {
		return nil // the caller finds out
	}
	row := shellrun.CursorRow(p.screen, p.at)
	if shellrun.IsContinuation(row, s.lastPrompt(pane), true) {
		return continuationError(pane, row, true)
	}
	if final {
		return afterChange(errorf(KindDeadline,
			"the shell in pane %s (%s) did not start the command before the timeout, and its cursor line reads %q: "+
				"it may be busy or not reading input; look at the pane, or stop it with C-c and no Enter", pane, p.program, row).fix(RemedyLookOrInterrupt))
	}
	return nil
}

// outputLines keeps the output of a command, the newest max lines when
// max > 0.
type outputLines struct {
	max      int // lines kept, the newest; 0 for all
	maxBytes int // bytes kept, the newest lines'; 0 for all
	lines    []string
	size     int // bytes in lines
	dropped  int
	cut      bool // the newest line was cut to maxBytes
	lost     bool // tmux discarded output while the command ran
}

// add keeps l, and drops the oldest lines once twice the bounds are held:
// memory stays bounded however long the command prints.
func (o *outputLines) add(l string) {
	o.lines = append(o.lines, l)
	o.size += len(l) + 1
	overLines := o.max > 0 && len(o.lines) > 2*o.max
	overBytes := o.maxBytes > 0 && o.size > 2*o.maxBytes
	if overLines || overBytes {
		o.trim(o.max, o.maxBytes)
		o.lines = append([]string(nil), o.lines...)
	}
}

// trim drops the oldest lines beyond max lines or maxBytes bytes (0: no
// bound), always keeping the newest line, cut to maxBytes if need be.
func (o *outputLines) trim(max, maxBytes int) {
	n := 0
	if max > 0 && len(o.lines) > max {
		n = len(o.lines) - max
	}
	size := o.size
	for i := 0; i < n; i++ {
		size -= len(o.lines[i]) + 1
	}
	for maxBytes > 0 && size > maxBytes && n < len(o.lines)-1 {
		size -= len(o.lines[n]) + 1
		n++
	}
	o.dropped += n
	o.lines, o.size = o.lines[n:], size
	if last := len(o.lines) - 1; maxBytes > 0 && last >= 0 && len(o.lines[last]) > maxBytes {
		l := o.lines[last]
		from := len(l) - maxBytes
		for from < len(l) && !utf8.RuneStart(l[from]) {
			from++
		}
		o.lines[last], o.size, o.cut = l[from:], len(l)-from+1, true
	}
}

func (o *outputLines) result() (lines []string, truncated bool, dropped int) {
	o.trim(o.max, o.maxBytes)
	lines, dropped = o.lines, o.dropped
	if lines == nil {
		lines = []string{}
	}
	return lines, dropped > 0 || o.cut || o.lost, dropped
}
