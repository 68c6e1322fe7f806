//go:build unix

package main

import (
	"os"
	"syscall"
)

// pollableStdin returns stdin as a file that Go's poller reads, when stdin
// is a pipe or a socket, as an MCP client gives it, and a function that
// puts it back as it was.
//
// os.Stdin is read with blocking system calls: the reading goroutine holds
// its thread and processor, and the goroutine it hands a request to waits
// for the runtime to notice, most of what a ping over stdio costs
// (docs/internals.md has the figures). A pollable stdin parks the reader
// instead, and lets a read be interrupted. A terminal is left alone: its
// O_NONBLOCK flag is shared with the shell.
func pollableStdin() (*os.File, func()) {
	keep := func() {}
	var st syscall.Stat_t
	if err := syscall.Fstat(0, &st); err != nil {
		return os.Stdin, keep
	}
	if mode := st.Mode & syscall.S_IFMT; mode != syscall.S_IFIFO && mode != syscall.S_IFSOCK {
		return os.Stdin, keep
	}
	if err := syscall.SetNonblock(0, true); err != nil {
		return os.Stdin, keep
	}
	return os.NewFile(0, "stdin"), func() { _ = syscall.SetNonblock(0, false) }
}
