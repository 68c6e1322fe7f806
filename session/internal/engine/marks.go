package engine

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/errs"
)

// CommandMarks is what tmux recorded of a pane's shell from the OSC 133
// marks the shell printed (from 3.8: see release.Facts.RecordsCommandMarks).
// tmux keeps it in the server, so it covers commands a person or a script
// typed, and survives our client reconnecting.
//
// A shell prints the marks only if its prompt is set up to (fish 4,
// nushell, a terminal's bash or zsh integration, starship with osc_133):
// a pane whose shell prints none reads Seen false, and so does every pane
// on a release before 3.8. Seen false means "not known", never "nothing
// ran".
type CommandMarks struct {
	// Seen reports that tmux recorded at least one mark of the pane's
	// shell: a prompt (A), a command's start (C) or its end (D).
	Seen bool
	// Running reports that a command started (C) and has not ended (D).
	Running bool
	// Status is the exit status the newest end mark (D) carried, when
	// HasStatus. A D with no number reads 0 in tmux, one it cannot read
	// 255.
	Status    int
	HasStatus bool
	// Started and Ended are when the newest command started and ended;
	// Prompted when the shell last drew its prompt (A). Whole seconds;
	// zero when tmux has none.
	Started, Ended, Prompted time.Time
}

// marksFormat prints a pane's CommandMarks, in the order ParseMarks reads.
const marksFormat = "#{pane_id}\t#{pane_command_running}\t#{pane_command_status}\t" +
	"#{pane_command_start_time}\t#{pane_command_end_time}\t#{pane_last_prompt_time}"

// MarksCommand reads pane's marks (a pane id).
func MarksCommand(pane string) controlmode.Command {
	return controlmode.NewCommand("display-message", "-p", "-t", pane, marksFormat)
}

// ParseMarks reads a line printed by marksFormat for pane; ok is false
// when the line is not that pane's (display-message prints empty fields
// for a pane that is gone).
func ParseMarks(pane, line string) (m CommandMarks, ok bool) {
	f := strings.Split(line, "\t")
	if len(f) != 6 || f[0] != pane {
		return CommandMarks{}, false
	}
	m.Running = f[1] == "1"
	if n, err := strconv.Atoi(f[2]); err == nil {
		m.Status, m.HasStatus = n, true
	}
	m.Started, m.Ended, m.Prompted = unixTime(f[3]), unixTime(f[4]), unixTime(f[5])
	m.Seen = m.Running || m.HasStatus || !m.Started.IsZero() || !m.Ended.IsZero() || !m.Prompted.IsZero()
	return m, true
}

// unixTime reads whole Unix seconds; the zero time for anything else.
func unixTime(s string) time.Time {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}
	}
	return time.Unix(n, 0)
}

// CommandMarks returns what tmux recorded of pane's shell from its OSC 133
// marks (pane is a pane id), read fresh in one round trip. On a release
// that records none it returns a zero CommandMarks and sends nothing.
func (e *Engine) CommandMarks(ctx context.Context, pane string) (CommandMarks, error) {
	rel, err := e.host.ConnectedRelease(ctx)
	if err != nil || !rel.RecordsCommandMarks() {
		return CommandMarks{}, err
	}
	rs, err := e.host.Exec(ctx, MarksCommand(pane))
	if err != nil {
		return CommandMarks{}, err
	}
	m, ok := ParseMarks(pane, strings.Join(rs[0].Lines, ""))
	if !ok {
		return CommandMarks{}, errs.Errorf(errs.KindNotFound, "can't find pane: %s", pane)
	}
	return m, nil
}

// marksHooks are the hooks tmux 3.8 runs as a shell prints its marks: A
// (or N), C and D.
var marksHooks = []string{"pane-shell-prompt", "pane-command-started", "pane-command-finished"}

// MarksMessage starts the %message a hook of WatchMarks sends our client.
const MarksMessage = "tmux-mcp-marks "

// WatchMarks has tmux tell the host of every OSC 133 mark pane's shell
// prints from now on (pane is a pane id): a prompt, a command's start or
// its end, each as a %message that package session's Server gives its
// subscribers as a Change whose Marks is pane, at once. [Engine.CommandMarks] reads what tmux recorded. On a release
// that records no marks it does nothing.
//
// Hooks tell it: the pane's pane-shell-prompt, pane-command-started and
// pane-command-finished, at an index of their arrays no one uses, run
// display-message -c for our client, which reaches it as %message. That
// was measured against a refresh-client -B subscription of the same
// formats, which tmux evaluates once a second: 0.36 ms against 977 ms
// from the mark to the notification, medians of 5 runs of 20 marks
// (BenchmarkCommandMarksWake), for the same round trip to set up and
// take down, and nothing evaluated while the pane is quiet. stop removes
// the hooks. A hook names the client that was ours when it was set: once
// that client is replaced, its marks are no longer told (call again).
func (e *Engine) WatchMarks(ctx context.Context, pane string) (stop func(), err error) {
	rel, err := e.host.ConnectedRelease(ctx)
	if err != nil || !rel.RecordsCommandMarks() {
		return func() {}, err
	}
	rs, err := e.host.Exec(ctx, controlmode.NewCommand("display-message", "-p", "-t", pane, "#{pane_id}\t#{client_name}"))
	if err != nil {
		return nil, err
	}
	id, client, _ := strings.Cut(strings.Join(rs[0].Lines, ""), "\t")
	if id != pane || client == "" {
		return nil, errs.Errorf(errs.KindNotFound, "can't find pane: %s", pane)
	}
	var b [2]byte
	_, _ = rand.Read(b[:]) // never fails
	index := "[" + strconv.Itoa(100000+int(binary.BigEndian.Uint16(b[:]))) + "]"
	set := make([]controlmode.Command, 0, len(marksHooks))
	unset := make([]controlmode.Command, 0, len(marksHooks))
	for _, h := range marksHooks {
		set = append(set, controlmode.NewCommand("set-hook", "-p", "-t", pane, h+index,
			"display-message -c "+client+" '"+MarksMessage+"#{hook_pane}'"))
		unset = append(unset, controlmode.NewCommand("set-hook", "-p", "-u", "-t", pane, h+index))
	}
	if _, err := e.host.Exec(ctx, set...); err != nil {
		return nil, errs.AfterChange(err)
	}
	return func() {
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), lookTimeout)
		defer cancel()
		_, _ = e.host.Exec(uctx, unset...) // a pane gone took its hooks with it
	}, nil
}
