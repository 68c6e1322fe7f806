package session

import (
	"bytes"
	"context"
	"os/exec"
	"strconv"
	"time"

	"github.com/tmux-mcp/tmux-mcp/session/internal/agentstate"
)

// An agent CLI's own record of its conversation, read on the host the
// pane runs on, through the host's shell (one sh on this machine, one
// session on the shared connection over ssh). Claude Code keeps, in its
// config directory ($CLAUDE_CONFIG_DIR, else ~/.claude of the process),
// sessions/PID.json naming the session of the process PID, and
// projects/*/SESSION.jsonl, its transcript.

// recordScript prints the path of the transcript of the Claude Code that
// is the foreground program of the pane whose process is $1, then the
// transcript's last 256 KiB; nothing when there is none. On Linux it
// reads the program's environment for its config directory; elsewhere it
// takes the host shell's.
const recordScript = `p=$1 tp= h=$HOME c=
if [ -r "/proc/$p/stat" ]; then
{ read -r l < "/proc/$p/stat"; } 2>/dev/null || exit 0
set -- ${l##*) }
tp=$6
if [ -r "/proc/$tp/environ" ]; then
e=$(tr '\0' '\n' < "/proc/$tp/environ" 2>/dev/null)
h=$(printf '%s\n' "$e" | sed -n 's/^HOME=//p' | head -n 1)
c=$(printf '%s\n' "$e" | sed -n 's/^CLAUDE_CONFIG_DIR=//p' | head -n 1)
fi
else
tp=$(ps -o tpgid= -p "$p" 2>/dev/null | tr -d ' ')
fi
[ -n "$tp" ] || exit 0
d=${c:-$h/.claude}
f=$d/sessions/$tp.json
[ -r "$f" ] || exit 0
sid=$(sed -n 's/.*"sessionId" *: *"\([^"]*\)".*/\1/p' "$f" | head -n 1)
[ -n "$sid" ] || exit 0
for t in "$d"/projects/*/"$sid".jsonl; do
[ -r "$t" ] || continue
echo "$t"
tail -c 262144 "$t"
exit 0
done
exit 0`

// recordTimeout bounds one read of an agent CLI's record.
const recordTimeout = 5 * time.Second

// RecordAnswer returns the latest answer in the record of the agent CLI
// agent, the foreground program of the pane whose process is pid, and
// whether it keeps one there: read on the Server's host, as a one-shot.
func (h engineHost) RecordAnswer(ctx context.Context, agent, pid string) (agentstate.Recorded, bool) {
	a, ok := agentstate.AgentNamed(agent)
	if _, err := strconv.Atoi(pid); err != nil || !ok || a.Transcript != "claude" {
		return agentstate.Recorded{}, false
	}
	ctx, cancel := context.WithTimeout(ctx, recordTimeout)
	defer cancel()
	argv, err := h.host().command(ctx, "sh", []string{"-c", recordScript, "sh", pid}, oneShot)
	if err != nil {
		return agentstate.Recorded{}, false
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = procEnv(h.opts.Env)
	cmd.WaitDelay = time.Second
	cleanup, err := h.host().prepareOneShot(cmd, false)
	if err != nil {
		return agentstate.Recorded{}, false
	}
	defer cleanup()
	out, err := cmd.Output()
	if err != nil {
		if l := h.opts.Logger; l != nil {
			l.Debug("cannot read the agent's record", "pane_pid", pid, "err", err)
		}
		return agentstate.Recorded{}, false
	}
	_, tail, found := bytes.Cut(out, []byte("\n"))
	if !found {
		return agentstate.Recorded{}, false
	}
	return agentstate.ClaudeAnswer(tail), true
}
