// Package piddir makes private directories named after the process that
// owns them, and removes those whose process is gone: a process killed by
// a signal runs no cleanup, and its directory would stay in the temporary
// directory for good.
package piddir

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Make creates a new directory in the temporary directory, readable by
// its owner only, named prefix, this process's id, a dash and a random
// number, as Sweep knows it.
func Make(prefix string) (string, error) {
	return os.MkdirTemp("", prefix+strconv.Itoa(os.Getpid())+"-")
}

// Sweep removes, beside own (a directory Make gave this process), the
// directories Make named with prefix that belong to own's owner and whose
// process no longer exists. A process that is alive, or not ours to
// signal, may still use its directory. Best effort: a directory it cannot
// read or remove stays. The owner is read from own, not asked of the
// process: the caller's package reads nothing of its environment.
func Sweep(own, prefix string) {
	ownInfo, err := os.Stat(own)
	if err != nil {
		return
	}
	ownSt, ok := ownInfo.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	dir := filepath.Dir(own)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, ok := pidOf(e.Name(), prefix)
		if !ok || !e.IsDir() || pid == os.Getpid() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		if st, ok := info.Sys().(*syscall.Stat_t); !ok || st.Uid != ownSt.Uid {
			continue // another user's
		}
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			continue
		}
		_ = os.RemoveAll(filepath.Join(dir, e.Name())) // best effort
	}
}

// pidOf reads the process id from a name Make gave: prefix, the id, a
// dash and digits.
func pidOf(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	id, n, ok := strings.Cut(rest, "-")
	if !ok || !digits(id) || !digits(n) {
		return 0, false
	}
	pid, err := strconv.Atoi(id)
	return pid, err == nil && pid > 0
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
