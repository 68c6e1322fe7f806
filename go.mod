module github.com/tmux-mcp/tmux-mcp

go 1.26

require (
	github.com/creack/pty v1.1.24 // indirect
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
)
