package session

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/tmux-mcp/tmux-mcp/session/internal/termtext"
)

// cursorPrefix starts every capture_since cursor; the version lets the
// format change without misreading old cursors.
const cursorPrefix = "capture-since-v1:"

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
	Truncated          bool
	TruncatedLines     int
	TruncatedBytes     int
	Elapsed            time.Duration
}

// CaptureSince returns the lines a pane printed since cursor, from its
// output stream, and a cursor for the next call. Without a cursor it
// returns the visible screen and starts following the pane. A line still
// being written comes last, marked LastLineUnfinished, and again with the
// next call. A cursor another process issued is refused.
func (s *Server) CaptureSince(ctx context.Context, a SinceArgs) (SinceResult, error) {
	start := time.Now()
	var pane, gen string
	var offset int64 = -1
	if a.Cursor != "" {
		var err error
		if pane, gen, offset, err = parseCursor(a.Cursor, OwnerOf(ctx)); err != nil {
			return SinceResult{}, err
		}
		if a.Pane.PaneID != "" && a.Pane.PaneID != pane {
			return SinceResult{}, errorf(KindInvalid, "the cursor belongs to pane %s, not %s", pane, a.Pane.PaneID)
		}
	} else {
		var err error
		if pane, err = s.ResolvePane(ctx, a.Pane); err != nil {
			return SinceResult{}, err
		}
	}
	st, release, err := s.watchPane(ctx, pane)
	if err != nil {
		return SinceResult{}, err
	}
	// The watcher stays attached for WatcherIdle after this call, so the
	// next call a little later still finds everything.
	defer release()

	res := SinceResult{PaneID: pane}
	missed := offset < 0 || gen != s.Generation()
	var lines []string
	var next int64
	if !missed {
		r := st.Read(offset)
		// An offset past the end: the stream was started again.
		missed = r.Missed > 0 || r.Paused || offset > r.Next
		if !missed {
			// The cursor stops after the last newline; the line after it,
			// unfinished, is shown and read again next time.
			end := bytes.LastIndexByte(r.Data, '\n') + 1
			width := s.paneWidth(pane)
			text := termtext.Lines{Width: width}
			text.Write(r.Data[:end])
			lines, next = text.Take(), offset+int64(end)
			rest := termtext.Lines{Width: width}
			rest.Write(r.Data[end:])
			if l := rest.Line(); strings.TrimSpace(l) != "" {
				lines = append(lines, l)
				res.LastLineUnfinished = true
			}
		}
	}
	if missed {
		// No cursor, or what followed it is gone: the screen stands in.
		cur, _ := st.Position()
		rs, err := s.exec(ctx, CaptureArgs{Join: true}.command(pane))
		if err != nil {
			return SinceResult{}, err
		}
		lines, next = trimBlankTail(rs[0].Lines), cur
		res.LinesMissed = offset >= 0
	}
	res.Lines, res.Truncated, res.TruncatedLines, res.TruncatedBytes = limitLines(lines, a.MaxLines, a.MaxBytes)
	res.Cursor = s.sinceCursor(ctx, pane, next)
	res.Elapsed = time.Since(start)
	return res, nil
}

// sinceCursor is the capture_since cursor of offset next in pane's stream,
// for the caller of ctx.
func (s *Server) sinceCursor(ctx context.Context, pane string, next int64) string {
	return cursorPrefix + s.Generation() + ":" + pane + ":" + strconv.FormatInt(next, 10) + ":" + issuerFor(OwnerOf(ctx))
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
func parseCursor(c, owner string) (pane, gen string, offset int64, err error) {
	pane, gen, offset, issuer, err := splitCursor(c)
	switch {
	case err != nil:
		return "", "", 0, err
	case issuer != issuerFor(owner) && strings.HasPrefix(issuer, cursorIssuer):
		return "", "", 0, errorf(KindInvalid, "cursor %q was issued to another client: cursors belong to the client they were given to; start again without a cursor", c)
	case issuer != issuerFor(owner):
		return "", "", 0, errorf(KindInvalid, "cursor %q was not issued by this process (another server issued it, or this one restarted since); start again without a cursor", c)
	}
	return pane, gen, offset, nil
}

// splitCursor reads the fields of a cursor, whoever it was issued to.
func splitCursor(c string) (pane, gen string, offset int64, issuer string, err error) {
	rest, ok := strings.CutPrefix(c, cursorPrefix)
	// The generation holds one ':' ("pid:start_time").
	f := strings.Split(rest, ":")
	if !ok || len(f) < 4 || len(f) > 5 || !strings.HasPrefix(f[2], "%") {
		return "", "", 0, "", errorf(KindInvalid, "not an output cursor of this process: %q", c)
	}
	offset, perr := strconv.ParseInt(f[3], 10, 64)
	if perr != nil || offset < 0 {
		return "", "", 0, "", errorf(KindInvalid, "not an output cursor of this process: %q", c)
	}
	if len(f) == 5 {
		issuer = f[4]
	}
	return f[2], f[0] + ":" + f[1], offset, issuer, nil
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
	pane, _, _, _, err := splitCursor(c)
	return pane, err == nil
}
