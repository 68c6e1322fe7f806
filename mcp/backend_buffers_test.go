package mcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/session"
)

// TestBufferOwner: a buffer name carries its owner's tag, so another
// identity's call is refused as for a missing buffer, before tmux; the
// process itself (stdio) may use any name of the namespace.
func TestBufferOwner(t *testing.T) {
	alice := session.WithOwner(context.Background(), "alice")
	bob := session.WithOwner(context.Background(), "bob")
	name, err := newBufferName("alice", "notes")
	if err != nil {
		t.Fatal(err)
	}
	if !bufferNameRE.MatchString(name) {
		t.Fatalf("name %q breaks the namespace's pattern", name)
	}
	if err := checkBuffer(alice, name, noBuffer); err != nil {
		t.Fatalf("alice's own buffer: %v", err)
	}
	if err := checkBuffer(context.Background(), name, noBuffer); err != nil {
		t.Fatalf("the process itself: %v", err)
	}
	var te *ToolError
	err = checkBuffer(bob, name, noBuffer)
	if !errors.As(err, &te) || te.Code != CodeNotFound || te.Effects != EffectsNone || te.Message != "no buffer "+name {
		t.Fatalf("bob uses alice's buffer: got %v, want not_found, effects none, as a missing buffer", err)
	}
	// A tag forged from alice's name for bob does not pass either.
	forged := name[:len(bufferPrefix)+16] + strings.Repeat("0", 16) + name[len(bufferPrefix)+32:]
	if ownsBuffer(bob, forged) || ownsBuffer(alice, forged) {
		t.Fatalf("a forged tag %q passes", forged)
	}
}

// savedBuffer reads a buffer's exact bytes through a separate tmux process.
func savedBuffer(t *testing.T, env *tmuxEnv, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "saved")
	env.fx.Tmux(t, "save-buffer", "-b", name, path)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestBufferTools(t *testing.T) {
	forEachVersion(t, func(t *testing.T, env *tmuxEnv) {
		env.fx.NewSession(t, "bufs", "cat")
		pane := env.fx.Tmux(t, "display-message", "-p", "-t", "bufs", "#{pane_id}")

		t.Run("load and show round trip", func(t *testing.T) {
			for i, content := range []string{
				"tab\there back\\slash \\\\ \\t \\033 $HOME \\$HOME ${x} \"dq\" 'sq' é ☃ \U0001F600",
				"\x1b[31mred\x1b[0m \a\b\x01\x7f cr\r\n",
				"-leading dash ; kill-server #{session_name} #(true) ##",
				"\n\nblank lines around\n\n",
				"%end 1 1 1\n%exit\nno newline",
			} {
				var ref BufferRef
				env.ok(t, "load_buffer", map[string]any{"content": content, "logical_name": "case.v-" + string(rune('0'+i))}, &ref)
				if !bufferNameRE.MatchString(ref.BufferName) || !strings.HasSuffix(ref.BufferName, "_case.v-"+string(rune('0'+i))) {
					t.Errorf("buffer name %q", ref.BufferName)
				}
				if ref.LogicalName != "case.v-"+string(rune('0'+i)) {
					t.Errorf("logical_name %q", ref.LogicalName)
				}
				if got := savedBuffer(t, env, ref.BufferName); got != content {
					t.Errorf("tmux holds %q, want %q", got, content)
				}
				var show BufferContent
				env.ok(t, "show_buffer", map[string]any{"buffer_name": ref.BufferName, "max_lines": 0}, &show)
				if show != (BufferContent{BufferName: ref.BufferName, Content: content}) {
					t.Errorf("show_buffer: got %+v, want content %q", show, content)
				}
			}
		})

		t.Run("names are fresh and default to buf", func(t *testing.T) {
			var a, b BufferRef
			env.ok(t, "load_buffer", map[string]any{"content": "x"}, &a)
			env.ok(t, "load_buffer", map[string]any{"content": "x"}, &b)
			if a.BufferName == b.BufferName || !strings.HasSuffix(a.BufferName, "_buf") || a.LogicalName != "" {
				t.Errorf("got %+v and %+v", a, b)
			}
		})

		t.Run("show keeps the last max_lines", func(t *testing.T) {
			var ref BufferRef
			env.ok(t, "load_buffer", map[string]any{"content": "1\n2\n3\n4\n5\n"}, &ref)
			var show BufferContent
			env.ok(t, "show_buffer", map[string]any{"buffer_name": ref.BufferName, "max_lines": 2}, &show)
			if show.Content != "4\n5" || !show.ContentTruncated || show.ContentTruncatedLines != 3 {
				t.Errorf("got %+v", show)
			}
			env.ok(t, "show_buffer", map[string]any{"buffer_name": ref.BufferName}, &show)
			if show.Content != "1\n2\n3\n4\n5\n" || show.ContentTruncated {
				t.Errorf("default max_lines: got %+v", show)
			}
		})

		t.Run("paste", func(t *testing.T) {
			var ref BufferRef
			env.ok(t, "load_buffer", map[string]any{"content": "pasted-TOKEN-4711"}, &ref)
			var msg Message
			env.ok(t, "paste_buffer", map[string]any{"buffer_name": ref.BufferName, "pane_id": pane, "bracket": false}, &msg)
			if want := "Buffer '" + ref.BufferName + "' pasted to pane " + pane; msg.Result != want {
				t.Errorf("got %q, want %q", msg.Result, want)
			}
			waitPaneText(t, env, pane, "pasted-TOKEN-4711")
			env.ok(t, "paste_buffer", map[string]any{"buffer_name": ref.BufferName, "session_name": "bufs"}, &msg)
			if !strings.HasSuffix(msg.Result, "pane "+pane) {
				t.Errorf("paste by session name: got %q", msg.Result)
			}
			waitPaneText(t, env, pane, "pasted-TOKEN-4711pasted-TOKEN-4711")
			if got := savedBuffer(t, env, ref.BufferName); got != "pasted-TOKEN-4711" {
				t.Errorf("the buffer changed or went away after paste: %q", got)
			}
		})

		t.Run("delete", func(t *testing.T) {
			var ref BufferRef
			env.ok(t, "load_buffer", map[string]any{"content": "doomed"}, &ref)
			var msg Message
			env.ok(t, "delete_buffer", map[string]any{"buffer_name": ref.BufferName}, &msg)
			if msg.Result != "Buffer '"+ref.BufferName+"' deleted" {
				t.Errorf("got %q", msg.Result)
			}
			if names := env.fx.Tmux(t, "list-buffers", "-F", "#{buffer_name}"); strings.Contains(names, ref.BufferName) {
				t.Errorf("buffer still listed: %q", names)
			}
			wantCode(t, env.fail(t, "delete_buffer", map[string]any{"buffer_name": ref.BufferName}), CodeNotFound)
			wantCode(t, env.fail(t, "show_buffer", map[string]any{"buffer_name": ref.BufferName}), CodeNotFound)
			wantCode(t, env.fail(t, "paste_buffer", map[string]any{"buffer_name": ref.BufferName, "pane_id": pane}), CodeNotFound)
		})

		t.Run("only our buffers", func(t *testing.T) {
			env.fx.Tmux(t, "set-buffer", "-b", "clipboard", "user secret")
			env.fx.Tmux(t, "set-buffer", "-b", bufferPrefix+"short_x", "look-alike")
			for _, name := range []string{"clipboard", bufferPrefix + "short_x", bufferPrefix + strings.Repeat("0", 32) + "_a b"} {
				for _, tool := range []string{"show_buffer", "delete_buffer", "paste_buffer"} {
					e := env.fail(t, tool, map[string]any{"buffer_name": name, "pane_id": pane})
					wantCode(t, e, CodeInvalidArguments)
					if e.Effects != EffectsNone {
						t.Errorf("%s %q: effects %q, want none", tool, name, e.Effects)
					}
				}
			}
			if got := savedBuffer(t, env, "clipboard"); got != "user secret" {
				t.Errorf("the user's buffer changed: %q", got)
			}
		})

		t.Run("names tmux would mangle are refused", func(t *testing.T) {
			// A newline in a buffer name would reach every control client
			// raw, in %paste-buffer-changed, as a forged notification line.
			forged := bufferPrefix + strings.Repeat("0", 32) + "_x\n%window-add @99"
			for _, tool := range []string{"show_buffer", "delete_buffer", "paste_buffer"} {
				wantCode(t, env.fail(t, tool, map[string]any{"buffer_name": forged, "pane_id": pane}), CodeInvalidArguments)
			}
			for _, logical := range []string{"x\n%window-add @99", "a b", "a#{b}", "é", strings.Repeat("a", 65)} {
				wantCode(t, env.fail(t, "load_buffer", map[string]any{"content": "x", "logical_name": logical}), CodeInvalidArguments)
			}
			if names := env.fx.Tmux(t, "list-buffers", "-F", "#{buffer_name}"); strings.Contains(names, "window-add") || strings.Contains(names, "#{b}") {
				t.Errorf("a mangled name reached tmux: %q", names)
			}
		})

		t.Run("failures", func(t *testing.T) {
			wantCode(t, env.fail(t, "load_buffer", map[string]any{"content": ""}), CodeInvalidArguments)
			var ref BufferRef
			env.ok(t, "load_buffer", map[string]any{"content": "x"}, &ref)
			wantCode(t, env.fail(t, "paste_buffer", map[string]any{"buffer_name": ref.BufferName}), CodeTargetRequired)
			wantCode(t, env.fail(t, "paste_buffer", map[string]any{"buffer_name": ref.BufferName, "pane_id": "%99"}), CodeNotFound)
			wantCode(t, env.fail(t, "paste_buffer", map[string]any{"buffer_name": ref.BufferName, "session_name": "nosuch"}), CodeNotFound)
			missing := bufferPrefix + strings.Repeat("a", 32) + "_gone"
			wantCode(t, env.fail(t, "show_buffer", map[string]any{"buffer_name": missing}), CodeNotFound)
		})
	})
}

// waitPaneText polls the pane's screen, through a separate tmux process,
// until it shows text; the deadline only catches a hang.
func waitPaneText(t *testing.T, env *tmuxEnv, pane, text string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		screen := env.fx.Tmux(t, "capture-pane", "-p", "-t", pane)
		if strings.Contains(screen, text) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pane %s never showed %q; screen:\n%s", pane, text, screen)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
