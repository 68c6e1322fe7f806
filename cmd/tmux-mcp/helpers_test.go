package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/session"
)

// testSocketDir is where the fixtures' tmux puts its named sockets, for the
// tests that build a session.Manager themselves instead of running cmd.
func testSocketDir() string { return session.SocketDir(os.Getenv("TMUX_TMPDIR"), os.Getuid()) }

// The black-box tests build the command once per test binary (with -race
// when the tests run with it, so the server's own races fail them too) and
// drive it over real pipes.

var (
	buildOnce sync.Once
	buildDir  string
	buildBin  string
	buildErr  error
)

func TestMain(m *testing.M) {
	switch {
	case os.Getenv(echoEnv) == "1":
		echoLines() // BenchmarkStdioToolCall's floor: this binary as a bare echo
		return
	case os.Getenv(stdinProbeEnv) == "1":
		probeStdin() // TestPollableStdin's child
		return
	}
	os.Exit(fixtures.RunTests(m, func() {
		if buildDir != "" {
			_ = os.RemoveAll(buildDir) // best effort: a temporary directory
		}
	}))
}

// binary returns the path of the built tmux-mcp.
func binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "tmux-mcp-test-")
		if buildErr != nil {
			return
		}
		buildBin = filepath.Join(buildDir, "tmux-mcp")
		args := []string{"build", "-o", buildBin}
		if raceEnabled {
			args = append(args, "-race")
		}
		cmd := exec.Command(goTool(), append(args, ".")...)
		var out []byte
		if out, buildErr = cmd.CombinedOutput(); buildErr != nil {
			buildErr = &buildError{err: buildErr, out: string(out)}
		}
	})
	if buildErr != nil {
		t.Fatalf("building tmux-mcp: %v", buildErr)
	}
	return buildBin
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// goTool finds the go command that runs these tests.
func goTool() string {
	// go test puts the GOROOT/bin of the go command that runs it first in
	// the PATH of the test binary (since Go 1.19).
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "go"
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// envLane names the environment variable that test/matrix/run sets to
// "lean" on the releases of the matrix that leave out the tests driving
// other programs (the agent CLIs, the MCP conformance suite, the node
// end-to-end test): what they check is tmux-mcp's, they run in make test
// and on the oldest and newest releases, and they take a large share of a
// release's run.
const envLane = "TMUX_MCP_TEST_LANE"

// skipOnLeanLane skips t on a lean lane of the matrix (envLane).
func skipOnLeanLane(t *testing.T) {
	t.Helper()
	if os.Getenv(envLane) == "lean" {
		t.Skip(envLane + "=lean: runs in make test and on the matrix's full lanes")
	}
}

// fxDir is the directory tmux-mcp runs in beside fx: fx's temporary one,
// so that a session it creates on fx's socket before any other (tmux
// starts it in the directory of the client that asks) never runs its
// shell in the package's directory. "" (this process's) without fx.
func fxDir(fx *fixtures.Server) string {
	if fx == nil {
		return ""
	}
	return fx.Dir
}

// childEnv is the environment of a tmux-mcp under test: this process's,
// without anything that could point it at another tmux server or change
// its configuration (TMUX, TMUX_PANE, LIBTMUX_*), with the fixture's tmux
// binary and -f /dev/null, then extra ("K=V") on top.
func childEnv(fx *fixtures.Server, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "TMUX" || name == "TMUX_PANE" || name == envConfigFile || strings.HasPrefix(name, "LIBTMUX_") ||
			name == "SHELL" || name == "ENV" || name == "BASH_ENV" {
			continue
		}
		env = append(env, kv)
	}
	// A server the binary starts runs its panes in fixtures.TestShell, as
	// the fixtures' servers do: the user's shell start-up can hang (a stale
	// pyenv rehash lock, left by a bash killed in its rc, kept every bash
	// of this machine waiting 60 s) and tests must not depend on it.
	env = append(env, "SHELL="+fixtures.TestShell)
	if fx != nil {
		env = append(env, "LIBTMUX_TMUX_BIN="+fx.Bin, envConfigFile+"=/dev/null")
	}
	return append(env, extra...)
}

// syncBuffer is a bytes.Buffer safe for a writer goroutine and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// client is an MCP client connected to a tmux-mcp process over stdio.
type client struct {
	cs     *sdk.ClientSession
	cmd    *exec.Cmd
	stderr *syncBuffer
	closed bool
}

// startClient starts tmux-mcp with args (after --socket of fx, when fx is
// not nil) and connects the Go SDK client to it over stdio, speaking
// version ("" = the client's default). The process is closed at cleanup
// if the test has not closed it.
func startClient(t *testing.T, fx *fixtures.Server, version string, args []string, env ...string) *client {
	t.Helper()
	if fx != nil {
		args = append([]string{"--socket", fx.Socket}, args...)
	}
	cmd := exec.Command(binary(t), args...)
	cmd.Env = childEnv(fx, env...)
	cmd.Dir = fxDir(fx)
	return startClientCmd(t, cmd, version)
}

// startClientCmd is startClient for a command the caller prepared.
func startClientCmd(t *testing.T, cmd *exec.Cmd, version string) *client {
	t.Helper()
	c := &client{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = c.stderr
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	mc := sdk.NewClient(&sdk.Implementation{Name: "tmux-mcp-test", Version: "0"}, nil)
	cs, err := mc.Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting to %v: %v\nstderr:\n%s", cmd.Args, err, c.stderr)
	}
	c.cs = cs
	t.Cleanup(func() {
		if !c.closed {
			_ = c.cs.Close() // the test failed before closing it
		}
	})
	return c
}

// close closes stdin and returns how the process ended (nil: exit 0).
func (c *client) close() error {
	c.closed = true
	return c.cs.Close()
}

// call runs a tool and returns its result; a protocol error fails the test.
func (c *client) call(t *testing.T, tool string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := c.cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s: protocol error: %v\nstderr:\n%s", tool, err, c.stderr)
	}
	return res
}

// ok calls a tool that must succeed and decodes its structured result into out.
func (c *client) ok(t *testing.T, tool string, args map[string]any, out any) {
	t.Helper()
	res := c.call(t, tool, args)
	if res.IsError {
		t.Fatalf("%s(%v): got error %s", tool, args, textOf(res))
	}
	if out != nil {
		decode(t, res.StructuredContent, out)
	}
}

// envelope is the error envelope of CONTRACT §3.
type envelope struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	Effects   string `json:"effects"`
	Retryable bool   `json:"retryable"`
}

// fail calls a tool that must fail and returns its envelope.
func (c *client) fail(t *testing.T, tool string, args map[string]any) envelope {
	t.Helper()
	return envelopeOf(t, c.call(t, tool, args))
}

func envelopeOf(t *testing.T, res *sdk.CallToolResult) envelope {
	t.Helper()
	if !res.IsError {
		t.Fatalf("got success %s, want an error", textOf(res))
	}
	var body struct {
		Error *envelope `json:"error"`
	}
	decode(t, res.StructuredContent, &body)
	if body.Error == nil || body.Error.Code == "" || body.Error.Effects == "" {
		t.Fatalf("structuredContent %v is not an error envelope", res.StructuredContent)
	}
	return *body.Error
}

func decode(t *testing.T, v any, out any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
}

func textOf(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// sessionIDs lists the ids of the sessions on fx's server, through a
// separate tmux process.
func sessionIDs(t *testing.T, fx *fixtures.Server) []string {
	t.Helper()
	out, err := fx.TryTmux("list-sessions", "-F", "#{session_id}")
	if err != nil {
		if strings.Contains(err.Error(), "no server running") || strings.Contains(err.Error(), "error connecting") {
			return nil
		}
		t.Fatal(err)
	}
	return strings.Fields(out)
}

// runCmd runs tmux-mcp to completion with args and env, stdin empty, and
// returns stdout, stderr and the exit code.
func runCmd(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary(t), args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("tmux-mcp %v: did not exit within 60 s\nstderr:\n%s", args, errb.String())
	}
	code = cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("tmux-mcp %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

const initialize = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
const initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

// response is a JSON-RPC response as it appears on the wire.
type response struct {
	ID     any             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func parseResponse(t testing.TB, line string) response {
	t.Helper()
	var r response
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatalf("stdout line %q: %v", line, err)
	}
	return r
}

// rawServer is tmux-mcp on plain pipes, for what a client library would
// not send.
type rawServer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	lines  chan string // stdout, line by line; closed at EOF
	stderr *syncBuffer
}

func startRaw(t testing.TB, fx *fixtures.Server, args ...string) *rawServer {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"--socket", fx.Socket}, args...)...)
	cmd.Env = childEnv(fx)
	cmd.Dir = fxDir(fx)
	r := &rawServer{cmd: cmd, lines: make(chan string, 100), stderr: &syncBuffer{}}
	cmd.Stderr = r.stderr
	var err error
	if r.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if r.stdout, err = cmd.StdoutPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(r.lines)
		sc := bufio.NewScanner(r.stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // no-op once it has exited
		_ = cmd.Wait()
	})
	return r
}

func (r *rawServer) send(t testing.TB, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(r.stdin, l+"\n"); err != nil {
			t.Fatalf("writing %q: %v", l, err)
		}
	}
}

// next returns the next stdout line, failing the test after d.
func (r *rawServer) next(t testing.TB, d time.Duration) string {
	t.Helper()
	select {
	case l, ok := <-r.lines:
		if !ok {
			t.Fatalf("stdout closed\nstderr:\n%s", r.stderr)
		}
		return l
	case <-time.After(d):
		t.Fatalf("no output within %v\nstderr:\n%s", d, r.stderr)
	}
	return ""
}

// wait waits for the process to exit and returns its exit code and every
// line it still printed.
func (r *rawServer) wait(t testing.TB, d time.Duration) (int, []string) {
	t.Helper()
	var rest []string
	deadline := time.After(d)
	for {
		select {
		case l, ok := <-r.lines:
			if ok {
				rest = append(rest, l)
				continue
			}
			err := r.cmd.Wait()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) && !errors.Is(err, os.ErrClosed) {
				t.Fatal(err)
			}
			if ws, ok := r.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				t.Fatalf("killed by %v\nstderr:\n%s", ws.Signal(), r.stderr)
			}
			return r.cmd.ProcessState.ExitCode(), rest
		case <-deadline:
			t.Fatalf("did not exit within %v\nstderr:\n%s", d, r.stderr)
		}
	}
}
