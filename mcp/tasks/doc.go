// Package tasks lets a tool call outlive its request as an MCP task: the
// Tasks extension (io.modelcontextprotocol/tasks, 2026-07-28 shape), served
// on a go-sdk server that has no Tasks of its own.
//
// A [Layer] is installed on an *mcp.Server ([Layer.Install]). A tools/call
// of a tool the layer was told about ([Layer.Allow]), from a client whose
// request carries the extension capability (its _meta clientCapabilities,
// else its initialize capabilities), runs detached from its request. If it
// ends within the layer's grace, its result is the answer, as without the
// layer; otherwise the answer is a CreateTaskResult, and the call runs on
// as the task. A client without the capability gets today's answer,
// whatever the tool.
//
// The layer serves tasks/get (the result or the error inlined once the task
// is terminal), tasks/update (acknowledged; no task here asks for input) and
// tasks/cancel (acknowledged; the call's context is cancelled, the tool's
// own stop ([OnCancel]) runs, and the task ends cancelled). A tool result
// with isError ends the task completed; a JSON-RPC error ends it failed.
//
// Task ids are 128 random bits, or the id a tool gives its task ([Name]:
// run_command names its task by its command id, which is as random). Each
// layer keeps its own tasks: a server per bearer token (HTTP), or per
// connection (stdio), sees only its own. Over HTTP, tasks/* requests of the
// 2026-07-28 protocol must carry the task id in the Mcp-Name header. A task
// is kept for its TTL from its creation, said in ttlMs, and never dropped
// before.
//
// The same tasks are served in the 2025-11-25 shape (SEP-1686, VS Code's)
// to sessions of that version that did not declare the extension: a
// tools/call with params.task (which a transport moves into _meta with
// [LegacyParams], as go-sdk drops it) becomes a task at once, and
// tasks/result and tasks/list exist there only.
//
// # Concurrency
//
// A Layer is safe for concurrent use. Each task's state is written by the
// goroutine that runs its call, and by tasks/cancel, under the store's
// lock.
package tasks
