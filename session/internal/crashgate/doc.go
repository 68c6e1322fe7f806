// Package crashgate keeps work that must run alone apart from work that
// may run together, within one process and across the processes that lock
// the same directory.
//
// A [Gate] is a reader–writer lock: lone holders ([Gate.Lock]) exclude
// everyone, shared holders ([Gate.RLock]) exclude only lone holders. Across
// processes it is flock(2) on a directory and on a turnstile file in it,
// and a lock another process holds too long is given up rather than waited
// on, so the guard fails open.
//
// # Concurrency
//
// A Gate is safe for concurrent use. Its two locks are taken in one order:
// the in-process reader–writer lock, then the mutex over its files.
package crashgate
