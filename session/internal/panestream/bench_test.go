package panestream

import "testing"

// BenchmarkAppend is what a client's reader goroutine pays per %output
// line of a busy pane, trims included.
func BenchmarkAppend(b *testing.B) {
	p := New()
	line := []byte("yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\r\n")
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		p.Append(1, line)
	}
}

// BenchmarkRead is a reader that keeps up with a full stream: each round
// appends one line and reads it.
func BenchmarkRead(b *testing.B) {
	p := New()
	line := []byte("yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\r\n")
	p.Append(1, make([]byte, Cap))
	cursor, _ := p.Position()
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		p.Append(1, line)
		r := p.Read(cursor)
		cursor = r.Next
	}
}
