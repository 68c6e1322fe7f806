package foreground

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"strings"
	"time"
)

// A Prober is one sh, on an ssh host, running the loop of [LoopArgs]: a
// look at a pane's foreground program is a line written and a report read
// on the shared connection's session, about a round trip, where an ssh
// session of its own took 15-20 ms here.
//
// Its calls: [StartProber], then [Prober.Ask] for each look while
// [Prober.Exited] is false, and [Prober.Stop] at the end (after which
// [Prober.Done] is closed once its process has exited). One Ask runs at a
// time; the caller serialises them.
type Prober struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	done chan struct{} // closed once cmd has exited
}

// StartProber starts argv, a command line that runs sh with [LoopArgs]
// on the host, with environment env.
func StartProber(argv, env []string) (*Prober, error) {
	// Not CommandContext: the shell outlives the call that started it.
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
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
	p := &Prober{cmd: cmd, in: in, out: bufio.NewReader(out), done: make(chan struct{})}
	go func() {
		_ = cmd.Wait() // its end is all that matters
		close(p.done)
	}()
	return p, nil
}

// Exited reports whether the prober's process has ended.
func (p *Prober) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Done is closed once the prober's process has ended.
func (p *Prober) Done() <-chan struct{} { return p.done }

// Stop ends the prober: its input ends, which ends the loop there, and
// the local process (ssh) is killed.
func (p *Prober) Stop() {
	_ = p.in.Close()         // Best effort: it may have gone.
	_ = p.cmd.Process.Kill() // Best effort: it may have exited.
}

// Ask returns the report for the pane whose process is pid on tty (see
// [Valid]). On an error the prober is no longer usable.
func (p *Prober) Ask(ctx context.Context, pid, tty string) (string, error) {
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
		p.Stop() // its reader ends with the process's output
		return "", ctx.Err()
	}
}
