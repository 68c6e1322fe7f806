package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/mcp/tasks"
)

// The direct lane: once a session is initialized, or for sessionless
// requests (protocol 2026-07-28), a plain tools/call is decoded here, run
// through a ToolCaller ([mcp.Server.CallTool]) and answered here, without
// the SDK (see [Conn]).

// ToolCaller runs tool calls for the direct lane; tmux-mcp's *mcp.Server is one.
type ToolCaller interface {
	// CallTool runs the call, or returns ok false, having run nothing,
	// when name is no tool.
	CallTool(ctx context.Context, name string, args json.RawMessage) (res *sdk.CallToolResult, ok bool)
	// Implementation is the server's name and version, for sessionless
	// clients' results.
	Implementation() *sdk.Implementation
	// Enabled reports whether the tool name is enabled.
	Enabled(name string) bool
}

// errClientCancelled is the cause of a direct call's cancellation by the
// client's notifications/cancelled: such a call is not answered.
var errClientCancelled = errors.New("cancelled by the client")

// multiRoundTripVersion is the first protocol version whose clients the
// SDK answers with "resultType" in every tools/call result (multi-round-
// trip requests). The direct lane leaves sessions initialized for it to the
// SDK; sessionless requests of that version it serves (statelessMeta).
const multiRoundTripVersion = "2026-07-28"

// laneServes reports whether the direct lane may serve a session that
// initialize's params open: one for a version before multiRoundTripVersion,
// from a client without the Tasks extension.
// The SDK compares the version the client asked for, as here.
func laneServes(params json.RawMessage) bool {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
		Capabilities    struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"capabilities"`
	}
	if json.Unmarshal(params, &p) != nil || p.ProtocolVersion >= multiRoundTripVersion {
		return false
	}
	// A client that takes tasks: its calls may become ones, on the SDK's
	// lane, where mcp/tasks is.
	_, tasksToo := p.Capabilities.Extensions[tasks.ExtensionID]
	return !tasksToo
}

// direct serves line on the direct lane if it is a plain tools/call: the
// keys jsonrpc "2.0", method, a usable id, and params with a string name,
// arguments and nothing else but a sessionless _meta (statelessMeta). A
// call without one needs an initialized session (ready); one with it, a
// connection that never sent initialize. It reports whether it took the
// line.
func (s *Conn) direct(line []byte) bool {
	call, ok := plainToolCall(line)
	if !ok || (call.stateless && s.initialize) || (!call.stateless && !s.ready) {
		return false
	}
	ctx, cancel := context.WithCancelCause(s.stop)
	if !s.track(call.id, cancel) {
		cancel(nil)
		return false // an id already in flight: the SDK decides
	}
	go s.call(ctx, cancel, call)
	return true
}

type toolCall struct {
	id        jsonrpc.ID
	name      string
	args      json.RawMessage
	stateless bool // with a sessionless _meta: the answer names the server and its result type
}

// plainToolCall decodes line if it is a plain tools/call. Keys are matched
// exactly, as the SDK's decoder matches them (encoding/json's struct
// decoding would also take "Method"), hence the maps.
func plainToolCall(line []byte) (c toolCall, ok bool) {
	var msg map[string]json.RawMessage
	if json.Unmarshal(line, &msg) != nil || string(msg["method"]) != `"tools/call"` || string(msg["jsonrpc"]) != `"2.0"` {
		return c, false
	}
	var rawID any // a number decodes to float64, as in the SDK
	if json.Unmarshal(msg["id"], &rawID) != nil {
		return c, false
	}
	id, err := jsonrpc.MakeID(rawID)
	if err != nil || !id.IsValid() {
		return c, false
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(msg["params"], &params) != nil || params == nil {
		return c, false
	}
	for k := range params {
		if k != "name" && k != "arguments" && k != "_meta" {
			return c, false // newer fields: the SDK's
		}
	}
	if meta, ok := params["_meta"]; ok {
		if !statelessMeta(meta) {
			return c, false // a progress token, a log level, ...: the SDK's
		}
		c.stateless = true
	}
	if json.Unmarshal(params["name"], &c.name) != nil {
		return c, false
	}
	c.id, c.args = id, params["arguments"]
	return c, true
}

// statelessMeta reports whether meta is the _meta of a sessionless request
// (SEP-2575) for multiRoundTripVersion and holds nothing else: the protocol
// version, the client's capabilities and, if present, its info, each one
// the SDK would accept. Anything else (a progress token, a log level, a
// newer version, a value the SDK would refuse) is left to the SDK.
func statelessMeta(meta json.RawMessage) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(meta, &m) != nil {
		return false
	}
	for k := range m {
		switch k {
		case sdk.MetaKeyProtocolVersion, sdk.MetaKeyClientCapabilities, sdk.MetaKeyClientInfo:
		default:
			return false
		}
	}
	var version string
	if json.Unmarshal(m[sdk.MetaKeyProtocolVersion], &version) != nil || version != multiRoundTripVersion {
		return false
	}
	// The SDK decodes the capabilities into this shape (its own type is
	// unexported), and the info into an Implementation.
	// roots is deprecated as of 2026-07-28 (SEP-2577) but still decoded,
	// as a {listChanged} object: its shape stands here, not the SDK's
	// deprecated RootCapabilities type.
	var caps struct {
		sdk.ClientCapabilities
		Roots *struct {
			ListChanged bool `json:"listChanged,omitempty"`
		} `json:"roots,omitempty"`
	}
	if c, ok := m[sdk.MetaKeyClientCapabilities]; !ok || !isObject(c) || json.Unmarshal(c, &caps) != nil {
		return false
	}
	if _, ok := caps.Extensions[tasks.ExtensionID]; ok {
		return false // the call may become a task: mcp/tasks is on the SDK's lane
	}
	if info, ok := m[sdk.MetaKeyClientInfo]; ok {
		if !isObject(info) || json.Unmarshal(info, new(sdk.Implementation)) != nil {
			return false
		}
	}
	return true
}

// isObject reports whether raw, valid JSON, is an object.
func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// call runs one direct call and answers it, unless the client cancelled it.
func (s *Conn) call(ctx context.Context, cancel context.CancelCauseFunc, c toolCall) {
	defer cancel(nil)
	line, err := s.answer(ctx, c)
	if context.Cause(ctx) == errClientCancelled {
		return // already retired by cancelled
	}
	if err == nil {
		_ = s.writeLine(line) // Best effort: a broken stdout ends the session anyway.
	}
	s.answered(c.id)
}

// answer runs a direct call and returns its response line.
func (s *Conn) answer(ctx context.Context, c toolCall) ([]byte, error) {
	res, ok := s.tools.CallTool(ctx, c.name, c.args)
	if !ok {
		return jsonrpc.EncodeMessage(&jsonrpc.Response{ID: c.id, Error: &jsonrpc.Error{
			Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", c.name)}})
	}
	if res.Content == nil {
		res.Content = []sdk.Content{} // as the SDK: never "content": null
	}
	if c.stateless {
		// As the SDK does for sessionless requests: the server in _meta...
		if res.Meta == nil {
			res.Meta = sdk.Meta{}
		}
		if _, ok := res.Meta[sdk.MetaKeyServerInfo]; !ok {
			res.Meta[sdk.MetaKeyServerInfo] = s.tools.Implementation()
		}
	}
	// MarshalJSON, not json.Marshal: its output is compact already, and
	// json.Marshal would check and compact it again.
	result, err := res.MarshalJSON()
	if err != nil {
		return jsonrpc.EncodeMessage(&jsonrpc.Response{ID: c.id, Error: &jsonrpc.Error{
			Code: jsonrpc.CodeInternalError, Message: err.Error()}})
	}
	if c.stateless && s.tools.Enabled(c.name) {
		// ...and resultType, which CallToolResult keeps unexported and
		// MarshalJSON writes last. The SDK sets it in its tools/call
		// handler, so a disabled tool, answered by mcp's middleware before
		// that, goes without.
		result = append(result[:len(result)-1], `,"resultType":"complete"}`...)
	}
	// The envelope by hand: jsonrpc.EncodeMessage would validate and
	// compact the result a second time, a pass over what can be 1 MiB.
	rawID, err := json.Marshal(c.id.Raw())
	if err != nil {
		return nil, err
	}
	line := make([]byte, 0, len(result)+len(rawID)+36)
	line = append(line, `{"jsonrpc":"2.0","id":`...)
	line = append(line, rawID...)
	line = append(line, `,"result":`...)
	line = append(line, result...)
	return append(line, '}'), nil
}

// cancelled handles notifications/cancelled: a cancelled request may go
// unanswered, so it is not awaited, and a direct call is cancelled here
// (the SDK cancels its own).
func (s *Conn) cancelled(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return
	}
	s.mu.Lock()
	cancel := s.inflight[id]
	s.mu.Unlock()
	if cancel != nil {
		cancel(errClientCancelled)
	}
	s.answered(id)
}
