package session

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
	"github.com/tmux-mcp/tmux-mcp/fixtures"
)

// BenchmarkCommandMarksWake measures how soon a control client learns of
// a D mark a pane printed (tmux 3.8), by the two ways tmux offers:
//
//   - subscription: refresh-client -B on the pane's marks, which tmux
//     evaluates on a timer of a second and reports as %subscription-changed;
//   - hook: a pane-command-finished hook of the pane that runs
//     display-message -c for the client, which reaches it as %message at
//     once.
//
// Each iteration types a D mark (its status alternating, as a
// subscription reports changes only) into a cat that prints it back, and
// waits for the client to be told. ns/op is the wake latency; both also
// cost one command to set up and one to take down, and one line per
// mark. The loop falls in step with the subscription's one-second check,
// so its figure is close to the worst case; a mark at a random moment
// waits half a second on average.
func BenchmarkCommandMarksWake(b *testing.B) {
	fx := fixtures.NewServer(b)
	if !fx.AtLeast(b, 3, 8) {
		b.Skip("tmux records OSC 133 marks from 3.8")
	}
	fx.NewSession(b, "bench", "cat")
	pane := fx.Tmux(b, "display-message", "-p", "-t", "bench:", "#{pane_id}")
	marks := 0 // every mark's status differs from the one before, over all runs
	for _, way := range []string{"hook", "subscription"} {
		b.Run(way, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			told := make(chan string, 16)
			c, err := controlmode.Start(ctx, &controlmode.Options{Tmux: fx.Bin, Socket: fx.Socket,
				Command: []string{"attach-session", "-t", "bench"},
				OnNotification: func(n controlmode.Notification) {
					switch n := n.(type) {
					case controlmode.SubscriptionChanged:
						if n.Name == "marks" {
							told <- n.Value
						}
					case controlmode.Message:
						if strings.HasPrefix(n.Text, "marks ") {
							told <- n.Text
						}
					}
				}})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			rs, err := c.Exec(ctx, controlmode.NewCommand("display-message", "-p", "#{client_name}"))
			if err != nil {
				b.Fatal(err)
			}
			client := strings.Join(rs[0].Lines, "")
			var setup, teardown controlmode.Command
			if way == "hook" {
				setup = controlmode.NewCommand("set-hook", "-p", "-t", pane, "pane-command-finished[100]",
					"display-message -c "+client+" 'marks #{hook_pane} #{command_status}'")
				teardown = controlmode.NewCommand("set-hook", "-p", "-u", "-t", pane, "pane-command-finished[100]")
			} else {
				setup = controlmode.NewCommand("refresh-client", "-B", "marks:"+pane+":#{pane_command_running}:#{pane_command_status}")
				teardown = controlmode.NewCommand("refresh-client", "-B", "marks")
			}
			if _, err := c.Exec(ctx, setup); err != nil {
				b.Fatal(err)
			}
			defer func() { _, _ = c.Exec(ctx, teardown) }()
			if way == "subscription" {
				<-told // its first report: the value as it is
			}
			b.ResetTimer()
			for range b.N {
				marks++
				mark := fmt.Sprintf("\x1b]133;C\x07\x1b]133;D;%d\x07", 1+marks%2)
				if _, err := c.Exec(ctx, controlmode.NewCommand("send-keys", "-l", "-t", pane, mark),
					controlmode.NewCommand("send-keys", "-t", pane, "Enter")); err != nil {
					b.Fatal(err)
				}
				select {
				case <-told:
				case <-time.After(10 * time.Second):
					b.Fatal("not told of the mark")
				}
			}
		})
	}
}
