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

var update = flag.Bool("update", false, "rewrite the generated sections of README.md")

var readmePath = filepath.Join("..", "..", "README.md")

// TestReadme keeps the generated sections of README.md (the flags and
// environment, and the tool catalogue) equal to what the code says. Run
// `go test ./cmd/tmux-mcp -run TestReadme -update` to rewrite them.
func TestReadme(t *testing.T) {
	b, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	want := got
	for _, s := range []struct{ name, body string }{
		{"options", optionsTable()},
		{"tools", toolsTable()},
		{"scopes", scopesTable()},
	} {
		want, err = replaceSection(want, s.name, s.body)
		if err != nil {
			t.Fatal(err)
		}
	}
	if want == got {
		return
	}
	if *update {
		if err := os.WriteFile(readmePath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md is out of date: run go test ./cmd/tmux-mcp -run TestReadme -update")
}

// replaceSection replaces the lines between the markers of section name.
func replaceSection(doc, name, body string) (string, error) {
	begin := fmt.Sprintf("<!-- generated:%s begin (go test ./cmd/tmux-mcp -run TestReadme -update) -->\n", name)
	end := fmt.Sprintf("<!-- generated:%s end -->", name)
	i := strings.Index(doc, begin)
	j := strings.Index(doc, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("README.md lacks the markers %q ... %q", strings.TrimSpace(begin), end)
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
