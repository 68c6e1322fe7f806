//go:build linux || freebsd

package controlmode

import (
	"os/exec"
	"syscall"
)

// dieWithUs asks the kernel to send the client SIGTERM when this process
// dies. A client is normally gone by then anyway, hung up (its terminal)
// or at end of file (its stdin pipe). But tmux before 3.3 ignores SIGHUP in
// a control client, and a server keeps a control client that had output
// queued for its dead reader, waiting for ever to write it
// (TestSIGKILLLeavesNoClient; docs/tmux.md has what each release did).
// SIGTERM ends the client process whatever state the server is in, and
// the server then drops it.
//
// Linux and FreeBSD only. The signal comes when the thread that started
// the client ends; Go ends a thread only when a goroutine locked to it
// returns, which nothing in this module or its dependencies does, so in
// practice when the process ends. A client ended early would only be
// reconnected.
func dieWithUs(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGTERM
}
