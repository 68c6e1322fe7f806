package session

import (
	"os"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

func TestMain(m *testing.M) {
	fixtures.UseTestShell()
	os.Exit(fixtures.RunTests(m, nil))
}
