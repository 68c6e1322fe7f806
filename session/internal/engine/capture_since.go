package engine

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/session/internal/errs"
	"github.com/tmux-mcp/tmux-mcp/session/internal/paneread"
	"github.com/tmux-mcp/tmux-mcp/session/internal/panestream"
	"github.com/tmux-mcp/tmux-mcp/session/internal/termtext"
)

// cursorPrefix starts every capture_since cursor; the version lets the
// format change without misreading old cursors.
const cursorPrefix = "capture-since-v1:"

// cursorPrefixGrid starts a cursor that also carries a grid mark: where
// the next call reads tmux's rows from. run_command's output_cursor is a
// cursorPrefix one, read from the stream.
const cursorPrefixGrid = "capture-since-v2:"

// cursorIssuer ends every cursor this process issues. Offsets count bytes
// of this process's streams, which another process (or this one after a
// restart) numbers differently: a cursor that does not end with it is
// refused rather than misread.
var cursorIssuer = func() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // never fails
	return hex.EncodeToString(b)
}()

// SinceArgs are the arguments of [Engine.CaptureSince].
type SinceArgs struct {
	Pane     PaneRef
	Cursor   string // from the previous call; empty to start
	MaxLines int    // 0 keeps every line
	MaxBytes int    // 0 keeps every byte
	// Oldest keeps the oldest lines within the bounds, not the newest,
	// and puts the cursor after them: calls read a long output forward,
	// page by page. It reads the pane's output stream (a full-screen
	// program's screen is read as drawn).
	Oldest bool
}

// SinceResult is what [Engine.CaptureSince] returns.
type SinceResult struct {
	PaneID string
	Cursor string
	Lines  []string
	// LinesMissed reports that output after the cursor is no longer kept
	// (or that tmux discarded some); Lines then starts with the screen.
	LinesMissed bool
	// LastLineUnfinished reports that the last of Lines is a line the pane
	// is still writing, such as a prompt waiting for input ("Continue?
	// [y/N] "). The cursor stays before it: the next call returns it again,
	// finished or not.
	LastLineUnfinished bool
	// AlternateScreen reports that the pane shows a full-screen program
	// (vim, less, a TUI such as Codex): Lines are its screen as drawn, not
	// lines printed since the cursor.
	AlternateScreen bool
	Truncated       bool
	TruncatedLines  int
	TruncatedBytes  int
	Elapsed         time.Duration
}

// CaptureSince returns the lines a pane printed since cursor, as tmux
// draws them, and a cursor for the next call. Without a cursor it returns
// the visible screen and starts following the pane. A cursor marks the
// row the pane's cursor was on (see gridAt); the next call reads the rows
// from there to the bottom, those that scrolled into history since
// included, so a line an inline program drew over with cursor movement
// reads as it shows. Where tmux may have dropped rows past its history
// limit since, the lines come from the pane's output stream, rebuilt from
// the bytes, as long as the stream holds them. The cursor's row, and the
// rows below it, come again with the next call (LastLineUnfinished when
// they are not blank). A cursor another process issued is refused.
//
// A cursor of a pane that is gone reads the output of the command
// run_command typed there, as the command keeps it (see sinceCommand).
func (e *Engine) CaptureSince(ctx context.Context, a SinceArgs) (SinceResult, error) {
	start := time.Now()
	res, err := e.captureSince(ctx, a, start)
	var fail *errs.Error
	if err != nil && a.Cursor != "" && errors.As(err, &fail) && (fail.Kind == errs.KindNotFound || fail.Kind == errs.KindNoServer) {
		if pane, gen, offset, _, perr := parseCursor(a.Cursor, OwnerOf(ctx)); perr == nil {
			if res, ok := e.sinceCommand(ctx, a, pane, gen, offset, start); ok {
				return res, nil
			}
		}
	}
	return res, err
}

func (e *Engine) captureSince(ctx context.Context, a SinceArgs, start time.Time) (SinceResult, error) {
	pane, gen, offset, from, err := e.sinceTarget(ctx, a)
	if err != nil {
		return SinceResult{}, err
	}
	if gen != "" && gen != e.host.Generation() {
		// Another server now, or none: a command's output of the old one
		// is read from the command.
		if res, ok := e.sinceCommand(ctx, a, pane, gen, offset, start); ok {
			return res, nil
		}
	}
	// Where the model puts the pane in a session a client of ours is
	// attached to, its stream is taken without asking tmux, and the first
	// look at the pane, which reads its session too, checks the model:
	// one round trip in all. The forward read from a cursor looks at no
	// pane, so it has tmux say where the pane is first.
	fed := !(a.Oldest && offset >= 0)
	for {
		res, moved, err := e.captureFollowed(ctx, a, pane, gen, offset, from, start, fed)
		if !moved {
			return res, err
		}
		fed = false // the pane left the session the model has it in
	}
}

// captureFollowed is captureSince once the pane's stream is followed:
// with fed, the one the model says is fed (see followEntry); moved says
// the first look found the pane in another session, and nothing was read.
func (e *Engine) captureFollowed(ctx context.Context, a SinceArgs, pane, gen string, offset int64, from gridAt, start time.Time, fed bool) (res SinceResult, moved bool, err error) {
	f, session, err := e.sinceFollow(ctx, pane, fed)
	if err != nil {
		return SinceResult{}, false, err
	}
	// The watcher stays attached for WatcherIdle after this call, so the
	// next call a little later still finds everything.
	defer f.stop()
	st := f.st
	// elsewhere reports that the first look found the pane outside the
	// session its stream was taken for.
	looked := false
	elsewhere := func(at string) bool {
		first := !looked
		looked = true
		return first && session != "" && at != session
	}

	res = SinceResult{PaneID: pane}
	// The stream first holds all tmux read before the call, then the next
	// cursor's offset is taken, before tmux is asked for rows, so that the
	// stream from it holds all that comes after the rows read.
	if err := e.host.SyncStream(ctx, st); err != nil {
		return SinceResult{}, false, err
	}
	pos, _ := st.Position()
	missed := offset < 0 || gen != e.host.Generation()
	var lines []string
	next := pos
	var mark gridAt
	read, asked := false, false
	if !missed && a.Oldest && offset >= 0 {
		if e.sinceOldest(ctx, st, a, offset, &res) {
			res.Elapsed = time.Since(start)
			return res, false, nil
		}
		missed = true
	}
	if !missed && from.known {
		g, err := e.readSince(ctx, pane, st, offset, from)
		switch {
		case err != nil:
			return SinceResult{}, false, err
		case elsewhere(g.session):
			return SinceResult{}, true, nil
		}
		mark, asked = g.mark, true
		if g.ok {
			lines, res.LastLineUnfinished, res.AlternateScreen, read = g.lines, g.unfinished, g.alternate, true
		}
	}
	if !missed && !asked {
		// A cursor without a grid mark: the pane's state first, so that a
		// full-screen program is read as drawn, not from its bytes.
		at, screen, err := e.screenNow(ctx, pane)
		switch {
		case err != nil:
			return SinceResult{}, false, err
		case elsewhere(at.session):
			return SinceResult{}, true, nil
		}
		mark = at.mark()
		if at.alternate {
			lines, res.AlternateScreen, read = screen, true, true
		}
	}
	if !missed && !read {
		var ok bool
		if lines, next, res.LastLineUnfinished, ok = e.streamSince(st, pane, offset); !ok {
			missed = true
		}
	}
	if missed {
		// No cursor, or what followed it is gone: the screen stands in.
		at, screen, err := e.screenNow(ctx, pane)
		switch {
		case err != nil:
			return SinceResult{}, false, err
		case elsewhere(at.session):
			return SinceResult{}, true, nil
		}
		mark, lines, res.AlternateScreen = at.mark(), screen, at.alternate
		next, res.LinesMissed = pos, offset >= 0
	}
	res.Lines, res.Truncated, res.TruncatedLines, res.TruncatedBytes = limitLines(lines, a.MaxLines, a.MaxBytes)
	res.Cursor = e.cursorAt(ctx, pane, next, mark)
	res.Elapsed = time.Since(start)
	return res, false, nil
}

// sinceFollow follows pane for capture_since: with fed, through the
// stream the model says a client of ours feeds (see followEntry), whose
// session it returns for the first look to check; else, or where the
// model has no such client, once tmux said where the pane is.
func (e *Engine) sinceFollow(ctx context.Context, pane string, fed bool) (*paneFollow, string, error) {
	if fed {
		if st, release, session, ok := e.host.WatchPaneFed(pane); ok {
			return newPaneFollow(e, pane, st, release), session, nil
		}
	}
	f, err := e.followPane(ctx, pane)
	return f, "", err
}

// sinceOldest reads forward from offset in the stream st: its bytes say
// where each line ends, so that the next cursor can start after the last
// line returned. It reports false when the stream no longer holds them.
func (e *Engine) sinceOldest(ctx context.Context, st *panestream.Stream, a SinceArgs, offset int64, res *SinceResult) bool {
	r := st.Read(offset)
	if r.Missed > 0 || r.Paused || offset > r.Next {
		return false
	}
	pane := res.PaneID
	data, orig := e.streamText(pane, r)
	end := bytes.LastIndexByte(data, '\n') + 1
	lines, used, leftLines, leftBytes := linesOldest(data[:end], e.host.PaneWidth(pane), a.MaxLines, a.MaxBytes)
	res.Lines, res.Truncated, res.TruncatedLines, res.TruncatedBytes = nonNilLines(lines), leftLines > 0, leftLines, leftBytes
	res.Cursor = e.sinceCursor(ctx, pane, orig(used))
	return true
}

// sinceCommand reads, for a cursor whose pane is gone, the output that a
// command run_command typed there kept (see runningCommand.raw): the
// output stays readable through the command's output_cursor after the
// pane closed. ok is false when no command holds the cursor's offset.
func (e *Engine) sinceCommand(ctx context.Context, a SinceArgs, pane, gen string, offset int64, start time.Time) (SinceResult, bool) {
	if a.Cursor == "" {
		return SinceResult{}, false
	}
	data, at, missed, ok := e.cmds.outputOf(OwnerOf(ctx), pane, gen, offset)
	if !ok {
		return SinceResult{}, false
	}
	res := SinceResult{PaneID: pane, LinesMissed: missed}
	next := at + int64(len(data))
	var lines []string
	if a.Oldest {
		end := bytes.LastIndexByte(data, '\n') + 1
		var used int
		lines, used, res.TruncatedLines, res.TruncatedBytes = linesOldest(data[:end], 0, a.MaxLines, a.MaxBytes)
		res.Truncated, next = res.TruncatedLines > 0, at+int64(used)
		if l := termtextLine(data[end:]); res.TruncatedLines == 0 && strings.TrimSpace(l) != "" {
			// The last line, unfinished (the pane closed under it).
			lines, next = append(lines, l), at+int64(len(data))
		}
	} else {
		text := termtext.Lines{}
		text.Write(data)
		lines = text.Take()
		if l := text.Line(); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
		lines, res.Truncated, res.TruncatedLines, res.TruncatedBytes = limitLines(lines, a.MaxLines, a.MaxBytes)
	}
	res.Lines = nonNilLines(lines)
	res.Cursor = cursorPrefix + gen + ":" + pane + ":" + strconv.FormatInt(next, 10) + ":" + issuerFor(OwnerOf(ctx))
	res.Elapsed = time.Since(start)
	return res, true
}

// termtextLine is the text of an unfinished line as a terminal draws it.
func termtextLine(b []byte) string {
	text := termtext.Lines{}
	text.Write(b)
	return text.Line()
}

// sinceTarget returns the pane a capture_since reads and, with a cursor,
// where the cursor left it: its server's generation, the stream offset
// (-1 without a cursor) and the grid mark.
func (e *Engine) sinceTarget(ctx context.Context, a SinceArgs) (pane, gen string, offset int64, from gridAt, err error) {
	if a.Cursor == "" {
		pane, err = e.host.ResolvePane(ctx, a.Pane)
		return pane, "", -1, gridAt{}, err
	}
	if pane, gen, offset, from, err = parseCursor(a.Cursor, OwnerOf(ctx)); err != nil {
		return "", "", -1, gridAt{}, err
	}
	if a.Pane.PaneID != "" && a.Pane.PaneID != pane {
		return "", "", -1, gridAt{}, errs.Errorf(errs.KindInvalid, "the cursor belongs to pane %s, not %s", pane, a.Pane.PaneID)
	}
	return pane, gen, offset, from, nil
}

// streamSince rebuilds the lines the pane printed after offset from its
// stream, and the offset the next read starts at: after the last newline,
// so the unfinished line after it is shown and read again next time. It
// reports false when the stream no longer holds all of it.
func (e *Engine) streamSince(st *panestream.Stream, pane string, offset int64) (lines []string, next int64, unfinished, ok bool) {
	r := st.Read(offset)
	// An offset past the end: the stream was started again.
	if r.Missed > 0 || r.Paused || offset > r.Next {
		return nil, 0, false, false
	}
	data, orig := e.streamText(pane, r)
	end := bytes.LastIndexByte(data, '\n') + 1
	width := e.host.PaneWidth(pane)
	text := termtext.Lines{Width: width}
	text.Write(data[:end])
	if off := text.AltScreenExit(); off >= 0 {
		// A full-screen program left the alternate screen (the previous
		// call read its screen): what it drew there is no line.
		text = termtext.Lines{Width: width}
		text.Write(data[off:end])
	}
	lines = text.Take()
	rest := termtext.Lines{Width: width}
	rest.Write(data[end:])
	if l := rest.Line(); strings.TrimSpace(l) != "" {
		lines, unfinished = append(lines, l), true
	}
	return lines, orig(end), unfinished, true
}

// streamText is what r, a read of pane's stream, holds, with the lines
// run_command typed there shown as the commands they ran (see
// withoutEchoes), and the map of its offsets back to the stream's.
func (e *Engine) streamText(pane string, r panestream.Read) ([]byte, func(int) int64) {
	at := r.Next - int64(len(r.Data))
	return withoutEchoes(r.Data, at, e.cmds.echoes(pane, e.host.Generation(), at, r.Next))
}

// screenNow reads the pane's screen, as a person reads it, and where its
// cursor is, in one round trip.
func (e *Engine) screenNow(ctx context.Context, pane string) (paneAt, []string, error) {
	rs, err := e.host.Exec(ctx, markNowCommand(pane), CaptureCommand(CaptureArgs{Join: true}, pane))
	if err != nil {
		return paneAt{}, nil, err
	}
	at, err := markNowOf(rs[0], pane)
	if err != nil {
		return paneAt{}, nil, err
	}
	return at, paneread.Readable(rs[1].Lines, at.width, at.cx, at.cy), nil
}

// sinceCursor is the capture_since cursor of offset next in pane's stream,
// for the caller of ctx: it reads the rest from the stream.
func (e *Engine) sinceCursor(ctx context.Context, pane string, next int64) string {
	return cursorPrefix + e.host.Generation() + ":" + pane + ":" + strconv.FormatInt(next, 10) + ":" + issuerFor(OwnerOf(ctx))
}

// cursorAt is the capture_since cursor of offset next in pane's stream and
// of grid mark m, which the next call reads the rows from; without a mark,
// a [Engine.sinceCursor].
func (e *Engine) cursorAt(ctx context.Context, pane string, next int64, m gridAt) string {
	if !m.known {
		return e.sinceCursor(ctx, pane, next)
	}
	return cursorPrefixGrid + e.host.Generation() + ":" + pane + ":" + strconv.FormatInt(next, 10) + ":" +
		fmt.Sprintf("%d.%d.%d.%d.%d", m.row, m.hist, m.limit, m.width, m.height) + ":" + issuerFor(OwnerOf(ctx))
}

// issuerFor is the last field of the cursors issued to owner: this
// process's mark, and for an identity other than the process itself (a
// token over HTTP) a tag derived from it, so that a cursor one client was
// given is refused to another.
func issuerFor(owner string) string {
	if owner == "" {
		return cursorIssuer
	}
	sum := sha256.Sum256([]byte(cursorIssuer + "\x00" + owner))
	return cursorIssuer + "." + hex.EncodeToString(sum[:6])
}

// parseCursor reads a cursor issued to owner.
func parseCursor(c, owner string) (pane, gen string, offset int64, from gridAt, err error) {
	pane, gen, offset, from, issuer, err := splitCursor(c)
	switch {
	case err != nil:
		return "", "", 0, gridAt{}, err
	case issuer != issuerFor(owner) && strings.HasPrefix(issuer, cursorIssuer):
		return "", "", 0, gridAt{}, errs.Errorf(errs.KindInvalid, "cursor %q was issued to another client: cursors belong to the client they were given to; start again without a cursor", c)
	case issuer != issuerFor(owner):
		return "", "", 0, gridAt{}, errs.Errorf(errs.KindInvalid, "cursor %q was not issued by this process (another server issued it, or this one restarted since); start again without a cursor", c)
	}
	return pane, gen, offset, from, nil
}

// splitCursor reads the fields of a cursor, whoever it was issued to: a
// stream offset (cursorPrefix), or an offset and a grid mark
// (cursorPrefixGrid).
func splitCursor(c string) (pane, gen string, offset int64, from gridAt, issuer string, err error) {
	bad := errs.Errorf(errs.KindInvalid, "not an output cursor of this process: %q", c)
	rest, ok := strings.CutPrefix(c, cursorPrefix)
	grid := false
	if !ok {
		rest, ok = strings.CutPrefix(c, cursorPrefixGrid)
		grid = true
	}
	// The generation holds one ':' ("pid:start_time").
	f := strings.Split(rest, ":")
	if !ok || len(f) < 4 || len(f) > 5 && !grid || grid && len(f) != 6 || !strings.HasPrefix(f[2], "%") {
		return "", "", 0, gridAt{}, "", bad
	}
	offset, perr := strconv.ParseInt(f[3], 10, 64)
	if perr != nil || offset < 0 {
		return "", "", 0, gridAt{}, "", bad
	}
	if grid {
		var n [5]int
		parts := strings.Split(f[4], ".")
		if len(parts) != len(n) {
			return "", "", 0, gridAt{}, "", bad
		}
		for i, p := range parts {
			if n[i], perr = strconv.Atoi(p); perr != nil || n[i] < 0 {
				return "", "", 0, gridAt{}, "", bad
			}
		}
		from = gridAt{known: true, row: n[0], hist: n[1], limit: n[2], width: n[3], height: n[4]}
		f = append(f[:4], f[5])
	}
	if len(f) == 5 {
		issuer = f[4]
	}
	return f[2], f[0] + ":" + f[1], offset, from, issuer, nil
}

// linesOldest rebuilds the lines of data, which ends at a line's end, and
// keeps the oldest within maxLines and maxBytes (0: no bound; the first
// line always). It returns how many bytes of data the kept lines take
// (the next read starts there), and the lines and bytes it left out.
func linesOldest(data []byte, width, maxLines, maxBytes int) (kept []string, used, leftLines, leftBytes int) {
	text := termtext.Lines{Width: width}
	size, pos, full := 0, 0, false
	for pos < len(data) {
		nl := bytes.IndexByte(data[pos:], '\n')
		if nl < 0 {
			break
		}
		text.Write(data[pos : pos+nl+1])
		pos += nl + 1
		got := text.Take()
		add := 0
		for _, l := range got {
			add += len(l) + 1
		}
		over := maxLines > 0 && len(kept)+len(got) > maxLines || maxBytes > 0 && size+add > maxBytes
		if full || over && len(kept) > 0 {
			full = true
			leftLines, leftBytes = leftLines+len(got), leftBytes+add
			continue
		}
		kept, size, used = append(kept, got...), size+add, pos
	}
	return kept, used, leftLines, leftBytes
}

func nonNilLines(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// limitLines keeps the newest lines within maxLines and maxBytes (0: no
// limit) and says what it dropped.
func limitLines(lines []string, maxLines, maxBytes int) (kept []string, truncated bool, droppedLines, droppedBytes int) {
	kept = lines
	if maxLines > 0 && len(kept) > maxLines {
		for _, l := range kept[:len(kept)-maxLines] {
			droppedBytes += len(l) + 1
		}
		droppedLines += len(kept) - maxLines
		kept = kept[len(kept)-maxLines:]
	}
	if maxBytes > 0 {
		size, i := 0, len(kept)
		for i > 0 && size+len(kept[i-1])+1 <= maxBytes {
			size += len(kept[i-1]) + 1
			i--
		}
		for _, l := range kept[:i] {
			droppedBytes += len(l) + 1
		}
		droppedLines += i
		kept = kept[i:]
	}
	if kept == nil {
		kept = []string{}
	}
	return kept, droppedLines > 0, droppedLines, droppedBytes
}

// CursorPane returns the pane a capture_since cursor reads, and false when
// c is not a cursor.
func CursorPane(c string) (string, bool) {
	pane, _, _, _, _, err := splitCursor(c)
	return pane, err == nil
}
