//go:build !unix

package main

const stdinProbeEnv = "TMUX_MCP_TEST_STDIN_PROBE"

func probeStdin() {}
