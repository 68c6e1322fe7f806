package mcp

import (
	"os"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// TestMain makes servers that the code under test starts (create_session
// on an empty socket) run the same plain shell as fixture servers.
func TestMain(m *testing.M) {
	fixtures.UseTestShell()
	os.Exit(fixtures.RunTests(m, nil))
}
