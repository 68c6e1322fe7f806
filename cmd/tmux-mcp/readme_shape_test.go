package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readmeMaxLines bounds the README: a newcomer reads it through, and
// figures, internals and contributor material have pages of their own
// (docs/performance.md, docs/internals.md, CONTRIBUTING.md).
const readmeMaxLines = 400

// TestReadmeShape keeps the README under readmeMaxLines lines and every
// page of docs/ linked back to it.
func TestReadmeShape(t *testing.T) {
	root := filepath.Join("..", "..")
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n >= readmeMaxLines {
		t.Errorf("README.md has %d lines, want fewer than %d: move details to docs/ (figures to docs/performance.md) or CONTRIBUTING.md", n, readmeMaxLines)
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no pages in docs/: %v", err)
	}
	for _, p := range pages {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "](../README.md") {
			t.Errorf("%s does not link back to the README ([Back to the README](../README.md))", p)
		}
	}
}
