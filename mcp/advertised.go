package mcp

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"
)

// What tools/list sends for each tool, its input and output schemas, is
// inferred from the Go types (buildSchema) when the schemas change, not
// at every start: inferring, post-processing and encoding them took
// about 15 ms of the 20-30 ms from process start to the initialize
// answer, and encoding them again made each tools/list cost 4-5 ms.
// schemas.json holds them as they are sent; TestAdvertisedSchemas fails
// when it differs from what the types say.

//go:embed schemas.json
var schemasJSON []byte

// regenerate says how to bring schemas.json in step with the types.
const regenerate = "run go test ./mcp -run TestAdvertisedSchemas -update"

// advertisedSchemas are one tool's schemas as tools/list sends them.
type advertisedSchemas struct {
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output"`
}

// advertised returns schemas.json by tool name.
var advertised = sync.OnceValue(func() map[string]advertisedSchemas {
	var m map[string]advertisedSchemas
	if err := json.Unmarshal(schemasJSON, &m); err != nil {
		panic("mcp: schemas.json: " + err.Error() + "; " + regenerate)
	}
	return m
})

// advertise builds d's schemas from its types, as schemas.json should
// hold them.
func (d *toolDef) advertise() (advertisedSchemas, error) {
	var a advertisedSchemas
	input, err := json.Marshal(advertisedInput(d.spec().schema, d.fullInput))
	if err != nil {
		return a, fmt.Errorf("mcp: tool %s: input schema: %v", d.name, err)
	}
	output, err := outputSchema(d.out, d.outputForm)
	if err == nil {
		a.Output, err = json.Marshal(output)
	}
	if err != nil {
		return a, fmt.Errorf("mcp: tool %s: output schema: %v", d.name, err)
	}
	a.Input = input
	return a, nil
}

// encodeSchemas is the text of schemas.json for defs: one line a schema,
// so that a change to one tool's input is a one-line diff.
func encodeSchemas(defs []*toolDef) ([]byte, error) {
	b := []byte("{\n")
	for i, d := range defs {
		a, err := d.advertise()
		if err != nil {
			return nil, err
		}
		name, _ := json.Marshal(d.name)
		b = fmt.Appendf(b, "%s: {\n\"input\": %s,\n\"output\": %s\n}", name, a.Input, a.Output)
		if i < len(defs)-1 {
			b = append(b, ',')
		}
		b = append(b, '\n')
	}
	return append(b, "}\n"...), nil
}
