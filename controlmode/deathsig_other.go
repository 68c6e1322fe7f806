//go:build !linux && !freebsd

package controlmode

import "os/exec"

// dieWithUs does nothing here: macOS and the other BSDs have no
// parent-death signal. The client still leaves when this process dies,
// hung up or at end of file; only a tmux before 3.3 can keep it (see
// deathsig.go).
func dieWithUs(*exec.Cmd) {}
