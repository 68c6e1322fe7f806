package recording

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/session/internal/cast"
	"github.com/tmux-mcp/tmux-mcp/session/internal/engine"
	"github.com/tmux-mcp/tmux-mcp/session/internal/errs"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
)

// Recordings are the recordings of one package session Server's panes,
// which it embeds, so their exported methods are the Server's. They reach
// tmux and the pane's output only through their Host.
type Recordings struct {
	host Host
	log  *slog.Logger
	set  recordings
}

// New returns the Recordings of the Server that host is, logging to log.
func New(host Host, log *slog.Logger) *Recordings {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Recordings{host: host, log: log}
}

// NoteInput notes input this process sent to pane at stream offset off,
// for every active recording of that pane (a function: the exported
// methods of Recordings are the Server's).
func NoteInput(p *Recordings, pane string, off int64, text string, enter bool, label string) {
	p.set.input(pane, off, text, enter, label)
}

// Host is what a recording needs of package session's Server.
type Host interface {
	// Exec runs cmds as one line and returns a reply for each.
	Exec(ctx context.Context, cmds ...controlmode.Command) ([]controlmode.Reply, error)
	// PaneTarget is the tmux target of the pane ref names, and PaneID
	// the id of the pane target names, read from tmux.
	PaneTarget(ref engine.PaneRef) (string, error)
	PaneID(ctx context.Context, target string) (string, error)
	// FollowPaneIn follows pane's output (in session sessionID) from its
	// current end; SyncStream returns once st holds all the pane printed
	// before it was called; StreamEnd is where pane's stream ends now.
	FollowPaneIn(pane, sessionID string) (engine.Follow, error)
	SyncStream(ctx context.Context, st *panestream.Stream) error
	StreamEnd(pane string) int64
	// Subscribe calls f for every change tmux tells the Server of (a
	// change of structure, or output of pane) until cancel is called; f
	// runs on a client's reader goroutine and must not block.
	Subscribe(f func(structure bool, pane string)) (cancel func())
	// Spawn runs fn on a goroutine the Server's Close waits for, and
	// reports false if the Server is closed; Stopped is closed when the
	// Server closes.
	Spawn(fn func()) bool
	Stopped() <-chan struct{}
}

// The bounds of recordings.
const (
	// MaxRecordings is how many recordings may run at once on one Server.
	MaxRecordings = 16
	// RecordBytesCeiling is the largest size bound a recording may have.
	RecordBytesCeiling = 64 << 20
	// RecordDurationCeiling is the longest time bound a recording may have.
	RecordDurationCeiling = 24 * time.Hour
	// keptRecordings is how many ended recordings are remembered, for
	// status.
	keptRecordings = 32
	// recordHoldBack is how long output read from the stream waits before
	// it is written, so that the marker of input this process sent goes
	// before the echo of that input even when the echo is read before the
	// caller that sent it hears tmux's answer.
	recordHoldBack = 100 * time.Millisecond
	// maxPendingInputs bounds the inputs waiting for their place in a
	// recording; older ones are written at once.
	maxPendingInputs = 256
)

// RecordArgs say where a recording goes and when it ends.
type RecordArgs struct {
	// Dir is the directory the file is made in, with a name the Server
	// chooses. It is made (0700) if missing, and must be a directory (not
	// a symbolic link) owned by this user and closed to others.
	Dir string
	// MaxBytes bounds the file's size (1 to RecordBytesCeiling): the
	// recording ends when its next event would pass it.
	MaxBytes int64
	// MaxDuration bounds how long it records (up to RecordDurationCeiling).
	MaxDuration time.Duration
}

// A Recording is what [Recordings.RecordingStatus] and the calls that start
// and stop one say about it.
type Recording struct {
	Pane        string
	Path        string
	Active      bool
	Started     time.Time
	Duration    time.Duration // recorded so far, or in all once ended
	Bytes       int64         // the file's size
	Events      int           // events written
	Ended       string        // why it ended, "" while active
	MaxBytes    int64
	MaxDuration time.Duration
}

// Why recordings end.
const (
	EndStopped   = "stopped"
	EndMaxBytes  = "size bound reached"
	EndMaxTime   = "time bound reached"
	EndPaneGone  = "pane exited"
	EndConnLost  = "connection to tmux lost"
	EndClosed    = "server closed"
	EndWriteFail = "write failed"
)

// recorder is one recording.
type recorder struct {
	owner, pane, path string
	maxBytes          int64
	maxDur            time.Duration
	start             time.Time
	cancel            context.CancelFunc
	done              chan struct{} // closed once the file is closed
	poke              chan time.Time

	timer *time.Timer // pokes the goroutine a hold-back after output (noteOutput)

	mu     sync.Mutex
	marks  []outputMark // where outputs ended and when they came, since the last read
	armed  bool         // timer is set
	inputs []recInput   // input sent to the pane, waiting for its place
	resize bool         // the structure changed: the pane's size may have
	why    string       // set by stop before cancel
	bytes  int64
	events int
	ended  string
	endAt  time.Time
}

// recInput is input this process sent the pane: where in the stream it
// went in and what it typed.
type recInput struct {
	off   int64
	at    time.Time
	label string
	typed string
}

// recordings are the recordings of one Server, the set of them.
type recordings struct {
	mu   sync.Mutex
	list []*recorder // active first come first; ended ones are kept up to keptRecordings
}

func (r *recorder) info() Recording {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := Recording{Pane: r.pane, Path: r.path, Active: r.ended == "", Started: r.start,
		Bytes: r.bytes, Events: r.events, Ended: r.ended, MaxBytes: r.maxBytes, MaxDuration: r.maxDur}
	if r.ended == "" {
		out.Duration = time.Since(r.start)
	} else {
		out.Duration = r.endAt.Sub(r.start)
	}
	return out
}

func (r *recorder) active() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ended == ""
}

// wake pokes the recorder's goroutine without blocking.
func (r *recorder) wake() {
	select {
	case r.poke <- time.Time{}:
	default:
	}
}

// input notes input this process sent to pane at stream offset off, for
// every active recording of that pane: a marker labelled label (if not
// empty; else with the text typed) and an input event of the text.
func (rs *recordings) input(pane string, off int64, text string, enter bool, label string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, r := range rs.list {
		if r.pane != pane {
			continue
		}
		typed := text
		if enter {
			typed += "\r"
		}
		r.mu.Lock()
		if r.ended == "" {
			if len(r.inputs) >= maxPendingInputs {
				r.inputs = r.inputs[1:]
			}
			r.inputs = append(r.inputs, recInput{off: off, at: time.Now(), label: inputLabel(text, enter, label), typed: typed})
		}
		r.mu.Unlock()
		r.wake()
	}
}

// inputLabel is the marker of an input: "input: " and label, or the text
// typed with ⏎ for each line break and a last one for Enter; "input: keys"
// for keys that type no text (C-c).
func inputLabel(text string, enter bool, label string) string {
	breaks := strings.NewReplacer("\r\n", "⏎", "\n", "⏎", "\r", "⏎")
	if label == "" {
		label = breaks.Replace(text)
		if enter && !strings.HasSuffix(label, "⏎") {
			label += "⏎"
		}
	} else {
		label = breaks.Replace(label)
	}
	label = strings.TrimSpace(strings.ReplaceAll(label, "⏎", " ⏎ "))
	if label == "" {
		label = "keys"
	}
	return validLabel("input: "+label, 200)
}

// structure tells the recording that the structure changed, so its
// pane's size may have.
func (r *recorder) structure() {
	r.mu.Lock()
	r.resize = true
	r.mu.Unlock()
	r.wake()
}

// find returns owner's newest recording of pane, nil if none.
func (rs *recordings) find(owner, pane string) *recorder {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for i := len(rs.list) - 1; i >= 0; i-- {
		if r := rs.list[i]; r.owner == owner && r.pane == pane {
			return r
		}
	}
	return nil
}

// add registers r, unless owner records pane already or too many run.
func (rs *recordings) add(r *recorder) error {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	n := 0
	for _, o := range rs.list {
		if !o.active() {
			continue
		}
		n++
		if o.owner == r.owner && o.pane == r.pane {
			return errs.Errorf(errs.KindRefused, "pane %s is being recorded already, into %s: stop that recording first", r.pane, o.path)
		}
	}
	if n >= MaxRecordings {
		return errs.Errorf(errs.KindRefused, "%d recordings run already, the most at once: stop one first", n)
	}
	rs.list = append(rs.list, r)
	// Forget the oldest ended recordings past keptRecordings.
	ended := 0
	for i := len(rs.list) - 1; i >= 0; i-- {
		if !rs.list[i].active() {
			ended++
			if ended > keptRecordings {
				rs.list = append(rs.list[:i], rs.list[i+1:]...)
			}
		}
	}
	return nil
}

// remove forgets r (a recording that failed to start).
func (rs *recordings) remove(r *recorder) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for i, o := range rs.list {
		if o == r {
			rs.list = append(rs.list[:i], rs.list[i+1:]...)
			return
		}
	}
}

// StartRecording starts recording the pane ref names into a new asciicast
// v3 file in a.Dir: its size and screen now, then every output with its
// time, markers where this process sends it input, and resizes. It ends
// on [Recordings.StopRecording], at its bounds, or when the pane exits.
// A recording belongs to the caller's owner identity (package session's WithOwner): only
// it sees and stops it.
func (p *Recordings) StartRecording(ctx context.Context, ref engine.PaneRef, a RecordArgs) (Recording, error) {
	t, err := p.host.PaneTarget(ref)
	if err != nil {
		return Recording{}, err
	}
	if a.MaxBytes < 1 || a.MaxBytes > RecordBytesCeiling {
		return Recording{}, errs.Errorf(errs.KindInvalid, "a recording's size bound of %d bytes is out of range: 1 to %d", a.MaxBytes, RecordBytesCeiling)
	}
	if a.MaxDuration <= 0 || a.MaxDuration > RecordDurationCeiling {
		return Recording{}, errs.Errorf(errs.KindInvalid, "a recording's time bound of %g s is out of range: above 0, up to %g", a.MaxDuration.Seconds(), RecordDurationCeiling.Seconds())
	}
	rs, err := p.host.Exec(ctx, controlmode.NewCommand("display-message", "-p", "-t", t, "#{pane_id} #{session_id}"))
	if err != nil {
		return Recording{}, err
	}
	f := strings.Fields(strings.Join(rs[0].Lines, ""))
	if len(f) != 2 || !engine.IsPaneID(f[0]) {
		return Recording{}, errs.Errorf(errs.KindNotFound, "can't find pane: %s", t)
	}
	pane := f[0]
	rctx, cancel := context.WithTimeout(context.Background(), a.MaxDuration)
	r := &recorder{owner: engine.OwnerOf(ctx), pane: pane, maxBytes: a.MaxBytes, maxDur: a.MaxDuration,
		cancel: cancel, done: make(chan struct{}), poke: make(chan time.Time, 1)}
	r.timer = time.AfterFunc(time.Hour, r.wake)
	r.timer.Stop()
	if err := p.set.add(r); err != nil {
		cancel()
		return Recording{}, err
	}
	started := false
	defer func() {
		if !started {
			cancel()
			p.set.remove(r)
		}
	}()
	follow, err := p.host.FollowPaneIn(pane, f[1])
	if err != nil {
		return Recording{}, err
	}
	defer func() {
		if !started {
			follow.Stop()
		}
	}()
	// The screen as it is, so that playback starts from it; the stream is
	// read from this reply on: tmux sends the main client a pane's output
	// before a reply to a command that came after it.
	if err := p.host.SyncStream(ctx, follow.Stream()); err != nil {
		return Recording{}, err
	}
	rs, err = p.host.Exec(ctx,
		controlmode.NewCommand("display-message", "-p", "-t", pane, "#{pane_width} #{pane_height} #{cursor_x} #{cursor_y} #{cursor_flag}"),
		controlmode.NewCommand("capture-pane", "-p", "-e", "-t", pane))
	if err != nil {
		return Recording{}, follow.Ended(err)
	}
	follow.Skip()
	var geo [5]int
	if n, _ := fmt.Sscan(strings.Join(rs[0].Lines, ""), &geo[0], &geo[1], &geo[2], &geo[3], &geo[4]); n != 5 {
		return Recording{}, errs.Errorf(errs.KindNotFound, "can't find pane: %s", pane)
	}
	file, path, err := createRecordFile(a.Dir, pane)
	if err != nil {
		return Recording{}, err
	}
	r.start = time.Now()
	r.path = path
	w, err := cast.New(file, cast.Header{Cols: geo[0], Rows: geo[1], Start: r.start, Title: "tmux pane " + pane}, a.MaxBytes)
	if err == nil {
		err = w.Output(r.start, screenBytes(rs[1].Lines, geo[2], geo[3], geo[4] == 1))
	}
	if err != nil {
		_ = file.Close()
		_ = os.Remove(path)
		if errors.Is(err, cast.ErrFull) {
			return Recording{}, errs.Errorf(errs.KindInvalid, "a size bound of %d bytes does not hold the pane's screen (%v)", a.MaxBytes, err)
		}
		return Recording{}, errs.Errorf(errs.KindRefused, "writing %s: %v", path, err)
	}
	r.bytes, r.events = w.Size(), w.Events()
	if !p.host.Spawn(func() { p.runRecorder(rctx, r, follow, w, file, [2]int{geo[0], geo[1]}) }) {
		_ = file.Close()
		return Recording{}, errs.Closed()
	}
	started = true
	return r.info(), nil
}

// screenBytes is what draws a captured screen (capture-pane -e lines) on
// a blank terminal, the cursor left where it is.
func screenBytes(lines []string, cx, cy int, cursorOn bool) []byte {
	var b bytes.Buffer
	b.WriteString("\x1b[H\x1b[2J")
	for i, l := range lines {
		if i > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString(l)
		b.WriteString("\x1b[0m")
	}
	fmt.Fprintf(&b, "\x1b[%d;%dH", cy+1, cx+1)
	if !cursorOn {
		b.WriteString("\x1b[?25l")
	}
	return b.Bytes()
}

// createRecordFile makes a new file for a recording of pane in dir, with
// a name of its own choosing: 0600, never over an existing file or
// through a symbolic link. dir is made 0700 if missing, and must be a
// directory owned by this user and closed to others.
func createRecordFile(dir, pane string) (*os.File, string, error) {
	if !filepath.IsAbs(dir) {
		return nil, "", errs.Errorf(errs.KindInvalid, "the recordings directory %q is not an absolute path", dir)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", errs.Errorf(errs.KindRefused, "making the recordings directory: %v", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, "", errs.Errorf(errs.KindRefused, "the recordings directory: %v", err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return nil, "", errs.Errorf(errs.KindRefused, "the recordings directory %s is a symbolic link; recordings go only into a real directory", dir)
	case !fi.IsDir():
		return nil, "", errs.Errorf(errs.KindRefused, "the recordings directory %s is not a directory", dir)
	case fi.Mode().Perm()&0o077 != 0:
		return nil, "", errs.Errorf(errs.KindRefused, "the recordings directory %s is open to other users (mode %o); chmod 700 it", dir, fi.Mode().Perm())
	}
	rnd := make([]byte, 4)
	_, _ = rand.Read(rnd)
	name := "pane" + strings.TrimPrefix(pane, "%") + "-" + time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(rnd) + ".cast"
	path := filepath.Join(dir, name)
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, "", errs.Errorf(errs.KindRefused, "making %s: %v", path, err)
	}
	// The file just made is this process's user's: the directory must be
	// too (the package reads no identity of its own; see noenv_test.go).
	if made, err := file.Stat(); err == nil {
		d, dok := fi.Sys().(*syscall.Stat_t)
		f, fok := made.Sys().(*syscall.Stat_t)
		if dok && fok && d.Uid != f.Uid {
			_ = file.Close()
			_ = os.Remove(path)
			return nil, "", errs.Errorf(errs.KindRefused, "the recordings directory %s belongs to another user", dir)
		}
	}
	return file, path, nil
}

// StopRecording stops the caller's recording of the pane ref names and
// says what it holds. Stopping one that ended already says how it ended.
func (p *Recordings) StopRecording(ctx context.Context, ref engine.PaneRef) (Recording, error) {
	r, err := p.recordingOf(ctx, ref)
	if err != nil {
		return Recording{}, err
	}
	r.mu.Lock()
	if r.why == "" {
		r.why = EndStopped
	}
	r.mu.Unlock()
	r.cancel()
	select {
	case <-r.done:
	case <-ctx.Done():
		return Recording{}, errs.FromExec(ctx.Err())
	}
	return r.info(), nil
}

// RecordingStatus says what the caller's newest recording of the pane ref
// names holds so far, or how it ended.
func (p *Recordings) RecordingStatus(ctx context.Context, ref engine.PaneRef) (Recording, error) {
	r, err := p.recordingOf(ctx, ref)
	if err != nil {
		return Recording{}, err
	}
	return r.info(), nil
}

// recordingOf returns the caller's newest recording of the pane ref names.
func (p *Recordings) recordingOf(ctx context.Context, ref engine.PaneRef) (*recorder, error) {
	t, err := p.host.PaneTarget(ref)
	if err != nil {
		return nil, err
	}
	pane := t
	if !engine.IsPaneID(t) {
		if pane, err = p.host.PaneID(ctx, t); err != nil {
			return nil, err
		}
	}
	r := p.set.find(engine.OwnerOf(ctx), pane)
	if r == nil {
		return nil, errs.Errorf(errs.KindNotFound, "no recording of pane %s: none was started by this client, or it was forgotten (the newest %d ended ones are kept)", pane, keptRecordings)
	}
	return r, nil
}

// heldOutput is output read from the stream and not written yet.
type heldOutput struct {
	off  int64
	at   time.Time
	data []byte
}

// recordHeartbeat is how often an idle recording looks at its pane's
// stream anyway, for what no change reports: the end of the client that
// delivered its output.
const recordHeartbeat = 5 * time.Second

// maxMarks bounds the arrival times a recording keeps between its reads;
// past it, later output takes the time of the last kept.
const maxMarks = 8192

// outputMark is where in the pane's stream an output ended, and when it
// arrived.
type outputMark struct {
	off int64
	at  time.Time
}

// noteOutput records that pane printed, on the reader goroutine that
// delivered it (see Subscribe): where the stream ends now and when. It
// arms the recording's timer rather than waking its goroutine, so that a
// wait on the pane wakes alone.
func (r *recorder) noteOutput(end int64) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.marks); n >= maxMarks {
		r.marks[n-1].off = end
	} else {
		r.marks = append(r.marks, outputMark{end, now})
	}
	r.armLocked(recordHoldBack)
}

// armLocked wakes the recording's goroutine after d, unless it is woken
// sooner already. r.mu is held.
func (r *recorder) armLocked(d time.Duration) {
	if !r.armed {
		r.armed = true
		r.timer.Reset(d)
	}
}

// runRecorder writes what the pane prints until ctx ends or the pane goes.
// It reads the stream when its timer fires, a hold-back after output came
// (at most every recordHoldBack while output flows), when input is sent or
// the structure changes, and every recordHeartbeat: never on each output.
// Each output keeps the time it arrived (noteOutput).
func (p *Recordings) runRecorder(ctx context.Context, r *recorder, f engine.Follow, w *cast.Writer, file interface {
	Write([]byte) (int, error)
	Close() error
}, size [2]int) {
	unsubscribe := p.host.Subscribe(func(structure bool, pane string) {
		switch {
		case pane == r.pane:
			r.noteOutput(p.host.StreamEnd(r.pane))
		case structure:
			r.structure()
		}
	})
	defer unsubscribe()
	defer r.timer.Stop()
	heartbeat := time.NewTicker(recordHeartbeat)
	defer heartbeat.Stop()
	c := &castFeed{r: r, w: w, size: size}
	for c.why == "" {
		select {
		case <-r.poke:
		case <-heartbeat.C:
		case <-p.host.Stopped():
			r.cancel()
		case <-ctx.Done():
		}
		p.recordStep(ctx, c, f)
	}
	f.Stop()
	end := time.Now()
	werr := w.Close(end, "recording ended: "+c.why)
	if cerr := file.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil && c.why != EndWriteFail {
		p.log.Debug("closing a recording failed", "path", r.path, "err", werr)
	}
	r.cancel()
	r.mu.Lock()
	r.ended, r.endAt = c.why, end
	r.bytes, r.events = w.Size(), w.Events()
	r.inputs, r.marks = nil, nil
	r.mu.Unlock()
	close(r.done)
}

// recordStep is one turn of runRecorder: it reads what the stream holds,
// holds it back a while, writes what is old enough with the inputs in
// their places, and sets why when the recording ends. A stop reads what
// came before it, and ends.
func (p *Recordings) recordStep(ctx context.Context, c *castFeed, f engine.Follow) {
	r := c.r
	stopping := ctx.Err() != nil
	r.mu.Lock()
	r.armed = false
	marks := r.marks
	r.marks = nil
	resize := r.resize
	r.resize = false
	r.mu.Unlock()
	rd, rerr := f.Read(ctx)
	now := time.Now()
	c.hold(rd, marks, now)
	switch {
	case rerr != nil:
		c.commit(now, true)
		c.why = EndConnLost
		if errs.IsNotFound(rerr) {
			c.why = EndPaneGone
		}
		return
	case stopping:
		c.commit(now, true)
		r.mu.Lock()
		c.why = r.why
		r.mu.Unlock()
		switch {
		case c.why != "":
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			c.why = EndMaxTime
		default:
			c.why = EndClosed
		}
		return
	case resize:
		cols, rows, err := p.paneSize(ctx, r.pane)
		switch {
		case errs.IsNotFound(err):
			c.commit(now, true)
			c.why = EndPaneGone
		case err == nil && (cols != c.size[0] || rows != c.size[1]):
			c.commit(now, true)
			c.size = [2]int{cols, rows}
			c.write(c.w.Resize(time.Now(), cols, rows))
		}
	}
	c.commit(now, false)
	if len(c.held) > 0 {
		r.mu.Lock()
		r.armLocked(max(time.Until(c.held[0].at.Add(recordHoldBack)), time.Millisecond))
		r.mu.Unlock()
	}
}

// A castFeed is what runRecorder writes to its cast file: output held
// back until it is recordHoldBack old, so that input noted meanwhile
// goes in its place among it, and why the recording ended ("" while it
// runs). Only runRecorder's goroutine touches it.
type castFeed struct {
	r    *recorder
	w    *cast.Writer
	size [2]int // the pane's size, as last written
	held []heldOutput
	why  string
}

// write notes the failure of a write to the file, which ends the
// recording: a full file, or another error.
func (c *castFeed) write(err error) {
	if err == nil || c.why != "" {
		return
	}
	c.why = EndWriteFail
	if errors.Is(err, cast.ErrFull) {
		c.why = EndMaxBytes
	}
}

// output writes b as output at at, without the marks of lost output.
func (c *castFeed) output(at time.Time, b []byte) {
	if b = bytes.ReplaceAll(b, []byte{0}, nil); len(b) > 0 {
		c.write(c.w.Output(at, b))
	}
}

// hold takes what a read of the stream gave: lost output is marked where
// it was lost; the output read is cut where each %output ended (marks),
// each part at the time it arrived, and what came after the last mark at
// the time of the read (now).
func (c *castFeed) hold(rd panestream.Read, marks []outputMark, now time.Time) {
	if rd.Missed > 0 {
		c.commit(now, true)
		c.write(c.w.Marker(now, fmt.Sprintf("%d bytes of output were not read in time", rd.Missed)))
	}
	if rd.Paused {
		c.commit(now, true)
		c.write(c.w.Marker(now, "tmux paused the pane and dropped some output"))
	}
	data := rd.Data
	from := rd.Next - int64(len(data))
	for _, m := range marks {
		if m.off <= from || len(data) == 0 {
			continue
		}
		n := min(m.off-from, int64(len(data)))
		c.held = append(c.held, heldOutput{off: from, at: m.at, data: data[:n]})
		data, from = data[n:], from+n
	}
	if len(data) > 0 {
		c.held = append(c.held, heldOutput{off: from, at: now, data: data})
	}
}

// commit writes held output older than the hold-back (all of it when
// all), with the pending inputs in their places among it.
func (c *castFeed) commit(now time.Time, all bool) {
	r := c.r
	r.mu.Lock()
	inputs := r.inputs
	r.mu.Unlock()
	used := 0
	for c.why == "" {
		if used < len(inputs) && (len(c.held) == 0 || inputs[used].off <= c.held[0].off) {
			in := inputs[used]
			used++
			c.write(c.w.Marker(in.at, in.label))
			if in.typed != "" {
				c.write(c.w.Input(in.at, in.typed))
			}
			continue
		}
		if len(c.held) == 0 {
			break
		}
		h := &c.held[0]
		if !all && now.Sub(h.at) < recordHoldBack {
			break
		}
		if used < len(inputs) && inputs[used].off < h.off+int64(len(h.data)) {
			n := inputs[used].off - h.off
			c.output(h.at, h.data[:n])
			h.data, h.off = h.data[n:], inputs[used].off
			continue
		}
		c.output(h.at, h.data)
		c.held = c.held[1:]
	}
	r.mu.Lock()
	r.inputs = r.inputs[used:]
	r.bytes, r.events = c.w.Size(), c.w.Events()
	r.mu.Unlock()
}

// paneSize reads pane's size: an error of errs.KindNotFound if it is gone.
func (p *Recordings) paneSize(ctx context.Context, pane string) (cols, rows int, err error) {
	rs, err := p.host.Exec(ctx, controlmode.NewCommand("display-message", "-p", "-t", pane, "#{pane_id} #{pane_width} #{pane_height}"))
	if err != nil {
		return 0, 0, err
	}
	f := strings.Fields(strings.Join(rs[0].Lines, ""))
	if len(f) != 3 || f[0] != pane {
		return 0, 0, errs.Errorf(errs.KindNotFound, "can't find pane: %s", pane)
	}
	c, err1 := strconv.Atoi(f[1])
	r, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return 0, 0, errs.Errorf(errs.KindRefused, "tmux printed the size of pane %s as %q", pane, f[1:])
	}
	return c, r, nil
}

// validLabel cuts s to n bytes on a character boundary.
func validLabel(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
