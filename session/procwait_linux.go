//go:build linux

package session

import (
	"syscall"
	"unsafe"
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
