//go:build !unix

package main

import "os"

func pollableStdin() (*os.File, func()) { return os.Stdin, func() {} }
