// Package stdio serves one MCP session on stdin and stdout for tmux-mcp:
// newline-delimited JSON-RPC handed to the Go SDK, plus a direct lane that
// answers plain tools/call requests without it.
//
// [New] returns the [Conn]; the server runs on [Conn.Transport], with
// [Conn.Middleware] so that [Conn.CancelAll] reaches every call. The lane
// runs calls through a [ToolCaller]. Files: stdio.go (the connection, the
// reader and the drain at EOF), direct.go (the direct lane).
//
// # Concurrency
//
// One goroutine reads stdin; the SDK reads messages through [Conn.Read]
// and writes through [Conn.Write] from its own goroutines; each direct
// call runs on its own goroutine. Writes are serialized.
package stdio
