package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tmux-mcp/tmux-mcp/mcp"
)

// toolArg is one argument of a tool, as its input schema describes it.
type toolArg struct {
	name, typ, doc string
	required       bool
	def            string   // the default as JSON, "" if none
	limits         []string // enum, pattern, bounds
}

// toolArgs lists the arguments of an input schema in its property order.
func toolArgs(s *jsonschema.Schema) []toolArg {
	names := s.PropertyOrder
	if len(names) == 0 {
		for n := range s.Properties {
			names = append(names, n)
		}
		slices.Sort(names)
	}
	var out []toolArg
	for _, n := range names {
		p := s.Properties[n]
		if p == nil {
			continue
		}
		a := toolArg{name: n, typ: schemaType(p), doc: p.Description, required: slices.Contains(s.Required, n)}
		if len(p.Default) > 0 {
			a.def = string(p.Default)
		}
		a.limits = schemaLimits(p)
		out = append(out, a)
	}
	return out
}

// schemaType names the JSON type a schema admits: "string", "integer",
// "string or array of string", ...
func schemaType(s *jsonschema.Schema) string {
	var alts []string
	switch {
	case s.Type == "array" && s.Items != nil:
		alts = append(alts, "array of "+schemaType(s.Items))
	case s.Type == "object" && s.AdditionalProperties != nil && s.AdditionalProperties.Type != "":
		alts = append(alts, "object of "+s.AdditionalProperties.Type)
	case s.Type != "":
		alts = append(alts, s.Type)
	case len(s.Types) > 0:
		alts = append(alts, s.Types...)
	}
	for _, sub := range append(slices.Clone(s.AnyOf), s.OneOf...) {
		alts = append(alts, schemaType(sub))
	}
	if len(alts) == 0 {
		return "any"
	}
	return strings.Join(alts, " or ")
}

// schemaLimits lists what a schema allows beyond its type.
func schemaLimits(s *jsonschema.Schema) []string {
	var out []string
	if len(s.Enum) > 0 {
		var vals []string
		for _, v := range s.Enum {
			b, _ := json.Marshal(v)
			vals = append(vals, string(b))
		}
		out = append(out, "one of "+strings.Join(vals, ", "))
	}
	if s.Pattern != "" {
		out = append(out, "matches `"+s.Pattern+"`")
	}
	if s.Minimum != nil {
		out = append(out, fmt.Sprintf("at least %v", *s.Minimum))
	}
	if s.Maximum != nil {
		out = append(out, fmt.Sprintf("at most %v", *s.Maximum))
	}
	if s.MaxLength != nil {
		out = append(out, fmt.Sprintf("at most %d bytes", *s.MaxLength)) // enforced in bytes
	}
	if s.MaxItems != nil {
		out = append(out, fmt.Sprintf("at most %d items", *s.MaxItems))
	}
	for _, sub := range append(slices.Clone(s.AnyOf), s.OneOf...) {
		out = append(out, schemaLimits(sub)...)
	}
	return out
}

// hints names a tool's annotation hints.
func hints(a mcp.Annotations) string {
	var h []string
	if a.ReadOnly {
		h = append(h, "read-only")
	}
	if a.Destructive {
		h = append(h, "destructive")
	}
	if a.Idempotent {
		h = append(h, "idempotent")
	}
	if a.OpenWorld {
		h = append(h, "open-world")
	}
	if len(h) == 0 {
		return "none"
	}
	return strings.Join(h, ", ")
}

// describeTool prints what `tmux-mcp tools NAME` shows: the description,
// where the tool sits in the tiers and toolsets, and its arguments.
func describeTool(w io.Writer, t mcp.ToolInfo, enabled bool) {
	fmt.Fprintf(w, "%s\n%s", t.Name, wrap(t.Description, "  ", 78))
	fmt.Fprintf(w, "\n  tier %s, toolset %s; hints: %s\n", t.Tier, t.Toolset, hints(t.Annotations))
	if !enabled {
		fmt.Fprintf(w, "  Not enabled by this selection (--safety, --toolsets, --tool, --exclude-tool).\n")
	}
	args := toolArgs(t.Input)
	if len(args) == 0 {
		fmt.Fprintf(w, "\nNo arguments.\n")
		return
	}
	fmt.Fprintf(w, "\nArguments:\n")
	for _, a := range args {
		head := "  " + a.name + " (" + a.typ
		if a.required {
			head += ", required"
		}
		if a.def != "" {
			head += ", default " + a.def
		}
		head += ")"
		fmt.Fprintln(w, head)
		if doc := a.fullDoc(); doc != "" {
			fmt.Fprint(w, wrap(doc, "      ", 78))
		}
	}
}

// fullDoc is the argument's description followed by its limits.
func (a toolArg) fullDoc() string {
	doc := a.doc
	if len(a.limits) == 0 {
		return doc
	}
	if doc != "" && !strings.HasSuffix(doc, ".") {
		doc += "."
	}
	limits := strings.Join(a.limits, "; ") + "."
	return strings.TrimSpace(doc + " " + strings.ToUpper(limits[:1]) + limits[1:])
}
