package mcp

import (
	"context"
	"reflect"
	"sync"
)

// fakeBackend is a test double: every tool call it runs records the tool
// and its input, then panics, fails or answers as configured, else
// returns the zero value of the tool's result type.
type fakeBackend struct {
	mu      sync.Mutex
	calls   []string
	inputs  map[string]any
	panicOn string
	errs    map[string]error
	results map[string]any
}

func newFake() *fakeBackend {
	return &fakeBackend{inputs: map[string]any{}, errs: map[string]error{}, results: map[string]any{}}
}

// runTool implements toolRunner.
func (f *fakeBackend) runTool(_ context.Context, d *toolDef, in any) (any, error) {
	f.mu.Lock()
	f.calls = append(f.calls, d.name)
	f.inputs[d.name] = in
	panicOn, err, res := f.panicOn, f.errs[d.name], f.results[d.name]
	f.mu.Unlock()
	if panicOn == d.name {
		panic("fake backend: boom in " + d.name)
	}
	if res == nil {
		res = reflect.Zero(d.out).Interface()
	}
	return res, err
}

func (f *fakeBackend) called() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeBackend) input(tool string) any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.inputs[tool]
}

// noBackend runs no tool: a call that reaches it panics, which the server
// answers internal.
type noBackend struct{}

func (noBackend) runTool(_ context.Context, d *toolDef, _ any) (any, error) {
	panic("no backend: " + d.name)
}
