package mcp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// wireSchemas returns every tool's input and output schema as a client
// receives them.
func wireSchemas(t *testing.T) map[string]map[string]any {
	t.Helper()
	cs := connect(t, newFake(), &Options{Safety: "destructive"}, "")
	out := map[string]map[string]any{}
	for _, tl := range listTools(t, cs) {
		out[tl.Name+" input"] = asMap(t, tl.InputSchema)
		out[tl.Name+" output"] = asMap(t, tl.OutputSchema)
	}
	return out
}

func asMap(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("schema %s is not an object: %v", b, err)
	}
	return m
}

// TestSchemasHaveNoTypeArraysAndCloseObjects walks every schema node of
// every tool: "type" is never an array (no ["null", T]), an object that
// lists properties forbids others in input schemas (and in the output
// schema a seed fixes) and leaves them open in other output schemas, and
// an object without properties (a map) says explicitly what its values are
// (but for an output schema that points to another tool's).
func TestSchemasHaveNoTypeArraysAndCloseObjects(t *testing.T) {
	schemas := wireSchemas(t)
	if len(schemas) != 2*63 {
		t.Fatalf("got %d schemas, want %d", len(schemas), 2*63)
	}
	for name, s := range schemas {
		if s["type"] != "object" {
			t.Errorf("%s: top-level type %v, want object", name, s["type"])
		}
		closed := strings.HasSuffix(name, " input") || name == "teardown_session output"
		var walk func(path string, node any)
		walk = func(path string, node any) {
			switch node := node.(type) {
			case []any:
				for i, e := range node {
					walk(fmt.Sprintf("%s[%d]", path, i), e)
				}
			case map[string]any:
				if typ, ok := node["type"]; ok {
					if _, isString := typ.(string); !isString {
						t.Errorf("%s %s: type %v is not a single type", name, path, typ)
					}
				}
				if node["type"] == "object" {
					ap, hasAP := node["additionalProperties"]
					switch _, hasProps := node["properties"]; {
					case hasProps && closed && ap != false:
						t.Errorf("%s %s: object with properties has additionalProperties %v, want false", name, path, ap)
					case hasProps && !closed && hasAP:
						t.Errorf("%s %s: output object with properties has additionalProperties %v, want it open", name, path, ap)
					case !hasProps && !hasAP && node["anyOf"] == nil && (closed || path != ""):
						t.Errorf("%s %s: object without properties does not declare additionalProperties", name, path)
					}
				}
				for k, v := range node {
					if k == "default" || k == "enum" {
						continue
					}
					if k == "properties" {
						for p, ps := range v.(map[string]any) {
							walk(path+"/"+p, ps)
						}
						continue
					}
					walk(path+"."+k, v)
				}
			}
		}
		walk("", s)
	}
}

func TestEveryToolIsDescribedAndAnnotated(t *testing.T) {
	cs := connect(t, newFake(), &Options{Safety: "destructive"}, "")
	for _, tl := range listTools(t, cs) {
		if tl.Description == "" || len(tl.Description) > 160 {
			t.Errorf("%s: description of %d bytes, want 1..160", tl.Name, len(tl.Description))
		}
		a := tl.Annotations
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Errorf("%s: annotations %+v, want all four hints set", tl.Name, a)
			continue
		}
		b, _ := json.Marshal(a)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		for _, h := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			if _, ok := m[h].(bool); !ok {
				t.Errorf("%s: %s not sent", tl.Name, h)
			}
		}
	}
}

// seed is a tool contract from the project's seed documents (testdata).
type seed struct {
	Name         string          `json:"name"`
	Annotations  map[string]bool `json:"annotations"`
	InputSchema  map[string]any  `json:"inputSchema"`
	OutputSchema map[string]any  `json:"outputSchema"`
}

func loadSeed(t *testing.T, file string) seed {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var s seed
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

func servedTool(t *testing.T, name string) *sdk.Tool {
	t.Helper()
	cs := connect(t, newFake(), &Options{Safety: "destructive"}, "")
	for _, tl := range listTools(t, cs) {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("tool %s not served", name)
	return nil
}

func checkAnnotations(t *testing.T, tl *sdk.Tool, want map[string]bool) {
	t.Helper()
	got := map[string]bool{
		"readOnlyHint": tl.Annotations.ReadOnlyHint, "idempotentHint": tl.Annotations.IdempotentHint,
		"destructiveHint": *tl.Annotations.DestructiveHint, "openWorldHint": *tl.Annotations.OpenWorldHint,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("annotation %s: got %v, want %v", k, got[k], v)
		}
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func strs(v any) []string {
	var out []string
	for _, e := range asSlice(v) {
		out = append(out, e.(string))
	}
	return out
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

func props(s map[string]any) map[string]any { p, _ := s["properties"].(map[string]any); return p }

// plainTypes is the set of non-null types a property schema admits.
func plainTypes(p map[string]any) []string {
	var out []string
	if typ, ok := p["type"].(string); ok && typ != "null" {
		out = append(out, typ)
	}
	for _, b := range asSlice(p["anyOf"]) {
		out = append(out, plainTypes(b.(map[string]any))...)
	}
	sort.Strings(out)
	return out
}

// TestTeardownSessionMatchesSeed compares the served teardown_session with
// seeds 000/001 field for field.
func TestTeardownSessionMatchesSeed(t *testing.T) {
	want := loadSeed(t, "seed_teardown_session.json")
	tl := servedTool(t, want.Name)
	checkAnnotations(t, tl, want.Annotations)

	in := asMap(t, tl.InputSchema)
	if got, w := keys(props(in)), keys(props(want.InputSchema)); !slices.Equal(got, w) {
		t.Errorf("input properties %v, want %v", got, w)
	}
	if got, w := strs(in["required"]), strs(want.InputSchema["required"]); !slices.Equal(got, w) {
		t.Errorf("required %v, want %v", got, w)
	}
	if in["additionalProperties"] != false {
		t.Errorf("additionalProperties %v, want false", in["additionalProperties"])
	}
	for name, wp := range props(want.InputSchema) {
		gp, wp := props(in)[name].(map[string]any), wp.(map[string]any)
		for _, k := range []string{"type", "maxLength", "description"} {
			if gp[k] != wp[k] {
				t.Errorf("input %s.%s: got %v, want %v", name, k, gp[k], wp[k])
			}
		}
	}

	out := asMap(t, tl.OutputSchema)
	gotAny, wantAny := asSlice(out["anyOf"]), asSlice(want.OutputSchema["anyOf"])
	if out["type"] != "object" || len(gotAny) != len(wantAny) {
		t.Fatalf("output schema %v, want an object anyOf of %d variants", out, len(wantAny))
	}
	for i := range wantAny {
		g, w := gotAny[i].(map[string]any), wantAny[i].(map[string]any)
		if !slices.Equal(keys(props(g)), keys(props(w))) || !slices.Equal(strs(g["required"]), strs(w["required"])) {
			t.Errorf("output variant %d: properties %v required %v, want %v %v",
				i, keys(props(g)), strs(g["required"]), keys(props(w)), strs(w["required"]))
		}
		for name, wp := range props(w) {
			if got, want := plainTypes(props(g)[name].(map[string]any)), plainTypes(wp.(map[string]any)); !slices.Equal(got, want) {
				t.Errorf("output variant %d %s: types %v, want %v", i, name, got, want)
			}
		}
	}
	// The error variant's body is exactly the seed's.
	gotErr := props(gotAny[1].(map[string]any))["error"]
	wantErr := props(wantAny[1].(map[string]any))["error"]
	gb, _ := json.Marshal(gotErr)
	wb, _ := json.Marshal(wantErr)
	if string(gb) != string(wb) {
		t.Errorf("error body schema\n got %s\nwant %s", gb, wb)
	}
}

// TestCreateSessionMatchesSeed compares the served create_session with seed
// 002: the same arguments with the same types (null aside: optional
// arguments are advertised as plain types), no required argument, the same
// annotations, and the SessionInfo result plus generation.
func TestCreateSessionMatchesSeed(t *testing.T) {
	want := loadSeed(t, "seed_create_session.json")
	tl := servedTool(t, want.Name)
	checkAnnotations(t, tl, want.Annotations)

	in := asMap(t, tl.InputSchema)
	if got, w := keys(props(in)), keys(props(want.InputSchema)); !slices.Equal(got, w) {
		t.Errorf("input properties %v, want %v", got, w)
	}
	if len(strs(in["required"])) != 0 || in["additionalProperties"] != false {
		t.Errorf("required %v additionalProperties %v, want none and false", in["required"], in["additionalProperties"])
	}
	for name, wp := range props(want.InputSchema) {
		gp, wp := props(in)[name].(map[string]any), wp.(map[string]any)
		if got, want := plainTypes(gp), plainTypes(wp); !slices.Equal(got, want) {
			t.Errorf("input %s: types %v, want %v", name, got, want)
		}
		if d, ok := wp["default"]; ok && d != nil && gp["default"] != d {
			t.Errorf("input %s: default %v, want %v", name, gp["default"], d)
		}
		if w, ok := wp["maxLength"]; ok && gp["maxLength"] != w {
			t.Errorf("input %s: maxLength %v, want %v", name, gp["maxLength"], w)
		}
	}

	success := asSlice(asMap(t, tl.OutputSchema)["anyOf"])[0].(map[string]any)
	wantProps := append(keys(props(want.OutputSchema)), "generation")
	sort.Strings(wantProps)
	if got := keys(props(success)); !slices.Equal(got, wantProps) {
		t.Errorf("result properties %v, want %v", got, wantProps)
	}
	if got, w := strs(success["required"]), strs(want.OutputSchema["required"]); !slices.Equal(got, w) {
		t.Errorf("result required %v, want %v", got, w)
	}
	for name, wp := range props(want.OutputSchema) {
		if got, want := plainTypes(props(success)[name].(map[string]any)), plainTypes(wp.(map[string]any)); !slices.Equal(got, want) {
			t.Errorf("result %s: types %v, want %v", name, got, want)
		}
	}
}

// TestOutputSchemasStateTheEnvelopeOnce checks that no output schema but
// the seeds' carries the error envelope's shape, or an error branch: the
// server's instructions state it once, and every output schema admits it
// as it is (TestEveryToolAnswersWithinItsOutputSchema validates that).
func TestOutputSchemasStateTheEnvelopeOnce(t *testing.T) {
	for name, s := range wireSchemas(t) {
		if !strings.HasSuffix(name, " output") || name == "teardown_session output" || name == "create_session output" {
			continue
		}
		b, _ := json.Marshal(s)
		if strings.Contains(string(b), `"retryable"`) || s["anyOf"] != nil || s["required"] != nil {
			t.Errorf("%s: %s, want the result's members only", name, b)
		}
	}
	create := wireSchemas(t)["create_session output"]
	if b, _ := json.Marshal(asSlice(create["anyOf"])[1]); string(b) != `{"required":["error"]}` {
		t.Errorf("create_session: error branch %s, want {\"required\":[\"error\"]}", b)
	}
	if !strings.Contains(instructions("Safety tier: mutating."), `{"error":{code,message,effects,retryable}}`) {
		t.Error("the instructions do not state the error envelope")
	}
}

// TestBriefOutputNeedsItsReference checks that a tool whose result another
// tool describes points there only when that tool is listed too, and
// describes its result itself otherwise (a --tool selection without it).
func TestBriefOutputNeedsItsReference(t *testing.T) {
	for _, tc := range []struct {
		tools []string
		brief bool
	}{{nil, true}, {[]string{"split_window", "list_panes"}, true}, {[]string{"split_window"}, false}} {
		cs := connect(t, newFake(), &Options{Tools: tc.tools}, "")
		var out map[string]any
		for _, tl := range listTools(t, cs) {
			if tl.Name == "split_window" {
				out = asMap(t, tl.OutputSchema)
			}
		}
		_, hasPane := props(out)["pane_id"]
		if desc, _ := out["description"].(string); tc.brief != (desc == "As a row of list_panes.") || tc.brief == hasPane {
			t.Errorf("tools %v: split_window output %v, want brief %v", tc.tools, out, tc.brief)
		}
	}
}
