package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schemas are inferred from the Go types by jsonschema-go, then
// post-processed: limits from mcp tags (applyTags), and normalize, which
// advertises pointers and slices as their plain type (no ["null", T] type
// arrays, which some clients reject) and closes every object with
// properties (additionalProperties: false).

// typeSchemas gives the argument types whose JSON is not their Go shape a
// schema of their own.
var typeSchemas = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[StringMap](): {AnyOf: []*jsonschema.Schema{
		{Type: "object", MaxProperties: jsonschema.Ptr(256), AdditionalProperties: &jsonschema.Schema{Type: "string", MaxLength: jsonschema.Ptr(65536)}},
		{Type: "string", MaxLength: jsonschema.Ptr(1 << 20)},
	}},
	reflect.TypeFor[PaneSize](): {AnyOf: []*jsonschema.Schema{
		{Type: "string", MaxLength: jsonschema.Ptr(16)},
		{Type: "integer", Minimum: jsonschema.Ptr(1.0), Maximum: jsonschema.Ptr(10000.0)},
	}},
	reflect.TypeFor[EnvValues](): {Type: "object", AdditionalProperties: &jsonschema.Schema{AnyOf: []*jsonschema.Schema{
		{Type: "string"}, {Type: "boolean"},
	}}},
	reflect.TypeFor[JSONObject](): {Type: "object", AdditionalProperties: &jsonschema.Schema{}},
	reflect.TypeFor[KeyList](): {AnyOf: []*jsonschema.Schema{
		{Type: "string", MaxLength: jsonschema.Ptr(1 << 20)},
		{Type: "array", MinItems: jsonschema.Ptr(1), MaxItems: jsonschema.Ptr(1000),
			Items: &jsonschema.Schema{Type: "string", MinLength: jsonschema.Ptr(1), MaxLength: jsonschema.Ptr(1 << 16)}},
	}},
}

// lineSet holds the string schemas whose values must be a single line.
type lineSet map[*jsonschema.Schema]bool

// buildSchema infers the schema of t and post-processes it.
func buildSchema(t reflect.Type) (*jsonschema.Schema, lineSet, error) {
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: typeSchemas})
	if err != nil {
		return nil, nil, err
	}
	lines := lineSet{}
	if err := applyTags(s, t, lines); err != nil {
		return nil, nil, fmt.Errorf("%v: %w", t, err)
	}
	normalize(s)
	return s, lines, nil
}

// outputForm is how much of a result type an output schema spells out.
//
// Every output schema must admit the error envelope, which every failed
// call carries: clients such as the TypeScript SDK's validate
// structuredContent against it even when isError is set. And tools/list
// sends every tool's schemas in every conversation, so by default only
// what a client needs is sent (outputLean).
type outputForm int

const (
	// outputLean lists the result's members and their types, open (no
	// additionalProperties: false, as libtmux-mcp's output schemas) and
	// none required, so the envelope matches as it is; its shape is the
	// same for every tool and stated once, in the server's instructions.
	outputLean outputForm = iota
	// outputRequired also lists the members always present, as seed 002
	// does for create_session, and so admits the envelope by a second
	// branch, {"required": ["error"]}.
	outputRequired
	// outputFull closes the result and spells the envelope out member by
	// member, as the teardown_session seed fixes it.
	outputFull
)

// outputSchema is the schema of a tool's structuredContent: a result of
// type t, or the error envelope.
func outputSchema(t reflect.Type, form outputForm) (*jsonschema.Schema, error) {
	success, _, err := buildSchema(t)
	if err != nil {
		return nil, err
	}
	if form == outputFull {
		return &jsonschema.Schema{Type: "object", AnyOf: []*jsonschema.Schema{success, envelopeSchema()}}, nil
	}
	success = success.CloneSchemas() // typeSchemas' entries may be shared
	walkSchemas(success, func(s *jsonschema.Schema) {
		if s.Type == "object" && s.Properties != nil && s.AdditionalProperties != nil && isFalseSchema(s.AdditionalProperties) {
			s.AdditionalProperties = nil
		}
		if form == outputLean {
			s.Required = nil
		}
	})
	if form == outputLean {
		return success, nil
	}
	success.Type = "" // the outer schema says object
	return &jsonschema.Schema{Type: "object", AnyOf: []*jsonschema.Schema{success, {Required: []string{"error"}}}}, nil
}

// briefOutput is the lean output schema of a tool whose result another
// tool's output schema describes (desc says which): any object, instead
// of a copy of the same members.
func briefOutput(desc string) json.RawMessage {
	b, err := json.Marshal(&jsonschema.Schema{Type: "object", Description: desc})
	if err != nil {
		panic("mcp: brief output schema: " + err.Error())
	}
	return b
}

// listItem returns the element type of t's "result" list, or nil when t
// has none.
func listItem(t reflect.Type) reflect.Type {
	if t.Kind() != reflect.Struct {
		return nil
	}
	for _, f := range reflect.VisibleFields(t) {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name == "result" && f.Type.Kind() == reflect.Slice {
			return f.Type.Elem()
		}
	}
	return nil
}

// advertisedInput is the input schema tools/list sends for the enforced
// schema s: the same, less the size limits (maxLength, maxItems,
// maxProperties, maximum) and the patterns of ids (%1, @1, $1, indexes),
// which every listing shows. They are still enforced, and a call that breaks
// one is answered invalid_arguments naming the argument, but an agent forms
// no call by them (and they were 6 KB of tools/list). With full set, s is
// sent as it is, as a seed document fixes it.
func advertisedInput(s *jsonschema.Schema, full bool) *jsonschema.Schema {
	if full {
		return s
	}
	a := s.CloneSchemas()
	walkSchemas(a, func(s *jsonschema.Schema) {
		s.MaxLength, s.MaxItems, s.MaxProperties, s.Maximum = nil, nil, nil, nil
		if idPatterns[s.Pattern] {
			s.Pattern = ""
		}
	})
	return a
}

// idPatterns are the patterns of tmux ids and indexes in input schemas.
var idPatterns = map[string]bool{`^[$][0-9]+$`: true, `^@[0-9]+$`: true, `^%[0-9]+$`: true, `^[0-9]+$`: true}

func envelopeSchema() *jsonschema.Schema {
	body := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"code":      {Type: "string"},
			"message":   {Type: "string"},
			"effects":   {Enum: []any{EffectsNone, EffectsPossible}},
			"retryable": {Type: "boolean"},
		},
		PropertyOrder:        []string{"code", "message", "effects", "retryable"},
		Required:             []string{"code", "message", "effects", "retryable"},
		AdditionalProperties: falseSchema(),
	}
	return &jsonschema.Schema{
		Type:                 "object",
		Properties:           map[string]*jsonschema.Schema{"error": body},
		Required:             []string{"error"},
		AdditionalProperties: falseSchema(),
	}
}

func falseSchema() *jsonschema.Schema { return &jsonschema.Schema{Not: &jsonschema.Schema{}} }

// applyTags applies the mcp struct tags of t's fields to s, recursively.
func applyTags(s *jsonschema.Schema, t reflect.Type, lines lineSet) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return applyTags(s.Items, t.Elem(), lines)
	case reflect.Struct:
	default:
		return nil
	}
	if _, custom := typeSchemas[t]; custom {
		return nil
	}
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		prop := s.Properties[name]
		if prop == nil {
			continue
		}
		if tag, ok := f.Tag.Lookup("mcp"); ok {
			if err := applyTag(prop, tag, lines); err != nil {
				return fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
		if err := applyTags(prop, f.Type, lines); err != nil {
			return err
		}
	}
	return nil
}

// applyTag applies one mcp tag (see inputs.go for its syntax) to prop.
func applyTag(prop *jsonschema.Schema, tag string, lines lineSet) error {
	// String limits of a list apply to its items.
	str := prop
	if prop.Type == "array" || slices.Contains(prop.Types, "array") {
		str = prop.Items
	}
	for tag != "" {
		var opt string
		if strings.HasPrefix(tag, "pattern=") {
			opt, tag = tag, ""
		} else {
			opt, tag, _ = strings.Cut(tag, ";")
		}
		key, val, _ := strings.Cut(opt, "=")
		num := func() (float64, error) { return strconv.ParseFloat(val, 64) }
		switch key {
		case "len":
			n, err := strconv.Atoi(val)
			if err != nil {
				return err
			}
			str.MaxLength = jsonschema.Ptr(n)
		case "line":
			lines[str] = true
		case "pattern":
			str.Pattern = val
		case "enum":
			for _, v := range strings.Split(val, "|") {
				str.Enum = append(str.Enum, v)
			}
		case "min", "max", "xmin":
			f, err := num()
			if err != nil {
				return err
			}
			switch key {
			case "min":
				prop.Minimum = &f
			case "max":
				prop.Maximum = &f
			default:
				prop.ExclusiveMinimum = &f
			}
		case "items", "minitems":
			n, err := strconv.Atoi(val)
			if err != nil {
				return err
			}
			if key == "items" {
				prop.MaxItems = &n
			} else {
				prop.MinItems = &n
			}
		case "default":
			if !json.Valid([]byte(val)) {
				return fmt.Errorf("default %q is not JSON", val)
			}
			prop.Default = json.RawMessage(val)
		default:
			return fmt.Errorf("unknown mcp tag option %q", key)
		}
	}
	return nil
}

// normalize rewrites ["null", T] type arrays to T and closes objects that
// list their properties.
func normalize(s *jsonschema.Schema) {
	walkSchemas(s, func(s *jsonschema.Schema) {
		if len(s.Types) > 0 {
			rest := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
			if len(rest) == 1 {
				s.Type, s.Types = rest[0], nil
			} else {
				s.Types = rest
			}
		}
		if s.Type == "object" && s.Properties != nil && s.AdditionalProperties == nil {
			s.AdditionalProperties = falseSchema()
		}
	})
}

// walkSchemas calls f on s and every schema below it.
func walkSchemas(s *jsonschema.Schema, f func(*jsonschema.Schema)) {
	if s == nil {
		return
	}
	f(s)
	for _, p := range s.Properties {
		walkSchemas(p, f)
	}
	walkSchemas(s.Items, f)
	walkSchemas(s.AdditionalProperties, f)
	walkSchemas(s.Not, f)
	for _, a := range s.AnyOf {
		walkSchemas(a, f)
	}
	for _, a := range s.OneOf {
		walkSchemas(a, f)
	}
	for _, a := range s.AllOf {
		walkSchemas(a, f)
	}
}
