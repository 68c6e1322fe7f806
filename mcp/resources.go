package mcp

import (
	"context"
	"encoding/json"
	"net/url"
	"regexp"
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

// readResource answers one tmux:// URI through the Backend's tool methods.
func (s *server) readResource(ctx context.Context, uri string) (res *sdk.ReadResourceResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.Error("resource read panicked", "uri", uri, "panic", r)
			res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error reading " + uri}
		}
	}()
	rest := strings.TrimPrefix(uri, "tmux://")
	rest, query, _ := strings.Cut(rest, "?")
	q, _ := url.ParseQuery(query)
	sock := Socket{SocketName: q.Get("socket_name")}
	seg := strings.Split(rest, "/")
	for i := range seg {
		if seg[i] == "" {
			return nil, sdk.ResourceNotFoundError(uri)
		}
	}
	name := func(i int) string {
		if v, err := url.PathUnescape(seg[i]); err == nil {
			return v
		}
		return seg[i]
	}
	// A pane id is read as a URI first (%253 is %3), then leniently: %12
	// as written, and a bare 12 as %12.
	paneID := func() string {
		if v := name(1); paneNumber.MatchString(v) && strings.HasPrefix(v, "%") {
			return v
		}
		if paneNumber.MatchString(seg[1]) {
			return "%" + strings.TrimPrefix(seg[1], "%")
		}
		return name(1)
	}

	if te := s.scope.checkResource(ctx, uri); te != nil {
		return nil, resourceError(uri, te)
	}
	var v any
	switch {
	case len(seg) == 1 && seg[0] == "sessions":
		l, e := s.backend.ListSessions(ctx, ListSessionsIn{Socket: sock})
		v, err = orEmpty(l.Result), e
	case len(seg) == 2 && seg[0] == "sessions":
		st := SessionTarget{SessionName: name(1)}
		var info SessionInfo
		if info, err = s.backend.GetSessionInfo(ctx, GetSessionInfoIn{SessionTarget: st, Socket: sock}); err == nil {
			var w List[WindowInfo]
			w, err = s.backend.ListWindows(ctx, ListWindowsIn{SessionTarget: st, Socket: sock})
			v = struct {
				SessionInfo
				Windows []WindowInfo `json:"windows"`
			}{info, w.Result}
		}
	case len(seg) == 3 && seg[0] == "sessions" && seg[2] == "windows":
		l, e := s.backend.ListWindows(ctx, ListWindowsIn{SessionTarget: SessionTarget{SessionName: name(1)}, Socket: sock})
		v, err = orEmpty(l.Result), e
	case len(seg) == 4 && seg[0] == "sessions" && seg[2] == "windows":
		wt := WindowTarget{SessionName: name(1), WindowIndex: name(3)}
		var info WindowInfo
		if info, err = s.backend.GetWindowInfo(ctx, GetWindowInfoIn{WindowTarget: wt, Socket: sock}); err == nil {
			var p List[PaneInfo]
			p, err = s.backend.ListPanes(ctx, ListPanesIn{
				SessionTarget: SessionTarget{SessionName: wt.SessionName}, WindowIndex: wt.WindowIndex, Socket: sock})
			v = struct {
				WindowInfo
				Panes []PaneInfo `json:"panes"`
			}{info, p.Result}
		}
	case len(seg) == 2 && seg[0] == "panes":
		v, err = s.backend.GetPaneInfo(ctx, GetPaneInfoIn{PaneTarget: PaneTarget{PaneID: paneID()}, Socket: sock})
	case len(seg) == 3 && seg[0] == "panes" && seg[2] == "content":
		var m Message
		m, err = s.backend.CapturePane(ctx, CapturePaneIn{PaneTarget: PaneTarget{PaneID: paneID()}, Socket: sock})
		if err == nil {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: m.Result}}}, nil
		}
	default:
		return nil, sdk.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, resourceError(uri, classify(err))
	}
	b, err := json.Marshal(fillNil(v))
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(b)}}}, nil
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
