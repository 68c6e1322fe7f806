package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Tier is a safety tier (LIBTMUX_SAFETY). Each tier includes the ones below it.
type Tier int

// The tiers, in increasing order of what they allow.
const (
	TierReadonly Tier = iota
	TierMutating
	TierDestructive
)

func (t Tier) String() string {
	switch t {
	case TierReadonly:
		return "readonly"
	case TierMutating:
		return "mutating"
	case TierDestructive:
		return "destructive"
	}
	return fmt.Sprintf("Tier(%d)", int(t))
}

// ParseTier parses a LIBTMUX_SAFETY value. The empty string is the default,
// mutating. ok is false for anything else that is not a tier name.
func ParseTier(s string) (t Tier, ok bool) {
	switch s {
	case "readonly":
		return TierReadonly, true
	case "", "mutating":
		return TierMutating, true
	case "destructive":
		return TierDestructive, true
	}
	return TierReadonly, false
}

// Annotations are a tool's MCP behaviour hints. All four are always sent.
type Annotations struct {
	ReadOnly, Destructive, Idempotent, OpenWorld bool
}

// Annotation presets, as libtmux-mcp names them.
var (
	annReadOnly    = Annotations{ReadOnly: true, Idempotent: true}
	annMutating    = Annotations{Idempotent: true}
	annCreate      = Annotations{}
	annShell       = Annotations{OpenWorld: true}
	annDestructive = Annotations{Destructive: true}
	annBatch       = Annotations{Destructive: true, OpenWorld: true}
	// annSeed is what seeds 000-002 advertise for create_session and teardown_session.
	annSeed = Annotations{Destructive: true, OpenWorld: true}
)

// ToolInfo describes one tool of the catalogue.
type ToolInfo struct {
	Name        string
	Description string
	Tier        Tier
	Toolset     Toolset
	Annotations Annotations
	// Input is the input schema with every limit the server enforces
	// (tools/list leaves the size limits out); do not modify.
	Input *jsonschema.Schema
}

// Catalogue lists every tool this package can serve, in declaration order
// (by domain), whatever the tier; for `tmux-mcp tools` and the README.
func Catalogue() []ToolInfo {
	defs := catalogue()
	out := make([]ToolInfo, len(defs))
	for i, d := range defs {
		out[i] = ToolInfo{Name: d.name, Description: d.desc, Tier: d.tier, Toolset: d.toolset, Annotations: d.ann, Input: d.spec().schema}
	}
	return out
}

// toolDef is the declaration of one tool: everything this package knows
// about it is here, set by addTool and its options.
type toolDef struct {
	name        string
	desc        string
	tier        Tier
	ann         Annotations
	toolset     Toolset   // the one it is in; TierReadonly tools are in ToolsetInspect
	access      access    // its scope class (see scopePolicy.check)
	scopeWords  [2]string // its README scope rule, owned-write and owned, when its class's words do not say it
	execArgs    []string  // arguments refused without the execute toolset (see checkExecArgs)
	selfBounded bool      // waits on its own clock: refused inside batches
	alwaysLoad  bool      // hint clients to keep it loaded (anthropic/alwaysLoad)
	needsTarget []string  // at least one must be given, else target_required
	batch       bool      // a call_*_tools_batch wrapper

	// What tools/list sends (see advertisedInput, outputSchema, briefOutput).
	fullInput  bool       // input schema with its size limits (a seed's)
	outputForm outputForm // how much of the result the output schema spells out
	resultAs   string     // the tool whose output schema describes this one's result

	in, out reflect.Type
	// run decodes the input with decode and answers it: with the handler,
	// or in this package (the batch tools).
	run func(ctx context.Context, s *server, decode func(dst any) *ToolError) (any, error)
	// handler runs the tool on a TmuxBackend; in is of type in.
	handler func(b *TmuxBackend, ctx context.Context, in any) (any, error)
	// cut, when not nil, cuts the handler's answer to the owned scope (cutToScope).
	cut func(ctx context.Context, p *scopePolicy, in any, run func(any) (any, error)) (any, error)

	// Set by catalogue(). spec is built at the tool's first call, not at
	// start: inferring and resolving every schema took most of the time
	// from process start to the initialize answer. What tools/list sends
	// comes built from schemas.json (see advertised).
	spec   func() *inputSpec
	input  json.RawMessage // as advertised (advertisedInput)
	output json.RawMessage
	brief  json.RawMessage // output when resultAs is enabled; else nil
}

type toolOption func(*toolDef)

// The toolsets of tools above the readonly tier (readonly tools are all
// inspect tools): exactly one of them is given to each.
var (
	manage   = inToolset(ToolsetManage)
	execute  = inToolset(ToolsetExecute)
	teardown = inToolset(ToolsetTeardown)
)

func inToolset(ts Toolset) toolOption { return func(d *toolDef) { d.toolset = ts } }

// The scope classes (see access): exactly one of them is given to each tool.
var (
	touchesNone   = scopeClass(accessNone)
	lists         = scopeClass(accessList)
	reads         = scopeClass(accessRead)
	writes        = scopeClass(accessWrite)
	touchesServer = scopeClass(accessServer)
)

func scopeClass(a access) toolOption { return func(d *toolDef) { d.access = a } }

// scopeRule gives the tool's README scope rule under owned-write and owned,
// when the words of its class (scopeWords) do not say it.
func scopeRule(ownedWrite, owned string) toolOption {
	return func(d *toolDef) { d.scopeWords = [2]string{ownedWrite, owned} }
}

// scopeRuleBoth is scopeRule with the same words under both scopes.
func scopeRuleBoth(words string) toolOption { return scopeRule(words, words) }

// execArgs names the arguments of a manage tool that run a command or
// shape the environment a command starts in: without the execute toolset
// they are refused (tool_denied), the rest of the tool stays usable.
func execArgs(args ...string) toolOption { return func(d *toolDef) { d.execArgs = args } }

// selfBounded marks a tool that waits on its own clock.
func selfBounded() toolOption { return func(d *toolDef) { d.selfBounded = true } }

// alwaysLoad marks a discovery tool clients should keep loaded.
func alwaysLoad() toolOption { return func(d *toolDef) { d.alwaysLoad = true } }

// seedSchemas advertises the tool's schemas as a seed document fixes them:
// the input with its size limits, the result closed and the error envelope
// member by member (teardown_session).
func seedSchemas() toolOption {
	return func(d *toolDef) { d.fullInput, d.outputForm = true, outputFull }
}

// requiredMembers lists the members always present in the output schema,
// as a seed document does (create_session).
func requiredMembers() toolOption { return func(d *toolDef) { d.outputForm = outputRequired } }

// resultAs says that the output schema of tool describes this tool's
// result: it returns the same type, or a list of it. When tool is
// enabled too, this tool's output schema lists no members and
// says where it is described instead (see briefOutput).
func resultAs(tool string) toolOption { return func(d *toolDef) { d.resultAs = tool } }

// needsTarget makes a call that names none of the arguments fail with
// target_required before anything reaches tmux (CONTRACT §6).
func needsTarget(args ...string) toolOption {
	return func(d *toolDef) { d.needsTarget = args }
}

// addTool declares a tool served by handler, a method expression of
// *TmuxBackend such as (*TmuxBackend).ListSessions. With its options (a
// scope class always, a toolset above the readonly tier) it is the tool's
// one declaration: the input and result types come from handler, what the
// input targets from the input type (targeter). It is the one place where
// they meet the generic wrapper: everything else about a call (denial,
// validation, panics, the envelope) is in server.call.
func addTool[In, Out any](name string, tier Tier, ann Annotations, desc string,
	handler func(*TmuxBackend, context.Context, In) (Out, error), opts ...toolOption) *toolDef {
	d := declare[In, Out](name, tier, ann, desc, nil, opts...)
	d.handler = func(b *TmuxBackend, ctx context.Context, in any) (any, error) {
		return handler(b, ctx, in.(In))
	}
	return d
}

// declare declares a tool whose input is In and result Out. serve, when
// not nil, answers it in this package (the batch tools); else addTool
// gives it a handler.
func declare[In, Out any](name string, tier Tier, ann Annotations, desc string,
	serve func(context.Context, *server, In) (Out, error), opts ...toolOption) *toolDef {
	d := &toolDef{
		name: name, desc: desc, tier: tier, ann: ann,
		in: reflect.TypeFor[In](), out: reflect.TypeFor[Out](),
	}
	d.run = func(ctx context.Context, s *server, decode func(any) *ToolError) (any, error) {
		var in In
		if te := decode(&in); te != nil {
			return nil, te
		}
		if serve != nil {
			return serve(ctx, s, in)
		}
		return s.handle(ctx, d, in)
	}
	if tier == TierReadonly {
		d.toolset = ToolsetInspect
	}
	for _, o := range opts {
		o(d)
	}
	return d
}

// cutToScope gives a listing tool the cut of its answer to the sessions
// in the owned scope: cut runs the handler with run (on an input of its
// choosing, such as every page) and keeps the rows in scope.
func cutToScope[In, Out any](cut func(ctx context.Context, p *scopePolicy, in In, run func(In) (Out, error)) (Out, error)) toolOption {
	return func(d *toolDef) {
		d.cut = func(ctx context.Context, p *scopePolicy, in any, run func(any) (any, error)) (any, error) {
			return cut(ctx, p, in.(In), func(in In) (Out, error) {
				out, err := run(in)
				o, _ := out.(Out)
				return o, err
			})
		}
	}
}

// serveAs runs the tool name's handler on in, as a call would after its
// checks (the scope's cut included), for this package's own reads
// (resources). Out is the tool's result type.
func serveAs[Out any](ctx context.Context, s *server, name string, in any) (Out, error) {
	out, err := s.handle(ctx, lookupTool(name), in)
	o, _ := out.(Out)
	return o, err
}

// check panics when the declaration is incomplete or contradicts itself.
func (d *toolDef) check() {
	fail := func(format string, args ...any) {
		panic(fmt.Sprintf("mcp: tool %s: ", d.name) + fmt.Sprintf(format, args...))
	}
	switch {
	case d.handler == nil && !d.batch:
		fail("no handler (addTool)")
	case d.access == accessUnset:
		fail("no scope class (touchesNone, lists, reads, writes or touchesServer)")
	case d.toolset == 0:
		fail("in no toolset (manage, execute or teardown)")
	case d.tier == TierReadonly && d.toolset != ToolsetInspect:
		fail("a readonly tool is an inspect tool")
	case d.access == accessList && d.cut == nil:
		fail("a listing without its cut to the owned scope (cutToScope)")
	case d.access != accessList && d.cut != nil:
		fail("a cut to the owned scope on a tool that lists nothing")
	case d.tier == TierReadonly && d.access > accessRead:
		fail("a readonly tool with scope class %d", d.access)
	}
	if d.access >= accessList && d.access <= accessWrite && !d.in.Implements(targeterType) {
		fail("its input %s says nothing of its targets (targeter), which its scope class needs", d.in)
	}
	if d.scopeWords != ([2]string{}) && (d.scopeWords[0] == "" || d.scopeWords[1] == "") {
		fail("a scope rule needs words for both owned scopes")
	}
}

// catalogue returns every tool declaration with its schemas built. A bad
// declaration panics: it is a bug that any test building a server finds.
// It is set in init: the batch tools' handler runs rows, which looks
// tools up in it, a cycle a variable's initializer may not have.
var catalogue func() []*toolDef

func init() { catalogue = sync.OnceValue(buildCatalogue) }

// The tool declarations, by domain, one file each (tools_<domain>.go):
// each domain's list of declarations, then its tools' input types. A
// declaration is all this package knows of a tool: its name, tier,
// annotations and description; its handler, a method expression of
// *TmuxBackend whose types are the tool's input and result; its scope class
// (touchesNone, lists, reads, writes, touchesServer); above the readonly
// tier its toolset (manage, execute, teardown); and options for the rest
// (scopeRule when its class's words do not say what it may do, execArgs,
// needsTarget, resultAs, cutToScope for a listing, ...). What a call
// targets, its input type says (its targets method, beside it).
//
// Tiers and annotation presets are libtmux-mcp's, except create_session and
// teardown_session, which carry the annotations of their seed documents.
func buildCatalogue() []*toolDef {
	defs := declarations()
	for _, d := range defs {
		adv, ok := advertised()[d.name]
		if !ok {
			panic("mcp: tool " + d.name + ": not in schemas.json; " + regenerate)
		}
		d.input, d.output = adv.Input, adv.Output
	}
	return defs
}

// declarations returns every tool's declaration, checked, with what
// buildCatalogue adds from schemas.json left out.
func declarations() []*toolDef {
	var defs []*toolDef
	for _, group := range [][]*toolDef{serverTools(), sessionTools(), windowTools(),
		paneInputTools(), paneReadTools(), paneLayoutTools(), optionTools()} {
		defs = append(defs, group...)
	}
	seen := map[string]bool{}
	for _, d := range defs {
		if seen[d.name] {
			panic("mcp: tool declared twice: " + d.name)
		}
		seen[d.name] = true
		d.check()
		d.spec = sync.OnceValue(d.buildSpec)
	}
	for _, d := range defs {
		if d.resultAs == "" {
			continue
		}
		like := lookupIn(defs, d.resultAs)
		var desc string
		switch {
		case like == nil || like.resultAs != "" || d.outputForm != outputLean:
		case like.out == d.out:
			desc = "As " + like.name + "'s result."
		case listItem(like.out) == d.out:
			desc = "As a row of " + like.name + "."
		}
		if desc == "" {
			panic(fmt.Sprintf("mcp: tool %s: resultAs %s: no tool whose output schema describes the result in full", d.name, d.resultAs))
		}
		d.brief = briefOutput(desc)
	}
	return defs
}

// buildSpec infers d's input schema from its type and checks the
// arguments its declaration names. A bad declaration panics (at the
// tool's first call, and in TestAdvertisedSchemas, which builds them all).
func (d *toolDef) buildSpec() *inputSpec {
	sp, err := newInputSpec(d.in)
	if err != nil {
		panic(fmt.Sprintf("mcp: tool %s: input schema: %v", d.name, err))
	}
	for _, a := range d.needsTarget {
		if sp.schema.Properties[a] == nil {
			panic(fmt.Sprintf("mcp: tool %s: needsTarget names unknown argument %q", d.name, a))
		}
	}
	for _, a := range d.execArgs {
		if sp.schema.Properties[a] == nil {
			panic(fmt.Sprintf("mcp: tool %s: execArgs names unknown argument %q", d.name, a))
		}
	}
	return sp
}

// lookupIn returns the declaration in defs named name, or nil.
func lookupIn(defs []*toolDef, name string) *toolDef {
	for _, d := range defs {
		if d.name == name {
			return d
		}
	}
	return nil
}

// lookupTool returns the declaration named name, or nil.
func lookupTool(name string) *toolDef {
	for _, d := range catalogue() {
		if d.name == name {
			return d
		}
	}
	return nil
}
