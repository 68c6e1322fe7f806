package mcp

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzDecodeArguments feeds arbitrary JSON to every tool's argument
// decoding. It must never panic; a refusal is invalid_arguments with no
// effects; and arguments it accepts, encoded again, are accepted again with
// the same meaning (nothing is lost or invented on the way to the backend).
func FuzzDecodeArguments(f *testing.F) {
	for _, s := range []string{
		`{}`, `null`, `[]`, `{"pane_id":"%1"}`, `{"pane_id":"-t"}`, `{"keys":"a\u0000b","pane_id":"%1"}`,
		`{"session_name":"x\ny"}`, `{"patterns":["a"],"timeout":1e309}`, `{"environment":"{\"A\":\"b\"}"}`,
		`{"x":1,"y":-1}`, `{"operations":[{"keys":"x","pane_id":"%1"}]}`, `{"layout":"tiled"}`, `{"option":"#(x)"}`,
	} {
		for i := range 4 {
			f.Add(uint8(i*13), []byte(s))
		}
	}
	defs := catalogue()
	f.Fuzz(func(t *testing.T, which uint8, raw []byte) {
		d := defs[int(which)%len(defs)]
		dst := reflect.New(d.in).Interface()
		_, te := d.spec().decode(raw, dst)
		if te != nil {
			if te.Code != CodeInvalidArguments || te.Effects != EffectsNone || len(te.Message) > MaxMessageBytes {
				t.Fatalf("%s(%q): got %+v", d.name, raw, te)
			}
			return
		}
		again, err := json.Marshal(dst)
		if err != nil {
			t.Fatalf("%s: re-encoding %#v: %v", d.name, dst, err)
		}
		dst2 := reflect.New(d.in).Interface()
		if _, te := d.spec().decode(again, dst2); te != nil {
			t.Fatalf("%s: accepted %q, but not its re-encoding %s: %v", d.name, raw, again, te)
		}
		// Same meaning: the same JSON (an empty map and no map are alike).
		if third, _ := json.Marshal(dst2); string(third) != string(again) {
			t.Fatalf("%s: %q decoded to %s, its re-encoding to %s", d.name, raw, again, third)
		}
	})
}

// FuzzFastDecode holds the fast path of argument decoding (argcheck.go)
// to the general one: for every tool and input, the same refusal, or the
// same decoded arguments and the same audit record.
func FuzzFastDecode(f *testing.F) {
	for _, s := range []string{
		`{}`, `null`, `{"pane_id":"%1"}`, `{"pane_id":"%1","keys":"ls","enter":false,"literal":true}`,
		`{"pane_id":"%1","start":-10,"end":"-"}`, `{"pane_id":"%1","start":1.0}`, `{"pane_id":"%1","start":1e1}`,
		`{"pane_id":"%1","start":1.5}`, `{"session_id":"$1","filters":{"pane_current_command":"vim"}}`,
		`{"session_name":"s","environment":{"A":"b"},"width":80}`, `{"pane_id":"%1","enter":null}`,
		`{"operations":[{"keys":"x","pane_id":"%1"},{"keys":"y","enter":true}]}`, `{"patterns":["a","b"],"timeout":2}`,
		`{"pane_id":"%x"}`, `{"pane_id":"%1","pane_id":"%2"}`, `{"Pane_ID":"%1"}`, `{"pane_id":"%1","keys":"\u00e9\ud800"}`,
		`{"direction":"left","size":"50%"}`, `{"window_id":"@1","layout":"tiled"}`, `{"pane_id":"%1","max_lines":0}`,
	} {
		for i := range 8 {
			f.Add(uint8(i*7), []byte(s))
		}
	}
	defs := catalogue()
	f.Fuzz(func(t *testing.T, which uint8, raw []byte) {
		d := defs[int(which)%len(defs)]
		general := *d.spec()
		general.fast, general.direct = false, nil
		got, want := reflect.New(d.in).Interface(), reflect.New(d.in).Interface()
		gotArgs, gotTE := d.spec().decode(raw, got)
		wantArgs, wantTE := general.decode(raw, want)
		// Refusals are worded by the same code either way, but jsonschema
		// picks which violation to name in map order: codes are compared.
		if (gotTE == nil) != (wantTE == nil) || (gotTE != nil && gotTE.Code != wantTE.Code) {
			t.Fatalf("%s(%q): fast path %v, general %v", d.name, raw, gotTE, wantTE)
		}
		if wantTE != nil {
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s(%q): fast path decoded %+v, general %+v", d.name, raw, got, want)
		}
		if !reflect.DeepEqual(gotArgs, wantArgs) {
			t.Fatalf("%s(%q): fast path audits %v, general %v", d.name, raw, gotArgs, wantArgs)
		}
	})
}
