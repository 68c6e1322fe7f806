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
		_, te := d.spec.decode(raw, dst)
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
		if _, te := d.spec.decode(again, dst2); te != nil {
			t.Fatalf("%s: accepted %q, but not its re-encoding %s: %v", d.name, raw, again, te)
		}
		// Same meaning: the same JSON (an empty map and no map are alike).
		if third, _ := json.Marshal(dst2); string(third) != string(again) {
			t.Fatalf("%s: %q decoded to %s, its re-encoding to %s", d.name, raw, again, third)
		}
	})
}
