package controlmode

import (
	"bytes"
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// pollable returns a copy of f in non-blocking mode, read and written
// through Go's poller, so deadlines apply to it; f is closed.
func pollable(t *testing.T, f *os.File) *os.File {
	t.Helper()
	fd, err := dupCloseOnExec(int(f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	_ = f.Close() // the copy stays open
	if err := syscall.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	p := os.NewFile(uintptr(fd), f.Name())
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// makeRaw is the call that starts the default client on every Unix: after
// it, every byte written to the pty master reaches the slave unchanged, in
// one unbroken line far past the canonical limit, with no echo, and what
// the slave writes comes out unchanged too.
func TestMakeRaw(t *testing.T) {
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pty here: %v", err)
	}
	if err := makeRaw(slave.Fd()); err != nil {
		t.Fatalf("makeRaw: %v", err)
	}
	m, s := pollable(t, master), pollable(t, slave)
	deadline := time.Now().Add(10 * time.Second) // only catches a hang
	_ = m.SetDeadline(deadline)
	_ = s.SetDeadline(deadline)

	// Every byte value, over and over, with no newline: canonical mode would
	// hold it back (and cut it at about 4 KB), and act on ^C, ^D, ^U, DEL,
	// ^S and CR (ISIG, VEOF, VKILL, VERASE, IXON, ICRNL); ISTRIP would clear
	// the top bits.
	var in []byte
	for len(in) < 16<<10 {
		for b := range 256 {
			if b != '\n' {
				in = append(in, byte(b))
			}
		}
	}
	wrote := make(chan error, 1)
	go func() { _, err := m.Write(in); wrote <- err }()
	got := make([]byte, len(in))
	if _, err := io.ReadFull(s, got); err != nil {
		t.Fatalf("reading the slave: %v", err)
	}
	if !bytes.Equal(got, in) {
		i := 0
		for i < len(in) && got[i] == in[i] {
			i++
		}
		t.Fatalf("slave read %d bytes that differ from what was written from byte %d on", len(got), i)
	}
	if err := <-wrote; err != nil {
		t.Fatalf("writing the master: %v", err)
	}

	// No echo: the first bytes back on the master are the slave's own, and
	// its newline stays a newline (no OPOST).
	if _, err := s.Write([]byte("ok\n")); err != nil {
		t.Fatal(err)
	}
	back := make([]byte, 3)
	if _, err := io.ReadFull(m, back); err != nil {
		t.Fatalf("reading the master: %v", err)
	}
	if string(back) != "ok\n" {
		t.Fatalf("master read %q first, want %q: the slave echoes or translates", back, "ok\n")
	}
}

// The descriptors a Conn keeps, its end of the client's terminal or stdin
// pipe and of its stdout pipe, are close-on-exec: no later child, another
// client or a one-shot tmux, inherits them and holds the client up when this
// process dies.
func TestDescriptorsCloseOnExec(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pipes bool
	}{{"pty", false}, {"pipes", true}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fixtures.NewServer(t)
			id := srv.NewSession(t, "main")
			c, err := Start(testCtx(t), &Options{Tmux: srv.Bin, Socket: srv.Socket, Command: []string{"attach-session", "-t", id}, Pipes: tc.pipes})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			for _, end := range []struct {
				name string
				f    any
			}{{"input", c.w}, {"output", c.r}} {
				rc, err := end.f.(syscall.Conn).SyscallConn()
				if err != nil {
					t.Fatal(err)
				}
				var flags int
				var ferr error
				// Control, not Fd: Fd would put the descriptor in blocking mode.
				if err := rc.Control(func(fd uintptr) { flags, ferr = unix.FcntlInt(fd, unix.F_GETFD, 0) }); err != nil || ferr != nil {
					t.Fatalf("%s: %v %v", end.name, err, ferr)
				}
				if flags&unix.FD_CLOEXEC == 0 {
					t.Errorf("the client's %s descriptor is inherited by every child: FD_CLOEXEC is not set", end.name)
				}
			}
		})
	}
}
