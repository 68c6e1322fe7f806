// Black-box test of the tmux-mcp binary through the official TypeScript MCP
// SDK client, over stdio, as Claude Code, Cursor and the MCP Inspector reach
// it. Run by `go test ./cmd/tmux-mcp` (TestNodeE2E), or by hand:
//
//   go build -o /tmp/tmux-mcp ./cmd/tmux-mcp
//   TMUX_MCP_BIN=/tmp/tmux-mcp node --test test/e2e/
//
// Every tmux server it touches is its own: a unique -L socket, started
// with -f /dev/null, killed and removed when the tests end.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const BIN = process.env.TMUX_MCP_BIN;
const TMUX = process.env.TMUX_MCP_TEST_TMUX || "tmux";
if (!BIN) {
  throw new Error("TMUX_MCP_BIN must name the tmux-mcp binary to test");
}

const SOCKET = `tmcp-e2e-${process.pid}-${randomBytes(4).toString("hex")}`;
const SOCKET_PATH = join(
  process.env.TMUX_TMPDIR || "/tmp",
  `tmux-${process.getuid()}`,
  SOCKET,
);

// The environment of tmux and of the servers under test: nothing that
// points at another tmux server or changes the configuration, and panes
// that run a plain /bin/sh, whatever the user's login shell and its
// profile do.
function cleanEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k === "TMUX" || k === "TMUX_PANE" || k.startsWith("LIBTMUX_")) continue;
    if (k === "ENV" || k === "BASH_ENV" || k === "LC_ALL") continue;
    env[k] = v;
  }
  env.LC_CTYPE = "C.UTF-8";
  env.SHELL = "/bin/sh";
  return env;
}

// tmux runs a one-shot tmux on the private socket and returns its stdout.
function tmux(...args) {
  return execFileSync(TMUX, ["-L", SOCKET, "-f", "/dev/null", ...args], {
    env: cleanEnv(),
    encoding: "utf8",
    timeout: 30_000,
  }).trim();
}

// hasSession reports whether tmux still knows the session.
function hasSession(id) {
  try {
    tmux("has-session", "-t", id);
    return true;
  } catch {
    return false;
  }
}

const clients = [];

// connect starts a tmux-mcp on the private socket with extra args and
// returns a connected client.
async function connect(...args) {
  const transport = new StdioClientTransport({
    command: BIN,
    args: ["--socket", SOCKET, ...args],
    // The default environment is only HOME, PATH, ...: pass the tmux
    // binary and the test configuration explicitly.
    env: {
      ...cleanEnv(),
      LIBTMUX_TMUX_BIN: TMUX,
      TMUX_MCP_CONFIG_FILE: "/dev/null",
    },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (b) => {
    stderr += b;
  });
  const client = new Client({ name: "tmux-mcp-e2e", version: "0.0.0" });
  await client.connect(transport);
  clients.push(client);
  client.stderrText = () => stderr;
  return client;
}

// ok calls a tool that must succeed and returns its structured result.
async function ok(client, name, args = {}) {
  const res = await client.callTool({ name, arguments: args });
  assert.ok(
    !res.isError,
    `${name}(${JSON.stringify(args)}) failed: ${JSON.stringify(res.content)}`,
  );
  assert.ok(res.structuredContent, `${name}: no structuredContent`);
  return res.structuredContent;
}

// fail calls a tool that must fail and returns its error envelope, checking
// that the text content carries the same JSON.
async function fail(client, name, args = {}) {
  const res = await client.callTool({ name, arguments: args });
  assert.equal(res.isError, true, `${name}: got success ${JSON.stringify(res.structuredContent)}`);
  const env = res.structuredContent?.error;
  assert.ok(env, `${name}: no error envelope in ${JSON.stringify(res)}`);
  assert.deepEqual(Object.keys(env).sort(), ["code", "effects", "message", "retryable"]);
  const text = res.content.find((c) => c.type === "text")?.text ?? "";
  assert.deepEqual(JSON.parse(text.split("\n")[0]), res.structuredContent);
  return env;
}

let main; // mutating tier, the default
let borrowed; // a session this test made with tmux itself

before(async () => {
  borrowed = tmux(
    "new-session", "-d", "-s", "borrowed", "-x", "80", "-y", "24",
    "-P", "-F", "#{session_id}",
  );
  main = await connect();
});

after(async () => {
  for (const c of clients) {
    await c.close().catch(() => {});
  }
  try {
    tmux("kill-server");
  } catch {
    // already gone
  }
  rmSync(SOCKET_PATH, { force: true });
});

test("tools/list serves the mutating tier with complete tool definitions", async () => {
  const { tools } = await main.listTools();
  const names = tools.map((t) => t.name);
  for (const want of ["list_sessions", "create_session", "teardown_session", "send_keys", "capture_pane", "list_panes"]) {
    assert.ok(names.includes(want), `${want} not listed`);
  }
  for (const off of ["kill_server", "kill_session", "kill_pane", "call_destructive_tools_batch"]) {
    assert.ok(!names.includes(off), `destructive ${off} listed`);
  }
  for (const t of tools) {
    assert.ok(t.description, `${t.name}: no description`);
    assert.equal(t.inputSchema.type, "object", t.name);
    assert.ok(t.outputSchema, `${t.name}: no output schema`);
    for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) {
      assert.equal(typeof t.annotations?.[hint], "boolean", `${t.name}: ${hint}`);
    }
  }
});

test("create_session, send_keys, capture_pane and teardown_session of an owned session", async () => {
  const made = await ok(main, "create_session", { session_name: "e2e", x: 80, y: 24 });
  assert.match(made.session_id, /^\$\d+$/);
  assert.ok(made.generation, "create_session returned no generation");
  assert.ok(hasSession(made.session_id), "tmux does not know the new session");

  const panes = await ok(main, "list_panes", { session_id: made.session_id });
  assert.equal(panes.result.length, 1);
  const pane = panes.result[0].pane_id;
  assert.match(pane, /^%\d+$/);

  // The shell prints 42 only if the keys really ran: the typed line
  // itself does not contain the marker.
  await ok(main, "send_keys", { pane_id: pane, keys: "echo e2e-$((6*7))" });
  const deadline = Date.now() + 20_000;
  let text = "";
  for (;;) {
    const cap = await ok(main, "capture_pane", { pane_id: pane });
    text = cap.result;
    if (text.includes("e2e-42")) break;
    assert.ok(Date.now() < deadline, `capture_pane never showed the output; last:\n${text}`);
    await delay(25); // polling only to catch a hang: the deadline is what fails
  }

  const done = await ok(main, "teardown_session", { sessionId: made.session_id, generation: made.generation });
  assert.deepEqual(done, { completed: true, sessionId: made.session_id, generation: made.generation });
  assert.ok(!hasSession(made.session_id), "the owned session survived teardown_session");

  // Torn down already: no longer owned.
  const again = await fail(main, "teardown_session", { sessionId: made.session_id, generation: made.generation });
  assert.equal(again.code, "ownership_required");
  assert.equal(again.effects, "none");
});

test("teardown_session of a borrowed session is refused before reaching tmux", async () => {
  const { result } = await ok(main, "list_sessions");
  const gen = (await ok(main, "create_session", { session_name: "gen-probe" })).generation;
  assert.ok(result.some((s) => s.session_id === borrowed));
  const env = await fail(main, "teardown_session", { sessionId: borrowed, generation: gen });
  assert.equal(env.code, "ownership_required");
  assert.equal(env.effects, "none");
  assert.equal(env.retryable, false);
  assert.ok(hasSession(borrowed), "the borrowed session was killed");
});

test("schema violations come back as invalid_arguments", async () => {
  for (const args of [{ bogus: 1 }, { session_name: 5 }, { session_name: "a\nb" }]) {
    const env = await fail(main, "create_session", args);
    assert.equal(env.code, "invalid_arguments", JSON.stringify(args));
    assert.equal(env.effects, "none");
  }
  const env = await fail(main, "teardown_session", { sessionId: "$1" });
  assert.equal(env.code, "invalid_arguments");
});

test("a tool outside the tier is tool_denied, not a protocol error", async () => {
  const ro = await connect("--safety", "readonly");
  const { tools } = await ro.listTools();
  const names = tools.map((t) => t.name);
  assert.ok(names.includes("list_sessions"));
  assert.ok(!names.includes("create_session"), "readonly lists create_session");
  assert.ok(!names.includes("send_keys"), "readonly lists send_keys");
  for (const name of ["create_session", "send_keys", "kill_server"]) {
    const env = await fail(ro, name, {});
    assert.equal(env.code, "tool_denied", name);
    assert.equal(env.effects, "none");
  }
  // Unknown names stay a protocol error.
  await assert.rejects(ro.callTool({ name: "no_such_tool", arguments: {} }), /no_such_tool/);
});

test("errors of tools with lean output schemas pass the client's validation; listings page", async (t) => {
  // The client validates structuredContent against the output schema even
  // when isError is set: the envelope must match schemas that do not
  // spell it out.
  for (const [name, args] of [
    ["get_pane_info", { pane_id: "%999999" }],
    ["split_window", { pane_id: "%999999" }],
    ["list_panes", { session_id: "$999999" }],
  ]) {
    const env = await fail(main, name, args);
    assert.equal(env.code, "not_found", name);
  }

  const { result: all, total } = await ok(main, "list_sessions", { limit: 0 });
  assert.equal(all.length, total);
  const first = await ok(main, "list_sessions", { limit: 1 });
  assert.equal(first.result.length, 1);
  assert.equal(first.total, total);
  assert.equal(first.next_offset, total > 1 ? 1 : undefined);
  assert.equal(first.result[0].session_id, all[0].session_id);

  // What tools/list costs the client: bytes, and compiling the output
  // schemas with a fresh ajv, as the client does on every listTools.
  const { tools } = await main.listTools();
  const { default: Ajv } = await import("ajv");
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  const t0 = performance.now();
  for (const tool of tools) ajv.compile(tool.outputSchema);
  t.diagnostic(
    `tools/list: ${tools.length} tools, ${JSON.stringify({ tools }).length} bytes; ` +
      `compiling the output schemas: ${(performance.now() - t0).toFixed(1)} ms`,
  );
});
