package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// inputSpec validates the arguments of one tool against its input schema.
// The SDK's own validation is not used (tools are added with the low-level
// Server.AddTool), so every violation is answered in the envelope as
// invalid_arguments, with a message that names the argument.
type inputSpec struct {
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
	lines    lineSet

	// The fast path (argcheck.go): check is usable when fast is set;
	// direct is nil where decoding once could differ.
	fast   bool
	check  *schemaCheck
	direct *directDecoder
}

func newInputSpec(t reflect.Type) (*inputSpec, error) {
	s, lines, err := buildSchema(t)
	if err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("%v: input schema is not an object", t)
	}
	r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		return nil, fmt.Errorf("%v: %w", t, err)
	}
	sp := &inputSpec{schema: s, resolved: r, lines: lines}
	sp.check, sp.fast = compileCheck(s)
	if sp.fast {
		sp.direct = newDirectDecoder(t, s)
	}
	return sp, nil
}

// decode checks raw against the schema and unmarshals it into dst, a pointer
// to the input type. Explicit nulls count as absent; defaults fill what is
// absent. It returns the checked arguments for the audit log.
func (sp *inputSpec) decode(raw json.RawMessage, dst any) (map[string]any, *ToolError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	if !utf8.Valid(raw) {
		return nil, invalidArguments("arguments are not valid UTF-8")
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, invalidArguments("arguments must be a JSON object")
	}
	dropNulls(args, sp.schema)
	if te := sp.checkNames(args); te != nil {
		return args, te
	}
	applyDefaults(args, sp.schema)
	if !sp.fast || !sp.check.passes(args) {
		if err := sp.resolved.Validate(args); err != nil {
			return args, invalidArguments("%s", schemaMessage(err))
		}
	}
	if msg := sp.checkStrings(args, sp.schema, ""); msg != "" {
		return args, invalidArguments("%s", msg)
	}
	// Straight from the client's bytes when they hold no null (a null
	// means "absent" here, which encoding/json does not know).
	if sp.direct != nil && !bytes.Contains(raw, []byte("null")) && sp.direct.decode(raw, dst) {
		return args, nil
	}
	b, err := json.Marshal(args)
	if err == nil {
		err = json.Unmarshal(b, dst)
	}
	if err != nil {
		return args, invalidArguments("arguments: %v", err)
	}
	return args, nil
}

// checkNames reports unknown and missing top-level arguments by name.
func (sp *inputSpec) checkNames(args map[string]any) *ToolError {
	var unknown []string
	for k := range args {
		if sp.schema.Properties[k] == nil {
			u := fmt.Sprintf("%q", k)
			if near := Nearest(k, sp.schema.PropertyOrder); near != "" {
				u += fmt.Sprintf(" (did you mean %q?)", near)
			}
			unknown = append(unknown, u)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		noun := "argument"
		if len(unknown) > 1 {
			noun = "arguments"
		}
		return invalidArguments("unknown %s %s", noun, strings.Join(unknown, ", ")).
			WithSuggestion("Accepted arguments: " + strings.Join(sp.schema.PropertyOrder, ", ") + ".")
	}
	for _, k := range sp.schema.Required {
		if _, ok := args[k]; !ok {
			return invalidArguments("missing required argument %q", k)
		}
	}
	return nil
}

// schemaMessage turns a jsonschema-go validation error into one line.
func schemaMessage(err error) string {
	msg := err.Error()
	msg = strings.ReplaceAll(msg, "validating root: ", "")
	msg = strings.ReplaceAll(msg, "validating /properties/", "")
	msg = strings.Join(strings.Fields(msg), " ")
	if m := anyOfFailure.FindStringSubmatch(msg); m != nil {
		msg = anyOfMessage(m[1], m[2])
	}
	return "invalid arguments: " + msg
}

// anyOfFailure is jsonschema-go's wording of an argument that is none of
// the forms it may take (keys: a string or a list; size: a string or an
// integer): the argument, then each form's failure, "ARG/anyOf/N: ...".
var anyOfFailure = regexp.MustCompile(`^(\w+): anyOf: did not validate against any of \[[^\]]*\]: (.*)$`)

// branchType is one form's failure when the argument is not of its type.
var branchType = regexp.MustCompile(`^type: (.*) has type "(\w+)", want "(\w+)"$`)

// anyOfMessage words an argument arg that took none of its forms, from
// the forms' failures: that it has none of their types, or, when it has
// one form's type, why it failed that one.
func anyOfMessage(arg, failures string) string {
	branches := regexp.MustCompile(regexp.QuoteMeta(arg)+`/anyOf/\d+: `).Split(failures, -1)
	within := regexp.MustCompile(`^` + regexp.QuoteMeta(arg) + `/anyOf/\d+/`)
	var value, has string
	var want []string
	for _, b := range branches[1:] {
		b = strings.TrimSpace(b)
		t := branchType.FindStringSubmatch(b)
		if t == nil {
			return arg + ": " + within.ReplaceAllString(b, "") // of this form's type: why it is not of it
		}
		value, has = t[1], t[2]
		want = append(want, strconv.Quote(t[3]))
	}
	if len(want) == 0 {
		return arg + ": " + failures
	}
	return fmt.Sprintf("%s: %s has type %q, want %s", arg, value, has, strings.Join(want, " or "))
}

// dropNulls deletes null members the schema declares, so that null means
// "use the default", as in libtmux-mcp's optional arguments.
func dropNulls(v any, s *jsonschema.Schema) {
	if s == nil {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for k, m := range v {
			p := s.Properties[k]
			if p == nil {
				continue
			}
			if m == nil {
				delete(v, k)
				continue
			}
			dropNulls(m, p)
		}
	case []any:
		for _, e := range v {
			dropNulls(e, s.Items)
		}
	}
}

// applyDefaults fills absent properties that have a default, in objects at
// any depth, including objects inside lists.
func applyDefaults(v any, s *jsonschema.Schema) {
	if s == nil {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for k, p := range s.Properties {
			m, ok := v[k]
			if !ok {
				if p.Default != nil {
					var d any
					if json.Unmarshal(p.Default, &d) == nil {
						v[k] = d
					}
				}
				continue
			}
			applyDefaults(m, p)
		}
	case []any:
		for _, e := range v {
			applyDefaults(e, s.Items)
		}
	}
}

// checkStrings enforces what the validator does not: maxLength in bytes
// (it counts code points), no NUL, and single-line fields.
func (sp *inputSpec) checkStrings(v any, s *jsonschema.Schema, path string) string {
	if s == nil {
		return ""
	}
	if len(s.AnyOf) > 0 {
		for _, b := range s.AnyOf {
			if matchesType(v, b.Type) {
				return sp.checkStrings(v, b, path)
			}
		}
		return ""
	}
	name := path
	if name == "" {
		name = "arguments"
	}
	switch v := v.(type) {
	case string:
		switch {
		case strings.IndexByte(v, 0) >= 0:
			return name + ": contains a NUL byte"
		case s.MaxLength != nil && len(v) > *s.MaxLength:
			return fmt.Sprintf("%s: longer than %d bytes", name, *s.MaxLength)
		case sp.lines[s] && strings.ContainsAny(v, "\r\n"):
			return name + ": must be a single line"
		}
	case map[string]any:
		for k, m := range v {
			if strings.IndexByte(k, 0) >= 0 {
				return name + ": a key contains a NUL byte"
			}
			p := s.Properties[k]
			if p == nil {
				p = s.AdditionalProperties
			}
			if msg := sp.checkStrings(m, p, joinPath(path, k)); msg != "" {
				return msg
			}
		}
	case []any:
		for i, e := range v {
			if msg := sp.checkStrings(e, s.Items, fmt.Sprintf("%s[%d]", name, i)); msg != "" {
				return msg
			}
		}
	}
	return ""
}

func joinPath(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func matchesType(v any, typ string) bool {
	switch v.(type) {
	case string:
		return typ == "string"
	case map[string]any:
		return typ == "object"
	case []any:
		return typ == "array"
	case bool:
		return typ == "boolean"
	case float64:
		return typ == "number" || typ == "integer"
	}
	return false
}
