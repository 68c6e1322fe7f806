package mcp

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite schemas.json from the tools' types")

// TestAdvertisedSchemas keeps schemas.json, what tools/list sends, equal
// to what the tools' types say, and builds every tool's input spec, so a
// bad declaration panics here rather than at the tool's first call.
func TestAdvertisedSchemas(t *testing.T) {
	want, err := encodeSchemas(declarations())
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("schemas.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(schemasJSON, want) {
		t.Fatalf("schemas.json is not what the tools' types say; %s", regenerate)
	}
}
