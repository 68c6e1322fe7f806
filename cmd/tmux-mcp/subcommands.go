package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tmux-mcp/tmux-mcp/mcp"
)

// The subcommands talk to the same *sdk.Server a stdio client would, over
// in-memory transports, so what they print is what a client gets.

// connectInMemory connects a client to server and returns the client
// session and a function that closes both ends.
func connectInMemory(ctx context.Context, server *sdk.Server) (*sdk.ClientSession, func(), error) {
	st, ct := sdk.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		return nil, nil, err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "tmux-mcp-cli", Version: versionString()}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		return nil, nil, err
	}
	return cs, func() {
		cs.Close()
		ss.Wait()
	}, nil
}

// listTools prints the tools the server exposes: name, tier, description.
func listTools(server *sdk.Server, stdout, stderr io.Writer) int {
	ctx := context.Background()
	cs, closeAll, err := connectInMemory(ctx, server)
	if err != nil {
		fmt.Fprintf(stderr, "tmux-mcp: %v\n", err)
		return exitFailure
	}
	defer closeAll()
	listed := map[string]bool{}
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			fmt.Fprintf(stderr, "tmux-mcp: tools/list: %v\n", err)
			return exitFailure
		}
		listed[tool.Name] = true
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "NAME\tTIER\tTOOLSET\tDESCRIPTION\n")
	for _, t := range mcp.Catalogue() { // catalogue order: by domain
		if listed[t.Name] {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Name, t.Tier, t.Toolset, t.Description)
		}
	}
	if err := tw.Flush(); err != nil {
		return exitFailure
	}
	return exitOK
}

// callArgs turns key=value pairs into tool arguments. A value that parses
// as JSON is that JSON value; anything else is a string. Errors wrap
// errUsage.
func callArgs(pairs []string) (map[string]any, error) {
	args := make(map[string]any, len(pairs))
	for _, p := range pairs {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%w: argument %q is not key=value", errUsage, p)
		}
		if _, dup := args[k]; dup {
			return nil, fmt.Errorf("%w: argument %q given twice", errUsage, k)
		}
		var val any
		if err := json.Unmarshal([]byte(v), &val); err != nil {
			val = v
		}
		args[k] = val
	}
	return args, nil
}

// callTool runs one tool through server and prints its structured result,
// or on failure its error envelope, as indented JSON. A tool error exits 1.
// It takes the server's direct path ([mcp.Server.CallTool]), the one a
// plain tools/call over stdio takes.
func callTool(server *mcp.Server, name string, pairs []string, stdout, stderr io.Writer) int {
	args, err := callArgs(pairs)
	if err != nil {
		fmt.Fprintf(stderr, "tmux-mcp: %v\n", err)
		return exitUsage
	}
	raw, err := json.Marshal(args)
	if err != nil {
		fmt.Fprintf(stderr, "tmux-mcp: %v\n", err)
		return exitUsage
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, ok := server.CallTool(ctx, name, raw)
	if !ok {
		fmt.Fprintf(stderr, "tmux-mcp: %s\n", unknownTool(name))
		return exitUsage
	}
	out := res.StructuredContent
	if out == nil {
		// Every tool of this server answers with structured content; keep
		// the text for anything that does not.
		var texts []string
		for _, c := range res.Content {
			if t, ok := c.(*sdk.TextContent); ok {
				texts = append(texts, t.Text)
			}
		}
		out = map[string]any{"content": texts}
	}
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintf(stderr, "tmux-mcp: %s: writing the result: %v\n", name, err)
		return exitFailure
	}
	if res.IsError {
		return exitFailure
	}
	return exitOK
}

// unknownTool says that name is no tool, with the nearest tool's name.
func unknownTool(name string) string {
	msg := fmt.Sprintf("unknown tool %q", name)
	if near := mcp.Nearest(name, mcp.ToolNames()); near != "" {
		msg += fmt.Sprintf("; did you mean %s?", near)
	}
	return msg + " (tmux-mcp tools lists them)"
}

// describe prints one tool's description and arguments (tools NAME).
func describe(server *mcp.Server, name string, stdout, stderr io.Writer) int {
	for _, t := range mcp.Catalogue() {
		if t.Name == name {
			describeTool(stdout, t, server.Enabled(name))
			return exitOK
		}
	}
	fmt.Fprintf(stderr, "tmux-mcp: %s\n", unknownTool(name))
	return exitUsage
}
