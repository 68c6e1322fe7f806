package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The direct lane: once a session is initialized, a plain tools/call is
// decoded here, run through a toolCaller ([mcp.Server.CallTool]) and
// answered here, without the SDK (see [stdio]).

// toolCaller runs tool calls for the direct lane; *mcp.Server is one.
type toolCaller interface {
	// CallTool runs the call, or returns ok false, having run nothing,
	// when name is no tool.
	CallTool(ctx context.Context, name string, args json.RawMessage) (res *sdk.CallToolResult, ok bool)
}

// errClientCancelled is the cause of a direct call's cancellation by the
// client's notifications/cancelled: such a call is not answered.
var errClientCancelled = errors.New("cancelled by the client")

// multiRoundTripVersion is the first protocol version whose clients the
// SDK answers with "resultType" in every tools/call result (multi-round-
// trip requests). The direct lane leaves those sessions to the SDK: their
// clients send _meta on every request anyway.
const multiRoundTripVersion = "2026-07-28"

// laneServes reports whether the direct lane may serve a session that
// initialize's params open: one for a version before multiRoundTripVersion.
// The SDK compares the version the client asked for, as here.
func laneServes(params json.RawMessage) bool {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	return json.Unmarshal(params, &p) == nil && p.ProtocolVersion < multiRoundTripVersion
}

// direct serves line on the direct lane if it is a plain tools/call: the
// keys jsonrpc "2.0", method, a usable id, and params with a string name,
// arguments and nothing else. It reports whether it took the line.
func (s *stdio) direct(line []byte) bool {
	call, ok := plainToolCall(line)
	if !ok {
		return false
	}
	ctx, cancel := context.WithCancelCause(s.stop)
	if !s.track(call.id, cancel) {
		cancel(nil)
		return false // an id already in flight: the SDK decides
	}
	go s.call(ctx, cancel, call.id, call.name, call.args)
	return true
}

type toolCall struct {
	id   jsonrpc.ID
	name string
	args json.RawMessage
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
		if k != "name" && k != "arguments" {
			return c, false // _meta (progress) and newer fields: the SDK's
		}
	}
	var name string
	if json.Unmarshal(params["name"], &name) != nil {
		return c, false
	}
	return toolCall{id: id, name: name, args: params["arguments"]}, true
}

// call runs one direct call and answers it, unless the client cancelled it.
func (s *stdio) call(ctx context.Context, cancel context.CancelCauseFunc, id jsonrpc.ID, name string, args json.RawMessage) {
	defer cancel(nil)
	line, err := s.answer(ctx, id, name, args)
	if context.Cause(ctx) == errClientCancelled {
		return // already retired by cancelled
	}
	if err == nil {
		_ = s.writeLine(line) // Best effort: a broken stdout ends the session anyway.
	}
	s.answered(id)
}

// answer runs a direct call and returns its response line.
func (s *stdio) answer(ctx context.Context, id jsonrpc.ID, name string, args json.RawMessage) ([]byte, error) {
	res, ok := s.tools.CallTool(ctx, name, args)
	if !ok {
		return jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
			Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}})
	}
	if res.Content == nil {
		res.Content = []sdk.Content{} // as the SDK: never "content": null
	}
	// MarshalJSON, not json.Marshal: its output is compact already, and
	// json.Marshal would check and compact it again.
	result, err := res.MarshalJSON()
	if err != nil {
		return jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{
			Code: jsonrpc.CodeInternalError, Message: err.Error()}})
	}
	// The envelope by hand: jsonrpc.EncodeMessage would validate and
	// compact the result a second time, a pass over what can be 1 MiB.
	rawID, err := json.Marshal(id.Raw())
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
func (s *stdio) cancelled(params json.RawMessage) {
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
