//go:build race

package main

// raceEnabled reports whether the tests run with the race detector; the
// binary under test is then built with it too.
const raceEnabled = true
