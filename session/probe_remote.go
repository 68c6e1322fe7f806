package session

import (
	"context"
	"os/exec"
	"path"
	"strings"
	"time"
)

// probeScript lists the live tmux servers of the remote host in one
// round trip: the extra paths (the operator's, first, so that a slow host
// answers them before its bound), then every socket in the directory tmux
// -L uses there, each asked for its sessions' versions with a list-sessions
// that never starts a server. $1 is tmux, $2 its -f argument; the rest are
// the extra paths. Per live socket it prints "name PATH" or "path PATH",
// then "v VERSION" per session.
const probeScript = `t=$1; f=$2; shift 2
d=${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)
probe() {
	[ -S "$2" ] || return 0
	if out=$("$t" -f "$f" -S "$2" -N list-sessions -F '#{version}' 2>&1); then
		echo "$1 $2"; printf '%s\n' "$out" | sed -n 's/^./v &/p'
	else
		case $out in *"no server running"*|*"error connecting"*) ;; *) echo "$1 $2" ;; esac
	fi
}
for s in "$@"; do probe path "$s"; done
for s in "$d"/*; do probe name "$s"; done`

// remoteProbeTimeout bounds the remote probe: one round trip, but a shell
// and a tmux client per socket on the host, which took over 2 s on a loaded
// test machine.
const remoteProbeTimeout = 5 * time.Second

// probeRemote is ProbeServers on a remote host: one one-shot shell
// through the host's connection probes every socket there. Past its bound
// it answers the servers probed so far.
func (m *Manager) probeRemote(ctx context.Context, extra []string) []ServerStatus {
	ctx, cancel := context.WithTimeout(ctx, remoteProbeTimeout)
	defer cancel()
	cfg := m.opts.ConfigFile
	if cfg == "" {
		cfg = "/dev/null" // list-sessions never starts a server, so never reads it
	}
	argv, err := m.opts.Host.command(ctx, "sh", append([]string{"-c", probeScript, "sh", m.opts.Tmux, cfg}, extra...), oneShot)
	if err != nil {
		return nil
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = procEnv(m.opts.Env)
	out, err := cmd.Output()
	if err != nil {
		m.opts.Logger.Debug("probing the remote host's servers failed", "host", m.opts.Host.String(), "err", err, "probed", len(out))
		if ctx.Err() == nil {
			return nil
		}
		// Out of time: what it printed is whole up to its last line.
		if i := strings.LastIndexByte(string(out), '\n'); i >= 0 {
			out = out[:i+1]
		} else {
			out = nil
		}
	}
	var live []ServerStatus
	seen := make(map[string]bool)
	skip := true // the version lines of a socket seen already
	for _, line := range strings.Split(string(out), "\n") {
		kind, rest, _ := strings.Cut(line, " ")
		switch kind {
		case "name", "path":
			skip = seen[rest]
			if skip {
				// An extra path that is also in the directory: named,
				// as tmux -L names it.
				if kind == "name" {
					for i := range live {
						if live[i].SocketPath == rest {
							live[i].Socket = Socket{Name: path.Base(rest)}
						}
					}
				}
				continue
			}
			seen[rest] = true
			sock := Socket{Path: rest}
			if kind == "name" {
				sock = Socket{Name: path.Base(rest)}
			}
			live = append(live, ServerStatus{Socket: sock, SocketPath: rest, Alive: true})
		case "v":
			if skip || len(live) == 0 {
				continue
			}
			st := &live[len(live)-1]
			if st.Version == "" {
				st.Version = rest
			}
			st.Sessions++
		}
	}
	return live
}
