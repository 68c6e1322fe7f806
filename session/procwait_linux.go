//go:build linux

package session

import (
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// waitExited blocks until process pid, a child of ours, has exited,
// without reaping it, so that its owner still waits for it as usual. A
// child already reaped has exited too. It reports false when it cannot
// tell.
func waitExited(pid int) bool {
	const (
		pPID    = 1         // P_PID
		wNoWait = 0x1000000 // WNOWAIT
	)
	var info [128]byte // siginfo_t
	for {
		_, _, e := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])), syscall.WEXITED|wNoWait, 0, 0)
		switch e {
		case 0, syscall.ECHILD:
			return true
		case syscall.EINTR:
			continue
		}
		return false
	}
}

// watchExit returns a channel closed when process pid of this machine
// exits (any process, not only a child: a pidfd, waited on by the
// runtime's poller), and what stops the watch; a process that does not
// exist counts as exited. ok is false when it cannot watch: no pidfd
// (Linux before 5.10).
func watchExit(pid int) (exited <-chan struct{}, stop func(), ok bool) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err == unix.ESRCH {
		// Gone already (it may have exited as the watch was being set).
		ch := make(chan struct{})
		close(ch)
		return ch, func() {}, true
	}
	if err != nil {
		return nil, nil, false
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	rc, err := f.SyscallConn()
	if err != nil {
		_ = f.Close()
		return nil, nil, false
	}
	ch := make(chan struct{})
	go func() {
		waited := false
		// A pidfd reads as ready once the process has exited.
		if err := rc.Read(func(uintptr) bool { done := waited; waited = true; return done }); err == nil {
			close(ch)
		}
	}()
	return ch, func() { _ = f.Close() }, true
}
