package mcp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// unusedArgs are the input fields a tool's handler does not read, each
// with the reason; every other field must reach the handler's code.
var unusedArgs = map[string]string{
	// libtmux-mcp's argument, kept for its callers: waits wake on output.
	"wait_for_content_change.Interval": "advertised as unused",
}

// TestEveryArgumentReachesItsHandler: every field of every tool's input
// type is read by the tool's handler (in.Field, or the input or an
// embedded target passed on whole to a function of this package that
// reads it), or is listed in unusedArgs with a reason. A handler copies
// its input into session's arguments field by field, so an argument
// declared and advertised but not copied would be silently ignored; this
// test fails instead. It reads the handlers' source (go/ast), since the
// handlers call session's concrete Server.
func TestEveryArgumentReachesItsHandler(t *testing.T) {
	src := parsePackage(t)
	handlers := handlerNames(t, src)
	var wholes []string
	defer func() { t.Logf("inputs handed on whole to code not read here: %v", wholes) }()
	for _, d := range catalogue() {
		if d.batch {
			continue // its rows are calls of the other tools
		}
		method := handlers[d.name]
		fn := src.methods[method]
		if fn == nil {
			t.Errorf("%s: no handler (*TmuxBackend).%s in the source", d.name, method)
			continue
		}
		read := src.reads(fn, 1, map[funcParam]*fieldReads{})
		if read.whole {
			wholes = append(wholes, d.name)
		}
		for _, field := range leafFields(d.in) {
			key := d.name + "." + field
			_, declared := unusedArgs[key]
			switch reached := read.covers(field); {
			case !reached && !declared:
				t.Errorf("%s: argument %s is never read by (*TmuxBackend).%s: copy it into the operation's arguments, or list %q in unusedArgs with the reason", d.name, field, method, key)
			case reached && declared:
				t.Errorf("%s: %s is read by its handler but listed in unusedArgs", d.name, field)
			}
		}
	}
}

// leafFields are the Go field paths of t's JSON arguments: "Keys",
// "PaneTarget.PaneID".
func leafFields(t reflect.Type) []string {
	var out []string
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous && f.Type.Kind() == reflect.Struct {
			continue
		}
		if tag := f.Tag.Get("json"); tag == "-" {
			continue
		}
		path := f.Name
		if len(f.Index) > 1 {
			outer := t
			var names []string
			for _, i := range f.Index {
				names = append(names, outer.Field(i).Name)
				outer = outer.Field(i).Type
			}
			path = strings.Join(names, ".")
		}
		out = append(out, path)
	}
	return out
}

// fieldReads are the field paths read from one value: a path covers
// itself and every field below it ("PaneTarget" covers
// "PaneTarget.PaneID"); whole means the value was read as a whole.
type fieldReads struct {
	paths []string
	whole bool
}

func (r fieldReads) covers(field string) bool {
	if r.whole {
		return true
	}
	for _, p := range r.paths {
		if p == field || strings.HasPrefix(field, p+".") || strings.HasPrefix(p, field+".") || strings.HasSuffix(field, "."+p) {
			return true
		}
	}
	return false
}

// pkgSource is this package's non-test source: its functions by name and
// TmuxBackend's methods by name.
type pkgSource struct {
	funcs, methods map[string]*ast.FuncDecl
	files          []*ast.File
}

func parsePackage(t *testing.T) *pkgSource {
	t.Helper()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	src := &pkgSource{funcs: map[string]*ast.FuncDecl{}, methods: map[string]*ast.FuncDecl{}}
	fset := token.NewFileSet()
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		src.files = append(src.files, f)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if fn.Recv == nil {
				src.funcs[fn.Name.Name] = fn
			} else if recvName(fn) == "TmuxBackend" {
				src.methods[fn.Name.Name] = fn
			}
		}
	}
	return src
}

func recvName(fn *ast.FuncDecl) string {
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	id, _ := t.(*ast.Ident)
	if id == nil {
		return ""
	}
	return id.Name
}

// handlerNames maps each tool to its handler's method name, read from
// its addTool call: addTool("name", ..., (*TmuxBackend).Method, ...).
func handlerNames(t *testing.T, src *pkgSource) map[string]string {
	out := map[string]string{}
	for _, f := range src.files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 5 {
				return true
			}
			var fname string
			switch fun := call.Fun.(type) {
			case *ast.Ident:
				fname = fun.Name
			case *ast.IndexListExpr:
				if id, ok := fun.X.(*ast.Ident); ok {
					fname = id.Name
				}
			}
			if fname != "addTool" {
				return true
			}
			lit, ok1 := call.Args[0].(*ast.BasicLit)
			sel, ok2 := call.Args[4].(*ast.SelectorExpr)
			if !ok1 || !ok2 {
				t.Errorf("an addTool call whose name or handler is not written out: %#v", call.Args[0])
				return true
			}
			out[strings.Trim(lit.Value, `"`)] = sel.Sel.Name
			return true
		})
	}
	return out
}

// reads returns the fields that fn reads from its parameter number i (the
// receiver not counted), following the value where it is passed on whole
// to a function or TmuxBackend method of this package.
func (src *pkgSource) reads(fn *ast.FuncDecl, i int, seen map[funcParam]*fieldReads) (r fieldReads) {
	key := funcParam{fn, i}
	if done, ok := seen[key]; ok {
		return *done // read before, or a recursion (what it reads is read above)
	}
	seen[key] = &fieldReads{}
	defer func() { *seen[key] = r }()
	name := paramName(fn, i)
	if name == "" || name == "_" {
		return r
	}
	var inspect func(n ast.Node) bool
	inspect = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if path := selectorPath(n, name); path != "" {
				r.paths = append(r.paths, path)
				return false
			}
		case *ast.CallExpr:
			ast.Inspect(n.Fun, inspect)
			for j, arg := range n.Args {
				id, ok := arg.(*ast.Ident)
				callee := src.callee(n)
				if sel, isSel := arg.(*ast.SelectorExpr); isSel && callee != nil {
					// A part of the value handed on (paneRef(in.PaneTarget)):
					// the fields the callee reads of it.
					if path := selectorPath(sel, name); path != "" {
						sub := src.reads(callee, j, seen)
						if sub.whole {
							r.paths = append(r.paths, path)
						}
						for _, p := range sub.paths {
							r.paths = append(r.paths, path+"."+p)
						}
						continue
					}
				}
				if !ok || id.Name != name || callee == nil {
					ast.Inspect(arg, inspect) // a bare name here is handed on to code this test does not read
					continue
				}
				sub := src.reads(callee, j, seen)
				r.whole = r.whole || sub.whole
				r.paths = append(r.paths, sub.paths...)
			}
			return false
		case *ast.Ident:
			// Read whole in any other way (assigned, returned, a composite).
			if n.Name == name {
				r.whole = true
			}
		}
		return true
	}
	ast.Inspect(fn.Body, inspect)
	slices.Sort(r.paths)
	return r
}

// funcParam is a parameter of a function, by its number.
type funcParam struct {
	fn *ast.FuncDecl
	i  int
}

// selectorPath returns "A.B" for name.A.B, or "".
func selectorPath(s *ast.SelectorExpr, name string) string {
	var parts []string
	var x ast.Expr = s
	for {
		switch e := x.(type) {
		case *ast.SelectorExpr:
			parts = append([]string{e.Sel.Name}, parts...)
			x = e.X
			continue
		case *ast.Ident:
			if e.Name == name {
				return strings.Join(parts, ".")
			}
		}
		return ""
	}
}

// callee is the function of this package that call calls, or nil.
func (src *pkgSource) callee(call *ast.CallExpr) *ast.FuncDecl {
	switch f := call.Fun.(type) {
	case *ast.Ident:
		return src.funcs[f.Name]
	case *ast.SelectorExpr:
		if id, ok := f.X.(*ast.Ident); ok && id.Name == "b" {
			return src.methods[f.Sel.Name]
		}
	}
	return nil
}

// paramName is the name of fn's parameter number i.
func paramName(fn *ast.FuncDecl, i int) string {
	k := 0
	for _, field := range fn.Type.Params.List {
		if len(field.Names) == 0 {
			if k == i {
				return ""
			}
			k++
			continue
		}
		for _, n := range field.Names {
			if k == i {
				return n.Name
			}
			k++
		}
	}
	return ""
}
