package controlmode_test

import (
	"os"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// TestMain fails the run when a test leaves files or tmux sockets behind.
func TestMain(m *testing.M) {
	os.Exit(fixtures.RunTests(m, nil))
}
