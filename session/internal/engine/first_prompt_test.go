package engine

import "testing"

func TestStartingProgram(t *testing.T) {
	for _, c := range []struct{ program, start, want string }{
		{"tmux", "", "tmux"},                  // the default shell, not started yet
		{"tmux", "sh -c 'cat gate'", "sh"},    // a script: runsScript then says so
		{"tmux", "/usr/bin/vim notes", "vim"}, // not a shell: nothing to hold for
		{"bash", "sh -c 'exec bash'", "bash"}, // started: tmux's name stands
	} {
		if got := startingProgram(c.program, c.start); got != c.want {
			t.Errorf("startingProgram(%q, %q) = %q, want %q", c.program, c.start, got, c.want)
		}
	}
}

func TestRunsScript(t *testing.T) {
	for _, c := range []struct {
		start, program string
		want           bool
	}{
		{"", "bash", false},
		{"bash --noprofile --rcfile /x/rc", "bash", false},
		{"fish -C 'set x 1'", "fish", false},
		{"sh -c 'cat gate; read -r x'", "sh", true},
		{"/bin/bash -lc 'make'", "bash", true},
		{"sh -c 'sleep 1; exec bash'", "bash", false}, // exec'd a shell that prompts
		{"fish --command=ls", "fish", true},
	} {
		if got := runsScript(c.start, c.program); got != c.want {
			t.Errorf("runsScript(%q, %q) = %v, want %v", c.start, c.program, got, c.want)
		}
	}
}
