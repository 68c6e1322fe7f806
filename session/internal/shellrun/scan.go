package shellrun

import (
	"bytes"
	"strconv"
)

// Scan finds the markers of one call in a pane's output bytes, which may
// split a marker anywhere. Before the start marker everything is the echo
// of the typed line; after it, the command's output up to the end marker.
type Scan struct {
	m      markers
	begun  bool
	loose  bool   // the start marker may have been lost: either marker will do
	pend   []byte // bytes not yet handed on: they may begin a marker; once done, what came after
	done   bool
	status int
	fed    int64 // bytes fed so far
	outAt  int64 // the bytes fed before the output's first byte; -1 unknown
}

// NewScan returns a Scan for the markers of the line made with tag.
func NewScan(tag string) Scan { return Scan{m: newMarkers(tag), outAt: -1} }

// OutputStart returns how many bytes were fed before the command's first
// byte of output, right after the start marker (the typed line's echo
// and the marker itself), and false until the start marker was seen or
// when it was assumed (AssumeBegun).
func (s *Scan) OutputStart() (int64, bool) { return s.outAt, s.outAt >= 0 }

// Begun reports whether the start marker was seen: the shell started the
// command.
func (s *Scan) Begun() bool { return s.begun }

// Done reports whether the end marker was seen, and Status holds the
// command's exit status.
func (s *Scan) Done() bool { return s.done }

// Status is the command's exit status, once Done.
func (s *Scan) Status() int { return s.status }

// Rest returns the bytes held back: once Done, what the pane printed after
// the end marker (the next prompt).
func (s *Scan) Rest() []byte { return s.pend }

// looseCap bounds what a Scan holds while it does not know whether the
// command has started: the newest bytes are kept.
const looseCap = 256 << 10

// AssumeBegun is for a reader that lost output in which the start marker
// may have been. From here on the Scan holds what comes until it sees
// either marker: after the start marker it goes on as usual; at the end
// marker, what it held (its newest looseCap bytes) is the command's
// output.
func (s *Scan) AssumeBegun() {
	if !s.begun && !s.loose {
		s.loose, s.pend = true, nil
	}
}

// DropRest forgets the bytes held back.
func (s *Scan) DropRest() { s.pend = nil }

// Feed consumes b and returns the output bytes it holds, all of them
// after the start marker and before the end marker. It reports false if
// the end marker is malformed.
func (s *Scan) Feed(b []byte) ([]byte, bool) {
	s.pend = append(s.pend, b...)
	s.fed += int64(len(b))
	if s.done {
		return nil, true
	}
	if !s.begun && s.loose {
		i := bytes.Index(s.pend, s.m.start)
		if j := bytes.Index(s.pend, s.m.end); i < 0 && j < 0 {
			if len(s.pend) > looseCap {
				s.pend = append([]byte(nil), s.pend[len(s.pend)-looseCap:]...)
			}
			return nil, true
		} else if i < 0 || j >= 0 && j < i {
			i = -len(s.m.start) // the end came first: all of it is output
		}
		s.begun, s.loose = true, false
		s.pend = s.pend[i+len(s.m.start):]
	}
	if !s.begun {
		i := bytes.Index(s.pend, s.m.start)
		if i < 0 {
			if keep := len(s.m.start) - 1; len(s.pend) > keep {
				s.pend = append(s.pend[:0], s.pend[len(s.pend)-keep:]...)
			}
			return nil, true
		}
		s.begun = true
		s.outAt = s.fed - int64(len(s.pend)) + int64(i+len(s.m.start))
		s.pend = s.pend[i+len(s.m.start):]
	}
	if i := bytes.Index(s.pend, s.m.end); i >= 0 {
		out := s.pend[:i]
		rest := s.pend[i+len(s.m.end):]
		j := bytes.IndexByte(rest, '\a')
		if j < 0 {
			if len(rest) > 12 {
				return nil, false
			}
			s.pend = append([]byte(nil), s.pend[i:]...)
			return out, true
		}
		n, err := strconv.Atoi(string(rest[:j]))
		if err != nil {
			return nil, false
		}
		s.done, s.status = true, n
		s.pend = append([]byte(nil), rest[j+1:]...) // what follows: the next prompt
		return out, true
	}
	// Hold back a tail that may be the start of the end marker.
	hold := len(s.pend)
	for k := max(0, len(s.pend)-len(s.m.end)+1); k < len(s.pend); k++ {
		if bytes.HasPrefix(s.m.end, s.pend[k:]) {
			hold = k
			break
		}
	}
	out := s.pend[:hold]
	s.pend = append([]byte(nil), s.pend[hold:]...)
	return out, true
}
