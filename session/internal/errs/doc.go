// Package errs is the error every operation of package session returns:
// what sort of failure it is ([Kind]), what would let it through
// ([Remedy]), whether it may have changed tmux, and how the control
// connection's errors become one. Package session re-declares its names,
// so callers see them as session's; the pane engine uses them from here.
package errs
