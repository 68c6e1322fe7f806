package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShowBufferExactBytes loads every byte value, the ones JSON cannot
// carry included, through a separate tmux process and reads them back
// over the control channel, not through the one-shot fallback: decoded up
// to tmux 3.3, raw from 3.4. From 3.4 show-buffer prints a C string, which
// ends at the first NUL, so only content holding a NUL is read by the
// fallback there.
func TestShowBufferExactBytes(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	fx.NewSession(t, "buf")
	var all []byte
	for i := 255; i >= 0; i-- {
		all = append(all, byte(i))
	}
	cases := map[string]string{
		"all-bytes":      string(all) + "\n",
		"vis-lookalikes": `\033 \$HOME \\ \t \n \0 \1 \12 \012 \` + "\\",
		"dollars":        "$HOME ${x} $1 $ $$ \\$",
		"newlines":       "\n\nmiddle\n\n\n",
		"no-newline":     "a",
		"crlf":           "a\r\nb\r",
		"fake-end":       "x\n%end 1 2 1\n%exit\n",
		"utf8":           "héllo ☃ \U0001F600\t\x1b[1mbold\x1b[0m",
		"nul-digits":     "\x001\x00a\x007",
	}
	dir := t.TempDir()
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			fx.Tmux(t, "load-buffer", "-b", name, path)
			forked := s.ConnStats().Forked
			got, err := s.ShowBuffer(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			if got != content {
				t.Fatalf("got %q, want %q", got, content)
			}
			wantForks := uint64(0)
			if strings.Contains(content, "\x00") && fx.AtLeast(t, 3, 4) {
				wantForks = 1
			}
			if f := s.ConnStats().Forked; f-forked != wantForks {
				t.Errorf("ShowBuffer forked %d tmux processes; want %d", f-forked, wantForks)
			}
			raw, err := s.saveBuffer(ctx, name)
			if err != nil || raw != content {
				t.Errorf("saveBuffer: got %q, %v; want %q", raw, err, content)
			}
		})
	}
}

func TestSetBufferRoundTrip(t *testing.T) {
	fx, s := newTestServer(t)
	ctx := testCtx(t)
	fx.NewSession(t, "buf")
	content := "-leading dash ; kill-server\n#{session_name} #(touch x) 'q' \"d\" \\ \t\x1b\r\x7f é"
	if err := s.SetBuffer(ctx, "set.me-1", content); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "out")
	fx.Tmux(t, "save-buffer", "-b", "set.me-1", path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != content {
		t.Fatalf("tmux holds %q, want %q", b, content)
	}
	if err := s.DeleteBuffer(ctx, "set.me-1"); err != nil {
		t.Fatal(err)
	}
	if _, err := fx.TryTmux("show-buffer", "-b", "set.me-1"); err == nil {
		t.Fatal("buffer still exists after DeleteBuffer")
	}
	if err := s.DeleteBuffer(ctx, "set.me-1"); !IsNotFound(err) {
		t.Fatalf("second delete: got %v, want not_found", err)
	}
	if _, err := s.ShowBuffer(ctx, "set.me-1"); !IsNotFound(err) {
		t.Fatalf("show of a deleted buffer: got %v, want not_found", err)
	}
}

func TestBufferNamesRefused(t *testing.T) {
	_, s := newTestServer(t)
	ctx := testCtx(t)
	for _, name := range []string{"", "x\n%window-add @99", "a b", "a#{b}", "a,b", "a}", strings.Repeat("a", MaxBufferName+1)} {
		for op, err := range map[string]error{
			"set":    s.SetBuffer(ctx, name, "x"),
			"show":   func() error { _, err := s.ShowBuffer(ctx, name); return err }(),
			"delete": s.DeleteBuffer(ctx, name),
			"paste":  func() error { _, err := s.PasteBuffer(ctx, name, PaneRef{PaneID: "%0"}, false); return err }(),
		} {
			e, ok := err.(*Error)
			if !ok || e.Kind != KindInvalid || e.Written {
				t.Errorf("%s %q: got %v, want invalid_arguments with nothing written", op, name, err)
			}
		}
	}
	if err := s.SetBuffer(ctx, "ok", ""); err == nil || err.(*Error).Kind != KindInvalid {
		t.Errorf("empty content: got %v, want invalid_arguments", err)
	}
}
