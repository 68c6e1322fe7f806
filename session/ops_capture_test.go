package session

import "testing"

// Only a target tmux can resolve to nothing but that pane skips onPane's
// lookup: names, indexes and window or session ids are looked up first.
func TestIsPaneID(t *testing.T) {
	for target, want := range map[string]bool{
		"%0": true, "%12": true,
		"%": false, "%1a": false, "% 1": false, "%-1": false, "1": false, "@1": false, "$1": false,
		"=work:": false, "work:0.1": false, "": false,
	} {
		if got := isPaneID(target); got != want {
			t.Errorf("isPaneID(%q) = %v, want %v", target, got, want)
		}
	}
}
