package session

import "github.com/tmux-mcp/tmux-mcp/session/internal/panestream"

// StreamCap is how many bytes of a pane's output are kept for readers that
// fall behind. A pane's buffer holds between StreamCap and 2×StreamCap
// bytes, so memory stays bounded whatever a pane prints.
const StreamCap = panestream.Cap
