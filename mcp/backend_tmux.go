package mcp

import (
	"context"
	"path/filepath"
	"time"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// DefaultWaitMax is the ceiling on any one wait when none is configured
// (LIBTMUX_MCP_WAIT_MAX_SECONDS unset), as libtmux-mcp's.
const DefaultWaitMax = 30 * time.Second

// TmuxOptions configure [NewTmuxBackend].
type TmuxOptions struct {
	// Socket is the server used when a call names none (LIBTMUX_SOCKET,
	// LIBTMUX_SOCKET_PATH). The zero Socket is tmux's default server.
	Socket session.Socket
	// SelfPane and SelfSocketPath locate the pane this process runs in
	// (TMUX_PANE, and the socket path from TMUX), for self-protection.
	// Empty when it does not run inside tmux.
	SelfPane       string
	SelfSocketPath string
	// WaitMax caps every wait's timeout (LIBTMUX_MCP_WAIT_MAX_SECONDS).
	// Zero means DefaultWaitMax.
	WaitMax time.Duration
	// SuppressHistory is run_command's default for suppress_history
	// (LIBTMUX_SUPPRESS_HISTORY). It is true unless the environment says 0.
	SuppressHistory bool
	// RecordDir is where record_pane makes its files; "" turns recording
	// off.
	RecordDir string
}

// TmuxBackend serves the catalogue from a session.Manager. Its exported
// methods are the tools' handlers, one per tool, named after it, taking the
// tool's input type and returning its result type; a tool is declared
// once, in tools_<domain>.go, by a method expression of this type (addTool). They
// live in backend_*.go, one file per domain.
//
// Inputs arrive validated against the tool's schema (types, enums, limits,
// no NUL, single-line ids and names) with defaults applied; an argument that
// was absent is its zero value (nil for pointer fields). A returned error is
// mapped to the envelope by classify: return a *ToolError, or an error
// implementing the interfaces documented there (CodedError, EffectsError,
// RetryableError, SuggestionError). Returned results may contain nil slices;
// they are sent as empty lists.
//
// Handlers are called concurrently, one goroutine per request; ctx is
// cancelled when the client cancels the request.
type TmuxBackend struct {
	m    *session.Manager
	opts TmuxOptions
}

var (
	_ toolRunner    = (*TmuxBackend)(nil)
	_ scopeSource   = (*TmuxBackend)(nil)
	_ changeWatcher = (*TmuxBackend)(nil)
)

// runTool implements toolRunner: d's handler on b.
func (b *TmuxBackend) runTool(ctx context.Context, d *toolDef, in any) (any, error) {
	return d.handler(b, ctx, in)
}

// NewTmuxBackend returns a TmuxBackend serving m's servers.
func NewTmuxBackend(m *session.Manager, opts *TmuxOptions) *TmuxBackend {
	b := &TmuxBackend{m: m}
	if opts != nil {
		b.opts = *opts
	}
	if b.opts.WaitMax == 0 {
		b.opts.WaitMax = DefaultWaitMax
	}
	return b
}

// server returns the Server a call addresses: socket_name when given, else
// the default.
func (b *TmuxBackend) server(s Socket) *session.Server {
	if s.SocketName != "" {
		return b.m.Server(session.Socket{Name: s.SocketName})
	}
	return b.m.Server(b.opts.Socket)
}

// isSelfServer reports whether srv is the tmux server this process runs in.
func (b *TmuxBackend) isSelfServer(srv *session.Server) bool {
	if b.opts.SelfSocketPath == "" {
		return false
	}
	return filepath.Clean(srv.SocketFile()) == filepath.Clean(b.opts.SelfSocketPath)
}

// spawnArgs converts the arguments that shape a new process, which
// create_session, create_window, split_window and respawn_pane share.
func spawnArgs(startDirectory string, env StringMap, suppressHistory bool) session.SpawnArgs {
	return session.SpawnArgs{StartDirectory: startDirectory, Environment: env, SuppressHistory: suppressHistory}
}

// paneRef converts the tools' pane target group.
func paneRef(t PaneTarget) session.PaneRef {
	return session.PaneRef{PaneID: t.PaneID, WindowID: t.WindowID, SessionID: t.SessionID, SessionName: t.SessionName}
}
