package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const keptAddr = "127.0.0.1:7777"

// TestKeptToken: a made token is written 0600, used again at the next
// start, and replaced only when asked.
func TestKeptToken(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "tmux-mcp")
	first, path, made, err := keptToken(dir, keptAddr, false)
	if err != nil || !made {
		t.Fatalf("first start: made %v, %v", made, err)
	}
	if want := filepath.Join(dir, "http-127.0.0.1-7777.token"); path != want {
		t.Errorf("path %s, want %s", path, want)
	}
	for p, want := range map[string]fs.FileMode{dir: 0o700, path: 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: %v %v, want mode %04o", p, fi.Mode(), err, want)
		}
	}
	if b, _ := os.ReadFile(path); strings.TrimSpace(string(b)) != first || len(first) < minTokenLen {
		t.Fatalf("the file holds %q, the server uses %q", b, first)
	}

	again, path2, made, err := keptToken(dir, keptAddr, false)
	if err != nil || made || again != first || path2 != path {
		t.Fatalf("restart: got %q made %v %v, want the kept %q", again, made, err, first)
	}
	other, _, _, err := keptToken(dir, "127.0.0.1:7778", false)
	if err != nil || other == first {
		t.Fatalf("another address: got %q %v, want a token of its own", other, err)
	}

	rotated, _, made, err := keptToken(dir, keptAddr, true)
	if err != nil || !made || rotated == first {
		t.Fatalf("rotate: got %q made %v %v, want a new token", rotated, made, err)
	}
	if b, _ := os.ReadFile(path); strings.TrimSpace(string(b)) != rotated {
		t.Fatalf("after rotating, the file holds %q, want %q", b, rotated)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("after rotating: %v %v, want mode 0600", fi.Mode(), err)
	}
	if after, _, made, err := keptToken(dir, keptAddr, false); err != nil || made || after != rotated {
		t.Fatalf("restart after rotating: got %q made %v %v, want %q", after, made, err, rotated)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.token.*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestKeptTokenRefused tries the token file's path as an attacker would,
// and a careless chmod: each is refused, with or without --rotate-token
// where rotating would not mend it, and nothing changes on disk.
func TestKeptTokenRefused(t *testing.T) {
	type setup func(t *testing.T, dir, path, victim string)
	write := func(p, s string, mode fs.FileMode) {
		if err := os.WriteFile(p, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // past the umask
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		setup   setup
		rotate  []bool // the starts that must be refused
		wantErr string
	}{
		{"a symlink to a victim file", func(t *testing.T, dir, path, victim string) {
			write(victim, "victim's own text, longer than a token\n", 0o600)
			if err := os.Symlink(victim, path); err != nil {
				t.Fatal(err)
			}
		}, []bool{false, true}, "symbolic link"},
		{"a symlink to a victim that does not exist yet", func(t *testing.T, dir, path, victim string) {
			if err := os.Symlink(victim, path); err != nil {
				t.Fatal(err)
			}
		}, []bool{false, true}, "symbolic link"},
		{"a file others may read", func(t *testing.T, dir, path, victim string) {
			write(path, "0123456789abcdef0123456789abcdef\n", 0o644)
		}, []bool{false}, "--rotate-token"},
		{"a file holding no token", func(t *testing.T, dir, path, victim string) {
			write(path, "short\n", 0o600)
		}, []bool{false}, "holds no token"},
		{"a FIFO", func(t *testing.T, dir, path, victim string) {
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
		}, []bool{false, true}, "not a regular file"},
		{"a directory", func(t *testing.T, dir, path, victim string) {
			if err := os.Mkdir(path, 0o700); err != nil {
				t.Fatal(err)
			}
		}, []bool{false, true}, "not a regular file"},
		{"a directory others may enter", func(t *testing.T, dir, path, victim string) {
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}, []bool{false, true}, "chmod 700"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "tmux-mcp")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "http-127.0.0.1-7777.token")
			victim := filepath.Join(root, "victim")
			tc.setup(t, dir, path, victim)
			before := snapshotTree(t, root)
			for _, rotate := range tc.rotate {
				secret, _, _, err := keptToken(dir, keptAddr, rotate)
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("rotate %v: got %q, %v; want an error saying %q", rotate, secret, err, tc.wantErr)
				}
				if after := snapshotTree(t, root); after != before {
					t.Fatalf("rotate %v changed the disk:\nbefore:\n%s\nafter:\n%s", rotate, before, after)
				}
			}
		})
	}

	// Rotating mends a file others could read: a new token, mode 0600.
	dir := filepath.Join(t.TempDir(), "tmux-mcp")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "http-127.0.0.1-7777.token")
	old := "0123456789abcdef0123456789abcdef"
	write(path, old+"\n", 0o644)
	secret, _, made, err := keptToken(dir, keptAddr, true)
	if err != nil || !made || secret == old {
		t.Fatalf("rotating a loose file: got %q made %v %v", secret, made, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("after rotating: %v %v, want mode 0600", fi.Mode(), err)
	}
}

// snapshotTree describes every entry under root: name, type, mode, link
// target and contents (a FIFO is not opened).
func snapshotTree(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		b.WriteString(rel + " " + fi.Mode().String())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			b.WriteString(" -> " + target)
		case fi.Mode().IsRegular():
			content, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.WriteString(" " + string(content))
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestTokenDir: the kept token lasts where XDG_RUNTIME_DIR is unset too.
func TestTokenDir(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": "/home/u"}, "/home/u/.local/state/tmux-mcp"},
		{map[string]string{"HOME": "/home/u", "XDG_RUNTIME_DIR": "/run/user/1"}, "/home/u/.local/state/tmux-mcp"},
		{map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "/s"}, "/s/tmux-mcp"},
		{map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "rel"}, "/home/u/.local/state/tmux-mcp"},
	} {
		if got := tokenDir(env(tc.env)); got != tc.want {
			t.Errorf("%v: got %s, want %s", tc.env, got, tc.want)
		}
	}
	if got := tokenDir(env(nil)); !strings.HasPrefix(got, os.TempDir()) {
		t.Errorf("no HOME: got %s, want a directory under %s", got, os.TempDir())
	}
}
