package mcp

import (
	"context"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmux-mcp/tmux-mcp/mcp/tasks"
	"github.com/tmux-mcp/tmux-mcp/session"
)

// The calls that may become MCP tasks (the Tasks extension, mcp/tasks):
// those that wait on a pane or a command for as long as their timeout. A
// call that ends within taskGrace is answered as ever; only a client whose
// request carries the extension capability gets a task at all.
var taskTools = map[string]tasks.Tool{
	"run_command":             {Named: true}, // its task is its command: one id
	"wait_for_command":        {},
	"wait_for_text":           {},
	"wait_for_content_change": {},
	"wait_for_agent_state":    {},
	"wait_for_pane_exit":      {},
}

// taskGrace is how long a call runs before it becomes a task: a call
// shorter than that is not worth a client's background machinery.
const taskGrace = 2 * time.Second

// taskTTL is how long a task is kept from its creation, and at least as
// long after its result came.
const taskTTL = time.Hour

// interruptWait bounds how long tasks/cancel of a run_command's task waits
// for the interrupted command to end before the task ends cancelled.
const interruptWait = 5 * time.Second

// installTasks serves tasks on srv for the enabled tools of taskTools.
func installTasks(srv *sdk.Server, enabled map[string]bool, opts *tasks.Options) (*tasks.Layer, error) {
	l := tasks.New(opts)
	for name, t := range taskTools {
		if enabled[name] {
			l.Allow(name, t)
		}
	}
	return l, l.Install(srv)
}

// commandTask makes a run_command call's task, if the call becomes one,
// the command it typed: the task's id is the command's id (so
// wait_for_command and tasks/get see one command), and tasks/cancel
// interrupts the command as an agent would, with C-c and no Enter.
func commandTask(ctx context.Context, srv *session.Server) func(id string) {
	if !tasks.InTask(ctx) {
		return nil
	}
	return func(id string) {
		tasks.OnCancel(ctx, func() {
			ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), interruptWait+time.Second)
			defer cancel()
			_, _ = srv.InterruptCommand(ictx, id, interruptWait) // Best effort: the task ends cancelled either way.
		})
		tasks.Name(ctx, id)
	}
}
