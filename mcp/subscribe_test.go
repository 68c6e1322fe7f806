package mcp

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestResourceSubscriptions(t *testing.T) {
	for _, v := range protocolVersions {
		t.Run(v, func(t *testing.T) {
			env := newTmuxEnv(t, v, nil)
			env.fx.NewSession(t, "main", "env", "PS1=$ ", "sh")
			pane := env.fx.Tmux(t, "display-message", "-p", "-t", "main", "#{pane_id}")
			srv, err := NewServer(env.backend, &Options{Safety: "readonly"})
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			updates := map[string]int{}
			got := make(chan string, 100)
			st, ct := sdk.NewInMemoryTransports()
			ss, err := srv.Connect(context.Background(), st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "0"}, &sdk.ClientOptions{
				ResourceUpdatedHandler: func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) {
					mu.Lock()
					updates[r.Params.URI]++
					mu.Unlock()
					select {
					case got <- r.Params.URI:
					default:
					}
				},
			})
			cs, err := c.Connect(context.Background(), ct, &sdk.ClientSessionOptions{ProtocolVersion: v})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if !cs.InitializeResult().Capabilities.Resources.Subscribe {
				t.Fatal("subscribe capability not advertised")
			}
			ctx := context.Background()
			// Attach the control client now, not when a 2026-07-28
			// subscription starts listening: tmux 3.3a can crash when a
			// control client attaches while another client runs
			// new-session, as the loop below does (seen here once).
			if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "list_panes", Arguments: map[string]any{}}); err != nil || res.IsError {
				t.Fatalf("list_panes: %v %+v", err, res)
			}
			content := "tmux://panes/" + pane + "/content"
			for _, uri := range []string{"tmux://sessions", content} {
				if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
					t.Fatalf("subscribe %s: %v", uri, err)
				}
			}
			await := func(uri string) {
				t.Helper()
				timeout := time.After(20 * time.Second)
				for {
					select {
					case u := <-got:
						if u == uri {
							return
						}
					case <-timeout:
						t.Fatalf("no notifications/resources/updated for %s", uri)
					}
				}
			}
			// A 2026-07-28 subscription may start listening just after
			// Subscribe returns: change things until one is heard.
			for i := 0; ; i++ {
				env.fx.Tmux(t, "new-session", "-d", "-s", fmt.Sprint("other", i))
				select {
				case u := <-got:
					if u != "tmux://sessions" {
						continue
					}
				case <-time.After(time.Second):
					if i < 10 {
						continue
					}
					t.Fatal("no notifications/resources/updated for tmux://sessions")
				}
				break
			}
			// 200 lines of output in a burst are gathered into a few updates.
			env.fx.Tmux(t, "send-keys", "-t", pane, "seq 200", "Enter")
			await(content)
			// Wait until the burst (and the prompt after it) is over: the
			// count stops moving. An engine that polled would keep it moving.
			count := func() int {
				mu.Lock()
				defer mu.Unlock()
				return updates[content]
			}
			n, quiet := count(), false
			for range 50 {
				time.Sleep(300 * time.Millisecond) // an observation window, not a synchronisation
				m := count()
				if m == n {
					quiet = true
					break
				}
				n = m
			}
			if !quiet {
				t.Fatalf("updates kept coming: %d", n)
			}
			if n > 20 {
				t.Fatalf("got %d updates for one burst of output, want them coalesced", n)
			}
			if err := cs.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: content}); err != nil {
				t.Fatal(err)
			}
			// (2026-07-28 subscribes through subscriptions/listen, whose
			// errors the SDK client does not return from Subscribe.)
			if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: "https://example.invalid/x"}); err == nil && v != "2026-07-28" {
				t.Fatal("subscribed to a URI that is not a tmux resource")
			}
			t.Logf("%d updates for a burst of 200 lines", n)
		})
	}
}
