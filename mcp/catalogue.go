package mcp

import (
	"context"
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
		out[i] = ToolInfo{Name: d.name, Description: d.desc, Tier: d.tier, Toolset: toolsetOf(d), Annotations: d.ann, Input: d.spec.schema}
	}
	return out
}

// toolDef is the declaration of one tool.
type toolDef struct {
	name        string
	desc        string
	tier        Tier
	ann         Annotations
	selfBounded bool     // waits on its own clock: refused inside batches
	alwaysLoad  bool     // hint clients to keep it loaded (anthropic/alwaysLoad)
	needsTarget []string // at least one must be given, else target_required
	batch       bool     // a call_*_tools_batch wrapper

	// What tools/list sends (see advertisedInput, outputSchema, briefOutput).
	fullInput  bool       // input schema with its size limits (a seed's)
	outputForm outputForm // how much of the result the output schema spells out
	resultAs   string     // the tool whose output schema describes this one's result

	in, out reflect.Type
	// run decodes the input with decode and calls the backend method.
	run func(ctx context.Context, b Backend, decode func(dst any) *ToolError) (any, error)

	// Built once by catalogue().
	spec   *inputSpec
	input  *jsonschema.Schema // as advertised (advertisedInput)
	output *jsonschema.Schema
	brief  *jsonschema.Schema // output when resultAs is enabled; else nil
}

type toolOption func(*toolDef)

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

// addTool declares a tool served by the Backend method call, typically a
// method expression such as Backend.ListSessions. It is the one place where
// input and output types meet the generic wrapper: everything else about a
// call (denial, validation, panics, the envelope) is in server.call.
func addTool[In, Out any](name string, tier Tier, ann Annotations, desc string,
	call func(Backend, context.Context, In) (Out, error), opts ...toolOption) *toolDef {
	d := &toolDef{
		name: name, desc: desc, tier: tier, ann: ann,
		in: reflect.TypeFor[In](), out: reflect.TypeFor[Out](),
		run: func(ctx context.Context, b Backend, decode func(any) *ToolError) (any, error) {
			var in In
			if te := decode(&in); te != nil {
				return nil, te
			}
			return call(b, ctx, in)
		},
	}
	for _, o := range opts {
		o(d)
	}
	return d
}

// catalogue returns every tool declaration with its schemas built. A bad
// declaration panics: it is a bug that any test building a server finds.
var catalogue = sync.OnceValue(func() []*toolDef {
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
		_ = toolsetOf(d) // panics for a tool in no toolset
		var err error
		if d.spec, err = newInputSpec(d.in); err != nil {
			panic(fmt.Sprintf("mcp: tool %s: input schema: %v", d.name, err))
		}
		d.input = advertisedInput(d.spec.schema, d.fullInput)
		if d.output, err = outputSchema(d.out, d.outputForm); err != nil {
			panic(fmt.Sprintf("mcp: tool %s: output schema: %v", d.name, err))
		}
		for _, a := range d.needsTarget {
			if d.spec.schema.Properties[a] == nil {
				panic(fmt.Sprintf("mcp: tool %s: needsTarget names unknown argument %q", d.name, a))
			}
		}
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
})

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
