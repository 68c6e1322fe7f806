package session

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// SocketDir and Socket.File say where tmux itself puts the socket: in
// $TMUX_TMPDIR with its links resolved (as /tmp is a link on macOS), and in
// /tmp when $TMUX_TMPDIR does not exist. Not parallel: it sets TMUX_TMPDIR,
// for the fixture's tmux.
func TestSocketFileIsWhereTmuxPutsIt(t *testing.T) {
	base, err := os.MkdirTemp(os.Getenv("TMUX_TMPDIR"), "sockdir-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(base) }) // runs last: after the server is gone
	real := filepath.Join(base, "real")
	link := filepath.Join(base, "link")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}

	t.Run("linked", func(t *testing.T) {
		t.Setenv("TMUX_TMPDIR", link)
		fx := fixtures.NewServer(t)
		fx.NewSession(t, "s")
		want := fx.Tmux(t, "display-message", "-p", "#{socket_path}")
		dir := SocketDir(link, os.Getuid())
		if got := (Socket{Name: fx.Socket}).File(dir); got != want {
			t.Errorf("TMUX_TMPDIR a link: File() = %q, tmux's socket_path %q", got, want)
		}
		if !(Socket{Name: fx.Socket}).listening(dir) {
			t.Errorf("no server listening at %s", Socket{Name: fx.Socket}.File(dir))
		}
	})

	t.Run("missing", func(t *testing.T) {
		tmp, err := filepath.EvalSymlinks("/tmp")
		if err != nil {
			t.Skipf("no /tmp here: %v", err)
		}
		want := filepath.Join(tmp, "tmux-"+strconv.Itoa(os.Getuid()), "x")
		if got := (Socket{Name: "x"}).File(SocketDir(filepath.Join(base, "missing"), os.Getuid())); got != want {
			t.Errorf("TMUX_TMPDIR missing: File() = %q, want %q (tmux falls back to /tmp)", got, want)
		}
	})
}

// TestOptionsFromTheCaller proves session takes what it knows of the
// process from Options: the socket directory, the environment of the tmux
// it starts, and the home directory.
func TestOptionsFromTheCaller(t *testing.T) {
	fx := fixtures.NewServer(t)
	fx.NewSession(t, "main")
	ctx := testCtx(t)

	t.Run("no socket directory", func(t *testing.T) {
		m := NewManager(&Options{Tmux: fx.Bin, ConfigFile: "/dev/null", Logger: testLogger(t)})
		t.Cleanup(func() { m.Close() })
		// Unknown is not "no server": an empty answer would hide the gap.
		_, err := m.Server(Socket{Name: fx.Socket}).Sessions(ctx)
		if !isKind(err, KindNoServer) || !strings.Contains(err.Error(), "SocketDir") {
			t.Fatalf("named socket: got %v, want server_unavailable naming SocketDir", err)
		}
		// A socket given by path needs no directory.
		sessions, err := m.Server(Socket{Path: fx.SocketPath()}).Sessions(ctx)
		if err != nil || len(sessions) != 1 || sessions[0].Name != "main" {
			t.Fatalf("socket by path: got %+v, %v, want the session main", sessions, err)
		}
	})

	t.Run("environment", func(t *testing.T) {
		// tmux copies DISPLAY (update-environment) from the client that
		// creates a session into that session's environment.
		env := append(os.Environ(), "DISPLAY=:tmux-mcp-probe")
		m := NewManager(&Options{Tmux: fx.Bin, ConfigFile: "/dev/null", SocketDir: testSocketDir(), Env: env, Logger: testLogger(t)})
		t.Cleanup(func() { m.Close() })
		sess, err := m.Server(Socket{Name: fx.Socket}).CreateSession(ctx, CreateSessionArgs{Name: "probe"})
		if err != nil {
			t.Fatal(err)
		}
		if got := fx.Tmux(t, "show-environment", "-t", sess.ID, "DISPLAY"); got != "DISPLAY=:tmux-mcp-probe" {
			t.Fatalf("got %q, want DISPLAY=:tmux-mcp-probe from Options.Env", got)
		}
	})
}

func TestProcEnv(t *testing.T) {
	if got := procEnv(nil); got != nil {
		t.Errorf("procEnv(nil): got %q, want nil (os/exec's own environment)", got)
	}
	got := procEnv([]string{"A=1", "TMUX=/s,1,0", "TMUX_PANE=%1"})
	if len(got) != 1 || got[0] != "A=1" {
		t.Errorf("got %q, want [A=1]: TMUX and TMUX_PANE left out", got)
	}
}

func TestStartDirectoryHome(t *testing.T) {
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, dir, home, want string
	}{
		{"home", "~", home, home},
		{"under home", "~/sub", home, filepath.Join(home, "sub")},
		{"no home", "~", "", ""},
		{"absolute ignores home", home, "", home},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args, err := SpawnArgs{StartDirectory: tc.dir}.args(tc.home)
			if tc.want == "" {
				if !isKind(err, KindInvalid) {
					t.Fatalf("got %q, %v, want invalid_arguments", args, err)
				}
				return
			}
			if err != nil || len(args) != 2 || args[0] != "-c" || args[1] != tc.want {
				t.Fatalf("got %q, %v, want [-c %s]", args, err, tc.want)
			}
		})
	}
}
