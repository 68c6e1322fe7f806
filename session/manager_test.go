package session

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// Socket.File is where tmux itself puts the socket: in $TMUX_TMPDIR with
// its links resolved (as /tmp is a link on macOS), and in /tmp when
// $TMUX_TMPDIR does not exist. Not parallel: it sets TMUX_TMPDIR.
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
		if got := (Socket{Name: fx.Socket}).File(); got != want {
			t.Errorf("TMUX_TMPDIR a link: File() = %q, tmux's socket_path %q", got, want)
		}
		if !(Socket{Name: fx.Socket}).listening() {
			t.Errorf("no server listening at %s", Socket{Name: fx.Socket}.File())
		}
	})

	t.Run("missing", func(t *testing.T) {
		t.Setenv("TMUX_TMPDIR", filepath.Join(base, "missing"))
		tmp, err := filepath.EvalSymlinks("/tmp")
		if err != nil {
			t.Skipf("no /tmp here: %v", err)
		}
		want := filepath.Join(tmp, "tmux-"+strconv.Itoa(os.Getuid()), "x")
		if got := (Socket{Name: "x"}).File(); got != want {
			t.Errorf("TMUX_TMPDIR missing: File() = %q, want %q (tmux falls back to /tmp)", got, want)
		}
	})
}
