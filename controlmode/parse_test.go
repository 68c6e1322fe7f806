package controlmode

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// feed runs lines through a parser and returns what it produced: replies as
// "reply:" or "error:" plus the body, and notifications as values.
func feed(p *parser, text string) []any {
	var out []any
	for line := range strings.Lines(text) {
		ev := p.line([]byte(strings.TrimSuffix(line, "\n")))
		switch ev.kind {
		case evReply:
			tag := "reply:"
			if ev.failed {
				tag = "error:"
			}
			out = append(out, tag+strings.Join(ev.lines, "|"))
		case evNote:
			out = append(out, ev.note)
		}
	}
	return out
}

func TestParser(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []any
	}{
		{
			name: "fake guards inside a block are body",
			in:   "%begin 100 300 1\n%end 1 2 1\n%begin 9 9 1\n%error 100 300 0\n%end 100 301 1\n%output %1 x\n%end 100 300 1\n",
			want: []any{"reply:%end 1 2 1|%begin 9 9 1|%error 100 300 0|%end 100 301 1|%output %1 x"},
		},
		{
			name: "flags-0 hook block is not a reply",
			in:   "%begin 5 6 1\n%end 5 6 1\n%begin 5 7 0\nhook-ran\n%end 5 7 0\n%window-renamed @1 a\\$b\\tc\n",
			want: []any{"reply:", HookOutput{Lines: []string{"hook-ran"}}, WindowRenamed{Window: "@1", Name: "a\\$b\\tc"}},
		},
		{
			name: "error block",
			in:   "%begin 1 2 1\nparse error: unknown command: frobnicate\n%error 1 2 1\n",
			want: []any{"error:parse error: unknown command: frobnicate"},
		},
		{
			name: "stray and unknown lines",
			in:   "X\n\n%future-thing a b\n%end 1 2 1\n%begin nope\n",
			want: []any{
				Stray{Line: "X"}, Stray{Line: ""}, Unknown{Line: "%future-thing a b"},
				Unknown{Line: "%end 1 2 1", Err: ProtocolError("%end outside a block")},
				Unknown{Line: "%begin nope", Err: ProtocolError("malformed %begin guard")},
			},
		},
		{
			name: "output keeps bytes and trailing spaces",
			in:   "%output %0 # \n%output %12 a\\134b\\015\\012\xff\xfe\\1\n%extended-output %3 17 : hi : there\n%extended-output %3 0 :\n",
			want: []any{
				Output{Pane: "%0", Data: []byte("# ")},
				Output{Pane: "%12", Data: []byte("a\\b\r\n\xff\xfe\\1")},
				Output{Pane: "%3", Data: []byte("hi : there"), Extended: true, AgeMS: 17},
				Output{Pane: "%3", Data: []byte{}, Extended: true},
			},
		},
		{
			name: "structural notifications",
			in: "%window-add @2\n%unlinked-window-add @3\n%window-close @2\n%unlinked-window-close @3\n" +
				"%sessions-changed\n%session-changed $1 my name\n%session-renamed $1 new\n" +
				"%client-session-changed /dev/pts/3 $0 main\n%client-detached client-99\n" +
				"%session-window-changed $0 @1\n%window-pane-changed @1 %4\n%pane-mode-changed %4\n" +
				"%layout-change @1 b25d,80x24,0,0,0 b25d,80x24,0,0,0 *\n%layout-change @1 a b \n" +
				"%pause %1\n%continue %1\n%paste-buffer-changed buffer0\n%paste-buffer-deleted x\n" +
				"%subscription-changed cmd $0 @1 1 %1 : sh -c x\n%message hi\\there\n%config-error f:1: bad\n" +
				"%exit\n%exit server exited unexpectedly\n",
			want: []any{
				WindowAdd{Window: "@2"}, WindowAdd{Window: "@3", Unlinked: true},
				WindowClose{Window: "@2"}, WindowClose{Window: "@3", Unlinked: true},
				SessionsChanged{}, SessionChanged{Session: "$1", Name: "my name"}, SessionRenamed{Session: "$1", Name: "new"},
				ClientSessionChanged{Client: "/dev/pts/3", Session: "$0", Name: "main"}, ClientDetached{Client: "client-99"},
				SessionWindowChanged{Session: "$0", Window: "@1"}, WindowPaneChanged{Window: "@1", Pane: "%4"}, PaneModeChanged{Pane: "%4"},
				LayoutChange{Window: "@1", Layout: "b25d,80x24,0,0,0", VisibleLayout: "b25d,80x24,0,0,0", Flags: "*"},
				LayoutChange{Window: "@1", Layout: "a", VisibleLayout: "b"},
				Pause{Pane: "%1"}, Continue{Pane: "%1"},
				PasteBufferChanged{Name: "buffer0"}, PasteBufferChanged{Name: "x", Deleted: true},
				SubscriptionChanged{Name: "cmd", Session: "$0", Window: "@1", WindowIndex: "1", Pane: "%1", Value: "sh -c x"},
				Message{Text: "hi\there"}, ConfigError{Text: "f:1: bad"},
				Exit{}, Exit{Reason: "server exited unexpectedly"},
			},
		},
		{
			name: "malformed ids are reported",
			in:   "%output 1 x\n%window-add 2\n%session-changed @1 x\n",
			want: []any{
				Unknown{Line: "%output 1 x", Err: ProtocolError("malformed %output")},
				Unknown{Line: "%window-add 2", Err: ProtocolError("malformed %window-add")},
				Unknown{Line: "%session-changed @1 x", Err: ProtocolError("malformed %session-changed")},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := feed(&parser{}, tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"abc", "abc"},
		{"%1", "%1"},
		{"%1:on", "'%1:on'"},
		{"%if", "'%if'"},
		{"a%b", "a%b"},
		{"", "''"},
		{"a b", "'a b'"},
		{"it's", `'it'\''s'`},
		{"'", `\'`},
		{"a;b", "'a;b'"},
		{"$HOME", "'$HOME'"},
		{"#{x}", "'#{x}'"},
		{"a\nb", `'a'"\012"'b'`},
		{"\r", `"\015"`},
		{"é", "'é'"},
	}
	for _, tt := range tests {
		got, err := Quote(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Quote(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := Quote("a\x00b"); err == nil {
		t.Error("Quote accepted a NUL byte")
	}
}

func TestCommand(t *testing.T) {
	tests := []struct {
		cmd     Command
		want    string
		wantErr bool
	}{
		{NewCommand("send-keys", "-t", "%1", "-l").Text("-x; y"), "send-keys -t %1 -l -- '-x; y'", false},
		{NewCommand("list-panes", "-a", "-F", "#{pane_id}"), "list-panes -a -F '#{pane_id}'", false},
		{NewCommand("display-message").Text(), "display-message --", false},
		{NewCommand("kill-server; x"), "", true},
		{NewCommand(""), "", true},
		{NewCommand("set-buffer").Text("a").Text("b"), "", true},
		{NewCommand("set-buffer").Text("a").Args("-b"), "", true},
		{NewCommand("set-buffer", "\x00"), "", true},
		{Command{}, "", true},
	}
	for _, tt := range tests {
		err := tt.cmd.Err()
		if (err != nil) != tt.wantErr || (!tt.wantErr && tt.cmd.String() != tt.want) {
			t.Errorf("got %q, %v; want %q (error %v)", tt.cmd.String(), err, tt.want, tt.wantErr)
		}
	}
}

// FuzzParser checks that no input makes the parser panic, that a block
// closes only on its own guard, and that output decoding never grows data.
func FuzzParser(f *testing.F) {
	f.Add([]byte("%begin 1 2 1\nx\n%end 1 2 1\n%output %1 a\\015b\n"))
	f.Add([]byte("%begin 1 2 0\n%end 1 2 1\n%error 1 2 0\n%exit reason\n"))
	f.Add([]byte("%extended-output %1 5 : z\n%layout-change @1 a b c\n%subscription-changed n $1 @1 1 %1 : v\n"))
	f.Add([]byte("%window-renamed @1 \\101\\\\\\t\n%session-changed $0 \\$x\n%client-session-changed c\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p parser
		for line := range bytes.Lines(data) {
			line = bytes.TrimSuffix(line, []byte("\n"))
			wasOpen, guard := p.open, p.guard
			ev := p.line(line)
			if wasOpen && !p.open {
				s := string(line)
				if s != "%end"+guard && s != "%error"+guard {
					t.Fatalf("block %q closed by %q", guard, s)
				}
			}
			if o, ok := ev.note.(Output); ok && len(o.Data) > len(line) {
				t.Fatalf("decoded output longer than its line: %q", line)
			}
		}
	})
}

// FuzzQuote checks that quoted text never carries a control byte to the
// wire and stays one token: no unquoted separator, quote or comment.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "a", "'", "a b;c", "\n\r\t", "#{x}$(y)", "\\", "é\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := Quote(s)
		if strings.IndexByte(s, 0) >= 0 {
			if err == nil {
				t.Fatal("NUL accepted")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if q == "" {
			t.Fatalf("Quote(%q) is no token at all", s)
		}
		if got := lexToken(t, q); got != s {
			t.Fatalf("Quote(%q) = %q reads back as %q", s, q, got)
		}
	})
}

// lexToken reads q back the way tmux's lexer reads one token built only of
// bare safe bytes, single-quoted spans, \' and double-quoted \ooo escapes.
func lexToken(t *testing.T, q string) string {
	var b strings.Builder
	for i := 0; i < len(q); {
		c := q[i]
		if c < 0x20 || c == 0x7f {
			t.Fatalf("control byte %#x on the wire in %q", c, q)
		}
		switch {
		case c == '\'':
			end := strings.IndexByte(q[i+1:], '\'')
			if end < 0 {
				t.Fatalf("unterminated quote in %q", q)
			}
			b.WriteString(q[i+1 : i+1+end])
			i += end + 2
		case c == '\\' && i+1 < len(q) && q[i+1] == '\'':
			b.WriteByte('\'')
			i += 2
		case c == '"':
			if i+6 > len(q) || q[i+1] != '\\' || q[i+5] != '"' {
				t.Fatalf("unexpected double quote in %q", q)
			}
			b.WriteByte((q[i+2]-'0')<<6 | (q[i+3]-'0')<<3 | (q[i+4] - '0'))
			i += 6
		case bareSafe(string(c)):
			b.WriteByte(c)
			i++
		default:
			t.Fatalf("unquoted byte %q in %q", c, q)
		}
	}
	return b.String()
}

// TestEveryNotification reads a well-formed line of every notification
// the parser knows, and a malformed one of each that can be malformed; a
// notification added to the table without a row here fails it.
func TestEveryNotification(t *testing.T) {
	bad := func(line string) Notification {
		name, _, _ := strings.Cut(line, " ")
		return Unknown{Line: line, Err: ProtocolError("malformed " + name)}
	}
	tests := []struct {
		line string
		want Notification
	}{
		{"%output %1 a\\012b", Output{Pane: "%1", Data: []byte("a\nb")}},
		{"%output %1", bad("%output %1")},
		{"%extended-output %2 5 : x", Output{Pane: "%2", Data: []byte("x"), Extended: true, AgeMS: 5}},
		{"%extended-output %2 5", bad("%extended-output %2 5")},
		{"%extended-output %2 old : x", Unknown{Line: "%extended-output %2 old : x", Err: ProtocolError("malformed %extended-output age")}},
		{"%pause %3", Pause{Pane: "%3"}},
		{"%pause @3", bad("%pause @3")},
		{"%continue %3", Continue{Pane: "%3"}},
		{"%continue", bad("%continue")},
		{"%pane-mode-changed %3", PaneModeChanged{Pane: "%3"}},
		{"%pane-mode-changed %", bad("%pane-mode-changed %")},
		{"%layout-change @1 l v *", LayoutChange{Window: "@1", Layout: "l", VisibleLayout: "v", Flags: "*"}},
		{"%layout-change @1", bad("%layout-change @1")},
		{"%window-add @4", WindowAdd{Window: "@4"}},
		{"%window-add %4", bad("%window-add %4")},
		{"%unlinked-window-add @4", WindowAdd{Window: "@4", Unlinked: true}},
		{"%unlinked-window-add @x", bad("%unlinked-window-add @x")},
		{"%window-close @4", WindowClose{Window: "@4"}},
		{"%window-close @4 x", bad("%window-close @4 x")},
		{"%unlinked-window-close @4", WindowClose{Window: "@4", Unlinked: true}},
		{"%unlinked-window-close", bad("%unlinked-window-close")},
		{"%window-renamed @4 a b", WindowRenamed{Window: "@4", Name: "a b"}},
		{"%window-renamed 4 a", bad("%window-renamed 4 a")},
		{"%unlinked-window-renamed @4 a", WindowRenamed{Window: "@4", Name: "a", Unlinked: true}},
		{"%unlinked-window-renamed $4 a", bad("%unlinked-window-renamed $4 a")},
		{"%window-pane-changed @4 %5", WindowPaneChanged{Window: "@4", Pane: "%5"}},
		{"%window-pane-changed @4 @5", bad("%window-pane-changed @4 @5")},
		{"%session-changed $6 s", SessionChanged{Session: "$6", Name: "s"}},
		{"%session-changed @6 s", bad("%session-changed @6 s")},
		{"%session-renamed $6 t", SessionRenamed{Session: "$6", Name: "t"}},
		{"%session-renamed $ t", bad("%session-renamed $ t")},
		{"%client-session-changed c $6 s", ClientSessionChanged{Client: "c", Session: "$6", Name: "s"}},
		{"%client-session-changed c $6", ClientSessionChanged{Client: "c", Session: "$6"}},
		{"%client-session-changed c", bad("%client-session-changed c")},
		{"%client-detached c", ClientDetached{Client: "c"}},
		{"%sessions-changed", SessionsChanged{}},
		{"%session-window-changed $6 @4", SessionWindowChanged{Session: "$6", Window: "@4"}},
		{"%session-window-changed $6 %4", bad("%session-window-changed $6 %4")},
		{"%subscription-changed n $1 @2 3 %4 : v", SubscriptionChanged{Name: "n", Session: "$1", Window: "@2", WindowIndex: "3", Pane: "%4", Value: "v"}},
		{"%subscription-changed n $1 @2 3 %4 :", SubscriptionChanged{Name: "n", Session: "$1", Window: "@2", WindowIndex: "3", Pane: "%4"}},
		{"%subscription-changed n $1 : v", bad("%subscription-changed n $1 : v")},
		{"%paste-buffer-changed b", PasteBufferChanged{Name: "b"}},
		{"%paste-buffer-deleted b", PasteBufferChanged{Name: "b", Deleted: true}},
		{"%message a\\tb", Message{Text: "a\tb"}},
		{"%config-error f:1: x", ConfigError{Text: "f:1: x"}},
		{"%exit why", Exit{Reason: "why"}},
		{"%exit", Exit{}},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		name, _, _ := strings.Cut(tt.line, " ")
		seen[name] = true
		if got := parseNotification(tt.line); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%q: got %#v, want %#v", tt.line, got, tt.want)
		}
	}
	for name := range notifications {
		if !seen[name] {
			t.Errorf("%s: no row in this test", name)
		}
	}
}
