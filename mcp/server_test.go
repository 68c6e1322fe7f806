package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// connect serves b over in-memory transports and returns a client session
// speaking version ("" = the SDK client's default).
func connect(t *testing.T, b toolRunner, opts *Options, version string) *sdk.ClientSession {
	t.Helper()
	srv, err := newServer(b, opts)
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "0"}, nil)
	cs, err := c.Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("client connect (%q): %v", version, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func listTools(t *testing.T, cs *sdk.ClientSession) []*sdk.Tool {
	t.Helper()
	var tools []*sdk.Tool
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		tools = append(tools, tool)
	}
	return tools
}

func toolNames(tools []*sdk.Tool) []string {
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

func call(t *testing.T, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callWatchdog)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if ctx.Err() != nil {
		t.Fatalf("tools/call %s: no answer in %v: a call that never ends (%v)", name, callWatchdog, err)
	}
	if err != nil {
		t.Fatalf("tools/call %s: protocol error: %v", name, err)
	}
	return res
}

// callWatchdog bounds every call of a test, to name a hang (a handler
// that spins, say) in seconds rather than at go test's 10 minutes. The
// longest wait a test asks for is WaitMax, 30 s.
const callWatchdog = 90 * time.Second

// envelopeOf returns the error envelope of a failed result, checking that
// the text content carries the same JSON.
func envelopeOf(t *testing.T, res *sdk.CallToolResult) envelopeBody {
	t.Helper()
	if !res.IsError {
		t.Fatalf("got success %s, want an error", textOf(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var env envelope
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		t.Fatalf("structuredContent %s is not the envelope: %v", b, err)
	}
	first, _, _ := strings.Cut(textOf(res), "\n")
	var textEnv envelope
	if err := json.Unmarshal([]byte(first), &textEnv); err != nil || textEnv != env {
		t.Errorf("text content first line %q, want the envelope %s", first, b)
	}
	return env.Error
}

func textOf(res *sdk.CallToolResult) string {
	var sb strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}

func namesAtTier(max Tier) []string {
	var names []string
	for _, ti := range Catalogue() {
		if ti.Tier <= max {
			names = append(names, ti.Name)
		}
	}
	slices.Sort(names)
	return names
}

func TestCatalogueCounts(t *testing.T) {
	count := map[Tier]int{}
	for _, ti := range Catalogue() {
		count[ti.Tier]++
	}
	// libtmux-mcp: 21 readonly, 30 mutating, 5 destructive; plus teardown_session (mutating),
	// wait_for_content_change (readonly, from libtmux-mcp before 0.1.0a19) and
	// call_read_tools_batch (readonly, libtmux-mcp's newer name of the read batch), and
	// wait_for_pane_exit (mutating, libtmux-mcp's name); and record_pane (mutating, ours)
	// and wait_for_agent_state (readonly, ours).
	want := map[Tier]int{TierReadonly: 24, TierMutating: 34, TierDestructive: 5}
	for tier, n := range want {
		if count[tier] != n {
			t.Errorf("%s tools: got %d, want %d", tier, count[tier], n)
		}
	}
}

func TestListTools_ByTier(t *testing.T) {
	for _, tc := range []struct {
		safety string
		tier   Tier
		n      int
	}{
		{"destructive", TierDestructive, 63},
		{"mutating", TierMutating, 58},
		{"", TierMutating, 58},
		{"readonly", TierReadonly, 24},
	} {
		t.Run("safety="+tc.safety, func(t *testing.T) {
			cs := connect(t, newFake(), &Options{Safety: tc.safety}, "")
			got := toolNames(listTools(t, cs))
			if len(got) != tc.n {
				t.Errorf("got %d tools, want %d", len(got), tc.n)
			}
			if want := namesAtTier(tc.tier); !slices.Equal(got, want) {
				t.Errorf("got tools %v, want %v", got, want)
			}
		})
	}
}

func TestInvalidSafetyFailsClosed(t *testing.T) {
	var logs bytes.Buffer
	cs := connect(t, newFake(), &Options{Safety: "everything", Logger: slog.New(slog.NewTextHandler(&logs, nil))}, "")
	if got, want := toolNames(listTools(t, cs)), namesAtTier(TierReadonly); !slices.Equal(got, want) {
		t.Errorf("got tools %v, want the readonly set", got)
	}
	if !strings.Contains(logs.String(), "invalid safety tier") {
		t.Errorf("no warning logged; log: %s", logs.String())
	}
}

func TestToolSelection(t *testing.T) {
	cs := connect(t, newFake(), &Options{Tools: []string{"teardown_session", "kill_pane"}}, "")
	if got := toolNames(listTools(t, cs)); !slices.Equal(got, []string{"kill_pane", "teardown_session"}) {
		t.Errorf("got tools %v, want exactly the selection", got)
	}
	env := envelopeOf(t, call(t, cs, "list_sessions", map[string]any{}))
	if env.Code != CodeToolDenied {
		t.Errorf("unselected tool: got code %q, want tool_denied", env.Code)
	}

	for _, names := range [][]string{{"no_such_tool"}, {"send_keys", "send_keys"}} {
		if _, err := newServer(newFake(), &Options{Tools: names}); !errors.Is(err, ErrUsage) {
			t.Errorf("Tools %v: got error %v, want ErrUsage", names, err)
		}
	}
}

func TestOffTierToolDenied(t *testing.T) {
	f := newFake()
	cs := connect(t, f, &Options{Safety: "readonly"}, "")
	env := envelopeOf(t, call(t, cs, "kill_pane", map[string]any{"pane_id": "%1"}))
	if env.Code != CodeToolDenied || env.Effects != EffectsNone || env.Retryable {
		t.Errorf("got %+v, want tool_denied, effects none, not retryable", env)
	}
	if len(f.called()) != 0 {
		t.Errorf("backend was called: %v", f.called())
	}
	// A name that is no tool at all stays a protocol error.
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "no_such_tool"}); err == nil {
		t.Error("unknown tool: got a result, want a protocol error")
	}
}

func TestInvalidArguments(t *testing.T) {
	long := strings.Repeat("é", 40) // 40 code points, 80 bytes
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		inMessage  string
	}{
		{"unknown argument", "list_sessions", map[string]any{"bogus": 1}, `unknown argument "bogus"`},
		{"injected flag", "send_keys", map[string]any{"keys": "ls", "pane_id": "%1", "wait_for_previous": true}, "wait_for_previous"},
		{"missing required", "send_keys", map[string]any{"pane_id": "%1"}, `missing required argument "keys"`},
		{"too long in code points", "kill_pane", map[string]any{"pane_id": strings.Repeat("x", 65)}, "pane_id"},
		{"too long in bytes", "teardown_session", map[string]any{"sessionId": long, "generation": "1:2"}, "sessionId: longer than 64 bytes"},
		{"wrong type", "capture_pane", map[string]any{"max_lines": "ten"}, "max_lines"},
		{"bad enum", "split_window", map[string]any{"pane_id": "%1", "direction": "sideways"}, "direction"},
		{"below minimum", "wait_for_text", map[string]any{"interval": 0.001}, "interval"},
		{"newline in a name", "rename_session", map[string]any{"session_id": "$1", "new_name": "a\nb"}, "new_name: must be a single line"},
		{"NUL", "send_keys", map[string]any{"pane_id": "%1", "keys": "a\x00b"}, "keys: contains a NUL byte"},
		{"bad pattern", "signal_channel", map[string]any{"channel": "a b"}, "channel"},
		{"not an object", "list_sessions", nil, ""},
		{"nested unknown", "send_keys_batch", map[string]any{"operations": []any{map[string]any{"keys": "x", "bogus": 1}}}, "bogus"},
		{"empty batch", "send_keys_batch", map[string]any{"operations": []any{}}, "operations"},
		{"none of the forms", "send_keys", map[string]any{"pane_id": "%1", "keys": 5}, `invalid arguments: keys: 5 has type "integer", want "string" or "array"`},
		{"one form, wrong inside", "send_keys", map[string]any{"pane_id": "%1", "keys": []any{"a", 5}}, `invalid arguments: keys: items: type: 5 has type "integer", want "string"`},
		{"size of no form", "split_window", map[string]any{"pane_id": "%1", "size": true}, `invalid arguments: size: true has type "boolean", want "string" or "integer"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake()
			cs := connect(t, f, &Options{Safety: "destructive"}, "")
			var args any = tc.args
			if tc.args == nil {
				args = json.RawMessage(`[1,2]`)
			}
			env := envelopeOf(t, call(t, cs, tc.tool, args))
			if env.Code != CodeInvalidArguments || env.Effects != EffectsNone || env.Retryable {
				t.Errorf("got %+v, want invalid_arguments, effects none", env)
			}
			if !strings.Contains(env.Message, tc.inMessage) {
				t.Errorf("message %q does not mention %q", env.Message, tc.inMessage)
			}
			if len(f.called()) != 0 {
				t.Errorf("backend was called: %v", f.called())
			}
		})
	}
}

func TestUnknownArgumentSuggestsAccepted(t *testing.T) {
	cs := connect(t, newFake(), nil, "")
	res := call(t, cs, "get_pane_info", map[string]any{"pane": "%1"})
	if !strings.Contains(textOf(res), "Accepted arguments: pane_id, session_name, session_id, window_id, socket_name.") {
		t.Errorf("text %q lacks the accepted arguments", textOf(res))
	}
}

func TestTargetRequired(t *testing.T) {
	f := newFake()
	cs := connect(t, f, &Options{Safety: "destructive"}, "")
	for tool, args := range map[string]map[string]any{
		"send_keys":    {"keys": "ls"},
		"kill_session": {},
		"select_pane":  {"window_id": "@1"},
	} {
		env := envelopeOf(t, call(t, cs, tool, args))
		if env.Code != CodeTargetRequired || env.Effects != EffectsNone {
			t.Errorf("%s: got %+v, want target_required, effects none", tool, env)
		}
	}
	if len(f.called()) != 0 {
		t.Errorf("backend was called: %v", f.called())
	}
	// Read-only tools may fall back to a default pane.
	if res := call(t, cs, "capture_pane", map[string]any{}); res.IsError {
		t.Errorf("capture_pane without target: %s", textOf(res))
	}
}

func TestDefaultsAndNulls(t *testing.T) {
	f := newFake()
	cs := connect(t, f, nil, "")
	res := call(t, cs, "send_keys", map[string]any{"keys": "ls", "pane_id": "%1", "enter": nil, "session_name": nil})
	if res.IsError {
		t.Fatalf("send_keys: %s", textOf(res))
	}
	in := f.input("send_keys").(SendKeysIn)
	if !in.Enter || in.Literal || in.PaneID != "%1" {
		t.Errorf("got %+v, want enter defaulted to true", in)
	}

	res = call(t, cs, "send_keys_batch", map[string]any{"operations": []any{
		map[string]any{"keys": "a", "pane_id": "%1"},
		map[string]any{"keys": "b", "pane_id": "%1", "enter": false},
	}})
	if res.IsError {
		t.Fatalf("send_keys_batch: %s", textOf(res))
	}
	batch := f.input("send_keys_batch").(SendKeysBatchIn)
	if batch.OnError != "stop" || !batch.Operations[0].Enter || batch.Operations[1].Enter {
		t.Errorf("got %+v, want on_error stop and nested enter defaults", batch)
	}

	res = call(t, cs, "create_session", map[string]any{"environment": `{"A":"1"}`, "x": 80.0})
	if res.IsError {
		t.Fatalf("create_session: %s", textOf(res))
	}
	cin := f.input("create_session").(CreateSessionIn)
	if cin.Environment["A"] != "1" || cin.X == nil || *cin.X != 80 || cin.Y != nil {
		t.Errorf("got %+v, want environment from a JSON string and x=80", cin)
	}
}

func TestPanicIsInternalAndServerSurvives(t *testing.T) {
	f := newFake()
	f.panicOn = "list_sessions"
	cs := connect(t, f, nil, "")
	env := envelopeOf(t, call(t, cs, "list_sessions", map[string]any{}))
	if env.Code != CodeInternal || env.Effects != EffectsPossible {
		t.Errorf("got %+v, want internal, effects possible", env)
	}
	f.mu.Lock()
	f.panicOn = ""
	f.mu.Unlock()
	if res := call(t, cs, "list_sessions", map[string]any{}); res.IsError {
		t.Errorf("next call failed: %s", textOf(res))
	}
}

type sessionErr struct{ code, effects string }

func (e sessionErr) Error() string    { return "can't find pane: %99" }
func (e sessionErr) ToolCode() string { return e.code }
func (e sessionErr) Effects() string  { return e.effects }

func TestBackendErrorsUseTheEnvelope(t *testing.T) {
	f := newFake()
	f.errs["get_pane_info"] = sessionErr{CodeNotFound, EffectsNone}
	f.errs["list_sessions"] = errors.New("something odd")
	cs := connect(t, f, nil, "")

	env := envelopeOf(t, call(t, cs, "get_pane_info", map[string]any{"pane_id": "%99"}))
	want := envelopeBody{Code: CodeNotFound, Message: "can't find pane: %99", Effects: EffectsNone}
	if env != want {
		t.Errorf("got %+v, want %+v", env, want)
	}
	res := call(t, cs, "get_pane_info", map[string]any{"pane_id": "%99"})
	if _, hint, _ := strings.Cut(textOf(res), "\n"); !strings.Contains(hint, "list_panes") {
		t.Errorf("text %q has no suggestion line", textOf(res))
	}
	env = envelopeOf(t, call(t, cs, "list_sessions", map[string]any{}))
	if env.Code != CodeInternal || env.Effects != EffectsPossible {
		t.Errorf("unknown error: got %+v, want internal, effects possible", env)
	}
}

func TestSuccessResult(t *testing.T) {
	f := newFake()
	f.results["capture_pane"] = Message{Result: "line 1\nline 2"}
	f.results["list_sessions"] = List[SessionInfo]{Result: []SessionInfo{{SessionID: "$1", WindowCount: 1}}, Total: 1}
	cs := connect(t, f, nil, "")

	res := call(t, cs, "capture_pane", map[string]any{"pane_id": "%1"})
	if textOf(res) != "line 1\nline 2" {
		t.Errorf("capture_pane text %q, want the capture itself", textOf(res))
	}
	res = call(t, cs, "list_sessions", map[string]any{})
	if got, want := textOf(res), `{"result":[{"session_id":"$1","window_count":1}],"total":1}`; got != want {
		t.Errorf("list_sessions text %s, want %s", got, want)
	}
	// nil lists are sent as [], as the output schema says.
	res = call(t, cs, "list_panes", map[string]any{})
	if got := textOf(res); got != `{"result":[],"total":0}` {
		t.Errorf("empty list_panes: got %s", got)
	}
}

func TestResultLimit(t *testing.T) {
	f := newFake()
	f.results["capture_pane"] = Message{Result: strings.Repeat("x", MaxResultBytes)}
	cs := connect(t, f, nil, "")
	env := envelopeOf(t, call(t, cs, "capture_pane", map[string]any{"pane_id": "%1"}))
	if env.Code != CodeResultLimit {
		t.Errorf("got %+v, want result_limit", env)
	}
}

func TestProtocolVersions(t *testing.T) {
	for _, v := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(v, func(t *testing.T) {
			cs := connect(t, newFake(), &Options{Safety: "destructive"}, v)
			if n := len(listTools(t, cs)); n != 63 {
				t.Errorf("got %d tools, want 63", n)
			}
			if res := call(t, cs, "list_sessions", map[string]any{}); res.IsError {
				t.Errorf("list_sessions: %s", textOf(res))
			}
			env := envelopeOf(t, call(t, cs, "list_sessions", map[string]any{"x": 1}))
			if env.Code != CodeInvalidArguments {
				t.Errorf("got %+v, want invalid_arguments", env)
			}
		})
	}
}

// maxToolsListBytes bounds tools/list at the default tier: clients put it
// in every conversation, and compile its output schemas before the first
// call. It was 50,000 until keys for modes and key pacing came (their
// arguments cost 400 bytes, after 220 cut from other words), then 51,500
// until the tools for supervising agents and recording came (agent_state
// in the pane rows, wait_for_agent_state, wait_for_pane_exit, record_pane:
// about 2.5 KB after 490 bytes cut from other words). Words are cut
// first; a raise is for a new capability, and says which.
const maxToolsListBytes = 55_000

// TestToolsListSize keeps tools/list at the default (mutating) tier within
// maxToolsListBytes, and logs its size per tier.
func TestToolsListSize(t *testing.T) {
	for _, tier := range []string{"readonly", "mutating", "destructive"} {
		cs := connect(t, newFake(), &Options{Safety: tier}, "")
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		var in, out int
		for _, tl := range res.Tools {
			i, _ := json.Marshal(tl.InputSchema)
			o, _ := json.Marshal(tl.OutputSchema)
			in, out = in+len(i), out+len(o)
		}
		t.Logf("tools/list at %s: %d tools, %d bytes (input schemas %d, output schemas %d)", tier, len(res.Tools), len(b), in, out)
		if tier == "mutating" && len(b) > maxToolsListBytes {
			t.Errorf("tools/list at the default tier is %d bytes, over %d", len(b), maxToolsListBytes)
		}
	}
}

// TestEveryToolAnswersWithinItsOutputSchema calls each tool with minimal
// arguments and validates its structuredContent against the advertised
// output schema, as strict clients (TypeScript SDK) do.
func TestEveryToolAnswersWithinItsOutputSchema(t *testing.T) {
	f := newFake()
	cs := connect(t, f, &Options{Safety: "destructive"}, "")
	for _, tl := range listTools(t, cs) {
		t.Run(tl.Name, func(t *testing.T) {
			res := call(t, cs, tl.Name, minimalArgs(t, tl.Name))
			if res.IsError {
				t.Fatalf("error: %s", textOf(res))
			}
			resolved := resolve(t, tl.OutputSchema)
			if err := resolved.Validate(res.StructuredContent); err != nil {
				t.Errorf("structuredContent %v does not match the output schema: %v", res.StructuredContent, err)
			}
			// The envelope matches it too.
			env := map[string]any{"error": map[string]any{"code": "not_found", "message": "m", "effects": "none", "retryable": false}}
			if err := resolved.Validate(env); err != nil {
				t.Errorf("the error envelope does not match the output schema: %v", err)
			}
		})
	}
}

// minimalArgs builds valid arguments for tool: its required arguments and
// one target where it needs one.
func minimalArgs(t *testing.T, tool string) map[string]any {
	t.Helper()
	ids := map[string]string{"window_id": "@1", "session_id": "$1", "window_index": "1", "session_name": "x1",
		"source_pane_id": "%1", "target_pane_id": "%2", "hook_name": "pane-exited", "option": "history-limit"}
	d := lookupTool(tool)
	args := map[string]any{}
	for _, name := range d.spec().schema.Required {
		p := d.spec().schema.Properties[name]
		switch {
		case len(p.Enum) > 0:
			args[name] = p.Enum[0]
		case name == "operations" && d.batch:
			args[name] = []any{map[string]any{"tool": "list_sessions"}}
		case name == "operations":
			args[name] = []any{map[string]any{"keys": "x", "pane_id": "%1"}}
		case name == "pane_ids":
			args[name] = []any{"%1"}
		case name == "until":
			args[name] = []any{"idle"}
		case p.Type == "string" && strings.HasSuffix(name, "pane_id"):
			args[name] = "%1"
		case p.Type == "string" && name == "layout":
			args[name] = "tiled"
		case p.Type == "string" && ids[name] != "":
			args[name] = ids[name]
		case p.Type == "string", len(p.AnyOf) > 0 && p.AnyOf[0].Type == "string":
			args[name] = "x1"
		}
	}
	if len(d.needsTarget) > 0 {
		name := d.needsTarget[0]
		args[name] = ids[name]
		if args[name] == "" {
			args[name] = "%1"
		}
		if p := d.spec().schema.Properties[name]; len(p.Enum) > 0 {
			args[name] = p.Enum[0]
		}
	}
	return args
}

func resolve(t *testing.T, schema any) *jsonschema.Resolved {
	t.Helper()
	b, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("resolve %s: %v", b, err)
	}
	return r
}

func TestCancelledCall(t *testing.T) {
	f := newFake()
	f.errs["wait_for_text"] = context.Canceled
	cs := connect(t, f, nil, "")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "wait_for_text", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if env := envelopeOf(t, res); env.Code != CodeCancelled {
		t.Errorf("got %+v, want cancelled", env)
	}
}

// Server.CallTool is the SDK's tools/call without the SDK: the same result
// for an enabled tool, tool_denied for one the tier leaves out, and ok
// false, with nothing run, for a name that is no tool.
func TestServerCallTool(t *testing.T) {
	f := newFake()
	srv, err := newServer(f, &Options{Safety: "readonly"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// 2025-11-25: from 2026-07-28 the SDK adds resultType and _meta, and
	// the direct lane leaves such sessions to it.
	cs := connect(t, f, &Options{Safety: "readonly"}, "2025-11-25")
	for _, tc := range []struct {
		name, args string
		code       string // "" for success
	}{
		{"list_sessions", `{}`, ""},
		{"capture_pane", `{"pane_id":"%1","nosuch":1}`, CodeInvalidArguments},
		{"send_keys", `{"pane_id":"%1","keys":"x"}`, CodeToolDenied},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, ok := srv.CallTool(ctx, tc.name, json.RawMessage(tc.args))
			if !ok {
				t.Fatal("ok false for a tool of the catalogue")
			}
			viaSDK := call(t, cs, tc.name, json.RawMessage(tc.args))
			// Compared as decoded JSON: the client's decoding reorders keys.
			got, _ := json.Marshal(res)
			want, _ := json.Marshal(viaSDK)
			var gotV, wantV any
			if json.Unmarshal(got, &gotV) != nil || json.Unmarshal(want, &wantV) != nil || !reflect.DeepEqual(gotV, wantV) {
				t.Errorf("got  %s\nwant %s (through the SDK)", got, want)
			}
			if tc.code != "" && envelopeOf(t, res).Code != tc.code {
				t.Errorf("got %s, want code %s", got, tc.code)
			}
		})
	}
	before := len(f.called())
	if res, ok := srv.CallTool(ctx, "no_such_tool", json.RawMessage(`{}`)); ok || res != nil {
		t.Errorf("unknown tool: got %v, %v; want nil, false", res, ok)
	}
	if n := len(f.called()); n != before {
		t.Errorf("unknown tool: the backend was called")
	}
}

// fillNil skips the types fillable says it cannot change; for every
// output type of the catalogue, zero and with an element in each list of
// structs, skipping must give what the walk gives.
func TestFillNilSkipsOnlyWhatNeedsNothing(t *testing.T) {
	walked := func(v any) any {
		rv := reflect.ValueOf(v)
		cp := reflect.New(rv.Type()).Elem()
		cp.Set(rv)
		fillNilValue(cp)
		return cp.Interface()
	}
	// grow gives every slice of structs one zero element, and every
	// pointer to a struct a zero struct, a few levels deep.
	var grow func(v reflect.Value, depth int)
	grow = func(v reflect.Value, depth int) {
		if depth == 0 {
			return
		}
		switch v.Kind() {
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Field(i).CanSet() {
					grow(v.Field(i), depth-1)
				}
			}
		case reflect.Slice:
			if v.Type().Elem().Kind() == reflect.Struct {
				v.Set(reflect.MakeSlice(v.Type(), 1, 1))
				grow(v.Index(0), depth-1)
			}
		case reflect.Pointer:
			if v.Type().Elem().Kind() == reflect.Struct {
				v.Set(reflect.New(v.Type().Elem()))
				grow(v.Elem(), depth-1)
			}
		}
	}
	for _, d := range catalogue() {
		zero := reflect.New(d.out).Elem()
		grown := reflect.New(d.out).Elem()
		grow(grown, 6)
		for _, v := range []any{zero.Interface(), grown.Interface()} {
			got, _ := json.Marshal(fillNil(v))
			want, _ := json.Marshal(walked(v))
			if string(got) != string(want) {
				t.Errorf("%s (%v): fillNil gives %s, the walk %s", d.name, d.out, got, want)
			}
		}
	}
	if fillable(reflect.TypeFor[PaneInfo]()) || fillable(reflect.TypeFor[Message]()) {
		t.Error("PaneInfo or Message taken for fillable: they hold no list or map")
	}
	if !fillable(reflect.TypeFor[List[PaneInfo]]()) {
		t.Error("List[PaneInfo] not fillable: its result list must be [] when empty")
	}
}
