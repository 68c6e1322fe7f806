// Package rows reads tmux's row listings into Go values: it builds the -F
// format that prints one value of a kind per line, and parses those lines
// back.
//
// A [Format] is made by [New] from [Field]s, each a tmux format variable
// and how to store its value. It knows nothing of tmux releases: how a
// free-text field is printed and how its printed bytes are decoded both
// come from the caller.
//
// # Concurrency
//
// A Format does not change once built; its methods may be called from any
// goroutine.
package rows
