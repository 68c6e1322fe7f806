package cast

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
	"unicode/utf8"
)

// ErrFull is what an event that would take the file past its bound gets.
var ErrFull = errors.New("the recording reached its size bound")

// closingRoom is what Close may add past the bound: one marker saying why
// the recording ended.
const closingRoom = 256

// A Header is the first line of a recording.
type Header struct {
	Cols, Rows int
	Term       string    // the terminal type, such as tmux-256color; "" leaves it out
	Start      time.Time // when the recording began: the first event is timed from it
	Title      string    // "" leaves it out
	Command    string    // what runs in the terminal; "" leaves it out
}

// A Writer writes one recording. Events are timed from the one before, so
// they must come in time order; an event dated before the previous one is
// written at the same moment.
type Writer struct {
	w       io.Writer
	max     int64 // the bound on the file's size, 0 for none
	n       int64 // bytes written
	events  int
	last    time.Time // when the previous event (or the start) was
	carry   []byte    // the start of a UTF-8 character whose end has not come yet
	buf     bytes.Buffer
	enc     *json.Encoder
	closed  bool
	lastErr error
}

// New writes h to w and returns a Writer that writes the events after it,
// keeping the file within max bytes (0: no bound).
func New(w io.Writer, h Header, max int64) (*Writer, error) {
	cw := &Writer{w: w, max: max, last: h.Start}
	cw.enc = json.NewEncoder(&cw.buf)
	cw.enc.SetEscapeHTML(false)
	type term struct {
		Cols int    `json:"cols"`
		Rows int    `json:"rows"`
		Type string `json:"type,omitempty"`
	}
	head := struct {
		Version   int    `json:"version"`
		Term      term   `json:"term"`
		Timestamp int64  `json:"timestamp"`
		Command   string `json:"command,omitempty"`
		Title     string `json:"title,omitempty"`
	}{3, term{h.Cols, h.Rows, h.Term}, h.Start.Unix(), h.Command, h.Title}
	if err := cw.enc.Encode(head); err != nil {
		return nil, err
	}
	if max > 0 && int64(cw.buf.Len()) > max {
		return nil, fmt.Errorf("%w: the header alone is %d bytes", ErrFull, cw.buf.Len())
	}
	if err := cw.flushLine(); err != nil {
		return nil, err
	}
	return cw, nil
}

// Size returns how many bytes were written.
func (cw *Writer) Size() int64 { return cw.n }

// Events returns how many events were written.
func (cw *Writer) Events() int { return cw.events }

// Output writes what the terminal printed at time at. Bytes that are not
// UTF-8 become U+FFFD; a character cut between two outputs is written
// whole with the second.
func (cw *Writer) Output(at time.Time, b []byte) error {
	data := append(cw.carry, b...)
	cut := incompleteTail(data)
	rest := data[len(data)-cut:]
	data = data[:len(data)-cut]
	if len(data) == 0 {
		cw.carry = append([]byte(nil), rest...)
		return nil
	}
	if err := cw.event(at, "o", string(data)); err != nil {
		return err
	}
	cw.carry = append([]byte(nil), rest...)
	return nil
}

// Input writes what was typed into the terminal at time at.
func (cw *Writer) Input(at time.Time, text string) error { return cw.event(at, "i", text) }

// Marker writes a marker labelled label, which players show on their
// progress bar and can pause at.
func (cw *Writer) Marker(at time.Time, label string) error { return cw.event(at, "m", label) }

// Resize writes that the terminal became cols by rows.
func (cw *Writer) Resize(at time.Time, cols, rows int) error {
	return cw.event(at, "r", strconv.Itoa(cols)+"x"+strconv.Itoa(rows))
}

// Exit writes the exit status of the terminal's program.
func (cw *Writer) Exit(at time.Time, status int) error {
	return cw.event(at, "x", strconv.Itoa(status))
}

// Close ends the recording: it writes the output still held back (a cut
// character, as U+FFFD) and, when why is not empty, a marker saying why
// it ended, which may pass the bound by a little.
func (cw *Writer) Close(at time.Time, why string) error {
	if cw.closed {
		return cw.lastErr
	}
	cw.closed = true
	if len(cw.carry) > 0 {
		_ = cw.event(at, "o", string(cw.carry)) // past the bound, dropped: it is at most 3 bytes
		cw.carry = nil
	}
	if why != "" {
		if len(why) > closingRoom-32 {
			why = why[:closingRoom-32]
		}
		cw.max = 0 // the room kept for it
		if err := cw.event(at, "m", why); err != nil {
			return err
		}
	}
	return cw.lastErr
}

// event writes one event line, or nothing and ErrFull when it would take
// the file past its bound.
func (cw *Writer) event(at time.Time, code, data string) error {
	if cw.lastErr != nil {
		return cw.lastErr
	}
	d := at.Sub(cw.last)
	if d < 0 {
		d = 0
	}
	d = d.Round(time.Microsecond)
	cw.buf.Reset()
	if err := cw.enc.Encode([]any{json.Number(strconv.FormatFloat(float64(d.Microseconds())/1e6, 'f', -1, 64)), code, data}); err != nil {
		return err
	}
	if cw.max > 0 && cw.n+int64(cw.buf.Len()) > cw.max {
		return ErrFull
	}
	if err := cw.flushLine(); err != nil {
		return err
	}
	if at.After(cw.last) {
		cw.last = at
	}
	cw.events++
	return nil
}

// flushLine writes the line in buf.
func (cw *Writer) flushLine() error {
	n, err := cw.w.Write(cw.buf.Bytes())
	cw.n += int64(n)
	if err != nil {
		cw.lastErr = err
	}
	return err
}

// incompleteTail returns how many bytes at the end of b start a UTF-8
// character that b does not finish (0 if none).
func incompleteTail(b []byte) int {
	for i := 1; i <= 3 && i <= len(b); i++ {
		c := b[len(b)-i]
		if c&0xC0 == 0x80 {
			continue // a continuation byte: look further back
		}
		if c < 0x80 {
			return 0
		}
		need := 0
		switch {
		case c&0xE0 == 0xC0:
			need = 2
		case c&0xF0 == 0xE0:
			need = 3
		case c&0xF8 == 0xF0:
			need = 4
		default:
			return 0 // not a leading byte: invalid, written as U+FFFD
		}
		if i < need && !utf8.FullRune(b[len(b)-i:]) {
			return i
		}
		return 0
	}
	return 0
}
