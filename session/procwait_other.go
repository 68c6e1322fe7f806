//go:build !linux

package session

// waitExited reports false: other systems do not tell here.
func waitExited(pid int) bool { return false }

// watchExit reports false: only Linux watches any process here.
func watchExit(pid int) (exited <-chan struct{}, stop func(), ok bool) { return nil, nil, false }
