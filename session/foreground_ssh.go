package session

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"time"
)

// fgProber is one sh on an ssh host running foregroundLoop: a look at a
// pane's foreground program is a line written and a report read on the
// shared connection's session, about a round trip, where an ssh session
// of its own took 15-20 ms here.
type fgProber struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	done chan struct{} // closed once cmd has exited
}

// startProber starts the host's prober.
func (h *sshHost) startProber(ctx context.Context, o *Options) (*fgProber, error) {
	argv, err := h.command(ctx, "sh", []string{"-c", foregroundLoop}, oneShot)
	if err != nil {
		return nil, err
	}
	// Not CommandContext: the shell outlives the call that started it.
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = procEnv(o.Env)
	cmd.WaitDelay = time.Second
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &fgProber{cmd: cmd, in: in, out: bufio.NewReader(out), done: make(chan struct{})}
	go func() {
		_ = cmd.Wait() // its end is all that matters
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the prober's process has ended.
func (p *fgProber) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop ends the prober: its input ends, which ends the loop there, and
// the local ssh is killed.
func (p *fgProber) stop() {
	_ = p.in.Close()         // Best effort: it may have gone.
	_ = p.cmd.Process.Kill() // Best effort: it may have exited.
}

// ask returns the report for the pane whose process is pid on tty. On
// an error the prober is no longer usable.
func (p *fgProber) ask(ctx context.Context, pid, tty string) (string, error) {
	if _, err := io.WriteString(p.in, pid+" "+tty+"\n"); err != nil {
		return "", err
	}
	type answer struct {
		report string
		err    error
	}
	got := make(chan answer, 1)
	go func() {
		var b strings.Builder
		for {
			line, err := p.out.ReadString('\n')
			if err != nil {
				got <- answer{err: err}
				return
			}
			if line == "end\n" {
				got <- answer{report: b.String()}
				return
			}
			b.WriteString(line)
		}
	}()
	select {
	case a := <-got:
		return a.report, a.err
	case <-ctx.Done():
		p.stop() // its reader ends with the process's output
		return "", ctx.Err()
	}
}

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
	if h.prober == nil || h.prober.exited() {
		p, err := h.startProber(ctx, o)
		if err != nil {
			return "", err
		}
		h.prober = p
	}
	report, err := h.prober.ask(ctx, pid, tty)
	if err != nil {
		h.prober.stop()
		h.prober = nil
	}
	return report, err
}

// stopProber ends the host's prober, if one runs.
func (h *sshHost) stopProber() {
	h.probing <- struct{}{}
	defer func() { <-h.probing }()
	if h.prober != nil {
		h.prober.stop()
		<-h.prober.done
		h.prober = nil
	}
}

// isClosed reports whether Close was called.
func (h *sshHost) isClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}
