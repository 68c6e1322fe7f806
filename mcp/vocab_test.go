package mcp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestSessionSpeaksTmux checks that no string in the session package's
// code names a tool, a tool's argument, or a flag or environment variable
// of the command: those words are this package's, which turns session's
// Remedy into them (sessionMessage).
func TestSessionSpeaksTmux(t *testing.T) {
	words := map[string]bool{}
	for _, d := range catalogue() {
		words[d.name] = true
		for name := range d.spec().schema.Properties {
			if strings.Contains(name, "_") { // "keys" or "command" are words of tmux too
				words[name] = true
			}
		}
	}
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(filepath.Join("..", "session"), func(path string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			// A tmux format, or a lone name (a format variable, a key), is not prose.
			if err != nil || strings.Contains(s, "#{") || !strings.Contains(s, " ") {
				return true
			}
			checked++
			for _, w := range strings.FieldsFunc(s, func(r rune) bool {
				return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-'
			}) {
				if words[w] || strings.HasPrefix(w, "LIBTMUX_") || len(w) > 2 && strings.HasPrefix(w, "--") {
					t.Errorf("%s: %q names %q, a word of the MCP face", fset.Position(lit.Pos()), s, w)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked %d strings of session, want its messages", checked)
	}
}
