package session

import (
	"strings"
	"testing"
)

func TestCheckSocketName(t *testing.T) {
	dir := "/tmp/tmux-1000"
	fits := strings.Repeat("a", sunPathLen-1-len(dir)-1)
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"", true},
		{"work", true},
		{"a.b-c_d", true},
		{fits, true},
		{fits + "a", false},
		{"../../victim.txt", false},
		{"a/b", false},
		{"/tmp/x", false},
		{"..", false},
		{"a..b", false},
		{".", false},
		{"-L", false},
		{"a\x00b", false},
		{"a\nb", false},
		{"a\x7fb", false},
	} {
		err := CheckSocketName(tc.name, dir)
		if (err == nil) != tc.ok {
			t.Errorf("CheckSocketName(%q): got %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
	// With no known directory only the address bounds it.
	if err := CheckSocketName(fits+"a", ""); err != nil {
		t.Errorf("CheckSocketName with no directory: got %v, want nil", err)
	}
}
