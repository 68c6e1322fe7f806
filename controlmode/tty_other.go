//go:build !linux

package controlmode

import "errors"

func makeRaw(fd uintptr) error {
	return errors.New("controlmode: raw terminal mode is implemented for linux only")
}
