package session

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

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

// SinceArgs are the arguments of [Server.CaptureSince].
type SinceArgs struct {
	Pane     PaneRef
	Cursor   string // from the previous call; empty to start
	MaxLines int    // 0 keeps every line
	MaxBytes int    // 0 keeps every byte
}

// SinceResult is what [Server.CaptureSince] returns.
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
func (s *Server) CaptureSince(ctx context.Context, a SinceArgs) (SinceResult, error) {
	start := time.Now()
	pane, gen, offset, from, err := s.sinceTarget(ctx, a)
	if err != nil {
		return SinceResult{}, err
	}
	f, err := s.followPane(ctx, pane)
	if err != nil {
		return SinceResult{}, err
	}
	// The watcher stays attached for WatcherIdle after this call, so the
	// next call a little later still finds everything.
	defer f.stop()
	st := f.st

	res := SinceResult{PaneID: pane}
	// The stream first holds all tmux read before the call, then the next
	// cursor's offset is taken, before tmux is asked for rows, so that the
	// stream from it holds all that comes after the rows read.
	if err := s.syncStream(ctx, st); err != nil {
		return SinceResult{}, err
	}
	pos, _ := st.Position()
	missed := offset < 0 || gen != s.Generation()
	var lines []string
	next := pos
	var mark gridAt
	read, asked := false, false
	if !missed && from.known {
		g, err := s.readSince(ctx, pane, st, offset, from)
		if err != nil {
			return SinceResult{}, err
		}
		mark, asked = g.mark, true
		if g.ok {
			lines, res.LastLineUnfinished, res.AlternateScreen, read = g.lines, g.unfinished, g.alternate, true
		}
	}
	if !missed && !asked {
		// A cursor without a grid mark: the pane's state first, so that a
		// full-screen program is read as drawn, not from its bytes.
		at, screen, err := s.screenNow(ctx, pane)
		if err != nil {
			return SinceResult{}, err
		}
		mark = at.mark()
		if at.alternate {
			lines, res.AlternateScreen, read = screen, true, true
		}
	}
	if !missed && !read {
		var ok bool
		if lines, next, res.LastLineUnfinished, ok = s.streamSince(st, pane, offset); !ok {
			missed = true
		}
	}
	if missed {
		// No cursor, or what followed it is gone: the screen stands in.
		at, screen, err := s.screenNow(ctx, pane)
		if err != nil {
			return SinceResult{}, err
		}
		mark, lines, res.AlternateScreen = at.mark(), screen, at.alternate
		next, res.LinesMissed = pos, offset >= 0
	}
	res.Lines, res.Truncated, res.TruncatedLines, res.TruncatedBytes = limitLines(lines, a.MaxLines, a.MaxBytes)
	res.Cursor = s.cursorAt(ctx, pane, next, mark)
	res.Elapsed = time.Since(start)
	return res, nil
}

// sinceTarget returns the pane a capture_since reads and, with a cursor,
// where the cursor left it: its server's generation, the stream offset
// (-1 without a cursor) and the grid mark.
func (s *Server) sinceTarget(ctx context.Context, a SinceArgs) (pane, gen string, offset int64, from gridAt, err error) {
	if a.Cursor == "" {
		pane, err = s.ResolvePane(ctx, a.Pane)
		return pane, "", -1, gridAt{}, err
	}
	if pane, gen, offset, from, err = parseCursor(a.Cursor, OwnerOf(ctx)); err != nil {
		return "", "", -1, gridAt{}, err
	}
	if a.Pane.PaneID != "" && a.Pane.PaneID != pane {
		return "", "", -1, gridAt{}, errorf(KindInvalid, "the cursor belongs to pane %s, not %s", pane, a.Pane.PaneID)
	}
	return pane, gen, offset, from, nil
}

// streamSince rebuilds the lines the pane printed after offset from its
// stream, and the offset the next read starts at: after the last newline,
// so the unfinished line after it is shown and read again next time. It
// reports false when the stream no longer holds all of it.
func (s *Server) streamSince(st *panestream.Stream, pane string, offset int64) (lines []string, next int64, unfinished, ok bool) {
	r := st.Read(offset)
	// An offset past the end: the stream was started again.
	if r.Missed > 0 || r.Paused || offset > r.Next {
		return nil, 0, false, false
	}
	end := bytes.LastIndexByte(r.Data, '\n') + 1
	width := s.paneWidth(pane)
	text := termtext.Lines{Width: width}
	text.Write(r.Data[:end])
	if off := text.AltScreenExit(); off >= 0 {
		// A full-screen program left the alternate screen (the previous
		// call read its screen): what it drew there is no line.
		text = termtext.Lines{Width: width}
		text.Write(r.Data[off:end])
	}
	lines = text.Take()
	rest := termtext.Lines{Width: width}
	rest.Write(r.Data[end:])
	if l := rest.Line(); strings.TrimSpace(l) != "" {
		lines, unfinished = append(lines, l), true
	}
	return lines, offset + int64(end), unfinished, true
}

// screenNow reads the pane's screen, as a person reads it, and where its
// cursor is, in one round trip.
func (s *Server) screenNow(ctx context.Context, pane string) (paneAt, []string, error) {
	rs, err := s.exec(ctx, markNowCommand(pane), CaptureArgs{Join: true}.command(pane))
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
func (s *Server) sinceCursor(ctx context.Context, pane string, next int64) string {
	return cursorPrefix + s.Generation() + ":" + pane + ":" + strconv.FormatInt(next, 10) + ":" + issuerFor(OwnerOf(ctx))
}

// cursorAt is the capture_since cursor of offset next in pane's stream and
// of grid mark m, which the next call reads the rows from; without a mark,
// a [Server.sinceCursor].
func (s *Server) cursorAt(ctx context.Context, pane string, next int64, m gridAt) string {
	if !m.known {
		return s.sinceCursor(ctx, pane, next)
	}
	return cursorPrefixGrid + s.Generation() + ":" + pane + ":" + strconv.FormatInt(next, 10) + ":" +
		fmt.Sprintf("%d.%d.%d.%d", m.row, m.hist, m.limit, m.width) + ":" + issuerFor(OwnerOf(ctx))
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
		return "", "", 0, gridAt{}, errorf(KindInvalid, "cursor %q was issued to another client: cursors belong to the client they were given to; start again without a cursor", c)
	case issuer != issuerFor(owner):
		return "", "", 0, gridAt{}, errorf(KindInvalid, "cursor %q was not issued by this process (another server issued it, or this one restarted since); start again without a cursor", c)
	}
	return pane, gen, offset, from, nil
}

// splitCursor reads the fields of a cursor, whoever it was issued to: a
// stream offset (cursorPrefix), or an offset and a grid mark
// (cursorPrefixGrid).
func splitCursor(c string) (pane, gen string, offset int64, from gridAt, issuer string, err error) {
	bad := errorf(KindInvalid, "not an output cursor of this process: %q", c)
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
		var n [4]int
		parts := strings.Split(f[4], ".")
		if len(parts) != len(n) {
			return "", "", 0, gridAt{}, "", bad
		}
		for i, p := range parts {
			if n[i], perr = strconv.Atoi(p); perr != nil || n[i] < 0 {
				return "", "", 0, gridAt{}, "", bad
			}
		}
		from = gridAt{known: true, row: n[0], hist: n[1], limit: n[2], width: n[3]}
		f = append(f[:4], f[5])
	}
	if len(f) == 5 {
		issuer = f[4]
	}
	return f[2], f[0] + ":" + f[1], offset, from, issuer, nil
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
