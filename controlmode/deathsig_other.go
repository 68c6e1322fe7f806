//go:build !linux && !freebsd

package controlmode

import "os/exec"

// dieWithUs does nothing here: macOS and the other BSDs have no
// parent-death signal. The client still leaves when this process dies,
// hung up or at end of file, except a tmux 3.2 client, or a client on
// pipes that had output queued (see deathsig.go).
func dieWithUs(*exec.Cmd) {}
