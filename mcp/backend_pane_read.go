package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tmux-mcp/tmux-mcp/internal/screenshot"
	"github.com/tmux-mcp/tmux-mcp/session"
)

// The pane reading tools. With no target they read the active pane of the
// first session and say so in the result.

// textBudget is how many bytes of JSON-encoded text a reading tool may
// return: the response cap less room for the other fields.
const textBudget = MaxResultBytes - 4<<10

// isCaller reports whether pane id on srv is the pane this process runs
// in; nil when this process does not run inside tmux.
func (b *TmuxBackend) isCaller(srv *session.Server, id string) *bool {
	if b.opts.SelfPane == "" {
		return nil
	}
	v := b.isSelfServer(srv) && id == b.opts.SelfPane
	return &v
}

// paneGeometry converts a pane's place in its window.
func paneGeometry(p session.Pane) PaneGeometry {
	return PaneGeometry{
		PaneLeft: &p.Left, PaneTop: &p.Top, PaneRight: &p.Right, PaneBottom: &p.Bottom,
		PaneAtLeft: &p.AtLeft, PaneAtRight: &p.AtRight, PaneAtTop: &p.AtTop, PaneAtBottom: &p.AtBottom,
	}
}

// paneInfoOf converts a pane to the tools' PaneInfo.
func (b *TmuxBackend) paneInfoOf(srv *session.Server, p session.Pane) PaneInfo {
	active := "0"
	if p.Active {
		active = "1"
	}
	return PaneInfo{
		PaneID:             p.ID,
		PaneIndex:          p.Index,
		PaneWidth:          strconv.Itoa(p.Width),
		PaneHeight:         strconv.Itoa(p.Height),
		PaneGeometry:       paneGeometry(p),
		PaneTTY:            p.TTY,
		PaneCurrentCommand: p.CurrentCommand,
		PaneCurrentPath:    p.CurrentPath,
		PanePID:            p.PID,
		PaneTitle:          p.Title,
		PaneActive:         active,
		WindowID:           p.WindowID,
		SessionID:          p.SessionID,
		IsCaller:           b.isCaller(srv, p.ID),
	}
}

// jsonLen returns the length of s encoded as a JSON string, quotes
// excluded.
func jsonLen(s string) int {
	b, _ := json.Marshal(s) // a string always encodes
	return len(b) - 2
}

// keepTail returns the newest lines of a capture: at most maxLines of them
// (0 keeps all), and no more than fit in budget bytes of JSON joined by
// newlines. dropped counts the lines left out; cutBytes the bytes cut
// from the oldest kept line when even the newest line alone is too big.
func keepTail(lines []string, maxLines, budget int) (kept []string, dropped, cutBytes int) {
	if maxLines > 0 && len(lines) > maxLines {
		dropped = len(lines) - maxLines
		lines = lines[dropped:]
	}
	used := 0
	first := len(lines)
	for first > 0 {
		n := jsonLen(lines[first-1]) + 2 // and its "\n"
		if used+n > budget {
			break
		}
		used += n
		first--
	}
	if first == len(lines) && first > 0 {
		// The newest line alone is over budget: keep its tail.
		last := lines[first-1]
		cut := max(len(last)-budget/6, 0) // at worst 6 JSON bytes per byte
		for cut < len(last) && !utf8.RuneStart(last[cut]) {
			cut++
		}
		return []string{last[cut:]}, dropped + first - 1, cut
	}
	return lines[first:], dropped + first, 0
}

// fallbackNote is the line a reading tool puts first when it read a
// default pane.
func fallbackNote(ref session.PaneRef, id string) string {
	if !ref.IsZero() {
		return ""
	}
	return "[pane " + id + ": no target given, read the active pane of the first session]\n"
}

// CapturePane reads a pane's text, keeping the newest lines.
func (b *TmuxBackend) CapturePane(ctx context.Context, in CapturePaneIn) (Message, error) {
	srv := b.server(in.Socket)
	ref := paneRef(in.PaneTarget)
	target, err := orDefaultPane(ctx, srv, ref)
	if err != nil {
		return Message{}, err
	}
	id, lines, err := srv.Capture(ctx, target, session.CaptureArgs{Start: in.Start, End: in.End})
	if err != nil {
		return Message{}, err
	}
	kept, dropped, cut := keepTail(lines, in.MaxLines, textBudget)
	var sb strings.Builder
	sb.WriteString(fallbackNote(ref, id))
	if dropped > 0 {
		fmt.Fprintf(&sb, "[... truncated %d lines ...]\n", dropped)
	}
	if cut > 0 {
		fmt.Fprintf(&sb, "[... truncated %d bytes ...]\n", cut)
	}
	sb.WriteString(strings.Join(kept, "\n"))
	return Message{Result: sb.String()}, nil
}

// SnapshotPane reads a pane's screen and state in one round trip.
func (b *TmuxBackend) SnapshotPane(ctx context.Context, in SnapshotPaneIn) (PaneSnapshot, error) {
	srv := b.server(in.Socket)
	ref, err := orDefaultPane(ctx, srv, paneRef(in.PaneTarget))
	if err != nil {
		return PaneSnapshot{}, err
	}
	var snap session.PaneSnapshot
	var styled []string
	if in.PNG {
		snap, styled, err = srv.SnapshotStyled(ctx, ref)
	} else {
		snap, err = srv.Snapshot(ctx, ref)
	}
	if err != nil {
		return PaneSnapshot{}, err
	}
	var img []byte
	if in.PNG {
		scr := screenshot.Parse(styled, snap.Width, snap.Height)
		scr.CursorX, scr.CursorY, scr.Cursor = snap.CursorX, snap.CursorY, !snap.CursorHidden && snap.Mode == ""
		if img, err = scr.PNG(); err != nil {
			return PaneSnapshot{}, Errorf(CodeInternal, EffectsNone, "drawing the screen: %v", err)
		}
	}
	kept, dropped, _ := keepTail(snap.Lines, in.MaxLines, textBudget)
	p := snap.Pane
	var fg session.Foreground
	if !p.Dead {
		fg = srv.Foreground(ctx, p.PID, p.TTY)
	}
	st := srv.StateOfSnapshot(ctx, snap, fg)
	return PaneSnapshot{
		AgentState:            st.State,
		StateDetail:           stateDetail(st),
		PaneID:                p.ID,
		Content:               strings.Join(kept, "\n"),
		CursorX:               p.CursorX,
		CursorY:               p.CursorY,
		PaneWidth:             p.Width,
		PaneHeight:            p.Height,
		PaneGeometry:          paneGeometry(p),
		PaneTTY:               p.TTY,
		PanePID:               p.PID,
		PaneDead:              &p.Dead,
		AlternateOn:           &snap.AlternateOn,
		PaneInMode:            p.InMode,
		PaneMode:              snap.Mode,
		ScrollPosition:        snap.ScrollPosition,
		HistorySize:           snap.HistorySize,
		Title:                 p.Title,
		PaneCurrentCommand:    p.CurrentCommand,
		PaneCurrentPath:       p.CurrentPath,
		IsCaller:              b.isCaller(srv, p.ID),
		ReadingInput:          readingInput(&fg),
		ContentTruncated:      dropped > 0,
		ContentTruncatedLines: dropped,
		png:                   img,
	}, nil
}

// searchSession returns the tmux target-session for t, "" for none.
func searchSession(t SessionTarget) string {
	switch {
	case t.SessionID != "":
		return t.SessionID
	case t.SessionName != "":
		return "=" + t.SessionName
	}
	return ""
}

// SearchPanes finds panes whose text matches a pattern: one round trip to
// list the panes, one to capture them all.
func (b *TmuxBackend) SearchPanes(ctx context.Context, in SearchPanesIn) (SearchPanesResult, error) {
	expr := in.Pattern
	if !in.Regex {
		expr = regexp.QuoteMeta(expr)
	}
	if !in.MatchCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return SearchPanesResult{}, invalidArguments("invalid regular expression: %v", err)
	}
	srv := b.server(in.Socket)
	texts, err := srv.CapturePanes(ctx, session.PaneScope{Session: searchSession(in.SessionTarget)},
		session.CaptureArgs{Start: in.ContentStart, End: in.ContentEnd, Join: true})
	if err != nil {
		return SearchPanesResult{}, err
	}
	var matches []PaneContentMatch
	perPaneCut := false
	for _, pt := range texts {
		var lines []string
		for _, l := range pt.Lines {
			if re.MatchString(l) {
				lines = append(lines, l)
			}
		}
		if len(lines) == 0 {
			continue
		}
		if len(lines) > in.MaxMatchedLinesPerPane {
			lines = lines[len(lines)-in.MaxMatchedLinesPerPane:]
			perPaneCut = true
		}
		p := pt.Pane
		matches = append(matches, PaneContentMatch{
			PaneID:             p.ID,
			PaneGeometry:       paneGeometry(p),
			PaneTTY:            p.TTY,
			PaneCurrentCommand: p.CurrentCommand,
			PaneCurrentPath:    p.CurrentPath,
			WindowID:           p.WindowID,
			WindowName:         p.WindowName,
			SessionID:          p.SessionID,
			SessionName:        p.SessionName,
			MatchedLines:       lines,
			IsCaller:           b.isCaller(srv, p.ID),
		})
	}
	slices.SortStableFunc(matches, func(x, y PaneContentMatch) int { return session.CompareIDs(x.PaneID, y.PaneID) })
	res := searchPage(matches, in.Offset, in.Limit)
	res.Truncated = res.Truncated || perPaneCut
	return res, nil
}

// searchPage is the page of matches from offset, at most limit panes of it
// when limit > 0; the panes past the page are named, and make it Truncated.
func searchPage(matches []PaneContentMatch, offset, limit int) SearchPanesResult {
	res := SearchPanesResult{TotalPanesMatched: len(matches), Offset: offset}
	page := matches[min(offset, len(matches)):]
	if limit > 0 {
		res.Limit = &limit
		if len(page) > limit {
			for _, m := range page[limit:] {
				res.TruncatedPanes = append(res.TruncatedPanes, m.PaneID)
			}
			page = page[:limit]
		}
	}
	res.Matches = page
	res.Truncated = len(res.TruncatedPanes) > 0
	return res
}

// GetPaneInfo describes one pane, read fresh.
func (b *TmuxBackend) GetPaneInfo(ctx context.Context, in GetPaneInfoIn) (PaneInfo, error) {
	srv := b.server(in.Socket)
	ref, err := orDefaultPane(ctx, srv, paneRef(in.PaneTarget))
	if err != nil {
		return PaneInfo{}, err
	}
	p, st, fg, err := srv.PaneState(ctx, ref)
	if err != nil {
		return PaneInfo{}, err
	}
	info := b.paneInfoOf(srv, p)
	if !p.Dead {
		info.ReadingInput = readingInput(&fg)
	}
	info.AgentState, info.StateDetail = st.State, stateDetail(st)
	return info, nil
}

// stateDetail is an agent state's detail as tools give it: why, the
// agent CLI, and the question on screen.
func stateDetail(st session.AgentState) string {
	d := st.Detail
	if st.Question != "" {
		d += ": " + st.Question
	}
	return d
}

// withStates fills the agent state of each pane of a listing, from the
// panes listed.
func withStates(ctx context.Context, srv *session.Server, panes []session.Pane, l List[PaneInfo]) List[PaneInfo] {
	byID := make(map[string]session.Pane, len(l.Result))
	for _, p := range panes {
		byID[p.ID] = p
	}
	page := make([]session.Pane, 0, len(l.Result))
	for _, info := range l.Result {
		if p, ok := byID[info.PaneID]; ok {
			page = append(page, p)
		}
	}
	states := srv.ListStates(ctx, page)
	for i := range l.Result {
		// Lean rows (a page of 100 stays under 100 KB): idle, the common
		// state, is told by its absence, and the detail comes only where
		// it holds a question or an exit status; get_pane_info gives both
		// always.
		if st, ok := states[l.Result[i].PaneID]; ok && st.State != "idle" {
			l.Result[i].AgentState = st.State
			if st.Question != "" || st.ExitStatus != nil {
				l.Result[i].StateDetail = stateDetail(st)
			}
		}
	}
	return l
}

// FindPaneByPosition returns the pane in a corner of a window.
func (b *TmuxBackend) FindPaneByPosition(ctx context.Context, in FindPaneByPositionIn) (PaneInfo, error) {
	vertical, horizontal, ok := strings.Cut(in.Corner, "-")
	if !ok {
		return PaneInfo{}, invalidArguments("corner %q: want top-left, top-right, bottom-left or bottom-right", in.Corner)
	}
	srv := b.server(in.Socket)
	w, err := orDefaultWindow(ctx, srv, windowRef(in.WindowTarget))
	if err != nil {
		return PaneInfo{}, err
	}
	panes, err := srv.WindowPanes(ctx, w)
	if err != nil {
		return PaneInfo{}, err
	}
	var best *session.Pane
	for i := range panes {
		p := &panes[i]
		if (vertical == "top" && !p.AtTop) || (vertical == "bottom" && !p.AtBottom) ||
			(horizontal == "left" && !p.AtLeft) || (horizontal == "right" && !p.AtRight) {
			continue
		}
		// Several candidates only in unusual layouts: take the innermost.
		if best == nil || p.Left+p.Top > best.Left+best.Top {
			best = p
		}
	}
	if best == nil {
		return PaneInfo{}, Errorf(CodeNotFound, EffectsPossible, "no pane at the %s corner of the window", in.Corner)
	}
	return b.paneInfoOf(srv, *best), nil
}

// formatVariable is one #{name} reference: the only format syntax
// display_message accepts. Modifiers (#{E:x} expands x's value again, and a
// value can come from a pane), conditionals and #(...) jobs, which run a
// shell command on the tmux server, are refused.
var formatVariable = regexp.MustCompile(`#\{[A-Za-z_@][A-Za-z0-9_]*\}`)

// DisplayMessage expands a format string of #{variable} references for a
// pane.
func (b *TmuxBackend) DisplayMessage(ctx context.Context, in DisplayMessageIn) (Message, error) {
	if strings.Contains(formatVariable.ReplaceAllString(in.FormatString, ""), "#") {
		msg := "format_string accepts literal text and #{variable} references only"
		if strings.Contains(in.FormatString, "#(") {
			msg += "; #(...) would run a shell command on the tmux server"
		} else {
			msg += "; modifiers such as #{E:...}, conditionals and ## are refused"
		}
		return Message{}, invalidArguments("%s", msg)
	}
	srv := b.server(in.Socket)
	ref := paneRef(in.PaneTarget)
	target, err := orDefaultPane(ctx, srv, ref)
	if err != nil {
		return Message{}, err
	}
	id, lines, err := srv.DisplayMessage(ctx, target, in.FormatString)
	if err != nil {
		return Message{}, err
	}
	return Message{Result: fallbackNote(ref, id) + strings.Join(lines, "\n")}, nil
}
