package mcp

import (
	"context"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The four prompts of libtmux-mcp: short recipes that steer an agent to the
// right tools.
type prompt struct {
	name, desc string
	args       []*sdk.PromptArgument
	text       func(args map[string]string) string
}

var prompts = []prompt{
	{
		name: "run_and_wait",
		desc: "Run a shell command in a pane and wait for it to finish.",
		args: []*sdk.PromptArgument{
			{Name: "command", Description: "Shell command to run.", Required: true},
			{Name: "pane_id", Description: "Target pane, e.g. %1.", Required: true},
			{Name: "timeout", Description: "Seconds to wait; default 60."},
		},
		text: func(a map[string]string) string {
			timeout := a["timeout"]
			if _, err := strconv.ParseFloat(timeout, 64); err != nil {
				timeout = "60"
			}
			return fmt.Sprintf(`Run this command in tmux pane %s and wait for it to finish:

    %s

Call run_command(pane_id=%q, command=<the command>, timeout=%s, max_lines=100). It sends the command, waits for it to end and returns exit_status, timed_out and the output in one call. Decide from exit_status and timed_out; do not poll with send_keys and capture_pane. For input to a program that keeps running (a REPL, a TUI), use send_keys, then wait_for_text (it matches only what the pane prints after that input) or wait_for_content_change with quiet_ms (until a TUI has finished drawing), and read later output with capture_since.`,
				a["pane_id"], a["command"], a["pane_id"], timeout)
		},
	},
	{
		name: "diagnose_failing_pane",
		desc: "Gather a pane's state and propose a cause before changing anything.",
		args: []*sdk.PromptArgument{{Name: "pane_id", Description: "Pane to diagnose, e.g. %1.", Required: true}},
		text: func(a map[string]string) string {
			return fmt.Sprintf(`Something went wrong in tmux pane %[1]s. Diagnose it before acting:

1. snapshot_pane(pane_id=%[1]q) gives the screen, cursor, mode and scroll state at once; if content_truncated, call it again with max_lines=0.
2. To follow the pane over several turns, call capture_since(pane_id=%[1]q) and pass the returned cursor to the next call.
3. Find the last command run and its last output line.
4. State the most likely cause and the smallest command that would confirm it. Do not run anything yet.`, a["pane_id"])
		},
	},
	{
		name: "build_dev_workspace",
		desc: "Build a three-pane session: editor above, shell and logs below.",
		args: []*sdk.PromptArgument{
			{Name: "session_name", Description: "Name of the new session.", Required: true},
			{Name: "log_command", Description: "Command for the logs pane; default watch -n 1 date."},
		},
		text: func(a map[string]string) string {
			logs := a["log_command"]
			if logs == "" {
				logs = "watch -n 1 date"
			}
			return fmt.Sprintf(`Build a development workspace named %[1]q:

1. create_session(session_name=%[1]q). Keep active_pane_id as A (editor) and generation for teardown_session later.
2. split_window(pane_id=A, direction="below"); keep the new pane_id as B (shell).
3. split_window(pane_id=B, direction="right"); keep the new pane_id as C (logs).
4. send_keys(pane_id=A, keys="vim") and send_keys(pane_id=C, keys=%[2]q). tmux queues keys, so no wait is needed first.
5. To confirm they started, wait_for_content_change(pane_id=A, quiet_ms=300, timeout=5) waits until vim has drawn its screen and gone quiet.

Target panes by these ids from now on; they survive layout changes.`, a["session_name"], logs)
		},
	},
	{
		name: "interrupt_gracefully",
		desc: "Interrupt what runs in a pane and check that the shell prompt returns.",
		args: []*sdk.PromptArgument{{Name: "pane_id", Description: "Pane to interrupt, e.g. %1.", Required: true}},
		text: func(a map[string]string) string {
			return fmt.Sprintf(`Interrupt what is running in tmux pane %[1]s:

1. send_keys(pane_id=%[1]q, keys="C-c", enter=false) sends SIGINT.
2. wait_for_text(pane_id=%[1]q, patterns=["\\$ $", "# $", "%% $"], regex=true, stop=["Interrupt"], timeout=5) waits for a shell prompt; adjust the patterns to the user's prompt.
3. If it times out, the program ignores SIGINT: stop and ask how to proceed. Do not escalate to C-\ or kill on your own.`, a["pane_id"])
		},
	},
}

func addPrompts(srv *sdk.Server) {
	for _, p := range prompts {
		srv.AddPrompt(&sdk.Prompt{Name: p.name, Description: p.desc, Arguments: p.args},
			func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
				args := req.Params.Arguments
				for _, a := range p.args {
					if a.Required && args[a.Name] == "" {
						return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
							Message: fmt.Sprintf("prompt %s needs argument %q", p.name, a.Name)}
					}
				}
				return &sdk.GetPromptResult{
					Description: p.desc,
					Messages:    []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: p.text(args)}}},
				}, nil
			})
	}
}
