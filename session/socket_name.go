package session

import (
	"fmt"
	"strings"
	"syscall"
)

// sunPathLen is the size of a Unix socket address's path on this system
// (108 on Linux, 104 on macOS and the BSDs). tmux refuses a socket path
// of this length or longer (client.c and server.c: strlcpy into sun_path).
var sunPathLen = len(syscall.RawSockaddrUnix{}.Path)

// CheckSocketName returns why name cannot be a tmux socket name (-L), or
// nil. tmux joins a -L name to its socket directory with no check at all
// (tmux.c, expand_paths and make_label), so a name holding a slash is a
// path: "../x" reaches out of the directory, and a new server unlinks what
// is there before it listens. A name is therefore a single path element:
// no "/", no "..", no NUL, no leading "-" (which tmux would read as an
// option where a name is passed on), no control character, and short
// enough that dir/name fits a socket address. dir is the directory of
// named sockets ([SocketDir]); "" when it is not known (another host),
// when only the address's own size bounds the name.
func CheckSocketName(name, dir string) error {
	switch {
	case name == "":
		return nil
	case strings.ContainsRune(name, '/'):
		return fmt.Errorf("socket name %q holds a \"/\": it is a name, not a path", name)
	case strings.Contains(name, ".."):
		return fmt.Errorf("socket name %q holds \"..\": it is a name, not a path", name)
	case name == ".":
		return fmt.Errorf("socket name %q is the socket directory itself", name)
	case strings.HasPrefix(name, "-"):
		return fmt.Errorf("socket name %q starts with \"-\"", name)
	case strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return fmt.Errorf("socket name %q holds a NUL or another control character", name)
	}
	limit := sunPathLen - 1 // room for the NUL
	if dir != "" {
		limit -= len(dir) + 1
	}
	if len(name) > limit {
		return fmt.Errorf("socket name is %d bytes: tmux takes at most %d here (a socket address holds %d bytes, with the directory %s)",
			len(name), max(limit, 0), sunPathLen-1, dir)
	}
	return nil
}
