package controlmode

import (
	"slices"
	"testing"
)

func TestUnnested(t *testing.T) {
	env := []string{"PATH=/bin", "TMUX=/tmp/tmux-1/default,1,0", "TMUX_TMPDIR=/run", "TMUX_PANE=%3", "TMUXX=1", "HOME=/h"}
	orig := slices.Clone(env)
	got := Unnested(env)
	if want := []string{"PATH=/bin", "TMUX_TMPDIR=/run", "TMUXX=1", "HOME=/h"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if !slices.Equal(env, orig) {
		t.Errorf("the input changed to %q", env)
	}
	if got := Unnested(nil); got == nil || len(got) != 0 {
		t.Errorf("Unnested(nil): got %#v, want an empty, non-nil environment", got)
	}
}
