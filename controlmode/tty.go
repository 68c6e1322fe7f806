package controlmode

import (
	"syscall"

	"golang.org/x/term"
)

// makeRaw puts the terminal fd in raw mode, as cfmakeraw(3) does: no echo,
// no line editing and so no canonical line limit (about 4 KB), no CR/LF
// translation either way, no signals, 8-bit bytes. golang.org/x/term knows
// each system's termios requests (TCGETS on Linux, TIOCGETA on macOS and
// the BSDs), so this is the same call on every Unix tmux runs on.
func makeRaw(fd uintptr) error {
	_, err := term.MakeRaw(int(fd))
	return err
}

// dupCloseOnExec is dup(2) for a descriptor that no child inherits. It
// holds [syscall.ForkLock] from the dup until the flag is set, as the
// standard library does, so no fork can come in between.
func dupCloseOnExec(fd int) (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	nfd, err := syscall.Dup(fd)
	if err != nil {
		return -1, err
	}
	syscall.CloseOnExec(nfd)
	return nfd, nil
}
