package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK's stdio transport has two behaviours a server for agents cannot
// keep (research go-mcp-and-peers §A.2):
//
//   - any line that is not a JSON-RPC message (bad JSON, a bare number, an
//     empty batch) ends the session, and
//   - at stdin EOF the session closes at once, dropping the responses of
//     calls still in flight, so `printf ... | tmux-mcp` prints nothing.
//
// stdio wraps stdin and stdout below the SDK to fix both. Every inbound line
// is checked before the SDK sees it; a bad one is answered with a JSON-RPC
// error and skipped. Requests read are tracked until their response is
// written; at EOF the reader holds the EOF back until every tracked request
// is answered, cancelling them after a grace period, and only then lets the
// SDK see the end of input.

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

// stdio is the server's end of the stdio transport.
type stdio struct {
	in     *bufio.Reader
	out    io.Writer
	logger *slog.Logger

	grace, cancelWait time.Duration // drainGrace and drainCancelled; tests shorten them

	// stop is cancelled to cancel every call in flight (see [stdio.middleware]).
	stop       context.Context
	cancelCall context.CancelFunc

	// pending holds the bytes of the current line not yet handed to the SDK.
	// Only the SDK's one reading goroutine calls Read.
	pending   []byte
	eof       bool
	drainOnce sync.Once
	atEOF     chan struct{} // closed when stdin has ended
	drained   chan struct{} // closed when drain is over and the SDK sees EOF

	writeMu sync.Mutex // serializes writes to out: the SDK's and ours

	mu       sync.Mutex
	inflight map[jsonrpc.ID]struct{} // requests read and not yet answered
	idle     chan struct{}           // closed, and replaced, when inflight drains
}

func newStdio(in io.Reader, out io.Writer, logger *slog.Logger) *stdio {
	stop, cancel := context.WithCancel(context.Background())
	return &stdio{
		in:         bufio.NewReaderSize(in, 64<<10),
		grace:      drainGrace,
		cancelWait: drainCancelled,
		out:        out,
		logger:     logger,
		stop:       stop,
		cancelCall: cancel,
		inflight:   make(map[jsonrpc.ID]struct{}),
		atEOF:      make(chan struct{}),
		drained:    make(chan struct{}),
		idle:       make(chan struct{}),
	}
}

// transport returns the SDK transport over s.
func (s *stdio) transport() sdk.Transport {
	return &sdk.IOTransport{
		Reader:        readerFunc{s},
		Writer:        writerFunc{s},
		MaxLineLength: -1, // s enforces maxLine itself, without ending the session
	}
}

// cancelAll cancels every tool call in flight, now and later.
func (s *stdio) cancelAll() { s.cancelCall() }

// middleware gives every request a context that [stdio.cancelAll] cancels,
// so that a drain at EOF or a signal can end calls that would run on.
func (s *stdio) middleware(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(s.stop, cancel)()
		return next(ctx, method, req)
	}
}

type readerFunc struct{ s *stdio }

func (r readerFunc) Read(p []byte) (int, error) { return r.s.read(p) }
func (r readerFunc) Close() error               { return nil } // stdin cannot be unblocked; the process exits

type writerFunc struct{ s *stdio }

func (w writerFunc) Write(p []byte) (int, error) { return w.s.write(p) }
func (w writerFunc) Close() error                { return nil }

// read hands the SDK the next valid line. At the end of stdin it first
// waits for the calls in flight (see drain).
func (s *stdio) read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		if s.eof {
			// The SDK has taken every line; the requests among them are
			// tracked, so drain sees them.
			s.drainOnce.Do(func() {
				s.drain()
				close(s.drained)
			})
			return 0, io.EOF
		}
		line, err := s.readLine()
		if line != nil {
			s.pending = s.check(line)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				s.logger.Warn("reading stdin", "error", err)
			}
			s.eof = true
			close(s.atEOF)
		}
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

// readLine reads one line, newline included; the last may lack it. A line
// over maxLine is read to its end and returned as nil with a nil error
// after being answered. err is the read error (io.EOF at the end), returned
// with whatever was read before it.
func (s *stdio) readLine() (line []byte, err error) {
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

// check returns line as the SDK should read it, or nil when the line is
// not a message the SDK can take, after answering it here. Requests are
// tracked until answered.
func (s *stdio) check(line []byte) []byte {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return nil // blank lines are not messages
	}
	// One JSON value per line: the SDK's decoder would end the session on
	// anything after it (the SDK's own DecodeMessage does not check that).
	if !json.Valid(trimmed) {
		s.reject(jsonrpc.ID{}, jsonrpc.CodeParseError, "parse error: the line is not one JSON value")
		return nil
	}
	msg, err := jsonrpc.DecodeMessage(trimmed)
	switch {
	case err == nil && trimmed[0] == '{':
	case trimmed[0] == '[':
		// Batches are gone since 2025-06-18, and the SDK ends the session
		// on one it refuses.
		s.reject(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "JSON-RPC batches are not supported")
		return nil
	default:
		msg := "invalid request: not a JSON-RPC 2.0 message"
		if err != nil {
			msg = "invalid request: " + err.Error()
		}
		s.reject(idOf(trimmed), jsonrpc.CodeInvalidRequest, msg)
		return nil
	}
	if req, ok := msg.(*jsonrpc.Request); ok {
		switch {
		case req.IsCall():
			s.track(req.ID)
		case req.Method == "notifications/cancelled":
			// A cancelled request may go unanswered.
			var p struct {
				RequestID any `json:"requestId"`
			}
			if json.Unmarshal(req.Params, &p) == nil {
				if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
					s.answered(id)
				}
			}
		}
	}
	return append(trimmed, '\n')
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
func (s *stdio) reject(id jsonrpc.ID, code int64, msg string) {
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
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	_, _ = s.out.Write(append(b, '\n')) // best effort: a broken stdout ends the session anyway
}

// write passes one outbound message (the SDK writes one per call) to stdout
// and retires the request it answers.
func (s *stdio) write(p []byte) (int, error) {
	s.writeMu.Lock()
	n, err := s.out.Write(p)
	s.writeMu.Unlock()
	if id, ok := responseID(p); ok {
		s.answered(id)
	}
	return n, err
}

// responseID returns the id of the response encoded in b. It reads only as
// far as it must: the SDK writes "id" before "method", "result" and
// "error", so the first of those three keys decides. ok is false for
// requests and notifications.
func responseID(b []byte) (id jsonrpc.ID, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return id, false
	}
	var raw any
	haveID := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return id, false
		}
		switch t {
		case "id":
			if dec.Decode(&raw) != nil {
				return id, false
			}
			haveID = true
			continue
		case "method":
			return id, false
		case "result", "error":
			if !haveID {
				// Not the SDK's field order: decode it all.
				msg, err := jsonrpc.DecodeMessage(bytes.TrimSpace(b))
				if resp, isResp := msg.(*jsonrpc.Response); err == nil && isResp {
					return resp.ID, true
				}
				return id, false
			}
			id, err := jsonrpc.MakeID(raw)
			return id, err == nil
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return id, false
		}
	}
	return id, false
}

func (s *stdio) track(id jsonrpc.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inflight[id] = struct{}{}
}

func (s *stdio) answered(id jsonrpc.ID) {
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
func (s *stdio) idleCh() <-chan struct{} {
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
func (s *stdio) drain() {
	select {
	case <-s.idleCh():
		return
	case <-time.After(s.grace):
	}
	s.logger.Info("stdin closed with calls in flight; cancelling them")
	s.cancelAll()
	select {
	case <-s.idleCh():
	case <-time.After(s.cancelWait):
		s.mu.Lock()
		n := len(s.inflight)
		s.mu.Unlock()
		s.logger.Warn("stdin closed; giving up on unanswered calls", "count", n)
	}
}
