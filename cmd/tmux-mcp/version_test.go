package main

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

func TestBuildVersion(t *testing.T) {
	t.Parallel()
	const rev = "0123456789abcdef0123456789abcdef01234567"
	goSuffix := runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	for _, tc := range []struct {
		name  string
		b     build
		short string
		line  string
	}{
		{"nothing stamped", build{goVer: runtime.Version()}, "dev", "tmux-mcp dev (" + goSuffix + ")"},
		{"tag", build{version: "v1.2.3", revision: rev, time: "2026-12-01T17:21:19Z", goVer: runtime.Version()},
			"v1.2.3", "tmux-mcp v1.2.3 (commit " + rev + ", 2026-12-01T17:21:19Z, " + goSuffix + ")"},
		{"checkout without a module version", build{revision: rev, modified: true, goVer: runtime.Version()},
			"dev-0123456789ab-dirty", "tmux-mcp dev-0123456789ab-dirty (commit " + rev + ", modified, " + goSuffix + ")"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.b.short(); got != tc.short {
				t.Errorf("short: got %q, want %q", got, tc.short)
			}
			if got := tc.b.line(); got != tc.line {
				t.Errorf("line: got %q, want %q", got, tc.line)
			}
		})
	}
}

// TestVersionNamesCommit builds the command in a clone of this checkout, as
// a user who cloned it would, and checks that --version names the commit
// and the pseudo-version Go derives from it.
func TestVersionNamesCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command from a clone")
	}
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	if err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Run(); err != nil {
		t.Skip("not a git checkout")
	}
	clone := filepath.Join(t.TempDir(), "clone")
	if out, err := exec.Command("git", "clone", "-q", root, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	head, err := exec.Command("git", "-C", clone, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	rev := strings.TrimSpace(string(head))
	bin := filepath.Join(t.TempDir(), "tmux-mcp")
	// -buildvcs=auto as the Makefile passes it: it wins over a GOFLAGS
	// that turns the stamp off.
	build := exec.Command(goTool(), "build", "-buildvcs=auto", "-o", bin, "./cmd/tmux-mcp")
	build.Dir = clone
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("--version: %v", err)
	}
	got := strings.TrimSpace(string(out))
	want := regexp.MustCompile(`^tmux-mcp v\d+\.\d+\.\d+-\S*` + rev[:12] + ` \(commit ` + rev + `, \d{4}-\d\d-\d\dT[0-9:]+Z, go\S+ \S+/\S+\)$`)
	if !want.MatchString(got) {
		t.Fatalf("got %q, want it to match %s", got, want)
	}
}
