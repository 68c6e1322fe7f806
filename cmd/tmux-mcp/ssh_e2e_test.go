package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// TestSSHCall runs the binary with --ssh: a call works against the remote
// tmux, and a host ssh cannot reach answers server_unavailable in ssh's
// words.
func TestSSHCall(t *testing.T) {
	sshd := fixtures.NewSSHD(t)
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "over-ssh")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	cmd := exec.CommandContext(ctx, binary(t), "--ssh", shellWords(sshd.ClientArgs(sshd.Port)), "--socket", fx.Socket, "call", "list_sessions")
	cmd.Env = childEnv(fx)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"over-ssh"`) {
		t.Fatalf("call list_sessions over ssh: %v: %s", err, out)
	}

	// Nothing listens on this port.
	cmd = exec.CommandContext(ctx, binary(t), "--ssh", shellWords(sshd.ClientArgs(freePort(t))), "--socket", fx.Socket, "call", "get_pane_info", "pane_id=%0")
	cmd.Env = childEnv(fx)
	out, err = cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "server_unavailable") || !strings.Contains(string(out), "Connection refused") {
		t.Fatalf("call to a closed port: got %v: %s; want server_unavailable with ssh's words", err, out)
	}
}

// TestSSHSIGKILLLeavesNoClient: tmux-mcp killed outright while a wait runs
// over ssh leaves no tmux client on the remote server: the input of its
// ssh sessions ends, and the remote clients exit. With output flowing the
// server has output queued for the client when the channel closes, and
// tmux keeps such a client until it can write that output, which is never:
// only the SIGTERM the remote guard sends ends it. Without the guard the
// flooding case left the client behind in every run on 3.3a and 3.5a; 3.7c
// dropped it after about 5 s.
func TestSSHSIGKILLLeavesNoClient(t *testing.T) {
	sshd := fixtures.NewSSHD(t)
	for _, tc := range []struct {
		name    string
		command []string
	}{
		{"idle", nil},
		{"flooding", []string{"sh", "-c", "while :; do echo flooding-the-control-client; done"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := fixtures.NewServer(t)
			sid := fx.NewSession(t, "k", tc.command...)
			pane := fx.Tmux(t, "display-message", "-p", "-t", sid, "#{pane_id}")
			// The ssh Host's directory (its control socket) lands here: a
			// short path, since t.TempDir's would make the socket's longer
			// than a Unix socket path may be.
			tmp, err := os.MkdirTemp("", "k")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.RemoveAll(tmp) })
			cmd := exec.Command(binary(t), "--ssh", shellWords(sshd.ClientArgs(sshd.Port)), "--socket", fx.Socket,
				"call", "wait_for_text", "pane_id="+pane, `patterns=["never-printed"]`, "timeout=60")
			cmd.Env = childEnv(fx, "TMPDIR="+tmp)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			// The clients are the remote server's; there is no event of
			// theirs to wait on here.
			fixtures.WaitFor(t, 30*time.Second, "the control client to attach", func() bool { return clientCount(t, fx) > 0 })
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-done
			// Well inside the master's ControlPersist (30 s), whose exit
			// would end the clients anyway.
			fixtures.WaitFor(t, 15*time.Second, "the remote clients to exit", func() bool { return clientCount(t, fx) == 0 })

			// A SIGKILL runs no Close: the killed process's ssh directory
			// stays, named with its pid, until the next tmux-mcp with --ssh
			// removes it; that one removes its own when it ends.
			left, _ := filepath.Glob(filepath.Join(tmp, fmt.Sprintf("tmux-mcp-ssh-%d-*", cmd.Process.Pid)))
			if len(left) != 1 {
				t.Fatalf("ssh directories of the killed process: %q, want one", left)
			}
			next := exec.Command(binary(t), "--ssh", shellWords(sshd.ClientArgs(sshd.Port)), "--socket", fx.Socket, "call", "list_sessions")
			next.Env = childEnv(fx, "TMPDIR="+tmp)
			if out, err := next.CombinedOutput(); err != nil {
				t.Fatalf("the next tmux-mcp --ssh: %v\n%s", err, out)
			}
			if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
				t.Errorf("left in TMPDIR after the next run: %v", entries)
			}
		})
	}
}

func clientCount(t *testing.T, fx *fixtures.Server) int {
	out := fx.Tmux(t, "list-clients", "-F", "#{client_pid}")
	if out == "" {
		return 0
	}
	return len(strings.Split(out, "\n"))
}

// freePort returns a port on 127.0.0.1 that nothing listened on a moment
// ago.
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
