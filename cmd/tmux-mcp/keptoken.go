package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// keptToken gives the token of a server started with --http and without
// --auth-tokens. The token is kept in a file of dir that only this user
// can read, one per address, and used again at the next start, so that a
// client configured with it keeps working across restarts; rotate replaces
// it with a new one. A file at that path that is a symlink, not a regular
// file, not this user's, or readable by others is refused, never followed
// or written through: a link planted there must not lead the token, or an
// overwrite, elsewhere. made says whether the token is new.
func keptToken(dir, addr string, rotate bool) (secret, path string, made bool, err error) {
	if err := privateDir(dir); err != nil {
		return "", "", false, err
	}
	path = filepath.Join(dir, "http-"+strings.NewReplacer(":", "-", "[", "", "]", "", "/", "-").Replace(addr)+".token")
	if !rotate {
		secret, err := readKeptToken(path)
		if err == nil {
			return secret, path, false, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", "", false, err
		}
	} else if err := replaceable(path); err != nil {
		return "", "", false, err
	}
	secret = rand.Text() + rand.Text() // 2 × 130 bits, base32
	f, err := os.CreateTemp(dir, filepath.Base(path)+".*")
	if err != nil {
		return "", "", false, err
	}
	_, werr := f.WriteString(secret + "\n")
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		_ = os.Remove(f.Name()) // Best effort.
		return "", "", false, err
	}
	// CreateTemp made it 0600 with O_EXCL; rename replaces the path itself,
	// never what a link there points to.
	if err := os.Rename(f.Name(), path); err != nil {
		_ = os.Remove(f.Name()) // Best effort.
		return "", "", false, err
	}
	return secret, path, true, nil
}

// privateDir makes dir (0700) if missing and refuses it unless it is a
// directory of this user's that no one else may write to or read.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("%s has mode %04o: others could read or replace the token file; run chmod 700 %s", dir, fi.Mode().Perm(), dir)
	}
	if uid, ok := owner(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("%s belongs to uid %d, not to this user (uid %d)", dir, uid, os.Getuid())
	}
	return nil
}

// readKeptToken reads the token of a kept file, refusing one that is not
// safe to trust (see keptToken). A missing file is fs.ErrNotExist.
func readKeptToken(path string) (string, error) {
	if err := regularOwn(path); err != nil {
		return "", err
	}
	// O_NOFOLLOW closes the gap between the look above and the open;
	// O_NONBLOCK keeps a FIFO put there in between from holding the open.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", fmt.Errorf("the token file %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("the token file %s is not a regular file; remove it", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return "", fmt.Errorf("the token file %s has mode %04o: others may have read the token; start with --rotate-token to replace it", path, perm)
	}
	b, err := io.ReadAll(io.LimitReader(f, 1024))
	if err != nil {
		return "", err
	}
	secret := strings.TrimSpace(string(b))
	if len(secret) < minTokenLen || strings.ContainsFunc(secret, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return "", fmt.Errorf("the token file %s holds no token; start with --rotate-token to make one", path)
	}
	return secret, nil
}

// replaceable refuses to rotate a path that is a symlink, not a regular
// file, or another user's; a missing one is fine.
func replaceable(path string) error {
	err := regularOwn(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// regularOwn looks at path without following a link: it must be a
// regular file of this user's.
func regularOwn(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("the token file %s is a symbolic link: refused, as it could lead the token elsewhere; remove it", path)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("the token file %s is not a regular file; remove it", path)
	}
	if uid, ok := owner(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("the token file %s belongs to uid %d, not to this user (uid %d)", path, uid, os.Getuid())
	}
	return nil
}

// owner returns the uid that owns a file, where the system says.
func owner(fi fs.FileInfo) (int, bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid), true
	}
	return 0, false
}

// tokenDir is where a made token is kept: $XDG_STATE_HOME/tmux-mcp, else
// ~/.local/state/tmux-mcp (state that lasts across restarts and logins,
// unlike $XDG_RUNTIME_DIR), else, with no home, a per-user directory under
// the temporary directory.
func tokenDir(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "tmux-mcp")
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "state", "tmux-mcp")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("tmux-mcp-%d", os.Getuid()))
}
