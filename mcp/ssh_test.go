package mcp

import (
	"os"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
	"github.com/tmux-mcp/tmux-mcp/session"
)

// overSSH makes newTmuxEnv reach its tmux through ssh to a test sshd on
// loopback. TestSSHCatalogue sets it for the core tools' tests;
// TMUX_MCP_TEST_SSH=1 sets it for every test of the package.
var overSSH = os.Getenv("TMUX_MCP_TEST_SSH") == "1"

// testHost returns the Host newTmuxEnv's Manager uses: nil (this machine),
// or ssh to an sshd of the test's own. It must be called before the
// Manager is made, so that the host closes after it.
func testHost(t *testing.T) session.Host {
	t.Helper()
	if !overSSH {
		return nil
	}
	sshd := fixtures.NewSSHD(t)
	h, err := session.NewSSH(&session.SSHOptions{Args: sshd.ClientArgs(sshd.Port)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// TestSSHCatalogue runs the core tools' own tests with tmux behind ssh:
// they must pass there as they pass locally.
func TestSSHCatalogue(t *testing.T) {
	fixtures.NewSSHD(t) // skips here, not in every subtest, without sshd
	if !overSSH {
		overSSH = true
		defer func() { overSSH = false }()
	}
	for _, tt := range []struct {
		name string
		f    func(*testing.T)
	}{
		{"CreateSession", TestCreateSession},
		{"SendKeys", TestSendKeys},
		{"WaitForTextTool", TestWaitForTextTool},
		{"RunCommandTool", TestRunCommandTool},
		{"CapturePane", TestCapturePane},
		{"ChannelTools", TestChannelTools},
		{"TeardownSession", TestTeardownSession},
		{"ListSessions", TestListSessions},
		{"KillSession", TestKillSession},
	} {
		t.Run(tt.name, tt.f)
	}
}
