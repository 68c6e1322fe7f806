package session

import "sync"

// MaxOwned is how many sessions one process may own on one server at once.
const MaxOwned = 64

// owned is the registry of sessions this process created, per CONTRACT §2:
// in memory only, keyed by (generation, session id), so a session id reused
// by a restarted server is never mistaken for ours.
type owned struct {
	mu   sync.Mutex
	keys map[ownedKey]struct{}
}

type ownedKey struct{ generation, session string }

func (o *owned) add(gen, id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.keys == nil {
		o.keys = make(map[ownedKey]struct{})
	}
	o.keys[ownedKey{gen, id}] = struct{}{}
}

func (o *owned) has(gen, id string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, ok := o.keys[ownedKey{gen, id}]
	return ok
}

// remove reports whether the key was there.
func (o *owned) remove(gen, id string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	_, ok := o.keys[ownedKey{gen, id}]
	delete(o.keys, ownedKey{gen, id})
	return ok
}

// keep drops every key of another generation than gen: that server is gone
// and so is everything it held.
func (o *owned) keep(gen string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for k := range o.keys {
		if k.generation != gen {
			delete(o.keys, k)
		}
	}
}

// list returns the owned session ids of generation gen.
func (o *owned) list(gen string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var ids []string
	for k := range o.keys {
		if k.generation == gen {
			ids = append(ids, k.session)
		}
	}
	return ids
}

func (o *owned) count(gen string) int { return len(o.list(gen)) }
