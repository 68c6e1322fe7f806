package controlmode

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

func attachInternal(t *testing.T) (*fixtures.Server, *Conn) {
	t.Helper()
	srv := fixtures.NewServer(t)
	id := srv.NewSession(t, "main")
	c, err := Start(testCtx(t), &Options{Tmux: srv.Bin, Socket: srv.Socket, Command: []string{"attach-session", "-t", id}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return srv, c
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestQuoteRoundTrip(t *testing.T) {
	srv, c := attachInternal(t)
	// show-buffer vis-encodes what it prints to a control client up to tmux
	// 3.3, and prints it raw from 3.4.
	decode := func(s string) string {
		b, ok := Unvis(s)
		if !ok {
			t.Fatalf("show-buffer printed %q, which is not vis", s)
		}
		return string(b)
	}
	if srv.AtLeast(t, 3, 4) {
		decode = func(s string) string { return s }
	}
	ctx := testCtx(t)
	pieces := []string{"'", "''", `\`, `\'`, ";", `\;`, " ; ", "#{session_name}", "#(touch CANARY)", "$(touch CANARY)",
		"$HOME", "~", "%", "%1", "%end 1 2 1", "-", "--", "-t", "{", "}", `"`, "é", "☃", "\t", "x", " ", "=", "@", "!", "\x1b[31m"}
	rng := rand.New(rand.NewPCG(1, 2))
	// A bare word that starts with % and is not all % and digits is a
	// condition to tmux's lexer (%if): refresh-client -A takes %1:on.
	cases := []string{"", "-leading", "--", "'", "plain", "%1:continue", "%x", "%1x", "%%", "%12"}
	for range 300 {
		var b strings.Builder
		for range rng.IntN(8) + 1 {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		cases = append(cases, b.String())
	}
	for i, s := range cases {
		name := fmt.Sprint("q", i)
		rs, err := c.Exec(ctx, NewCommand("set-buffer", "-b", name).Text(s), NewCommand("show-buffer", "-b", name), NewCommand("delete-buffer", "-b", name))
		if s == "" {
			// tmux refuses an empty buffer; the refusal is the answer.
			if err == nil {
				t.Errorf("set-buffer of empty text succeeded")
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if got := decode(strings.Join(rs[1].Lines, "\n")); got != s {
			t.Errorf("round trip: got %q, want %q", got, s)
		}
	}
}
