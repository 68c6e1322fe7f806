package main

import (
	"errors"
	"io/fs"
	"os"
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

// TestVersionNamesCommit builds the command from a git repository holding
// this checkout's files, as a user who cloned it would, and checks that
// --version names the commit, its pseudo-version, and a change not committed.
func TestVersionNamesCommit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command twice")
	}
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skip("not a git checkout")
	}
	// The files as they are now, committed afresh: the version of a clone of
	// whatever is being tested, changes not yet committed included.
	repo := t.TempDir()
	for _, f := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(root, f))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted, not yet committed
		}
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(repo, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=test", "-c", "user.email=test@example.invalid"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "test")
	rev := git("rev-parse", "HEAD")

	version := func() string {
		t.Helper()
		bin := filepath.Join(t.TempDir(), "tmux-mcp")
		// -buildvcs=auto as the Makefile passes it: it wins over a GOFLAGS
		// that turns the stamp off.
		build := exec.Command(goTool(), "build", "-buildvcs=auto", "-o", bin, "./cmd/tmux-mcp")
		build.Dir = repo
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		out, err := exec.Command(bin, "--version").Output()
		if err != nil {
			t.Fatalf("--version: %v", err)
		}
		return strings.TrimSpace(string(out))
	}
	const tail = `, \d{4}-\d\d-\d\dT[0-9:]+Z, go\S+ \S+/\S+\)$`
	clean := regexp.MustCompile(`^tmux-mcp v\d+\.\d+\.\d+-\S*` + rev[:12] + ` \(commit ` + rev + tail)
	if got := version(); !clean.MatchString(got) {
		t.Fatalf("clean: got %q, want it to match %s", got, clean)
	}
	if err := os.WriteFile(filepath.Join(repo, "README.md"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dirty := regexp.MustCompile(`^tmux-mcp v\S*` + rev[:12] + `\+dirty \(commit ` + rev + `, .*, modified, go`)
	if got := version(); !dirty.MatchString(got) {
		t.Fatalf("modified: got %q, want it to match %s", got, dirty)
	}
}
