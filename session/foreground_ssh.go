package session

import (
	"context"
	"errors"

	"github.com/tmux-mcp/tmux-mcp/session/internal/foreground"
)

// foreground asks the host's prober, started on first use and again
// whenever it is found gone; one call at a time uses it.
func (h *sshHost) foreground(ctx context.Context, o *Options, pid, tty string) (string, error) {
	select {
	case h.probing <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-h.probing }()
	if h.isClosed() {
		return "", errors.New("the ssh connection to " + h.dest + " is closed")
	}
	if h.prober == nil || h.prober.Exited() {
		argv, err := h.command(ctx, "sh", foreground.LoopArgs(), oneShot)
		if err != nil {
			return "", err
		}
		if h.prober, err = foreground.StartProber(argv, procEnv(o.Env)); err != nil {
			return "", err
		}
	}
	report, err := h.prober.Ask(ctx, pid, tty)
	if err != nil {
		h.prober.Stop()
		h.prober = nil
	}
	return report, err
}

// stopProber ends the host's prober, if one runs.
func (h *sshHost) stopProber() {
	h.probing <- struct{}{}
	defer func() { <-h.probing }()
	if h.prober != nil {
		h.prober.Stop()
		<-h.prober.Done()
		h.prober = nil
	}
}

// isClosed reports whether Close was called.
func (h *sshHost) isClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}
