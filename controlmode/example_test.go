package controlmode_test

import (
	"context"
	"fmt"
	"log"

	"github.com/tmux-mcp/tmux-mcp/controlmode"
)

func ExampleQuote() {
	q, _ := controlmode.Quote("it's #{x}; $(y)")
	fmt.Println(q)
	// Output: 'it'\''s #{x}; $(y)'
}

func ExampleNewCommand() {
	cmd := controlmode.NewCommand("send-keys", "-t", "%3", "-l").Text("-n; rm x")
	fmt.Println(cmd)
	// Output: send-keys -t %3 -l -- '-n; rm x'
}

func ExampleConn_Exec() {
	ctx := context.Background()
	c, err := controlmode.Start(ctx, &controlmode.Options{Socket: "work", Command: []string{"attach-session", "-t", "main"}})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	// Two commands, one line, one round trip: two replies.
	replies, err := c.Exec(ctx,
		controlmode.NewCommand("list-sessions", "-F", "#{session_id}"),
		controlmode.NewCommand("display-message", "-p", "#{version}"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(replies[0].Lines, replies[1].Lines)
}
