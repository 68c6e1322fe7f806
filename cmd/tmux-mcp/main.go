// Command tmux-mcp serves tmux to AI agents over the Model Context Protocol.
//
// It speaks MCP on stdin and stdout, where an MCP client starts it as a
// subprocess, or with --http over streamable HTTP to many clients at once,
// each authenticated by a bearer token that is its identity (http.go). Every tmux server it drives is reached through one persistent
// control-mode client (tmux -C). `tmux-mcp --help` lists the flags and the
// environment; `tmux-mcp tools` the tools they expose; `tmux-mcp call TOOL
// key=value ...` runs one tool from a shell.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/tmux-mcp/tmux-mcp/internal/stdio"
	"github.com/tmux-mcp/tmux-mcp/mcp"
	"github.com/tmux-mcp/tmux-mcp/session"
)

// teardownTimeout bounds --teardown-on-exit.
const teardownTimeout = 10 * time.Second

// memoryLimit is the process's soft memory limit, unless GOMEMLIMIT sets
// another.
const memoryLimit = 40 << 20

func main() {
	if os.Getenv("GOGC") == "" {
		// The live heap is small (a few MiB, plus at most 2 MiB of output
		// per followed pane) while the MCP SDK allocates hundreds of KiB per
		// call: collecting less often took 10-15% off the median tool call
		// here. GOGC in the environment still wins.
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// GOGC 400 lets the heap grow to five times what is live, and a
		// flood of output makes garbage fast: four panes printing without
		// pause took the process to 108 MiB. A soft limit makes the
		// collector work harder only near it (TestFloodMemoryOverStdio).
		debug.SetMemoryLimit(memoryLimit)
	}
	if os.Getenv("GOMAXPROCS") == "" {
		// One client's calls, each mostly a wait on tmux: a second P only
		// adds thread wake-ups (futex calls, costly in a VM) between the
		// goroutine that reads a line and the one that runs it; with one,
		// send_keys was faster in paired runs and nothing slower
		// (docs/internals.md). GOMAXPROCS in the environment still wins.
		runtime.GOMAXPROCS(1)
	}
	stdin, restore := pollableStdin()
	code := run(os.Args[1:], stdin, os.Stdout, os.Stderr, os.Getenv)
	restore()
	os.Exit(code)
}

// run is the whole program: it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	cfg, err := parseConfig(args, getenv)
	if err != nil {
		fmt.Fprintf(stderr, "tmux-mcp: %v\nRun tmux-mcp --help for usage.\n", err)
		return exitUsage
	}
	switch {
	case cfg.help:
		usage(stdout)
		return exitOK
	case cfg.version:
		fmt.Fprintln(stdout, versionLine())
		return exitOK
	}
	// The subcommands print results, not a log: only warnings reach stderr.
	level := slog.LevelInfo
	if cfg.command != "" {
		level = slog.LevelWarn
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	for _, w := range cfg.warnings {
		logger.Warn(w)
	}
	cfg.readProcess(getenv)
	host, err := newHost(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "tmux-mcp: %v\n", err)
		return exitFailure
	}
	if host != nil {
		defer host.Close() // after the Manager: its clients detach first
	}
	manager := session.NewManager(&session.Options{
		Tmux:       cfg.tmux,
		ConfigFile: cfg.configFile,
		Logger:     logger,
		Pipes:      cfg.pipes,
		// The liveness deadline: see session.Options.ReplyDeadline.
		ReplyDeadline: cfg.replyDeadline,
		Host:          host,
		SocketDir:     cfg.socketDir,
		Env:           cfg.env,
		HomeDir:       cfg.homeDir,
	})
	defer manager.Close()
	backend := mcp.NewTmuxBackend(manager, &mcp.TmuxOptions{
		Socket:          cfg.socket,
		SelfPane:        cfg.selfPane,
		SelfSocketPath:  cfg.selfSocketPath,
		WaitMax:         cfg.waitMax,
		SuppressHistory: cfg.suppressHistory,
		RecordDir:       filepath.Join(cfg.tokenDir, "recordings"),
	})
	server, err := mcp.NewServer(backend, serverOptions(cfg, logger))
	if err != nil {
		fmt.Fprintf(stderr, "tmux-mcp: %v\n", err)
		if errors.Is(err, mcp.ErrUsage) {
			return exitUsage
		}
		return exitFailure
	}

	switch cfg.command {
	case "tools":
		if cfg.callTool != "" {
			return describe(server, cfg.callTool, stdout, stderr)
		}
		return listTools(server.Server, stdout, stderr)
	case "call":
		code := callTool(server, cfg.callTool, cfg.callArgs, stdout, stderr)
		if cfg.teardownOnExit {
			teardown(manager, logger)
		}
		return code
	}
	if cfg.httpAddr != "" {
		return serveHTTP(cfg, server, backend, manager, stderr, logger)
	}
	return serve(server, manager, cfg, stdin, stdout, logger)
}

// serverOptions are the MCP server's options the flags ask for.
func serverOptions(cfg *config, logger *slog.Logger) *mcp.Options {
	sockets := cfg.sockets
	if sockets == nil && cfg.httpAddr != "" {
		// Over HTTP a client reaches the default server only, unless
		// --sockets or its token's line names more.
		sockets = []string{}
	}
	return &mcp.Options{
		Safety:        cfg.safety,
		Toolsets:      cfg.toolsets,
		Tools:         cfg.tools,
		ExcludeTools:  cfg.excludeTools,
		Scope:         cfg.scope,
		AllowSessions: cfg.allowSessions,
		Sockets:       sockets,
		Version:       versionString(),
		Logger:        logger,
	}
}

// serve runs the MCP session on stdin/stdout until stdin ends or a signal
// arrives.
func serve(server *mcp.Server, manager *session.Manager, cfg *config, stdin io.Reader, stdout io.Writer, logger *slog.Logger) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	st := stdio.New(stdin, stdout, server, logger)
	server.AddReceivingMiddleware(st.Middleware)

	// A client that stops reading must not kill the process with SIGPIPE
	// (Go's default for fd 1) before --teardown-on-exit runs: with SIGPIPE
	// notified, the write fails with EPIPE instead. Unlike ignoring it,
	// this is not inherited by the tmux processes started from here.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)

	// The first SIGTERM or SIGINT cancels the calls in flight and ends the
	// session; a second one kills the process the default way.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	var got os.Signal
	sigDone := make(chan struct{})
	go func() {
		defer close(sigDone)
		select {
		case got = <-sigs:
			signal.Stop(sigs)
			logger.Info("shutting down", "signal", got.String())
			st.CancelAll()
			cancel()
		case <-ctx.Done():
		}
	}()

	logger.Info("serving MCP on stdio", "version", versionString(), "socket", cfg.socket.String())
	runDone := make(chan error, 1)
	go func() { runDone <- server.Run(ctx, st.Transport()) }()
	// Run returns once every handler has; a handler that ignores its
	// cancellation must not keep the process alive after stdin ended or a
	// signal came.
	var err error
	select {
	case err = <-runDone:
	case <-st.Drained():
		err = waitRun(runDone, logger)
	case <-sigDone:
		err = waitRun(runDone, logger)
	}
	cancel()
	<-sigDone
	signal.Stop(sigs)
	st.CancelAll()
	server.CloseTasks()

	if cfg.teardownOnExit {
		teardown(manager, logger)
	}
	switch {
	case got == syscall.SIGINT:
		return exitInterrupt
	case got != nil:
		return exitOK
	case err != nil:
		logger.Error("session ended", "error", err)
		return exitFailure
	}
	logger.Info("stdin closed; exiting")
	return exitOK
}

// exitWait is how long the process waits for the SDK session to end once
// stdin has been drained or a signal came.
const exitWait = 2 * time.Second

// waitRun waits up to exitWait for Run's result.
func waitRun(runDone <-chan error, logger *slog.Logger) error {
	select {
	case err := <-runDone:
		return err
	case <-time.After(exitWait):
		logger.Warn("calls still running at exit; leaving them")
		return nil
	}
}

// teardown kills the sessions this process owns on every server it used,
// whichever client (token) created them, each as that client, and nothing
// else (--teardown-on-exit).
func teardown(manager *session.Manager, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), teardownTimeout)
	defer cancel()
	for _, srv := range manager.Servers() {
		gen := srv.Generation()
		for _, o := range srv.OwnedSessions() {
			attrs := []any{"socket", srv.Socket().String(), "session", o.ID}
			if o.Owner != "" {
				attrs = append(attrs, "client", o.Owner)
			}
			if err := srv.TeardownSession(session.WithOwner(ctx, o.Owner), o.ID, gen); err != nil {
				logger.Warn("teardown on exit", append(attrs, "error", err)...)
				continue
			}
			logger.Info("teardown on exit", append(attrs, "generation", gen)...)
		}
	}
}
