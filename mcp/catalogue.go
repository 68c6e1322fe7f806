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
	Annotations Annotations
}

// Catalogue lists every tool this package can serve, in declaration order
// (by domain), whatever the tier; for `tmux-mcp tools` and the README.
func Catalogue() []ToolInfo {
	defs := catalogue()
	out := make([]ToolInfo, len(defs))
	for i, d := range defs {
		out[i] = ToolInfo{Name: d.name, Description: d.desc, Tier: d.tier, Annotations: d.ann}
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
	fullOutput  bool     // output schema spelled out in full (a seed's)

	in, out reflect.Type
	// run decodes the input with decode and calls the backend method.
	run func(ctx context.Context, b Backend, decode func(dst any) *ToolError) (any, error)

	// Built once by catalogue().
	spec   *inputSpec
	output *jsonschema.Schema
}

type toolOption func(*toolDef)

// selfBounded marks a tool that waits on its own clock.
func selfBounded() toolOption { return func(d *toolDef) { d.selfBounded = true } }

// alwaysLoad marks a discovery tool clients should keep loaded.
func alwaysLoad() toolOption { return func(d *toolDef) { d.alwaysLoad = true } }

// fullOutput advertises the output schema in full: the result closed and
// the error envelope member by member, as a seed document fixes it.
func fullOutput() toolOption { return func(d *toolDef) { d.fullOutput = true } }

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
		var err error
		if d.spec, err = newInputSpec(d.in); err != nil {
			panic(fmt.Sprintf("mcp: tool %s: input schema: %v", d.name, err))
		}
		if d.output, err = outputSchema(d.out, d.fullOutput); err != nil {
			panic(fmt.Sprintf("mcp: tool %s: output schema: %v", d.name, err))
		}
		for _, a := range d.needsTarget {
			if d.spec.schema.Properties[a] == nil {
				panic(fmt.Sprintf("mcp: tool %s: needsTarget names unknown argument %q", d.name, a))
			}
		}
	}
	return defs
})

// lookupTool returns the declaration named name, or nil.
func lookupTool(name string) *toolDef {
	for _, d := range catalogue() {
		if d.name == name {
			return d
		}
	}
	return nil
}
