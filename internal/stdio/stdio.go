package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/mcp/tasks"
)

// Conn is the server's MCP connection on stdin and stdout: newline-
// delimited JSON-RPC, as the SDK's stdio transport speaks it, with three
// differences (research go-mcp-and-peers §A.2).
//
//   - A line that is not a JSON-RPC message (bad JSON, a bare number, a
//     batch, over 16 MiB) is answered with a JSON-RPC error and skipped;
//     the SDK's transport ends the session on one.
//   - At stdin EOF the requests in flight are answered before the session
//     ends, cancelled after a grace period; the SDK's transport drops them,
//     so `printf ... | tmux-mcp` printed nothing.
//   - Once the session is initialized, a plain tools/call (no _meta, so no
//     progress token; or, on a connection that never sent initialize, the
//     sessionless _meta of protocol 2026-07-28 and nothing more) takes a
//     direct lane to the tool: decoded once with encoding/json, run on its
//     own goroutine, answered here. The SDK
//     decodes every request four to six times, each time through a decoder
//     that allocates 32 KiB, which cost more than the tmux round trip
//     behind a typical call. Everything else goes to the SDK as decoded
//     messages, and the direct lane answers exactly as the SDK would
//     (TestDirectLaneAnswersAsTheSDK).
//
// One goroutine reads stdin; the SDK takes its messages through
// [Conn.Read] and writes through [Conn.Write].
type Conn struct {
	raw    io.Reader     // stdin
	in     *bufio.Reader // over raw
	out    io.Writer
	logger *slog.Logger
	tools  ToolCaller // the direct lane; nil sends every call to the SDK

	grace, cancelWait time.Duration // drainGrace and drainCancelled; tests shorten them

	// stop is cancelled to cancel every call in flight (see [Conn.Middleware]).
	stop       context.Context
	cancelCall context.CancelFunc

	startOnce  sync.Once
	msgs       chan jsonrpc.Message // for the SDK, in order; closed after the drain at EOF
	initialize bool                 // an initialize was read: no sessionless calls on the lane (reader only)
	initSeen   bool                 // initialize was read, for a version the lane serves (reader only)
	ready      bool                 // then initialized: tools/call may take the direct lane (reader only)
	closeOnce  sync.Once
	closed     chan struct{} // closed by Close
	atEOF      chan struct{} // closed when stdin has ended
	drained    chan struct{} // closed when the drain is over and the SDK sees EOF

	writeMu sync.Mutex // serializes writes to out

	mu sync.Mutex
	// inflight holds the requests read and not yet answered; a direct
	// call's entry cancels it, the SDK's are nil (the SDK cancels those).
	inflight map[jsonrpc.ID]context.CancelCauseFunc
	idle     chan struct{} // closed, and replaced, when inflight drains
}

const (
	// maxLine caps an inbound line, as the SDK's own default does.
	maxLine = sdk.DefaultMaxLineLength
	// drainGrace is how long calls in flight at EOF may run on before they
	// are cancelled; drainCancelled how long cancelled calls have to
	// answer. MCP clients send SIGTERM a few seconds after closing stdin
	// (the Go SDK after 5 s, the TypeScript SDK after 2 s), so the two
	// together stay under 5 s.
	drainGrace     = 2 * time.Second
	drainCancelled = 1500 * time.Millisecond
)

// DrainTime is the longest a drain at EOF waits for the calls in flight:
// the grace period, then the time cancelled calls have to answer. Other
// transports use it for their own shutdown.
const DrainTime = drainGrace + drainCancelled

// New returns the connection on in and out. tools, if not nil, serves
// the direct lane.
func New(in io.Reader, out io.Writer, tools ToolCaller, logger *slog.Logger) *Conn {
	stop, cancel := context.WithCancel(context.Background())
	return &Conn{
		raw:        in,
		in:         bufio.NewReaderSize(in, 64<<10),
		out:        out,
		logger:     logger,
		tools:      tools,
		grace:      drainGrace,
		cancelWait: drainCancelled,
		stop:       stop,
		cancelCall: cancel,
		msgs:       make(chan jsonrpc.Message),
		closed:     make(chan struct{}),
		inflight:   make(map[jsonrpc.ID]context.CancelCauseFunc),
		atEOF:      make(chan struct{}),
		drained:    make(chan struct{}),
		idle:       make(chan struct{}),
	}
}

// Transport returns the SDK transport whose one connection is s.
func (s *Conn) Transport() sdk.Transport { return stdioTransport{s} }

type stdioTransport struct{ s *Conn }

func (t stdioTransport) Connect(context.Context) (sdk.Connection, error) {
	t.s.startOnce.Do(func() { go t.s.readLoop() })
	return t.s, nil
}

// CancelAll cancels every tool call in flight, now and later.
func (s *Conn) CancelAll() { s.cancelCall() }

// Drained returns a channel closed once stdin has ended and the calls in
// flight then have been answered or given up: the SDK sees EOF next.
func (s *Conn) Drained() <-chan struct{} { return s.drained }

// Middleware gives every request the SDK handles a context that
// [Conn.CancelAll] cancels, so that a drain at EOF or a signal can end
// calls that would run on.
func (s *Conn) Middleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(s.stop, cancel)()
		return next(ctx, method, req)
	}
}

// Read returns the next message for the SDK.
func (s *Conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg, ok := <-s.msgs:
		if !ok {
			return nil, io.EOF
		}
		return msg, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-s.closed:
		return nil, io.EOF
	}
}

// Write writes one of the SDK's messages and retires the request it answers.
func (s *Conn) Write(_ context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	err = s.writeLine(b)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		s.answered(resp.ID)
	}
	return err
}

// Close unblocks Read, and the reading goroutine when stdin can be
// interrupted (a pollable pipe: the command makes stdin one); otherwise that
// goroutine stays blocked until the process exits.
func (s *Conn) Close() error {
	s.closeOnce.Do(func() {
		close(s.closed)
		if d, ok := s.raw.(interface{ SetReadDeadline(time.Time) error }); ok {
			_ = d.SetReadDeadline(time.Now()) // Best effort: not every file has deadlines.
		}
	})
	return nil
}

func (s *Conn) SessionID() string { return "" }

func (s *Conn) writeLine(b []byte) error {
	b = unescapeHTML(b)
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	_, err := s.out.Write(append(b, '\n'))
	return err
}

// unescapeHTML undoes encoding/json's HTML escaping of <, > and & in an
// encoded message: the SDK marshals at several depths (results, contents,
// the JSON-RPC envelope), each escaping, so "->" would reach the model as
// "-\u003e", a few bytes more and harder to read. Only a backslash that
// starts an escape counts: "\\u003c" is a backslash and "u003c".
func unescapeHTML(b []byte) []byte {
	i := bytes.Index(b, []byte(`\u00`))
	if i < 0 {
		return b
	}
	out := b[:0:0]
	last := 0
	for i >= 0 {
		if i+6 <= len(b) && escapeStarts(b, i) {
			var c byte
			switch string(b[i+2 : i+6]) {
			case "003c", "003C":
				c = '<'
			case "003e", "003E":
				c = '>'
			case "0026":
				c = '&'
			}
			if c != 0 {
				out = append(out, b[last:i]...)
				out = append(out, c)
				last = i + 6
			}
		}
		next := bytes.Index(b[i+1:], []byte(`\u00`))
		if next < 0 {
			break
		}
		i += 1 + next
	}
	if last == 0 {
		return b
	}
	return append(out, b[last:]...)
}

// escapeStarts reports whether the backslash at b[i] starts an escape: an
// even number of backslashes comes before it.
func escapeStarts(b []byte, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && b[j] == '\\'; j-- {
		n++
	}
	return n%2 == 0
}

// readLoop reads stdin to its end: each line is answered here, served on
// the direct lane, or handed to the SDK in order. At the end it drains the
// calls in flight and then lets the SDK see EOF.
func (s *Conn) readLoop() {
	for {
		line, err := s.readLine()
		if line != nil {
			if msg := s.check(line); msg != nil {
				select {
				case s.msgs <- msg:
				case <-s.closed:
					return
				}
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrDeadlineExceeded) {
				s.logger.Warn("reading stdin", "error", err)
			}
			close(s.atEOF)
			s.drain()
			close(s.drained)
			close(s.msgs)
			return
		}
	}
}

// readLine reads one line, newline included; the last may lack it. A line
// over maxLine is read to its end and returned as nil with a nil error
// after being answered. err is the read error (io.EOF at the end), returned
// with whatever was read before it.
func (s *Conn) readLine() (line []byte, err error) {
	long := false
	for {
		chunk, err := s.in.ReadSlice('\n')
		if !long {
			if len(line)+len(chunk) > maxLine {
				long, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if long {
			s.reject(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "message too long: over 16 MiB")
			return nil, err
		}
		return line, err
	}
}

// check returns the message in line for the SDK, or nil when the line is
// answered here: a line that is no message, or a call on the direct lane.
// Requests are tracked until answered.
func (s *Conn) check(line []byte) jsonrpc.Message {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return nil // blank lines are not messages
	}
	if !json.Valid(trimmed) {
		s.reject(jsonrpc.ID{}, jsonrpc.CodeParseError, "parse error: the line is not one JSON value")
		return nil
	}
	switch trimmed[0] {
	case '{':
	case '[':
		// Batches are gone since 2025-06-18.
		s.reject(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not supported")
		return nil
	default:
		s.reject(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message")
		return nil
	}
	if s.tools != nil && (s.ready || !s.initialize) && s.direct(trimmed) {
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(trimmed)
	if err != nil {
		s.reject(idOf(trimmed), jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return nil
	}
	if req, ok := msg.(*jsonrpc.Request); ok {
		if req.IsCall() {
			s.track(req.ID, nil)
		}
		switch {
		case req.Method == "tools/call":
			// A 2025-11-25 client asks for a task in params.task, which
			// the SDK would drop: the task layer reads it from _meta.
			req.Params = tasks.LegacyParams(req.Params)
		case req.Method == "notifications/cancelled":
			s.cancelled(req.Params)
		case req.Method == "initialize":
			s.initialize = true
			s.initSeen = laneServes(req.Params)
		case req.Method == "notifications/initialized":
			s.ready = s.initSeen
		}
	}
	return msg
}

// idOf returns the id of a malformed request when it has a usable one.
func idOf(b []byte) jsonrpc.ID {
	var m struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(b, &m) != nil {
		return jsonrpc.ID{}
	}
	id, err := jsonrpc.MakeID(m.ID)
	if err != nil {
		return jsonrpc.ID{}
	}
	return id
}

// reject answers a line the SDK never sees, with the id of the request
// when it has a usable one, else null.
func (s *Conn) reject(id jsonrpc.ID, code int64, msg string) {
	s.logger.Warn("rejected an inbound line", "code", code, "message", msg)
	var wire = struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      any            `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", id.Raw(), &jsonrpc.Error{Code: code, Message: msg}}
	b, err := json.Marshal(wire)
	if err != nil {
		return
	}
	_ = s.writeLine(b) // Best effort: a broken stdout ends the session anyway.
}

// track records a request as in flight; it reports false, recording
// nothing, when its id already is.
func (s *Conn) track(id jsonrpc.ID, cancel context.CancelCauseFunc) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.inflight[id]; dup {
		return false
	}
	s.inflight[id] = cancel
	return true
}

func (s *Conn) answered(id jsonrpc.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.inflight[id]; !ok {
		return
	}
	delete(s.inflight, id)
	if len(s.inflight) == 0 {
		close(s.idle)
		s.idle = make(chan struct{})
	}
}

// idleCh returns a channel closed once nothing is in flight.
func (s *Conn) idleCh() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.inflight) == 0 {
		c := make(chan struct{})
		close(c)
		return c
	}
	return s.idle
}

// drain waits, at EOF, for the requests in flight to be answered: for
// s.grace, then cancels them and waits s.cancelWait more. What is
// still unanswered after that is given up (and serve does not wait for it
// either).
func (s *Conn) drain() {
	select {
	case <-s.idleCh():
		return
	case <-time.After(s.grace):
	}
	s.logger.Info("stdin closed with calls in flight; cancelling them")
	s.CancelAll()
	select {
	case <-s.idleCh():
	case <-time.After(s.cancelWait):
		s.mu.Lock()
		n := len(s.inflight)
		s.mu.Unlock()
		s.logger.Warn("stdin closed; giving up on unanswered calls", "count", n)
	}
}
