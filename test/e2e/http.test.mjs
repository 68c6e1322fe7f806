// Black-box test of tmux-mcp --http through the official TypeScript MCP
// SDK's streamable HTTP client, as Claude Code reaches a server configured
// with `claude mcp add --transport http`. Run by `go test ./cmd/tmux-mcp`
// (TestNodeE2E), or by hand:
//
//   go build -o /tmp/tmux-mcp ./cmd/tmux-mcp
//   TMUX_MCP_BIN=/tmp/tmux-mcp node --test test/e2e/
//
// One tmux-mcp serves every client here, each with its own bearer token;
// its tmux server is its own (a unique -L socket, -f /dev/null), killed and
// removed when the tests end, and so is the token file.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { once } from "node:events";
import { setTimeout as delay } from "node:timers/promises";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const BIN = process.env.TMUX_MCP_BIN;
const TMUX = process.env.TMUX_MCP_TEST_TMUX || "tmux";
if (!BIN) {
  throw new Error("TMUX_MCP_BIN must name the tmux-mcp binary to test");
}

const SOCKET = `tmcp-e2e-http-${process.pid}-${randomBytes(4).toString("hex")}`;
const SOCKET_PATH = join(process.env.TMUX_TMPDIR || "/tmp", `tmux-${process.getuid()}`, SOCKET);

// Tokens: one per identity, as a token file names them.
const TOKENS = {
  main: randomBytes(24).toString("hex"),
  ro: randomBytes(24).toString("hex"),
  other: randomBytes(24).toString("hex"),
};

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

function tmux(...args) {
  return execFileSync(TMUX, ["-L", SOCKET, "-f", "/dev/null", ...args], {
    env: cleanEnv(),
    encoding: "utf8",
    timeout: 30_000,
  }).trim();
}

function hasSession(id) {
  try {
    tmux("has-session", "-t", id);
    return true;
  } catch {
    return false;
  }
}

let server; // the tmux-mcp child
let url; // http://127.0.0.1:PORT/mcp
let stderr = "";
let dir;
const clients = [];

// connect returns a client of the shared server speaking with token.
async function connect(token) {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "tmux-mcp-e2e-http", version: "0.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function ok(client, name, args = {}) {
  const res = await client.callTool({ name, arguments: args });
  assert.ok(!res.isError, `${name}(${JSON.stringify(args)}) failed: ${JSON.stringify(res.content)}`);
  assert.ok(res.structuredContent, `${name}: no structuredContent`);
  return res.structuredContent;
}

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

let main; // mutating tier, the server's default
let borrowed; // a session this test made with tmux itself

before(async () => {
  borrowed = tmux("new-session", "-d", "-s", "borrowed", "-x", "80", "-y", "24", "-P", "-F", "#{session_id}");
  dir = mkdtempSync(join(tmpdir(), "tmux-mcp-e2e-http-"));
  const file = join(dir, "tokens");
  writeFileSync(
    file,
    `${TOKENS.main} name=main\n${TOKENS.ro} safety=readonly name=viewer\n${TOKENS.other} name=other\n`,
    { mode: 0o600 },
  );
  server = spawn(BIN, ["--http", "127.0.0.1:0", "--socket", SOCKET, "--auth-tokens", file], {
    env: { ...cleanEnv(), LIBTMUX_TMUX_BIN: TMUX, TMUX_MCP_CONFIG_FILE: "/dev/null" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tmux-mcp --http did not serve in 30 s:\n${stderr}`)), 30_000);
    server.stderr.on("data", (b) => {
      stderr += b;
      const m = stderr.match(/url=(\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    server.on("exit", (code) => reject(new Error(`tmux-mcp exited ${code}:\n${stderr}`)));
  });
  main = await connect(TOKENS.main);
});

after(async () => {
  for (const c of clients) {
    await c.close().catch(() => {});
  }
  if (server && server.exitCode === null) {
    server.kill("SIGTERM");
    const [code] = await once(server, "exit");
    assert.equal(code, 0, `tmux-mcp exited ${code} on SIGTERM:\n${stderr}`);
  }
  try {
    tmux("kill-server");
  } catch {
    // already gone
  }
  rmSync(SOCKET_PATH, { force: true });
  rmSync(dir, { recursive: true, force: true });
  for (const t of Object.values(TOKENS)) {
    assert.ok(!stderr.includes(t), "a token reached the log");
  }
});

test("no token, or a wrong one, is 401 with WWW-Authenticate", async () => {
  for (const headers of [{}, { Authorization: `Bearer ${TOKENS.main}x` }]) {
    const res = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    assert.equal(res.status, 401);
    assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer resource_metadata="/);
  }
  const bad = new Client({ name: "no-token", version: "0" });
  await assert.rejects(bad.connect(new StreamableHTTPClientTransport(new URL(url))));
});

test("tools/list serves the mutating tier with complete tool definitions", async () => {
  const { tools } = await main.listTools();
  const names = tools.map((t) => t.name);
  for (const want of ["list_sessions", "create_session", "teardown_session", "send_keys", "capture_pane", "list_panes"]) {
    assert.ok(names.includes(want), `${want} not listed`);
  }
  for (const off of ["kill_server", "kill_session", "kill_pane"]) {
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

test("every listed tool answers over HTTP: a bad argument is invalid_arguments, validated by the client", async () => {
  const { tools } = await main.listTools();
  for (const t of tools) {
    const env = await fail(main, t.name, { bogus_argument: 1 });
    assert.equal(env.code, "invalid_arguments", t.name);
    assert.equal(env.effects, "none", t.name);
  }
});

test("create_session, send_keys, capture_pane and teardown_session of an owned session", async () => {
  const made = await ok(main, "create_session", { session_name: "e2e", x: 80, y: 24 });
  assert.match(made.session_id, /^\$\d+$/);
  assert.ok(made.generation);
  assert.ok(hasSession(made.session_id));

  const panes = await ok(main, "list_panes", { session_id: made.session_id });
  const pane = panes.result[0].pane_id;
  await ok(main, "send_keys", { pane_id: pane, keys: "echo e2e-$((6*7))" });
  const deadline = Date.now() + 20_000;
  for (;;) {
    const cap = await ok(main, "capture_pane", { pane_id: pane });
    if (cap.result.includes("e2e-42")) break;
    assert.ok(Date.now() < deadline, `capture_pane never showed the output; last:\n${cap.result}`);
    await delay(25); // polling only to catch a hang: the deadline is what fails
  }
  const ran = await ok(main, "run_command", { pane_id: pane, command: "echo http-$((2*21))" });
  assert.equal(ran.exit_status, 0);
  assert.ok(ran.output.includes("http-42"), JSON.stringify(ran.output));

  // Another token cannot tear it down; its creator can.
  const other = await connect(TOKENS.other);
  const refused = await fail(other, "teardown_session", { sessionId: made.session_id, generation: made.generation });
  assert.equal(refused.code, "ownership_required");
  assert.equal(refused.effects, "none");
  assert.ok(hasSession(made.session_id));

  const done = await ok(main, "teardown_session", { sessionId: made.session_id, generation: made.generation });
  assert.deepEqual(done, { completed: true, sessionId: made.session_id, generation: made.generation });
  assert.ok(!hasSession(made.session_id));
});

test("teardown_session of a borrowed session is refused before reaching tmux", async () => {
  const gen = (await ok(main, "create_session", { session_name: "gen-probe" })).generation;
  const env = await fail(main, "teardown_session", { sessionId: borrowed, generation: gen });
  assert.equal(env.code, "ownership_required");
  assert.equal(env.effects, "none");
  assert.ok(hasSession(borrowed));
});

test("schema violations come back as invalid_arguments", async () => {
  for (const args of [{ bogus: 1 }, { session_name: 5 }, { session_name: "a\nb" }]) {
    const env = await fail(main, "create_session", args);
    assert.equal(env.code, "invalid_arguments", JSON.stringify(args));
  }
});

test("the readonly token lists and may call only read-only tools", async () => {
  const ro = await connect(TOKENS.ro);
  const { tools } = await ro.listTools();
  const names = tools.map((t) => t.name);
  assert.ok(names.includes("list_sessions"));
  for (const t of tools) assert.equal(t.annotations.readOnlyHint, true, `${t.name} listed for a readonly token`);
  for (const name of ["create_session", "send_keys"]) {
    const env = await fail(ro, name, {});
    assert.equal(env.code, "tool_denied", name);
  }
  await assert.rejects(ro.callTool({ name: "no_such_tool", arguments: {} }), /no_such_tool/);
});

test("resources, prompts and a subscription over HTTP", async () => {
  const { resources, resourceTemplates } = {
    ...(await main.listResources()),
    ...(await main.listResourceTemplates()),
  };
  assert.ok(resources.length + resourceTemplates.length > 0, "no resources");
  const { prompts } = await main.listPrompts();
  assert.ok(prompts.length > 0, "no prompts");
  const sessions = await main.readResource({ uri: "tmux://sessions" });
  assert.match(sessions.contents[0].text, /borrowed/);

  const updated = new Promise((resolve) => {
    main.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri));
  });
  await main.subscribeResource({ uri: "tmux://sessions" });
  // Change the sessions until the update comes (the first change may
  // come before the watch is armed).
  let got;
  for (let i = 0; i < 20 && !got; i++) {
    tmux("new-session", "-d", "-s", `sub-${i}`);
    got = await Promise.race([updated, delay(1000).then(() => undefined)]);
  }
  assert.equal(got, "tmux://sessions");
  await main.unsubscribeResource({ uri: "tmux://sessions" });
});
