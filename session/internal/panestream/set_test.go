package panestream

import (
	"context"
	"maps"
	"testing"
	"testing/synctest"
)

func TestSetGet(t *testing.T) {
	var ss Set
	a := ss.Get("%1")
	if ss.Get("%1") != a {
		t.Fatal("a second Get of one pane returned another stream")
	}
	if ss.Get("%2") == a {
		t.Fatal("two panes share a stream")
	}
}

// TestSetSourceEnded: a client's end marks the streams it delivered and
// never another client's, which a new client may be delivering already.
func TestSetSourceEnded(t *testing.T) {
	var ss Set
	old, cur, none := ss.Get("%1"), ss.Get("%2"), ss.Get("%3")
	old.Append(1, []byte("old"))
	cur.Append(2, []byte("current"))
	ss.SourceEnded(1)
	if r := old.Read(3); !r.ConnLost || r.Next != 4 {
		t.Errorf("the ended client's stream: got %+v, want connection lost at 3", r)
	}
	if r := cur.Read(0); r.ConnLost || r.Paused || r.Next != 7 || cur.Source() != 2 {
		t.Errorf("the current client's stream: got %+v, source %d; want untouched, source 2", r, cur.Source())
	}
	if r := none.Read(0); r.ConnLost || r.Next != 0 || none.Source() != 0 {
		t.Errorf("a stream with no source: got %+v, source %d; want untouched", r, none.Source())
	}
}

// TestSetEndMoved: a pane now outside the session its source's client is
// attached to has its source ended; one still there, one in a linked
// window that session also has, one whose source is no longer a client
// of ours and one with no source are left alone.
func TestSetEndMoved(t *testing.T) {
	var ss Set
	moved, stayed, linked, unknown, none := ss.Get("%1"), ss.Get("%2"), ss.Get("%3"), ss.Get("%4"), ss.Get("%5")
	moved.Append(1, []byte("a"))
	stayed.Append(1, []byte("b"))
	linked.Append(1, []byte("c"))
	unknown.Append(9, []byte("d"))
	sessionOf := func(src uint64) (string, bool) { return "$1", src == 1 } // client 1 is attached to $1
	ss.EndMoved(map[string][]string{"%1": {"$2"}, "%2": {"$1"}, "%3": {"$2", "$1"}, "%4": {"$2"}, "%5": {"$2"}}, sessionOf)
	if r := moved.Read(1); !r.ConnLost || moved.Source() != 0 {
		t.Errorf("the moved pane's stream: got %+v, source %d; want its source ended", r, moved.Source())
	}
	for name, st := range map[string]*Stream{"stayed": stayed, "linked": linked, "unknown": unknown, "none": none} {
		if r := st.Read(0); r.ConnLost {
			t.Errorf("%s: got %+v, want untouched", name, r)
		}
	}
}

func TestSetRetain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ss Set
		kept, dropped := ss.Get("%1"), ss.Get("%2")
		kept.Append(1, []byte("k"))
		dropped.Append(1, []byte("d"))
		errc := make(chan error, 1)
		go func() { errc <- dropped.Wait(context.Background(), 1) }()
		synctest.Wait()
		ss.Retain(map[string]bool{"%1": true})
		if err := <-errc; err != nil {
			t.Fatalf("the dropped pane's waiter: got %v, want nil", err)
		}
		if r := dropped.Read(0); !r.Gone {
			t.Errorf("the dropped stream: got %+v, want gone", r)
		}
		if r := kept.Read(0); r.Gone || string(r.Data) != "k" {
			t.Errorf("the kept stream: got %+v, want its output, not gone", r)
		}
		if ss.Get("%1") != kept {
			t.Error("Retain replaced a live pane's stream")
		}
		if again := ss.Get("%2"); again == dropped || again.Read(0).Gone {
			t.Error("a pane seen again after Retain did not get a new stream")
		}
	})
}

func TestSetEnds(t *testing.T) {
	var ss Set
	ss.Get("%1").Append(1, []byte("abc"))
	ss.Get("%2")
	ss.Get("%3").Pause()
	want := map[string]int64{"%1": 3, "%2": 0, "%3": 1}
	if got := ss.Ends(); !maps.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestSetHeld(t *testing.T) {
	var ss Set
	for _, pane := range []string{"%1", "%2"} {
		ss.Get(pane).Append(1, make([]byte, 3*Cap))
	}
	// Each stream keeps at most 2×Cap, plus the slack append leaves.
	if n := ss.Held(); n < 2*Cap || n > 2*3*Cap {
		t.Fatalf("got %d bytes held for 2 panes, want between %d and %d", n, 2*Cap, 2*3*Cap)
	}
}
