package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/mcp/tasks"
	"github.com/tmux-mcp/tmux-mcp/session"
	"golang.org/x/sync/semaphore"
)

// ErrUsage is wrapped by the errors NewServer returns for a bad tool
// selection (an unknown or repeated --tool name); the command exits 2.
var ErrUsage = errors.New("usage error")

// MaxResultBytes caps a tool's structured result (CONTRACT §3, result_limit).
const MaxResultBytes = 1 << 20

// Options configure NewServer. A nil *Options means all defaults.
type Options struct {
	// Safety is the tier: "readonly", "mutating" or "destructive"
	// (LIBTMUX_SAFETY). "" means mutating. Any other value fails closed to
	// readonly, with a warning logged.
	Safety string
	// Toolsets is libtmux-mcp's newer choice of tools, a comma set of
	// inspect, manage, execute and teardown (LIBTMUX_TOOLSETS); "" means
	// none. Setting it and Safety both is an error wrapping ErrUsage.
	Toolsets string
	// Tools, when not empty, is the exact set of tools to expose, replacing
	// the tier's or the toolsets' set (--tool, LIBTMUX_TOOLS). An unknown or
	// repeated name is an error wrapping ErrUsage.
	Tools []string
	// ExcludeTools are left out of the set (LIBTMUX_EXCLUDE_TOOLS). An
	// unknown name is an error wrapping ErrUsage.
	ExcludeTools []string
	// Scope is how far the tools reach beyond the sessions this process
	// created: "all", "owned-write" or "owned" (TMUX_MCP_SCOPE; see
	// [Scope]). "" means all. Any other value fails closed to owned, with a
	// warning logged.
	Scope string
	// AllowSessions are globs (path.Match) of borrowed session names that
	// join the scope (--allow-session). A bad glob is an error wrapping
	// ErrUsage.
	AllowSessions []string
	// Sockets are the tmux sockets, by name, that clients may reach
	// besides the default one (--sockets, a token's sockets=): nil means
	// every socket, as over stdio by default; [AllSockets] among them
	// means every socket too. A socket_name out of reach is refused
	// (target_denied) and no server is started for it. A name that is not
	// one (a path, "..") is an error wrapping ErrUsage.
	Sockets []string
	// Version is the server version reported to clients. "" means "dev".
	Version string
	// Logger receives warnings, caught panics and one audit line per call.
	// nil discards them. It must not write to stdout.
	Logger *slog.Logger
	// Owner is the identity this server's clients act as (a bearer token's
	// over HTTP): the sessions they create are its own, only it may tear
	// them down, the owned scopes count only its sessions, and the
	// capture_since cursors it is given are refused to any other. "" is
	// the process itself, the one client over stdio.
	Owner string
}

// MaxInFlight is how many tool calls one server runs at once; more are
// answered busy (retryable, nothing done) rather than queued without bound.
const MaxInFlight = 512

// server is the state behind one *sdk.Server.
type server struct {
	inflight *semaphore.Weighted // tool calls running
	backend  toolRunner
	logger   *slog.Logger
	scope    *scopePolicy    // the scope in force
	reach    *socketReach    // the tmux servers its clients may reach
	enabled  map[string]bool // tools listed and callable
	sel      ToolSelection   // what chose them, for tool_denied's message
	owner    string          // the identity calls act for (session.WithOwner)
	subs     *subscriptions  // nil when the backend cannot watch
	execArgs bool            // see ToolSelection.ExecArgs
}

// Server is an MCP server: the Go SDK's server, serving a TmuxBackend's tools,
// resources and prompts, plus [Server.CallTool] for a transport that
// decodes the common tools/call itself.
type Server struct {
	*sdk.Server
	s     *server
	impl  *sdk.Implementation
	tasks *tasks.Layer
}

// CloseTasks cancels the calls still running as tasks: the server is
// closing.
func (srv *Server) CloseTasks() { srv.tasks.Close() }

// Enabled reports whether the tool name is enabled: listed and callable.
func (srv *Server) Enabled(name string) bool { return srv.s.enabled[name] }

// Implementation returns the server's name and version, as the SDK sends
// them (a transport that answers calls itself needs them for sessionless
// clients, which get them in every result's _meta).
func (srv *Server) Implementation() *sdk.Implementation { return srv.impl }

// CallTool runs a call of the tool name with the JSON object args and
// returns its result, as the SDK's server answers a tools/call request
// that has no _meta: a disabled tool gets tool_denied, failures the error
// envelope. ok is false, and nothing runs, when name is no tool of the
// catalogue: that is the SDK's to answer, with a protocol error.
//
// It exists for speed: the SDK decodes a request several times over,
// allocating a 32 KiB buffer each time, which cost more than the tmux
// round trip behind a typical call (see cmd/tmux-mcp's stdio transport).
func (srv *Server) CallTool(ctx context.Context, name string, args json.RawMessage) (res *sdk.CallToolResult, ok bool) {
	d := lookupTool(name)
	if d == nil {
		return nil, false
	}
	if !srv.s.enabled[name] {
		return srv.s.denied(d), true
	}
	return srv.s.call(ctx, d, args), true
}

// NewServer returns an MCP server whose tools, resources and prompts are
// served by backend, with the tools enabled by opts. It fails only on a bad
// tool selection.
func NewServer(backend *TmuxBackend, opts *Options) (*Server, error) {
	if backend == nil {
		return nil, errors.New("mcp: nil TmuxBackend")
	}
	return newServer(backend, opts)
}

// toolRunner runs the tools' handlers: a *TmuxBackend, or a test's
// double. It may also be a scopeSource (else the owned scopes refuse
// every call that names a session) and a changeWatcher (else resources
// take no subscriptions).
type toolRunner interface {
	runTool(ctx context.Context, d *toolDef, in any) (any, error)
}

// newServer is NewServer on any toolRunner.
func newServer(backend toolRunner, opts *Options) (*Server, error) {
	if opts == nil {
		opts = &Options{}
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &server{logger: logger, inflight: semaphore.NewWeighted(MaxInFlight), owner: opts.Owner, backend: backend}

	sel, err := SelectTools(Selection{Safety: opts.Safety, Toolsets: opts.Toolsets, Tools: opts.Tools, Exclude: opts.ExcludeTools})
	if err != nil {
		return nil, err
	}
	if sel.Warning != "" {
		logger.Warn(sel.Warning)
	}
	s.enabled, s.execArgs, s.sel = sel.Enabled, sel.ExecArgs, sel
	scope, ok := ParseScope(opts.Scope)
	if !ok {
		logger.Warn("invalid scope; using owned", "scope", opts.Scope)
	}
	src, _ := backend.(scopeSource)
	socks, _ := backend.(socketSource)
	if s.reach, err = newSocketReach(opts.Sockets, socks); err != nil {
		return nil, err
	}
	if s.scope, err = newScopePolicy(scope, opts.AllowSessions, src, opts.Owner); err != nil {
		return nil, err
	}

	version := opts.Version
	if version == "" {
		version = "dev"
	}
	caps := &sdk.ServerCapabilities{} // no logging capability: logs go to stderr
	tasks.Advertise(caps)
	sopts := &sdk.ServerOptions{
		Instructions: instructions(sel.Summary) + s.scope.note(),
		Logger:       logger,
		Capabilities: caps,
		// What tmux shows is the user's: pane contents, session names,
		// and over HTTP a catalogue shaped by the client's token. No
		// shared cache may keep it (2026-07-28 cacheScope).
		SetCacheable: func(_ context.Context, _ sdk.Request, c *sdk.Cacheable) { c.CacheScope = "private" },
	}
	var subs *subscriptions
	if w, ok := backend.(changeWatcher); ok {
		subs = &subscriptions{watcher: w, logger: logger, check: s.checkResource}
		sopts.SubscribeHandler = subs.subscribe
		sopts.UnsubscribeHandler = subs.unsubscribe
	}
	impl := &sdk.Implementation{Name: "tmux-mcp", Version: version}
	srv := sdk.NewServer(impl, sopts)
	if subs != nil {
		subs.srv = srv
		s.subs = subs
	}
	for _, d := range catalogue() {
		if !s.enabled[d.name] {
			continue
		}
		srv.AddTool(toolOf(d, s.enabled), func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			ctx, end := withProgress(ctx, req)
			defer end()
			return s.call(ctx, d, req.Params.Arguments), nil
		})
	}
	s.addResources(srv)
	addPrompts(srv)
	srv.AddReceivingMiddleware(s.withOwner, s.denyDisabled, s.routeResources)
	// Outermost of ours: a task's call runs the middleware above.
	layer, err := installTasks(srv, s.enabled, &tasks.Options{TTL: taskTTL, Grace: taskGrace, Logger: logger})
	if err != nil {
		return nil, err
	}
	return &Server{Server: srv, s: s, impl: impl, tasks: layer}, nil
}

// toolOf is d as tools/list sends it, when the tools in enabled are.
func toolOf(d *toolDef, enabled map[string]bool) *sdk.Tool {
	output := d.output
	if d.brief != nil && enabled[d.resultAs] {
		output = d.brief // the tool it points to is listed too
	}
	t := &sdk.Tool{
		Name:         d.name,
		Description:  d.desc,
		InputSchema:  d.input,
		OutputSchema: output,
		Annotations: &sdk.ToolAnnotations{
			ReadOnlyHint:    d.ann.ReadOnly,
			DestructiveHint: &d.ann.Destructive,
			IdempotentHint:  d.ann.Idempotent,
			OpenWorldHint:   &d.ann.OpenWorld,
		},
	}
	if d.alwaysLoad {
		t.Meta = sdk.Meta{"anthropic/alwaysLoad": true}
	}
	return t
}

// handle runs d's handler on in; under the owned scope, a listing's
// answer is cut to the sessions in scope (cutToScope).
func (s *server) handle(ctx context.Context, d *toolDef, in any) (any, error) {
	run := func(in any) (any, error) { return s.backend.runTool(ctx, d, in) }
	if d.name == "list_servers" {
		out, err := run(in)
		if l, ok := out.(List[ServerInfo]); ok {
			out = s.reach.cutServers(l)
		}
		return out, err
	}
	if d.cut != nil && s.scope.narrow() {
		return d.cut(ctx, s.scope, in, run)
	}
	return run(in)
}

// call runs one tool call to completion and always answers with a result:
// the tool's output, or the error envelope. Panics become internal errors.
func (s *server) call(ctx context.Context, d *toolDef, raw json.RawMessage) (res *sdk.CallToolResult) {
	start := time.Now()
	var (
		args map[string]any
		te   *ToolError
	)
	ctx = session.WithOwner(ctx, s.owner)
	ctx, effects := session.WatchEffects(ctx)
	defer func() {
		if r := recover(); r != nil {
			s.logger.Error("tool panicked", "tool", d.name, "panic", r, "stack", string(debug.Stack()))
			te = Errorf(CodeInternal, EffectsPossible, "internal error in %s: %v", d.name, r)
			settleEffects(te, effects)
			res = te.result()
		}
		s.audit(d.name, args, te, time.Since(start))
	}()

	if !s.inflight.TryAcquire(1) {
		te = Errorf(CodeBusy, EffectsNone, "%d tool calls are already in flight; try again shortly", MaxInFlight)
		return te.result()
	}
	defer s.inflight.Release(1)

	out, err := d.run(ctx, s, func(dst any) *ToolError {
		var te *ToolError
		args, te = d.spec().decode(raw, dst)
		if te == nil {
			te = checkTarget(d, args)
		}
		if te == nil {
			te = s.checkSockets(dst)
		}
		if te == nil {
			te = s.checkExecArgs(d, args)
		}
		if te == nil {
			te = s.scope.check(ctx, d, dst)
		}
		return te
	})
	if err != nil {
		te = classify(err)
		settleEffects(te, effects)
		return te.result()
	}
	if res, te = success(out); te != nil {
		settleEffects(te, effects)
		res = te.result()
	}
	return res
}

// checkSockets refuses, before anything runs, a call whose socket_name is
// not a name or is out of the client's reach, and list_servers' extra
// socket paths out of reach.
func (s *server) checkSockets(in any) *ToolError {
	if te := s.reach.check(socketOf(in)); te != nil {
		return te
	}
	if ls, ok := in.(*ListServersIn); ok {
		return s.reach.checkPaths(ls.ExtraSocketPaths)
	}
	return nil
}

// checkResource refuses a tmux:// URI out of the socket reach or the
// scope, for reads and subscriptions alike.
func (s *server) checkResource(ctx context.Context, uri string) *ToolError {
	if te := s.reach.checkResource(ctx, uri); te != nil {
		return te
	}
	return s.scope.checkResource(ctx, uri)
}

// settleEffects sets te's effects from what the whole call did to tmux,
// where the session layer saw it (a call that sent tmux nothing keeps its
// error's own word): "possible" once a command that can change tmux may
// have run, in this operation or an earlier one of the same call, and
// "none" when everything sent only read, or was refused for a missing
// target.
func settleEffects(te *ToolError, effects func() (sent, changed bool)) {
	sent, changed := effects()
	old := te.Effects
	switch {
	case changed:
		te.Effects = EffectsPossible
	case sent:
		te.Effects = EffectsNone
	}
	if te.Effects != old {
		te.Retryable = defaultRetryable(te.Code, te.Effects)
	}
}

// checkTarget answers target_required when d needs a target and args names none.
func checkTarget(d *toolDef, args map[string]any) *ToolError {
	if len(d.needsTarget) == 0 {
		return nil
	}
	for _, a := range d.needsTarget {
		if v, ok := args[a]; ok && v != "" {
			return nil
		}
	}
	return Errorf(CodeTargetRequired, EffectsNone, "%s needs a target: give one of %s",
		d.name, strings.Join(d.needsTarget, ", "))
}

// success renders a tool's output: structuredContent, and as text either
// the output's own text (Message) or the same compact JSON.
func success(out any) (*sdk.CallToolResult, *ToolError) {
	b, err := marshalPlain(fillNil(out))
	if err != nil {
		te := Errorf(CodeInternal, EffectsPossible, "cannot encode the result: %v", err)
		return te.result(), te
	}
	if len(b) > MaxResultBytes {
		te := Errorf(CodeResultLimit, EffectsPossible, "the result is %d bytes, over the %d-byte cap", len(b), MaxResultBytes)
		te.Suggestion = defaultSuggestion(CodeResultLimit)
		return te.result(), te
	}
	text := string(b)
	if t, ok := out.(interface{ toolText() string }); ok {
		text = t.toolText()
	}
	content := []sdk.Content{&sdk.TextContent{Text: text}}
	if im, ok := out.(interface{ toolImage() []byte }); ok && len(im.toolImage()) > 0 {
		content = append(content, &sdk.ImageContent{Data: im.toolImage(), MIMEType: "image/png"})
	}
	return &sdk.CallToolResult{
		StructuredContent: json.RawMessage(b),
		Content:           content,
	}, nil
}

// fillNil returns a copy of v in which nil slices and maps of fields that are
// not omitempty are empty, so that lists are sent as [] and objects as {},
// never null, as the output schemas say.
func fillNil(v any) any {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || !fillable(rv.Type()) {
		return v // most outputs hold no list or map to fill: no copy, no walk
	}
	cp := reflect.New(rv.Type()).Elem()
	cp.Set(rv)
	fillNilValue(cp)
	return cp.Interface()
}

// fillableTypes caches fillable: reflect.Type → bool.
var fillableTypes sync.Map

// fillable reports whether fillNilValue could change a value of type t:
// whether it holds, anywhere fillNilValue looks, a slice or map field that
// is not omitempty.
func fillable(t reflect.Type) bool {
	if f, ok := fillableTypes.Load(t); ok {
		return f.(bool)
	}
	f := fillableType(t, map[reflect.Type]bool{})
	fillableTypes.Store(t, f)
	return f
}

func fillableType(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false // being looked at further up
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer:
		return fillableType(t.Elem(), seen)
	case reflect.Slice:
		return t.Elem().Kind() == reflect.Struct && fillableType(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			omit := strings.Contains(f.Tag.Get("json"), ",omitempty")
			switch {
			case f.Type.Kind() == reflect.Slice && !omit && f.Type != reflect.TypeFor[JSONObject]():
				return true
			case f.Type.Kind() == reflect.Map && !omit:
				return true
			case fillableType(f.Type, seen):
				return true
			}
		}
	}
	return false
}

func fillNilValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			fillNilValue(v.Elem())
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Struct {
			for i := range v.Len() {
				fillNilValue(v.Index(i))
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f, fv := t.Field(i), v.Field(i)
			if !f.IsExported() || !fv.CanSet() {
				continue
			}
			omit := strings.Contains(f.Tag.Get("json"), ",omitempty")
			switch {
			case fv.Kind() == reflect.Slice && fv.IsNil() && !omit && fv.Type() != reflect.TypeFor[JSONObject]():
				fv.Set(reflect.MakeSlice(fv.Type(), 0, 0))
			case fv.Kind() == reflect.Map && fv.IsNil() && !omit:
				fv.Set(reflect.MakeMap(fv.Type()))
			default:
				fillNilValue(fv)
			}
		}
	}
}

// withOwner gives every request the server's identity (Options.Owner).
func (s *server) withOwner(next sdk.MethodHandler) sdk.MethodHandler {
	if s.owner == "" {
		return next
	}
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		return next(session.WithOwner(ctx, s.owner), method, req)
	}
}

// denyDisabled answers a call to a known tool that is not enabled with the
// tool_denied envelope, instead of the SDK's "unknown tool" protocol error.
func (s *server) denyDisabled(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method == "tools/call" {
			if r, ok := req.(*sdk.CallToolRequest); ok && r.Params != nil {
				if d := lookupTool(r.Params.Name); d != nil && !s.enabled[d.name] {
					return s.denied(d), nil
				}
			}
		}
		return next(ctx, method, req)
	}
}

// denied answers a call to d, which is not enabled, with tool_denied.
func (s *server) denied(d *toolDef) *sdk.CallToolResult {
	te := Errorf(CodeToolDenied, EffectsNone, "%s", s.sel.denialOf(d, s.owner != ""))
	te.Suggestion = defaultSuggestion(CodeToolDenied)
	s.audit(d.name, nil, te, 0)
	return te.result()
}

// instructions is the server's short guide for agents.
func instructions(selection string) string {
	return `tmux-mcp drives tmux: sessions hold windows, windows hold panes. Target panes by pane_id (%N) from list_panes or snapshot_pane; ids stay valid, names and indexes change.
Run a command and get its exit status with run_command. Wait, never poll capture_pane: after send_keys, wait_for_text matches only what the pane printed after that input, never the echo of the typed command nor older lines (since=screen matches what is on screen); in full-screen programs (vim, less, TUIs) it matches the screen as drawn. wait_for_content_change with quiet_ms waits until a pane has gone quiet (a TUI finished drawing). Read increments with capture_since.
Tools that send input, change or destroy something need an explicit target. create_session returns a generation; teardown_session removes only sessions this server created.
A failed call returns {"error":{code,message,effects,retryable}}; effects "none" means nothing reached tmux.
socket_name picks a tmux server other than the configured one by its socket name (tmux -L), never a path; a client reaches only the servers configured for it.
Listings answer in pages (limit, default 100; offset): total counts every row, next_offset is where the next page starts.
` + selection
}
