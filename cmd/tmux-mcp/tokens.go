package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/tmux-mcp/tmux-mcp/mcp"
	"github.com/tmux-mcp/tmux-mcp/session"
)

// token is one bearer token of --auth-tokens and the identity it gives a
// client: its label (the owner of what it creates, named in the audit
// log), its safety tier and its scope; "" takes the server's flags.
type token struct {
	hash   [sha256.Size]byte // of the token: only hashes are compared
	name   string
	safety string
	scope  string
	// sockets are the tmux sockets it reaches by name besides the
	// default (sockets=a,b; "*" for all); nil when its line names none.
	sockets []string
}

// minTokenLen is the shortest token accepted: a guessable token is none.
const minTokenLen = 16

// readTokens reads a token file: one token a line, `TOKEN [safety=TIER]
// [scope=SCOPE] [name=LABEL] [sockets=NAME,...]`, '#' starting a comment line. The file must
// be a regular file that only its owner, this user, can read or write.
func readTokens(path string) ([]token, error) {
	if err := checkPrivate(path); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--auth-tokens: %w", err)
	}
	var toks []token
	seen, names := map[[sha256.Size]byte]bool{}, map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		// Errors name the line, never the token.
		where := fmt.Sprintf("--auth-tokens %s line %d", path, n)
		f := strings.Fields(line)
		if len(f[0]) < minTokenLen || strings.Contains(f[0], "=") {
			return nil, fmt.Errorf("%w: %s: the token must come first and be at least %d characters (tmux-mcp makes one if you leave out --auth-tokens)", errUsage, where, minTokenLen)
		}
		t := token{hash: sha256.Sum256([]byte(f[0])), name: fmt.Sprintf("token-%d", n)}
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "safety":
				if _, ok := mcp.ParseTier(v); !ok || v == "" {
					return nil, fmt.Errorf("%w: %s: safety=%q: want readonly, mutating or destructive", errUsage, where, v)
				}
				t.safety = v
			case "scope":
				if _, ok := mcp.ParseScope(v); !ok || v == "" {
					return nil, fmt.Errorf("%w: %s: scope=%q: want all, owned-write, owned or tagged", errUsage, where, v)
				}
				t.scope = v
			case "sockets":
				t.sockets = []string{}
				for _, n := range splitList(v, ",") {
					if n == mcp.AllSockets {
						t.sockets = append(t.sockets, n)
						continue
					}
					if err := session.CheckSocketName(n, ""); err != nil || n == "" {
						return nil, fmt.Errorf("%w: %s: sockets=%q: want socket names (tmux -L) separated by commas, or *", errUsage, where, v)
					}
					t.sockets = append(t.sockets, n)
				}
			case "name":
				if v == "" || strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
					return nil, fmt.Errorf("%w: %s: name=%q: want a label of printable characters", errUsage, where, v)
				}
				t.name = v
			default:
				return nil, fmt.Errorf("%w: %s: unknown field %q (want safety=, scope=, name= or sockets=)", errUsage, where, k)
			}
		}
		if seen[t.hash] {
			return nil, fmt.Errorf("%w: %s: the same token is on an earlier line", errUsage, where)
		}
		if names[t.name] {
			return nil, fmt.Errorf("%w: %s: name %q is on an earlier line: every token needs its own label", errUsage, where, t.name)
		}
		seen[t.hash], names[t.name] = true, true
		toks = append(toks, t)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--auth-tokens %s: %w", path, err)
	}
	if len(toks) == 0 {
		return nil, fmt.Errorf("%w: --auth-tokens %s holds no token", errUsage, path)
	}
	return toks, nil
}

// checkPrivate refuses a token file that anyone but its owner, this user,
// may read or write: a token others can read is everyone's.
func checkPrivate(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("--auth-tokens: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: --auth-tokens %s is not a regular file", errUsage, path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%w: --auth-tokens %s has mode %04o: others may read its tokens; run chmod 600 %s", errUsage, path, perm, path)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%w: --auth-tokens %s belongs to uid %d, not to this user (uid %d)", errUsage, path, st.Uid, os.Getuid())
	}
	return nil
}

// lookup returns the token that secret is, comparing in constant time
// against every token (so the time taken says nothing of which, or how
// much of one, matched).
func lookup(toks []token, secret string) (token, bool) {
	h := sha256.Sum256([]byte(secret))
	found := -1
	for i := range toks {
		if subtle.ConstantTimeCompare(h[:], toks[i].hash[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return token{}, false
	}
	return toks[found], true
}
