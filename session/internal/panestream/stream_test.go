package panestream

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// fired reports whether ch is closed, without waiting.
func fired(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestReadOffsets(t *testing.T) {
	p := New()
	p.Append(1, []byte("hello"))
	p.Append(1, []byte(" world"))
	for _, tc := range []struct {
		name   string
		offset int64
		data   string
	}{
		{"from the start", 0, "hello world"},
		{"from inside", 5, " world"},
		{"at the end", 11, ""},
		// A cursor from a stream since started again: nothing, and Next
		// tells the reader where the stream is.
		{"past the end", 20, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := p.Read(tc.offset)
			if string(r.Data) != tc.data || r.Next != 11 || r.Missed != 0 || r.Paused || r.ConnLost || r.Gone {
				t.Fatalf("got %+v, want data %q, next 11, nothing missed", r, tc.data)
			}
		})
	}
	r := p.Read(0)
	r.Data[0] = 'J'
	if got := p.Read(0).Data; string(got) != "hello world" {
		t.Fatalf("after changing a read's data: got %q, want the stream unchanged", got)
	}
	// No output is no change.
	_, ch := p.Position()
	p.Append(1, nil)
	if fired(ch) {
		t.Fatal("an empty append signalled a change")
	}
}

// TestCapBoundsTheBuffer writes five times Cap: the stream keeps between
// Cap and 2×Cap bytes, the newest ones, and a reader left behind is told
// how many it missed.
func TestCapBoundsTheBuffer(t *testing.T) {
	p := New()
	chunk := make([]byte, 64<<10)
	var total int64
	for i := 0; total < 5*Cap; i++ {
		for j := range chunk {
			chunk[j] = byte(i + j/251)
		}
		p.Append(1, chunk)
		total += int64(len(chunk))
		p.mu.Lock()
		held, start := len(p.data), p.start
		p.mu.Unlock()
		if held > 2*Cap || total >= Cap && held < Cap {
			t.Fatalf("after %d bytes: %d held, want between Cap and 2×Cap", total, held)
		}
		if start+int64(held) != total {
			t.Fatalf("after %d bytes: start %d + %d held, want the end at %d", total, start, held, total)
		}
	}
	r := p.Read(10)
	kept := int64(len(r.Data))
	if r.Next != total || r.Missed != total-kept-10 {
		t.Fatalf("a reader at 10: got next %d, missed %d with %d kept; want next %d, missed %d", r.Next, r.Missed, kept, total, total-kept-10)
	}
	if !bytes.Equal(r.Data[len(r.Data)-len(chunk):], chunk) {
		t.Fatal("the kept bytes do not end with the last chunk written")
	}
	// The kept bytes are the newest: those at their offsets.
	mid := r.Next - kept/2
	if got := p.Read(mid).Data; !bytes.Equal(got, r.Data[kept/2:]) {
		t.Fatalf("a reader inside what is kept: got %d bytes, want the %d after its offset", len(got), kept-kept/2)
	}
	if r.Paused || r.ConnLost {
		t.Fatalf("dropping old bytes is not a pause: got %+v", r)
	}
}

// TestLinkedWindowKeptOnce: a window linked into two watched sessions
// reaches both clients, and its output must be kept once.
func TestLinkedWindowKeptOnce(t *testing.T) {
	p := New()
	p.Append(1, []byte("ls\r\n"))
	_, ch := p.Position()
	p.Append(2, []byte("ls\r\n"))
	if fired(ch) {
		t.Error("the echo from the second client signalled a change")
	}
	p.Append(1, []byte("a b\r\n"))
	p.Append(2, []byte("a b\r\n"))
	if got := p.Read(0); string(got.Data) != "ls\r\na b\r\n" || p.Source() != 1 {
		t.Fatalf("got %q from source %d, want each line once from source 1", got.Data, p.Source())
	}
	// Once the first client has gone, the second one's output is let in,
	// after the marker where the first ended.
	p.SourceEnded(1)
	p.Append(2, []byte("$ "))
	if got := p.Read(0).Data; string(got) != "ls\r\na b\r\n\x00$ " || p.Source() != 2 {
		t.Fatalf("after the source ended: got %q from source %d, want the marker then the second client's output from source 2", got, p.Source())
	}
}

func TestAdopt(t *testing.T) {
	p := New()
	p.Adopt(5)
	p.Adopt(6) // a source already: no change
	p.Append(6, []byte("echo"))
	p.Append(5, []byte("out"))
	if got := p.Read(0).Data; string(got) != "out" || p.Source() != 5 {
		t.Fatalf("got %q from source %d, want only the adopted source's output, from 5", got, p.Source())
	}
	// A reader of a pane that has printed nothing learns that its client
	// ended.
	q := New()
	q.Adopt(7)
	off, _ := q.Position()
	q.SourceEnded(7)
	if r := q.Read(off); !r.ConnLost {
		t.Fatalf("the adopted source ended: got %+v, want ConnLost", r)
	}
}

// TestFollow: a pane that moved to another client's session takes that
// client's output from then on, after a marker readers see as the end of
// the old source; the same source again changes nothing.
func TestFollow(t *testing.T) {
	p := New()
	p.Follow(1)
	p.Append(1, []byte("one"))
	p.Follow(1)
	if r := p.Read(0); string(r.Data) != "one" || r.ConnLost || p.Source() != 1 {
		t.Fatalf("the same source: got %+v from source %d, want %q, no marker, from 1", r, p.Source(), "one")
	}
	off, ch := p.Position()
	p.Follow(2)
	p.Append(1, []byte("echo"))
	p.Append(2, []byte("two"))
	if !fired(ch) {
		t.Fatal("the change of source signalled nothing")
	}
	if r := p.Read(off); string(r.Data) != "\x00two" || !r.ConnLost || p.Source() != 2 {
		t.Fatalf("another source: got %+v from source %d, want the marker then %q, connection lost, from 2", r, p.Source(), "two")
	}
}

func TestPauseThenResumed(t *testing.T) {
	p := New()
	p.Append(1, []byte("before"))
	at, ch := p.Position()
	p.Pause()
	if !fired(ch) {
		t.Fatal("a pause signalled no change")
	}
	for _, tc := range []struct {
		name   string
		offset int64
		paused bool
	}{
		{"from the start", 0, true},
		{"at the pause", at, true},
		{"after it", at + 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := p.Read(tc.offset)
			if r.Paused != tc.paused || r.Snapshot != nil || r.Next != at+1 || r.ConnLost {
				t.Fatalf("got %+v, want paused %v, no snapshot yet, next %d", r, tc.paused, at+1)
			}
		})
	}
	if got := p.Read(0).Data; string(got) != "before\x00" {
		t.Fatalf("got %q, want a NUL where output was lost", got)
	}
	_, ch = p.Position()
	p.Resumed([]string{"screen"})
	if !fired(ch) {
		t.Fatal("resuming signalled no change")
	}
	p.Append(1, []byte("after"))
	if r := p.Read(at); !r.Paused || !slices.Equal(r.Snapshot, []string{"screen"}) || string(r.Data) != "\x00after" {
		t.Fatalf("across the pause: got %+v, want paused, the snapshot and the output after", r)
	}
	if r := p.Read(at + 1); r.Paused || r.Snapshot != nil || string(r.Data) != "after" {
		t.Fatalf("after the pause: got %+v, want only the output after", r)
	}
	// A second pause moves the marker and forgets the old snapshot.
	p.Pause()
	if r := p.Read(0); !r.Paused || r.Snapshot != nil {
		t.Fatalf("after a second pause: got %+v, want paused with no snapshot", r)
	}
	if r := p.Read(at + 1); !r.Paused {
		t.Fatalf("a reader after the first pause but before the second: got %+v, want paused", r)
	}
}

func TestSourceEnded(t *testing.T) {
	p := New()
	p.Append(1, []byte("one"))
	_, ch := p.Position()
	p.SourceEnded(2) // another source: nothing
	if r := p.Read(0); r.ConnLost || r.Paused || r.Next != 3 || fired(ch) || p.Source() != 1 {
		t.Fatalf("another source ended: got %+v, source %d; want nothing changed", r, p.Source())
	}
	p.SourceEnded(1)
	if !fired(ch) {
		t.Fatal("the source ending signalled no change")
	}
	for _, tc := range []struct {
		name   string
		offset int64
		lost   bool
	}{
		{"from the start", 0, true},
		{"at the end", 3, true},
		{"after the marker", 4, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := p.Read(tc.offset); r.ConnLost != tc.lost || r.Paused != tc.lost || r.Next != 4 {
				t.Fatalf("got %+v, want connection lost and paused %v, next 4", r, tc.lost)
			}
		})
	}
	// Ended twice: the stream has no source now, so no second marker.
	p.SourceEnded(1)
	if r := p.Read(0); r.Next != 4 || p.Source() != 0 {
		t.Fatalf("ended again: got next %d, source %d; want 4 and 0", r.Next, p.Source())
	}
}

func TestLineBefore(t *testing.T) {
	p := New()
	p.Append(1, []byte("ab\ncd"))
	for _, tc := range []struct {
		offset int64
		line   string
		known  bool
	}{
		{5, "cd", true},
		{4, "c", true},
		{3, "", true},
		{2, "ab", false},
		{0, "", false},
		{99, "cd", true}, // past the end: the end
	} {
		b, known := p.LineBefore(tc.offset)
		if string(b) != tc.line || known != tc.known {
			t.Errorf("at %d: got %q, %v; want %q, %v", tc.offset, b, known, tc.line, tc.known)
		}
	}
}

func TestPositionFiresOnAppend(t *testing.T) {
	p := New()
	off, ch := p.Position()
	if off != 0 || fired(ch) {
		t.Fatalf("a new stream: got offset %d, fired %v; want 0, not fired", off, fired(ch))
	}
	p.Append(1, []byte("x"))
	if !fired(ch) {
		t.Fatal("Append did not close the channel")
	}
	off, ch2 := p.Position()
	if off != 1 || fired(ch2) {
		t.Fatalf("after: got offset %d, fired %v; want 1 and a new channel, not fired", off, fired(ch2))
	}
}

func TestWait(t *testing.T) {
	t.Run("output after the offset", func(t *testing.T) {
		p := New()
		p.Append(1, []byte("x"))
		if err := p.Wait(t.Context(), 0); err != nil {
			t.Fatalf("got %v, want nil at once", err)
		}
	})
	t.Run("woken by Append", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := New()
			errc := make(chan error, 1)
			go func() { errc <- p.Wait(context.Background(), 0) }()
			synctest.Wait()
			if n := p.Waiters(); n != 1 {
				t.Fatalf("got %d waiters, want 1", n)
			}
			p.Append(1, []byte("x"))
			if err := <-errc; err != nil {
				t.Fatalf("got %v, want nil", err)
			}
			if n := p.Waiters(); n != 0 {
				t.Fatalf("after: got %d waiters, want 0", n)
			}
		})
	})
	t.Run("woken by Close", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := New()
			errc := make(chan error, 2)
			for range 2 {
				go func() { errc <- p.Wait(context.Background(), 0) }()
			}
			synctest.Wait()
			p.Close()
			for range 2 {
				if err := <-errc; err != nil {
					t.Fatalf("got %v, want nil", err)
				}
			}
			if r := p.Read(0); !r.Gone || len(r.Data) != 0 {
				t.Fatalf("got %+v, want gone", r)
			}
			// A closed stream does not block, and a second Close signals
			// no change.
			if err := p.Wait(context.Background(), 0); err != nil {
				t.Fatalf("waiting on a closed stream: got %v, want nil", err)
			}
			_, ch := p.Position()
			p.Close()
			if fired(ch) {
				t.Fatal("a second Close signalled a change")
			}
		})
	})
	t.Run("cancelled", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			p := New()
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() { errc <- p.Wait(ctx, 0) }()
			synctest.Wait()
			cancel()
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("got %v, want context.Canceled", err)
			}
			if n := p.Waiters(); n != 0 {
				t.Fatalf("after: got %d waiters, want 0", n)
			}
		})
	})
}

// TestWaitOrTick: a tick before any change returns ticked, with the waiter
// still counted while it blocks; a change after it returns not ticked.
func TestWaitOrTick(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := New()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		start := time.Now()
		ticked, err := p.WaitOrTick(context.Background(), 0, tick.C)
		if !ticked || err != nil || time.Since(start) != time.Second {
			t.Fatalf("got ticked %v, %v after %v; want a tick after 1s", ticked, err, time.Since(start))
		}
		type result struct {
			ticked bool
			err    error
		}
		done := make(chan result, 1)
		go func() {
			ticked, err := p.WaitOrTick(context.Background(), 0, tick.C)
			done <- result{ticked, err}
		}()
		synctest.Wait()
		if n := p.Waiters(); n != 1 {
			t.Fatalf("got %d waiters, want 1", n)
		}
		p.Append(1, []byte("x"))
		if r := <-done; r.ticked || r.err != nil {
			t.Fatalf("after output: got %+v, want woken, not ticked", r)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if ticked, err := p.WaitOrTick(ctx, 1, nil); ticked || !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled: got %v, %v; want context.Canceled", ticked, err)
		}
	})
}

func TestFollowing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := New()
		following := p.Following()
		select {
		case <-following:
			t.Fatal("closed with no reader waiting")
		default:
		}
		errc := make(chan error, 1)
		go func() { errc <- p.Wait(context.Background(), 0) }()
		synctest.Wait()
		select {
		case <-following:
		default:
			t.Fatal("still open with a reader waiting")
		}
		select {
		case <-p.Following():
		default:
			t.Fatal("asked while a reader waits: not closed at once")
		}
		p.Append(1, []byte("x"))
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		select {
		case <-p.Following():
			t.Fatal("closed once the reader left")
		default:
		}
	})
}
