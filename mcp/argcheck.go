package mcp

import (
	"encoding/json"
	"math"
	"reflect"
	"regexp"
	"slices"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// The fast path of argument decoding. Most calls carry valid arguments,
// and for them the general machinery is the expensive part of a call's own
// work: jsonschema's Validate walks by reflection and wraps an error at
// every level, and map → JSON → struct encodes and parses the arguments
// twice more (BenchmarkDecodeArguments; docs/internals.md). So valid arguments are recognised by a
// compiled check of the keywords our schemas use, and decoded once, from
// the client's bytes. Whatever the fast path cannot vouch for goes the
// general way, which also words the error; FuzzFastDecode holds the two
// to the same answers.

// schemaCheck is a schema compiled for one question: does a decoded JSON
// value certainly satisfy it? It answers yes only when every keyword held
// and it knows every keyword the schema has, so a no means "ask
// jsonschema", never "invalid".
type schemaCheck struct {
	never    bool   // the false schema
	typ      string // "" for any type
	enum     []string
	min, max *float64
	exclMin  *float64
	minLen   *int
	maxLen   *int // in code points, as jsonschema counts
	pattern  *regexp.Regexp

	props      map[string]*schemaCheck
	required   []string
	additional *schemaCheck // nil: any member allowed
	maxProps   *int

	items              *schemaCheck
	minItems, maxItems *int

	anyOf []*schemaCheck
}

// compileCheck compiles s, or reports false if s has a keyword the check
// does not know.
func compileCheck(s *jsonschema.Schema) (*schemaCheck, bool) {
	if s == nil {
		return nil, true
	}
	if isFalseSchema(s) {
		return &schemaCheck{never: true}, true
	}
	if !onlyKnownKeywords(s) {
		return nil, false
	}
	c := &schemaCheck{
		typ: s.Type, min: s.Minimum, max: s.Maximum, exclMin: s.ExclusiveMinimum,
		minLen: s.MinLength, maxLen: s.MaxLength, required: s.Required, maxProps: s.MaxProperties,
		minItems: s.MinItems, maxItems: s.MaxItems,
	}
	for _, e := range s.Enum {
		str, ok := e.(string)
		if !ok {
			return nil, false
		}
		c.enum = append(c.enum, str)
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern) // as jsonschema compiles it
		if err != nil {
			return nil, false
		}
		c.pattern = re
	}
	var ok bool
	if s.Properties != nil {
		c.props = make(map[string]*schemaCheck, len(s.Properties))
		for k, p := range s.Properties {
			if c.props[k], ok = compileCheck(p); !ok {
				return nil, false
			}
		}
	}
	if c.additional, ok = compileCheck(s.AdditionalProperties); !ok {
		return nil, false
	}
	if c.items, ok = compileCheck(s.Items); !ok {
		return nil, false
	}
	for _, a := range s.AnyOf {
		ac, ok := compileCheck(a)
		if !ok {
			return nil, false
		}
		c.anyOf = append(c.anyOf, ac)
	}
	return c, true
}

// isFalseSchema reports whether s is jsonschema's form of `false`.
func isFalseSchema(s *jsonschema.Schema) bool {
	if s.Not == nil || !reflect.ValueOf(*s.Not).IsZero() {
		return false
	}
	rest := *s
	rest.Not = nil
	return reflect.ValueOf(rest).IsZero()
}

// annotationFields are Schema fields that never make a value invalid.
var annotationFields = map[string]bool{
	"Title": true, "Description": true, "Default": true, "Deprecated": true, "ReadOnly": true,
	"WriteOnly": true, "Examples": true, "PropertyOrder": true, "Comment": true,
}

// checkedFields are the Schema fields compileCheck compiles.
var checkedFields = map[string]bool{
	"Type": true, "Enum": true, "Minimum": true, "Maximum": true, "ExclusiveMinimum": true,
	"MinLength": true, "MaxLength": true, "Pattern": true, "Properties": true, "Required": true,
	"AdditionalProperties": true, "MaxProperties": true, "Items": true, "MinItems": true,
	"MaxItems": true, "AnyOf": true,
}

// onlyKnownKeywords reports whether every field set in s is checked or an
// annotation. It goes by reflection so that a keyword jsonschema-go adds
// later is unknown, and sends its schemas the general way.
func onlyKnownKeywords(s *jsonschema.Schema) bool {
	v := reflect.ValueOf(*s)
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		if !v.Field(i).IsZero() && !checkedFields[name] && !annotationFields[name] {
			return false
		}
	}
	return true
}

// passes reports whether v certainly satisfies the schema c was compiled
// from. v is as encoding/json decodes into an any.
func (c *schemaCheck) passes(v any) bool {
	if c == nil {
		return true
	}
	if c.never || !c.passesValue(v) {
		return false
	}
	if c.enum != nil {
		s, ok := v.(string)
		if !ok || !slices.Contains(c.enum, s) {
			return false
		}
	}
	if c.anyOf != nil {
		return slices.ContainsFunc(c.anyOf, func(a *schemaCheck) bool { return a.passes(v) })
	}
	return true
}

// passesValue reports whether v is of c's type and within its limits.
func (c *schemaCheck) passesValue(v any) bool {
	switch v := v.(type) {
	case string:
		return c.passesType("string") && c.passesString(v)
	case float64:
		typ := "number"
		if _, frac := math.Modf(v); frac == 0 {
			typ = "integer"
		}
		return c.passesType(typ) && c.passesNumber(v)
	case bool:
		return c.passesType("boolean")
	case map[string]any:
		return c.passesType("object") && c.passesObject(v)
	case []any:
		return c.passesType("array") && c.passesArray(v)
	}
	// null, or no JSON value
	return c.typ == "" && c.enum == nil
}

func (c *schemaCheck) passesType(got string) bool {
	return c.typ == "" || c.typ == got || (c.typ == "number" && got == "integer")
}

func (c *schemaCheck) passesString(s string) bool {
	if c.minLen != nil || c.maxLen != nil {
		n := utf8.RuneCountInString(s)
		if (c.minLen != nil && n < *c.minLen) || (c.maxLen != nil && n > *c.maxLen) {
			return false
		}
	}
	return c.pattern == nil || c.pattern.MatchString(s)
}

func (c *schemaCheck) passesNumber(f float64) bool {
	return (c.min == nil || f >= *c.min) && (c.max == nil || f <= *c.max) &&
		(c.exclMin == nil || f > *c.exclMin)
}

func (c *schemaCheck) passesObject(m map[string]any) bool {
	if c.maxProps != nil && len(m) > *c.maxProps {
		return false
	}
	for _, k := range c.required {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	for k, v := range m {
		if p, ok := c.props[k]; ok {
			if !p.passes(v) {
				return false
			}
		} else if !c.additional.passes(v) {
			return false
		}
	}
	return true
}

func (c *schemaCheck) passesArray(a []any) bool {
	if (c.minItems != nil && len(a) < *c.minItems) || (c.maxItems != nil && len(a) > *c.maxItems) {
		return false
	}
	for _, e := range a {
		if !c.items.passes(e) {
			return false
		}
	}
	return true
}

// directDecoder decodes arguments the fast path has vouched for straight
// into the input type: a copy of a prototype holding the top-level
// defaults, then the client's JSON over it.
type directDecoder struct {
	proto reflect.Value // the input type with its defaults set
}

// newDirectDecoder returns a decoder for t, or nil where decoding once
// could differ from the general way: a type with its own UnmarshalJSON
// that could read the client's bytes differently from their re-encoding
// (PaneSize, JSONObject), defaults below the top level, or a default on a
// field that holds a reference (json.Unmarshal would write through the
// copied reference into the prototype).
func newDirectDecoder(t reflect.Type, s *jsonschema.Schema) *directDecoder {
	if rawSensitive(t, map[reflect.Type]bool{}) {
		return nil
	}
	defaults := map[string]json.RawMessage{}
	for k, p := range s.Properties {
		if nestedDefaults(p) {
			return nil
		}
		if p.Default != nil {
			defaults[k] = p.Default
		}
	}
	proto := reflect.New(t)
	if len(defaults) > 0 {
		b, err := json.Marshal(defaults)
		if err != nil || json.Unmarshal(b, proto.Interface()) != nil {
			return nil
		}
	}
	if holdsReference(proto.Elem()) {
		return nil
	}
	return &directDecoder{proto: proto.Elem()}
}

// decode fills dst, a pointer to the input type, from raw, valid
// arguments with no nulls. It reports false if encoding/json refused raw
// (a number such as 1.0 for an int: the general way takes it).
func (d *directDecoder) decode(raw json.RawMessage, dst any) bool {
	v := reflect.ValueOf(dst).Elem()
	v.Set(d.proto)
	if json.Unmarshal(raw, dst) != nil {
		v.SetZero()
		return false
	}
	return true
}

var (
	paneSizeType   = reflect.TypeFor[PaneSize]()
	jsonObjectType = reflect.TypeFor[JSONObject]()
)

// rawSensitive reports whether t holds a PaneSize or a JSONObject.
func rawSensitive(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t == paneSizeType || t == jsonObjectType {
		return true
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return rawSensitive(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if rawSensitive(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// nestedDefaults reports whether a default sits anywhere below s.
func nestedDefaults(s *jsonschema.Schema) bool {
	found := false
	walkSchemas(s, func(x *jsonschema.Schema) { found = found || (x != s && x.Default != nil) })
	return found
}

// holdsReference reports whether a field of struct v that is not its zero
// value is a pointer, slice, map or interface.
func holdsReference(v reflect.Value) bool {
	for i := range v.NumField() {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Struct:
			if holdsReference(f) {
				return true
			}
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			if !f.IsZero() {
				return true
			}
		}
	}
	return false
}
