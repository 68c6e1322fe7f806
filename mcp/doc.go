// Package mcp serves a session.Manager's tmux as Model Context Protocol tools, resources and prompts.
//
// It is the declarative half of the server: the catalogue of libtmux-mcp's
// 56 tools plus teardown_session ([Catalogue]), their input and output
// schemas, annotations and safety tiers, the error envelope ([ToolError]),
// the tmux:// resources and the prompts. Each tool is declared once, in
// tools_<domain>.go beside its input type: name, tier, toolset, scope
// class, words and handler, a method of [TmuxBackend] typed with the
// tool's input and result types (the batch tools excepted: this package
// runs their rows). Each input type says what it targets (targets.go), and
// a listing says how its answer is cut to the owned scope. Adding a tool
// is its declaration with its input type, and its handler, then
// schemas.json regenerated (go test ./mcp -run TestAdvertisedSchemas
// -update). The server runs
// handlers through one small seam (toolRunner), which tests fill with a
// double. [NewServer] puts the two together into a [Server]: the Go SDK's
// server, plus [Server.CallTool], the same call path for a transport that
// decodes tools/call itself.
//
// # Calls
//
// Every tool call goes through one path. The arguments are checked against
// the tool's advertised schema by this package, not the SDK, so any
// violation (unknown key, wrong type, too long in bytes, NUL, a newline in
// an id) is answered as invalid_arguments; explicit nulls mean "absent" and
// defaults are applied. Tools that send input, change or destroy something
// refuse a call without a target (target_required). Under an owned scope
// ([Scope], Options.Scope) every target is then placed in its sessions from
// the live model, and a call that reaches outside the sessions this process
// created is refused target_denied before anything is written. Then the
// handler runs. Its result becomes structuredContent plus a text content; any error,
// and any panic, becomes the envelope of CONTRACT §3 in both. A call to a
// known tool that the tier or tool selection leaves out is answered
// tool_denied, not "unknown tool". Each call writes one audit line with
// secrets reduced to a length and a hash.
//
// # Schemas
//
// Schemas are inferred from the Go types with jsonschema-go, limits come
// from mcp struct tags (see inputs.go), and every schema is normalized:
// pointers and slices are advertised as their plain type, never ["null", T],
// and objects with properties forbid others. Output schemas admit the
// result or the error envelope. What tools/list sends is built when the
// types change, into schemas.json (advertised.go), not at every start; a
// tool's input checks are built at its first call.
//
// # Concurrency
//
// The SDK handles each request on its own goroutine, so handlers run
// concurrently; the server's own state is read-only after NewServer.
package mcp
