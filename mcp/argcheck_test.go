package mcp

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// Every tool's arguments take the fast path: a keyword added to a schema
// that the check does not know would quietly send a tool the slow way.
func TestFastPathCoversTheCatalogue(t *testing.T) {
	for _, d := range catalogue() {
		if !d.spec().fast {
			t.Errorf("%s: its input schema has a keyword schemaCheck does not know", d.name)
		}
	}
	// Decoding once is refused only where it could differ.
	for _, name := range []string{"list_panes", "get_pane_info", "capture_pane", "send_keys", "wait_for_text", "create_session"} {
		if lookupTool(name).spec().direct == nil {
			t.Errorf("%s: no direct decoder", name)
		}
	}
	for _, name := range []string{"split_window", "send_keys_batch"} { // PaneSize; defaults inside operations
		if lookupTool(name).spec().direct != nil {
			t.Errorf("%s: a direct decoder, where decoding once could differ", name)
		}
	}
}

func TestSchemaCheck(t *testing.T) {
	if _, ok := compileCheck(&jsonschema.Schema{Type: "number", MultipleOf: jsonschema.Ptr(2.0)}); ok {
		t.Error("compiled a schema with multipleOf")
	}
	if c, ok := compileCheck(falseSchema()); !ok || !c.never || c.passes("x") {
		t.Errorf("the false schema: %+v %v", c, ok)
	}
	if isFalseSchema(&jsonschema.Schema{Not: &jsonschema.Schema{}, Type: "string"}) {
		t.Error("a schema with not and a type taken for false")
	}
	s := &jsonschema.Schema{
		Type: "object", Required: []string{"id"}, AdditionalProperties: falseSchema(),
		Properties: map[string]*jsonschema.Schema{
			"id":   {Type: "string", Pattern: "^%[0-9]+$", MaxLength: jsonschema.Ptr(4)},
			"n":    {Type: "integer", Minimum: jsonschema.Ptr(1.0), Maximum: jsonschema.Ptr(10.0)},
			"mode": {Type: "string", Enum: []any{"a", "b"}},
			"list": {Type: "array", Items: &jsonschema.Schema{Type: "string"}, MaxItems: jsonschema.Ptr(2)},
			"size": {AnyOf: []*jsonschema.Schema{{Type: "string"}, {Type: "integer", ExclusiveMinimum: jsonschema.Ptr(0.0)}}},
		},
	}
	c, ok := compileCheck(s)
	if !ok {
		t.Fatal("not compiled")
	}
	for raw, want := range map[string]bool{
		`{"id":"%1"}`:                        true,
		`{"id":"%1","n":10,"mode":"b"}`:      true,
		`{"id":"%1","list":["x","y"]}`:       true,
		`{"id":"%1","size":"50%"}`:           true,
		`{"id":"%1","size":3}`:               true,
		`{"id":"%1","n":2.0}`:                true, // an integer, to JSON Schema
		`{}`:                                 false,
		`{"id":"%12345"}`:                    false,
		`{"id":"x"}`:                         false,
		`{"id":"%1","n":0}`:                  false,
		`{"id":"%1","n":11}`:                 false,
		`{"id":"%1","n":1.5}`:                false,
		`{"id":"%1","mode":"c"}`:             false,
		`{"id":"%1","list":["x","y","z"]}`:   false,
		`{"id":"%1","list":[1]}`:             false,
		`{"id":"%1","size":0}`:               false,
		`{"id":"%1","size":true}`:            false,
		`{"id":"%1","other":1}`:              false,
		`{"id":null}`:                        false,
		`{"id":"%1","n":"3"}`:                false,
		`{"id":"%1","list":{"a":"b"}}`:       false,
		`{"id":"%1","mode":["a"]}`:           false,
		`{"id":"%1","size":"50%","n":false}`: false,
	} {
		var v any
		if err := json.Unmarshal([]byte(raw), &v); err != nil {
			t.Fatal(err)
		}
		if got := c.passes(v); got != want {
			t.Errorf("%s: passes %v, want %v", raw, got, want)
		}
	}
}

// The direct decoder's prototype is copied, never written through.
func TestDirectDecoderKeepsItsDefaults(t *testing.T) {
	d := lookupTool("capture_pane")
	for range 2 {
		in := reflect.New(d.in).Interface()
		if _, te := d.spec().decode(json.RawMessage(`{"pane_id":"%1","start":-5}`), in); te != nil {
			t.Fatal(te)
		}
	}
	fresh := reflect.New(d.in).Interface()
	if _, te := d.spec().decode(json.RawMessage(`{"pane_id":"%1"}`), fresh); te != nil {
		t.Fatal(te)
	}
	general := *d.spec()
	general.fast, general.direct = false, nil
	want := reflect.New(d.in).Interface()
	if _, te := general.decode(json.RawMessage(`{"pane_id":"%1"}`), want); te != nil {
		t.Fatal(te)
	}
	if !reflect.DeepEqual(fresh, want) {
		t.Errorf("after other calls, defaults decoded as %+v, want %+v", fresh, want)
	}
}

// BenchmarkDecodeArguments compares the fast path with the general one on
// the arguments of an agent loop's commonest calls.
func BenchmarkDecodeArguments(b *testing.B) {
	calls := []struct{ tool, args string }{
		{"send_keys", `{"pane_id":"%1","keys":"ls -la","enter":true}`},
		{"capture_pane", `{"pane_id":"%1","start":-20}`},
		{"list_panes", `{"session_id":"$1"}`},
		{"wait_for_text", `{"pane_id":"%1","patterns":["\\$ $"],"regex":true,"timeout":5}`},
	}
	for _, c := range calls {
		d := lookupTool(c.tool)
		general := *d.spec()
		general.fast, general.direct = false, nil
		for _, path := range []struct {
			name string
			spec *inputSpec
		}{{"fast", d.spec()}, {"general", &general}} {
			b.Run(c.tool+"/"+path.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, te := path.spec.decode(json.RawMessage(c.args), reflect.New(d.in).Interface()); te != nil {
						b.Fatal(te)
					}
				}
			})
		}
	}
}
