package mcp

import (
	"context"
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tmux:// resources of libtmux-mcp. Each takes an optional socket_name
// query. Reads are routed here by routeResources rather than by the SDK's
// URI templates, because pane ids start with % and so are not valid in a
// template match: tmux://panes/%3, tmux://panes/3 and tmux://panes/%253 all
// name pane %3 (so pane %253 is best written tmux://panes/253). A session name with / or % must be percent-encoded.
var resourceTemplates = []*sdk.ResourceTemplate{
	{URITemplate: "tmux://sessions{?socket_name}", Name: "sessions", Title: "All Sessions",
		Description: "Every session, as JSON.", MIMEType: "application/json"},
	{URITemplate: "tmux://sessions/{session_name}{?socket_name}", Name: "session", Title: "Session Detail",
		Description: "A session and its windows, as JSON.", MIMEType: "application/json"},
	{URITemplate: "tmux://sessions/{session_name}/windows{?socket_name}", Name: "session_windows", Title: "Session Windows",
		Description: "The windows of a session, as JSON.", MIMEType: "application/json"},
	{URITemplate: "tmux://sessions/{session_name}/windows/{window_index}{?socket_name}", Name: "window", Title: "Window Detail",
		Description: "A window and its panes, as JSON.", MIMEType: "application/json"},
	{URITemplate: "tmux://panes/{pane_id}{?socket_name}", Name: "pane", Title: "Pane Detail",
		Description: "A pane, as JSON. Write pane %3 as 3, %3 or %253.", MIMEType: "application/json"},
	{URITemplate: "tmux://panes/{pane_id}/content{?socket_name}", Name: "pane_content", Title: "Pane Content",
		Description: "The visible text of a pane.", MIMEType: "text/plain"},
}

func (s *server) addResources(srv *sdk.Server) {
	for _, t := range resourceTemplates {
		srv.AddResourceTemplate(t, func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return s.readResource(ctx, req.Params.URI)
		})
	}
}

// routeResources serves resources/read for every tmux:// URI.
func (s *server) routeResources(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method == "resources/read" {
			if r, ok := req.(*sdk.ReadResourceRequest); ok && r.Params != nil && strings.HasPrefix(r.Params.URI, "tmux://") {
				return s.readResource(ctx, r.Params.URI)
			}
		}
		return next(ctx, method, req)
	}
}

var paneNumber = regexp.MustCompile(`^%?[0-9]+$`)

// paneOfSegment reads a URI segment that names a pane: as a URI first
// (%253 is %3), then leniently: %12 as written, and a bare 12 as %12.
func paneOfSegment(seg string) string {
	name := unescapeSegment(seg)
	if paneNumber.MatchString(name) && strings.HasPrefix(name, "%") {
		return name
	}
	if paneNumber.MatchString(seg) {
		return "%" + strings.TrimPrefix(seg, "%")
	}
	return name
}

// unescapeSegment is a URI segment unescaped, or as it is when it is no
// valid escape.
func unescapeSegment(seg string) string {
	if v, err := url.PathUnescape(seg); err == nil {
		return v
	}
	return seg
}

// resourceRef is what a tmux:// URI names.
type resourceRef struct {
	kind    string // a resourceTemplates name; "" for no resource
	sock    Socket
	session string // the session's name
	window  string // the window's index
	pane    string // the pane's id
}

// parseResource reads a tmux:// URI. ok is false for one with an empty
// path segment; kind is "" for a path that names no resource.
func parseResource(uri string) (r resourceRef, ok bool) {
	rest := strings.TrimPrefix(uri, "tmux://")
	rest, query, _ := strings.Cut(rest, "?")
	q, _ := url.ParseQuery(query)
	r.sock = Socket{SocketName: q.Get("socket_name")}
	seg := strings.Split(rest, "/")
	if slices.Contains(seg, "") {
		return r, false
	}
	switch {
	case len(seg) == 1 && seg[0] == "sessions":
		r.kind = "sessions"
	case len(seg) == 2 && seg[0] == "sessions":
		r.kind, r.session = "session", unescapeSegment(seg[1])
	case len(seg) == 3 && seg[0] == "sessions" && seg[2] == "windows":
		r.kind, r.session = "session_windows", unescapeSegment(seg[1])
	case len(seg) == 4 && seg[0] == "sessions" && seg[2] == "windows":
		r.kind, r.session, r.window = "window", unescapeSegment(seg[1]), unescapeSegment(seg[3])
	case len(seg) == 2 && seg[0] == "panes":
		r.kind, r.pane = "pane", paneOfSegment(seg[1])
	case len(seg) == 3 && seg[0] == "panes" && seg[2] == "content":
		r.kind, r.pane = "pane_content", paneOfSegment(seg[1])
	}
	return r, true
}

// readResource answers one tmux:// URI through the tools' handlers (serveAs), cut to the scope as a call's.
func (s *server) readResource(ctx context.Context, uri string) (res *sdk.ReadResourceResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.Error("resource read panicked", "uri", uri, "panic", r)
			res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error reading " + uri}
		}
	}()
	r, ok := parseResource(uri)
	if !ok {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	if te := s.checkResource(ctx, uri); te != nil {
		return nil, resourceError(uri, te)
	}
	if r.kind == "" {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	if r.kind == "pane_content" {
		m, err := serveAs[Message](ctx, s, "capture_pane", CapturePaneIn{PaneTarget: PaneTarget{PaneID: r.pane}, Socket: r.sock})
		if err != nil {
			return nil, resourceError(uri, classify(err))
		}
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: m.Result}}}, nil
	}
	v, err := s.resourceValue(ctx, r)
	if err != nil {
		return nil, resourceError(uri, classify(err))
	}
	b, err := marshalPlain(fillNil(v))
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
}

// resourceValue reads what a JSON resource shows.
func (s *server) resourceValue(ctx context.Context, r resourceRef) (any, error) {
	st := SessionTarget{SessionName: r.session}
	switch r.kind {
	case "sessions":
		l, err := serveAs[List[SessionInfo]](ctx, s, "list_sessions", ListSessionsIn{Socket: r.sock})
		return orEmpty(l.Result), err
	case "session":
		info, err := serveAs[SessionInfo](ctx, s, "get_session_info", GetSessionInfoIn{SessionTarget: st, Socket: r.sock})
		if err != nil {
			return nil, err
		}
		w, err := serveAs[List[WindowInfo]](ctx, s, "list_windows", ListWindowsIn{SessionTarget: st, Socket: r.sock})
		return struct {
			SessionInfo
			Windows []WindowInfo `json:"windows"`
		}{info, w.Result}, err
	case "session_windows":
		l, err := serveAs[List[WindowInfo]](ctx, s, "list_windows", ListWindowsIn{SessionTarget: st, Socket: r.sock})
		return orEmpty(l.Result), err
	case "window":
		wt := WindowTarget{SessionName: r.session, WindowIndex: r.window}
		info, err := serveAs[WindowInfo](ctx, s, "get_window_info", GetWindowInfoIn{WindowTarget: wt, Socket: r.sock})
		if err != nil {
			return nil, err
		}
		p, err := serveAs[List[PaneInfo]](ctx, s, "list_panes", ListPanesIn{SessionTarget: st, WindowIndex: r.window, Socket: r.sock})
		return struct {
			WindowInfo
			Panes []PaneInfo `json:"panes"`
		}{info, p.Result}, err
	}
	return serveAs[PaneInfo](ctx, s, "get_pane_info", GetPaneInfoIn{PaneTarget: PaneTarget{PaneID: r.pane}, Socket: r.sock})
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// resourceError turns a failed read into a protocol error carrying the envelope.
func resourceError(uri string, te *ToolError) error {
	if te.Code == CodeNotFound {
		return sdk.ResourceNotFoundError(uri)
	}
	code := int64(jsonrpc.CodeInternalError)
	if te.Code == CodeInvalidArguments {
		code = jsonrpc.CodeInvalidParams
	}
	data, _ := json.Marshal(envelope{envelopeBody{te.Code, te.Message, te.Effects, te.Retryable}})
	return &jsonrpc.Error{Code: code, Message: te.Code + ": " + te.Message, Data: data}
}
