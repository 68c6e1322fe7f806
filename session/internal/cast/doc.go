// Package cast writes asciicast v3 files: a terminal session as a JSON
// header line, then one JSON array per event, each timed from the event
// before it, which asciinema's player replays.
//
// A [Writer] takes a pane's output as it arrives, input and markers, and
// resizes, and keeps the file under a byte bound: an event that would pass
// it is refused with [ErrFull], and [Writer.Close] then adds one short
// marker that says why the recording ended.
//
// The format is docs.asciinema.org's "asciicast v3": the header is
// {"version":3,"term":{"cols":C,"rows":R,"type":T},"timestamp":S,...},
// an event is [interval, code, data] where interval is the seconds since
// the previous event (the header for the first), and the codes are "o"
// (output), "i" (input), "m" (marker), "r" (resize, "COLSxROWS") and "x"
// (exit status).
//
// # Concurrency
//
// A Writer is not safe for concurrent use; its recording's goroutine owns
// it.
package cast
