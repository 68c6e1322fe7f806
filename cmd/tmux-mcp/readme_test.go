package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/mcp"
)

var update = flag.Bool("update", false, "rewrite the generated sections of README.md and docs/")

// TestReadme keeps the generated sections of README.md (the flags and the
// environment) and of docs/ (the tools reference, the scopes table) equal to
// what the code says. Run `go test ./cmd/tmux-mcp -run TestReadme -update`
// to rewrite them.
func TestReadme(t *testing.T) {
	for _, doc := range []struct {
		path     string
		sections map[string]string
	}{
		{"README.md", map[string]string{"options": optionsTable()}},
		{"docs/tools.md", map[string]string{"tools": toolsTable(), "tools-reference": toolsReference()}},
		{"docs/scopes.md", map[string]string{"scopes": scopesTable()}},
	} {
		path := filepath.Join("..", "..", filepath.FromSlash(doc.path))
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got := string(b)
		want := got
		for name, body := range doc.sections {
			want, err = replaceSection(want, name, body)
			if err != nil {
				t.Fatalf("%s: %v", doc.path, err)
			}
		}
		if want == got {
			continue
		}
		if *update {
			if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s is out of date: run go test ./cmd/tmux-mcp -run TestReadme -update", doc.path)
	}
}

// replaceSection replaces the lines between the markers of section name.
func replaceSection(doc, name, body string) (string, error) {
	begin := fmt.Sprintf("<!-- generated:%s begin (go test ./cmd/tmux-mcp -run TestReadme -update) -->\n", name)
	end := fmt.Sprintf("<!-- generated:%s end -->", name)
	i := strings.Index(doc, begin)
	j := strings.Index(doc, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("no markers %q ... %q", strings.TrimSpace(begin), end)
	}
	return doc[:i+len(begin)] + body + doc[j:], nil
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// optionsTable renders the options table of --help as Markdown.
func optionsTable() string {
	var b strings.Builder
	b.WriteString("| Flag | Environment | Meaning |\n| --- | --- | --- |\n")
	for _, o := range options {
		flag, env := "", ""
		if o.flag != "" {
			flag = "`" + o.flag + "`"
		}
		if o.env != "" {
			var names []string
			for _, e := range strings.Split(o.env, ", ") {
				names = append(names, "`"+e+"`")
			}
			env = strings.Join(names, ", ")
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", flag, env, cell(o.doc))
	}
	return b.String()
}

// toolsTable renders the catalogue as Markdown, in catalogue order.
func toolsTable() string {
	var b strings.Builder
	count := map[mcp.Tier]int{}
	for _, t := range mcp.Catalogue() {
		count[t.Tier]++
	}
	fmt.Fprintf(&b, "%d tools: %d readonly, %d mutating, %d destructive. A tier includes the tiers before it; toolsets combine freely.\n\n",
		len(mcp.Catalogue()), count[mcp.TierReadonly], count[mcp.TierMutating], count[mcp.TierDestructive])
	b.WriteString("| Tool | Tier | Toolset | Hints | Description |\n| --- | --- | --- | --- | --- |\n")
	for _, t := range mcp.Catalogue() {
		h := hints(t.Annotations)
		if h == "none" {
			h = ""
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", t.Name, t.Tier, t.Toolset, h, cell(t.Description))
	}
	return b.String()
}

// toolsReference renders every tool's description and arguments, from the
// input schema the server enforces, as Markdown.
func toolsReference() string {
	var b strings.Builder
	for _, t := range mcp.Catalogue() {
		fmt.Fprintf(&b, "### `%s`\n\n%s\n\nTier %s, toolset %s; hints: %s.\n\n", t.Name, t.Description, t.Tier, t.Toolset, hints(t.Annotations))
		args := toolArgs(t.Input)
		if len(args) == 0 {
			b.WriteString("No arguments.\n\n")
			continue
		}
		b.WriteString("| Argument | Type | Default | Meaning |\n| --- | --- | --- | --- |\n")
		for _, a := range args {
			name := "`" + a.name + "`"
			if a.required {
				name += " (required)"
			}
			def := ""
			if a.def != "" {
				def = "`" + a.def + "`"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", name, cell(a.typ), cell(def), cell(a.fullDoc()))
		}
		b.WriteString("\n")
	}
	return b.String()
}
