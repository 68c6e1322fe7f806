package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ExtensionID names the Tasks extension in capabilities.
const ExtensionID = "io.modelcontextprotocol/tasks"

// The JSON-RPC error codes the extension uses beyond JSON-RPC's own.
const (
	// CodeMissingCapability: the request lacks a client capability the
	// server needs (-32021).
	CodeMissingCapability = -32021
	// CodeHeaderMismatch: an HTTP routing header disagrees with the body
	// (-32020, SEP-2243).
	CodeHeaderMismatch = -32020
)

// The methods the layer serves.
const (
	methodGet    = "tasks/get"
	methodUpdate = "tasks/update"
	methodCancel = "tasks/cancel"
)

// Options configure a Layer. A nil *Options means all defaults.
type Options struct {
	// TTL is how long a task is kept from its creation (ttlMs), and at
	// least this long after its result came. 0 means one hour.
	TTL time.Duration
	// PollInterval is the polling interval suggested to clients
	// (pollIntervalMs). 0 means one second.
	PollInterval time.Duration
	// Grace is how long a call runs before it becomes a task: one that
	// ends sooner is answered with its result. 0 means none: every call
	// that may become a task does.
	Grace time.Duration
	// Max is how many tasks are kept at once; a call that would be one
	// more is answered as without tasks. 0 means 1024.
	Max int
	// Logger gets one line per task made and ended. nil discards them.
	Logger *slog.Logger
	// Now is the clock, for tests. nil means time.Now.
	Now func() time.Time
}

// Tool says how a tool's calls may become tasks.
type Tool struct {
	// Required refuses a call from a client without the capability
	// (CodeMissingCapability) instead of running it.
	Required bool
	// Named: the tool gives its task its id with [Name] once it has one
	// (run_command, its command id); the call becomes a task only then.
	Named bool
}

// Layer turns long tool calls into tasks on the server it is installed on.
type Layer struct {
	opts  Options
	store store
	log   *slog.Logger

	mu    sync.Mutex
	tools map[string]Tool
}

// New returns a layer that knows no tool yet.
func New(opts *Options) *Layer {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.TTL <= 0 {
		o.TTL = time.Hour
	}
	if o.PollInterval <= 0 {
		o.PollInterval = time.Second
	}
	if o.Max <= 0 {
		o.Max = 1024
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Layer{opts: o, log: log, tools: map[string]Tool{},
		store: store{now: o.Now, ttl: o.TTL, max: o.Max}}
}

// Allow lets calls of the tool name become tasks, as t says.
func (l *Layer) Allow(name string, t Tool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tools[name] = t
}

func (l *Layer) tool(name string) (Tool, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t, ok := l.tools[name]
	return t, ok
}

// Advertise adds the extension to the server's capabilities: call it on
// the options' capabilities before the server is made.
func Advertise(caps *sdk.ServerCapabilities) {
	caps.AddExtension(ExtensionID, map[string]any{})
}

// Install adds the layer's middleware and its methods to srv: it must be
// added after every middleware that a task's call needs (a task's call runs
// the rest of the chain).
func (l *Layer) Install(srv *sdk.Server) error {
	srv.AddReceivingMiddleware(l.middleware)
	if err := sdk.AddReceivingCustomMethod(srv, methodGet, l.get); err != nil {
		return err
	}
	if err := sdk.AddReceivingCustomMethod(srv, methodUpdate, l.update); err != nil {
		return err
	}
	if err := sdk.AddReceivingCustomMethod(srv, methodCancel, l.cancel); err != nil {
		return err
	}
	if err := sdk.AddReceivingCustomMethod(srv, methodResult, l.result); err != nil {
		return err
	}
	return sdk.AddReceivingCustomMethod(srv, methodList, l.list)
}

// Close cancels every task still working.
func (l *Layer) Close() { l.store.cancelAll() }

// capable reports whether a request carries the extension capability: in
// its own _meta (2026-07-28), else in its session's initialize.
func capable(req sdk.Request) bool {
	r, ok := req.(interface {
		ClientCapabilities() *sdk.ClientCapabilities
	})
	if !ok {
		return false
	}
	c := r.ClientCapabilities()
	if c == nil {
		return false
	}
	_, ok = c.Extensions[ExtensionID]
	return ok
}

// missingCapability is the error for a request that needs the capability.
func missingCapability() error {
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{
		"extensions": map[string]any{ExtensionID: map[string]any{}}}})
	return &jsonrpc.Error{Code: CodeMissingCapability, Message: "Missing required client capability: " + ExtensionID, Data: data}
}

// middleware routes tools/call through call, and checks the capability
// and the routing header of tasks/* requests before they are served.
func (l *Layer) middleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		switch method {
		case "tools/call":
			if r, ok := req.(*sdk.CallToolRequest); ok && r.Params != nil {
				return l.call(ctx, r, func(ctx context.Context) (sdk.Result, error) { return next(ctx, method, req) })
			}
		case "initialize", "tools/list":
			res, err := next(ctx, method, req)
			if err != nil || (method == "tools/list" && !legacyEra(req)) {
				return res, err
			}
			// At initialize the session is not one yet: its params say.
			legacyInit := false
			if ir, ok := req.(*sdk.ServerRequest[*sdk.InitializeParams]); ok && ir.Params != nil {
				legacyInit = true
				if c := ir.Params.Capabilities; c != nil {
					_, declared := c.Extensions[ExtensionID]
					legacyInit = !declared
				}
			}
			return l.decorate(res, legacyInit), nil
		case methodResult, methodList:
			// Methods of the 2025-11-25 shape only.
			if !legacyEra(req) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: method + " is not a method of the Tasks extension (2026-07-28): tasks/get inlines the result"}
			}
			return next(context.WithValue(ctx, eraKey{}, true), method, req)
		case methodGet, methodUpdate, methodCancel:
			if legacyEra(req) {
				return next(context.WithValue(ctx, eraKey{}, true), method, req)
			}
			if !capable(req) {
				return nil, missingCapability()
			}
			if err := checkRoute(req); err != nil {
				return nil, err
			}
		}
		return next(ctx, method, req)
	}
}

// checkRoute checks the Mcp-Name header of a tasks/* request over HTTP at
// 2026-07-28 or later: it must name the request's task, so that a gateway
// routes it to the instance holding it.
func checkRoute(req sdk.Request) error {
	extra := req.GetExtra()
	if extra == nil || extra.Header == nil {
		return nil // stdio, in-memory
	}
	if v := extra.Header.Get("Mcp-Protocol-Version"); v == "" || v < "2026-07-28" {
		return nil
	}
	p, ok := req.GetParams().(*taskParams)
	if !ok {
		return nil
	}
	name, ok := extra.Header["Mcp-Name"]
	if !ok || len(name) != 1 || trimOWS(name[0]) != p.TaskID {
		return &jsonrpc.Error{Code: CodeHeaderMismatch,
			Message: fmt.Sprintf("header mismatch: Mcp-Name must be the task id %q", p.TaskID)}
	}
	return nil
}

// trimOWS trims HTTP optional whitespace (RFC 9110 §5.5).
func trimOWS(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

// callKey keys a task's call state in its context.
type callKey struct{}

// callState is what a tool running as a possible task tells the layer.
type callState struct {
	named chan string // the id the tool gives its task (Name), once

	mu        sync.Mutex
	onCancel  []func()
	cancelled bool // tasks/cancel took the stops: later ones run at once
}

// Name gives the task the call of ctx may become the id id (a tool
// registered Named calls it once it has one). It does nothing outside
// such a call.
func Name(ctx context.Context, id string) {
	if c, ok := ctx.Value(callKey{}).(*callState); ok {
		select {
		case c.named <- id:
		default:
		}
	}
}

// cancelStops returns the stops added so far, for tasks/cancel to run, and
// makes OnCancel run any added later itself: a cancel can come before the
// tool has said how it stops.
func (c *callState) cancelStops() []func() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cancelled = true
	return append([]func(){}, c.onCancel...)
}

// OnCancel adds stop to what tasks/cancel runs for the task the call of
// ctx may become, after cancelling the call's context: how the tool stops
// what it started (run_command interrupts its command). The task ends
// cancelled once every stop has returned. Added after a cancel, stop runs
// at once. It does nothing outside such a call.
func OnCancel(ctx context.Context, stop func()) {
	c, ok := ctx.Value(callKey{}).(*callState)
	if !ok {
		return
	}
	c.mu.Lock()
	late := c.cancelled
	if !late {
		c.onCancel = append(c.onCancel, stop)
	}
	c.mu.Unlock()
	if late {
		stop() // the task was cancelled before the tool got here
	}
}

// InTask reports whether ctx is the context of a call that may become a
// task: such a call must send no progress notifications.
func InTask(ctx context.Context) bool {
	_, ok := ctx.Value(callKey{}).(*callState)
	return ok
}

// outcome is how a call ended.
type outcome struct {
	res sdk.Result
	err error
}

// call runs a tools/call: as without the layer for a tool it does not know
// or a client without the capability; else detached from the request, and
// answered with its result if it ends within the grace (or before a Named
// tool names its task), or else with a CreateTaskResult.
func (l *Layer) call(ctx context.Context, req *sdk.CallToolRequest, run func(context.Context) (sdk.Result, error)) (sdk.Result, error) {
	t, ok := l.tool(req.Params.Name)
	if !ok {
		return run(ctx)
	}
	legacy := legacyAsked(req) // a 2025-11-25 client asked for a task: it gets one
	if !legacy && !capable(req) {
		if t.Required {
			return nil, missingCapability()
		}
		return run(ctx)
	}
	// A task sends no progress notifications, and a call that may become
	// one cannot know it will not: it sends none.
	if req.Params.Meta != nil {
		delete(req.Params.Meta, "progressToken")
	}
	c := &callState{named: make(chan string, 1)}
	jctx, stop := context.WithCancel(context.WithValue(context.WithoutCancel(ctx), callKey{}, c))
	done := make(chan outcome, 1)
	go func() {
		res, err := run(jctx)
		done <- outcome{res, err}
	}()
	// plain answers like the call without the layer: the request's own
	// cancellation cancels the call.
	plain := func() (sdk.Result, error) {
		select {
		case o := <-done:
			stop()
			return o.res, o.err
		case <-ctx.Done():
			stop()
			o := <-done
			return o.res, o.err
		}
	}
	graceTime := l.opts.Grace
	if legacy {
		graceTime = 0
	}
	// No grace means a task whatever: a call that ended at once must not
	// win a select against a timer of zero.
	if graceTime > 0 {
		grace := time.NewTimer(graceTime)
		defer grace.Stop()
		select {
		case o := <-done:
			stop()
			return o.res, o.err
		case <-ctx.Done():
			return plain()
		case <-grace.C:
		}
	}
	id := ""
	if t.Named {
		select {
		case id = <-c.named:
		case o := <-done:
			stop()
			return o.res, o.err
		case <-ctx.Done():
			return plain()
		}
	} else {
		id = newTaskID()
	}
	tk := l.store.add(id, stop, c.cancelStops)
	if tk == nil {
		l.log.Warn("no task made: the task store is full; answering when the call ends", "tool", req.Params.Name)
		return plain()
	}
	v, _ := l.store.get(id)
	l.log.Info("task made", "task", id, "tool", req.Params.Name)
	go func() {
		o := <-done
		stop()
		res, rerr := settle(o)
		l.store.finish(tk, res, rerr)
		l.log.Info("task ended", "task", id, "tool", req.Params.Name)
	}()
	if legacy {
		return &legacyCreateResult{Task: l.legacyOf(v)}, nil
	}
	return &createTaskResult{taskFields: l.fields(v)}, nil
}

// settle is a call's outcome as a task keeps it: the result's JSON, or the
// JSON-RPC error.
func settle(o outcome) (json.RawMessage, *jsonrpc.Error) {
	if o.err != nil {
		var werr *jsonrpc.Error
		if errors.As(o.err, &werr) {
			return nil, werr
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: o.err.Error()}
	}
	if o.res == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the call returned no result"}
	}
	raw, err := json.Marshal(o.res)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	// The result inlined in tasks/get stands for a tools/call answer of
	// the 2026-07-28 protocol, which says what it is.
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) == nil {
		if _, ok := m["resultType"]; !ok {
			m["resultType"] = json.RawMessage(`"complete"`)
			if r, err := json.Marshal(m); err == nil {
				raw = r
			}
		}
	}
	return raw, nil
}
