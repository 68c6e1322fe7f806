package controlmode

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// fakeTmux is a scripted tmux for a Conn: it hands the lines the Conn
// writes to the test one at a time, and the test writes tmux's side.
type fakeTmux struct {
	lines chan string // each line the Conn wrote; closed at the end of its input
	out   *io.PipeWriter
	n     int // reply numbers
}

// startFake runs a Conn with opts against a fakeTmux. Call it inside a
// synctest bubble: the Conn's goroutines and timers then belong to it.
func startFake(t *testing.T, opts *Options) (*Conn, *fakeTmux) {
	t.Helper()
	ourR, tmuxW := io.Pipe()
	tmuxR, ourW := io.Pipe()
	c := newConn(opts)
	c.r, c.w = ourR, ourW
	c.run()
	f := &fakeTmux{lines: make(chan string), out: tmuxW}
	go func() {
		defer close(f.lines)
		r := bufio.NewReader(tmuxR)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			f.lines <- strings.TrimSuffix(line, "\n")
		}
	}()
	t.Cleanup(func() {
		_ = tmuxW.Close() // ends the Conn's stream if it is still up
		c.Close()
		for range f.lines { // let the line reader finish
		}
	})
	return c, f
}

// reply answers one command with a flags-1 block holding body.
func (f *fakeTmux) reply(t *testing.T, body string) {
	t.Helper()
	f.n++
	g := fmt.Sprintf(" 1796000000 %d 1", f.n)
	if _, err := io.WriteString(f.out, "%begin"+g+"\n"+body+"\n%end"+g+"\n"); err != nil {
		t.Fatalf("fake tmux: writing a reply: %v", err)
	}
}

// next returns the next line the Conn wrote.
func (f *fakeTmux) next(t *testing.T) string {
	t.Helper()
	line, ok := <-f.lines
	if !ok {
		t.Fatal("fake tmux: the Conn's input ended")
	}
	return line
}

type execResult struct {
	err     error
	elapsed time.Duration
}

// goExec runs Exec of a display-message on its own goroutine.
func goExec(c *Conn, text string) <-chan execResult {
	ch := make(chan execResult, 1)
	go func() {
		start := time.Now()
		_, err := c.Exec(context.Background(), NewCommand("display-message", "-p").Text(text))
		ch <- execResult{err, time.Since(start)}
	}()
	return ch
}

func TestReplyTimeout(t *testing.T) {
	const d = 10 * time.Second
	t.Run("slow replies in a pipeline do not trip it", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, f := startFake(t, &Options{ReplyTimeout: d})
			a, b := goExec(c, "a"), goExec(c, "b")
			f.next(t)
			f.next(t)
			// Each reply comes 8 s after the one before it: the second
			// call waits 16 s in all, but only 8 as the oldest.
			time.Sleep(8 * time.Second)
			f.reply(t, "a")
			time.Sleep(8 * time.Second)
			f.reply(t, "b")
			for _, ch := range []<-chan execResult{a, b} {
				if r := <-ch; r.err != nil {
					t.Fatalf("got %v, want a reply", r.err)
				}
			}
			// Idle for longer than the deadline: nothing is due.
			time.Sleep(3 * d)
			if err := c.Err(); err != nil {
				t.Fatalf("an idle connection ended: %v", err)
			}
		})
	})
	t.Run("a stuck tmux fails every waiting call at the deadline", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, f := startFake(t, &Options{ReplyTimeout: d})
			first := goExec(c, "answered")
			f.next(t)
			f.reply(t, "answered")
			if r := <-first; r.err != nil {
				t.Fatalf("got %v, want a reply", r.err)
			}
			// tmux reads the next two lines and answers neither.
			stuck, behind := goExec(c, "stuck"), goExec(c, "behind")
			f.next(t)
			f.next(t)
			// Then it stops reading: it takes in one more line, the
			// writer of the next blocks on the pipe, and the one after
			// that is never written.
			read := goExec(c, "read")
			synctest.Wait()
			writing := goExec(c, "writing")
			synctest.Wait()
			unsent := goExec(c, "unsent")
			synctest.Wait()
			start := time.Now()
			for name, ch := range map[string]<-chan execResult{"stuck": stuck, "behind": behind, "read": read, "writing": writing} {
				r := <-ch
				if !errors.Is(r.err, ErrUnresponsive) || !errors.Is(r.err, ErrClosed) || errors.Is(r.err, ErrNotSent) {
					t.Errorf("%s: got %v, want ErrUnresponsive and ErrClosed, not ErrNotSent", name, r.err)
				}
			}
			if r := <-unsent; !errors.Is(r.err, ErrNotSent) || !errors.Is(r.err, ErrUnresponsive) {
				t.Errorf("unsent: got %v, want ErrNotSent and ErrUnresponsive", r.err)
			}
			if waited := time.Since(start); waited != d {
				t.Errorf("calls failed %v after the oldest was written, want %v", waited, d)
			}
			<-c.Done()
			if err := c.Err(); !errors.Is(err, ErrUnresponsive) {
				t.Errorf("Err: got %v, want ErrUnresponsive", err)
			}
			// New calls are refused, as on any ended connection.
			if r := <-goExec(c, "late"); !errors.Is(r.err, ErrNotSent) {
				t.Errorf("a call after the end: got %v, want ErrNotSent", r.err)
			}
			for range f.lines { // what the fake had left unread
			}
		})
	})
	t.Run("zero means no deadline", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, f := startFake(t, nil)
			r := goExec(c, "slow")
			f.next(t)
			time.Sleep(time.Hour)
			if err := c.Err(); err != nil {
				t.Fatalf("ended with no deadline set: %v", err)
			}
			f.reply(t, "slow")
			if res := <-r; res.err != nil {
				t.Fatalf("got %v, want a reply", res.err)
			}
		})
	})
}
