package session

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// SpawnArgs are the arguments common to everything that starts a shell.
type SpawnArgs struct {
	StartDirectory string            // "~" expands; relative to this process's directory
	Environment    map[string]string // set with -e for the new process
	// SuppressHistory asks shells not to write a history file: HISTFILE,
	// fish_history and fish_private_mode are set, and HISTCONTROL is set
	// to ignorespace.
	SuppressHistory bool
}

// historyOff is what SuppressHistory merges into the environment.
var historyOff = map[string]string{"HISTFILE": "", "fish_history": "", "fish_private_mode": "1", "HISTCONTROL": "ignorespace"}

// args returns the -c and -e flags; "~" in the start directory is home.
func (a SpawnArgs) args(home string) ([]string, error) {
	var out []string
	if a.StartDirectory != "" {
		dir := a.StartDirectory
		if dir == "~" || strings.HasPrefix(dir, "~/") {
			if home == "" {
				return nil, errorf(KindInvalid, "cannot expand ~: $HOME is not defined")
			}
			dir = filepath.Join(home, dir[1:])
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, errorf(KindInvalid, "start directory: %v", err)
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return nil, errorf(KindInvalid, "start directory %q is not an existing directory", a.StartDirectory)
		}
		// tmux expands formats in -c; a directory holds none.
		out = append(out, "-c", formatLiteral(abs))
	}
	env := make(map[string]string, len(a.Environment)+len(historyOff))
	for k, v := range a.Environment {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return nil, errorf(KindInvalid, "environment: invalid variable name %q", k)
		}
		env[k] = v
	}
	if a.SuppressHistory {
		for k, v := range historyOff {
			if old, ok := env[k]; ok && old != v {
				return nil, errorf(KindInvalid, "environment: %s=%q conflicts with keeping the shell's history off", k, old)
			}
			env[k] = v
		}
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, "-e", k+"="+env[k])
	}
	return out, nil
}
