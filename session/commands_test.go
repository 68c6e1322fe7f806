package session

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

// sentCommands returns the name of every tmux command the package's
// non-test files send (the first argument of controlmode.NewCommand) or
// fork (the first non-flag argument of forkTmux), with where each is. A
// name it cannot read is reported as an error: a name built at run time
// would escape the table.
func sentCommands(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	names := make(map[string]string)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || len(call.Args) == 0 {
					return true
				}
				at := fset.Position(call.Pos()).String()
				switch {
				case sel.Sel.Name == "NewCommand" && isIdent(sel.X, "controlmode"):
					got := valuesOf(fn, call.Args[0])
					if len(got) == 0 {
						t.Errorf("%s: cannot read the command name of NewCommand", at)
					}
					for _, v := range got {
						names[v] = at
					}
				case sel.Sel.Name == "forkTmux":
					var args []string
					for _, a := range call.Args[1:] {
						args = append(args, literals(a)...)
					}
					name := commandName(args)
					if name == "" {
						t.Errorf("%s: cannot read the command name of forkTmux", at)
					}
					names[name] = at
				}
				return true
			})
		}
	}
	return names
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// literals returns the string literals of e in order: e itself, the
// elements of a []string{...}, or those of append's arguments.
func literals(e ast.Expr) []string {
	switch e := e.(type) {
	case *ast.BasicLit:
		if v, err := strconv.Unquote(e.Value); err == nil && e.Kind == token.STRING {
			return []string{v}
		}
	case *ast.CompositeLit:
		var out []string
		for _, el := range e.Elts {
			out = append(out, literals(el)...)
		}
		return out
	case *ast.CallExpr:
		if isIdent(e.Fun, "append") {
			var out []string
			for _, a := range e.Args {
				out = append(out, literals(a)...)
			}
			return out
		}
	}
	return nil
}

// valuesOf returns the strings e can be in fn: a literal, or a variable
// of fn and every literal assigned to it there.
func valuesOf(fn *ast.FuncDecl, e ast.Expr) []string {
	if lit, ok := e.(*ast.BasicLit); ok {
		return literals(lit)
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		return nil
	}
	var out []string
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != len(as.Rhs) {
			return true
		}
		for i, lhs := range as.Lhs {
			if isIdent(lhs, id.Name) {
				lits := literals(as.Rhs[i])
				if len(lits) != 1 {
					return true
				}
				out = append(out, lits[0])
			}
		}
		return true
	})
	return out
}

// TestEveryCommandIsInTheTable reads the package's source for the tmux
// commands it runs: each must be in the commands table, where the ones
// that change tmux take the default on purpose. A command missing there
// would be gated, retried and counted as a change by a guess.
func TestEveryCommandIsInTheTable(t *testing.T) {
	names := sentCommands(t)
	// The reader itself must work: these are run in ways it has to see.
	for _, want := range []string{"kill-session", "list-panes", "next-window", "wait-for", "save-buffer", "new-session"} {
		if _, ok := names[want]; !ok {
			t.Errorf("the source reader missed %s", want)
		}
	}
	var missing []string
	for name, at := range names {
		if _, ok := commands[name]; !ok {
			missing = append(missing, name+" ("+at+")")
		}
	}
	slices.Sort(missing)
	for _, m := range missing {
		t.Errorf("not in the commands table: %s", m)
	}
}

// TestCommandProperties checks what the table makes of a few commands: the
// gate's hold, whether a line may be sent again, and whether a fork
// blocks.
func TestCommandProperties(t *testing.T) {
	line := func(names ...string) []controlmode.Command {
		var cmds []controlmode.Command
		for _, n := range names {
			cmds = append(cmds, controlmode.NewCommand(n))
		}
		return cmds
	}
	for _, tc := range []struct {
		name string
		hold gateHold
	}{
		{"list-panes", noHold},
		{"capture-pane", noHold},
		{"send-keys", sharedHold},
		{"new-session", sharedHold},
		{"no-such-command", sharedHold},
		{"kill-session", loneHold},
		{"break-pane", loneHold},
		{"wait-for", noHold},
	} {
		if got := holdFor(tc.name); got != tc.hold {
			t.Errorf("holdFor(%s): got %d, want %d", tc.name, got, tc.hold)
		}
	}
	for _, tc := range []struct {
		cmds []controlmode.Command
		want bool
	}{
		{line("list-sessions", "list-windows", "list-panes"), true},
		{line("display-message", "send-keys"), false},
		{line("no-such-command"), false},
		{line("wait-for"), false},
	} {
		if got := readOnly(tc.cmds); got != tc.want {
			t.Errorf("readOnly(%v): got %v, want %v", tc.cmds, got, tc.want)
		}
	}
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"wait-for", "--", "ch"}, true},
		{[]string{"-N", "wait-for", "ch"}, true},
		{[]string{"wait-for", "-S", "--", "ch"}, false},
		{[]string{"wait-for", "-U", "ch"}, false},
		{[]string{"kill-server"}, false},
		{[]string{"-N", "list-sessions"}, false},
	} {
		if got := blocking(tc.args); got != tc.want {
			t.Errorf("blocking(%q): got %v, want %v", tc.args, got, tc.want)
		}
	}
}
