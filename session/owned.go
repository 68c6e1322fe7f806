package session

import (
	"slices"
	"sync"
)

// MaxOwned is how many sessions one process may own on one server at once.
const MaxOwned = 64

// owned is the registry of sessions this process created, per CONTRACT §2:
// in memory only, keyed by (generation, session id), so a session id reused
// by a restarted server is never mistaken for ours. Each key holds the
// identity that created it (see [WithOwner]).
type owned struct {
	mu   sync.Mutex
	keys map[ownedKey]string // the owner
}

type ownedKey struct{ generation, session string }

// OwnedSession is one session this process created, and for whom.
type OwnedSession struct {
	ID    string
	Owner string
}

func (o *owned) add(gen, id, owner string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.keys == nil {
		o.keys = make(map[ownedKey]string)
	}
	o.keys[ownedKey{gen, id}] = owner
}

// has reports whether owner created the session.
func (o *owned) has(gen, id, owner string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	who, ok := o.keys[ownedKey{gen, id}]
	return ok && who == owner
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

// list returns the owned session ids of generation gen, whoever owns them.
func (o *owned) list(gen string) []string {
	var ids []string
	for _, s := range o.sessions(gen) {
		ids = append(ids, s.ID)
	}
	return ids
}

// sessions returns the owned sessions of generation gen, by id.
func (o *owned) sessions(gen string) []OwnedSession {
	o.mu.Lock()
	defer o.mu.Unlock()
	var ss []OwnedSession
	for k, who := range o.keys {
		if k.generation == gen {
			ss = append(ss, OwnedSession{ID: k.session, Owner: who})
		}
	}
	slices.SortFunc(ss, func(a, b OwnedSession) int { return CompareIDs(a.ID, b.ID) })
	return ss
}

func (o *owned) count(gen string) int { return len(o.list(gen)) }

// owner returns who owns the session, and whether anyone does.
func (o *owned) owner(gen, id string) (string, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	who, ok := o.keys[ownedKey{gen, id}]
	return who, ok
}
