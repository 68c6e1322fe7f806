package controlmode_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/fixtures/faketmux"
)

// The Open tests run in synctest bubbles over in-memory pipes: a goroutine of the
// Conn left behind fails the test, and the deadlines take no real time.

func TestOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := faketmux.New()
		id, _, _ := srv.NewSession("main")
		cl := srv.Dial([]string{"attach-session", "-t", id})
		c, err := controlmode.Open(t.Context(), cl.Stdout(), cl.Stdin(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if pid := c.Pid(); pid != 0 {
			t.Errorf("Pid of a Conn with no process: got %d, want 0", pid)
		}
		rs, err := c.Exec(t.Context(), cmd("display-message", "-p", "#{session_id}"))
		if err != nil || !slices.Equal(rs[0].Lines, []string{id}) {
			t.Fatalf("got %v, %v; want %s", rs, err, id)
		}
		if st := c.Stats(); st.Calls != 1 || st.Commands != 1 {
			t.Errorf("got %+v, want one call of one command", st)
		}
		c.Close()
		if c.Err() == nil || !errors.Is(c.Err(), controlmode.ErrClosed) {
			t.Errorf("after Close: Err is %v, want one wrapping ErrClosed", c.Err())
		}
		<-cl.Done()
		if !cl.Detached() {
			t.Error("Close did not detach the client")
		}
		if _, err := c.Exec(t.Context(), cmd("display-message", "-p", "x")); !errors.Is(err, controlmode.ErrNotSent) {
			t.Errorf("Exec after Close: got %v, want ErrNotSent", err)
		}
	})
}

// peer is the other end of a Conn's I/O: a tmux that attaches and then never leaves,
// whatever it is told. read is closed when its input ends.
type peer struct {
	r    io.ReadCloser  // the Conn's
	w    io.WriteCloser // the Conn's
	out  *io.PipeWriter
	read chan error
}

func newPeer(attach bool) *peer {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &peer{r: outR, w: inW, out: outW, read: make(chan error, 1)}
	go func() {
		if attach {
			_, _ = io.WriteString(outW, "%begin 1 260 0\n%end 1 260 0\n%session-changed $0 main\n")
		}
		sc := bufio.NewScanner(inR)
		for sc.Scan() {
		}
		p.read <- sc.Err()
	}()
	return p
}

func TestOpenCloseClosesIO(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPeer(true)
		c, err := controlmode.Open(t.Context(), p.r, p.w, nil)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		// The peer ignored the detach line: Close ended the stream itself, both ways.
		if err := <-p.read; err != nil {
			t.Errorf("the peer's input ended with %v, want EOF", err)
		}
		if _, err := io.WriteString(p.out, "%exit\n"); !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("writing to the Conn after Close: got %v, want io.ErrClosedPipe", err)
		}
	})
}

func TestOpenContextEndsBeforeAttach(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPeer(false)
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		c, err := controlmode.Open(ctx, p.r, p.w, nil)
		if c != nil || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v, %v; want the context's error", c, err)
		}
		if err := <-p.read; err != nil {
			t.Errorf("the peer's input ended with %v, want EOF", err)
		}
	})
}

func TestOpenReplyTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := faketmux.New()
		srv.NewSession("main")
		srv.Handle("display-message", func(*faketmux.Client, []string) ([]string, error) { return nil, faketmux.ErrHold })
		cl := srv.Dial(nil)
		const deadline = 5 * time.Second
		c, err := controlmode.Open(t.Context(), cl.Stdout(), cl.Stdin(), &controlmode.Options{ReplyTimeout: deadline})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		start := time.Now()
		_, err = c.Exec(t.Context(), cmd("display-message", "-p", "x"))
		if waited := time.Since(start); !errors.Is(err, controlmode.ErrUnresponsive) || waited < deadline || waited > 2*deadline {
			t.Fatalf("got %v after %v, want ErrUnresponsive after the deadline, %v", err, waited, deadline)
		}
		// No process to kill: ending the Conn closed the stream, and the client ended.
		<-cl.Done()
	})
}
