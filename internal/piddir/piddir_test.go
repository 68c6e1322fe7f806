package piddir

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestSweep checks that Sweep removes the directories of processes that
// are gone (killed, so they removed nothing), with what they hold, and
// nothing else.
func TestSweep(t *testing.T) {
	tmp := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	const prefix = "test-dir-"
	gone := strconv.Itoa(dead.Process.Pid)
	names := map[string]bool{ // name: removed
		prefix + gone + "-123":                       true,
		prefix + strconv.Itoa(os.Getpid()) + "-456":  false, // this process
		prefix + strconv.Itoa(os.Getppid()) + "-789": false, // alive
		prefix + "123456":                            false, // no pid in the name
		prefix + gone + "-12x":                       false, // not a name Make gives
		prefix + "-" + gone + "-1":                   false,
		prefix + "0-1":                               false,
		"other-" + gone + "-1":                       false,
	}
	for n := range names {
		if err := os.MkdirAll(filepath.Join(tmp, n, "left"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, prefix+gone+"-9"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	names[prefix+gone+"-9"] = false // a file, not a directory

	if os.Getuid() == 0 { // another user's directory of a gone process stays
		other := prefix + gone + "-77"
		if err := os.Mkdir(filepath.Join(tmp, other), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(filepath.Join(tmp, other), 54321, 54321); err != nil {
			t.Fatal(err)
		}
		names[other] = false
	}
	Sweep(filepath.Join(tmp, "gone-own"), prefix) // own gone: nothing is known, nothing goes
	if _, err := os.Stat(filepath.Join(tmp, prefix+gone+"-123")); err != nil {
		t.Fatalf("a sweep beside a missing directory removed one: %v", err)
	}
	Sweep(filepath.Join(tmp, prefix+strconv.Itoa(os.Getpid())+"-456"), prefix)
	for n, removed := range names {
		_, err := os.Stat(filepath.Join(tmp, n))
		if gone := errors.Is(err, fs.ErrNotExist); gone != removed {
			t.Errorf("%s: removed %v, want %v", n, gone, removed)
		}
	}
}

func TestMake(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir, err := Make("test-dir-")
	if err != nil {
		t.Fatal(err)
	}
	if pid, ok := pidOf(filepath.Base(dir), "test-dir-"); !ok || pid != os.Getpid() {
		t.Errorf("Make gave %s: pid %d, %v; want this process's", dir, pid, ok)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("Make gave %s: %v, %v; want a directory for its owner only", dir, fi, err)
	}
}
