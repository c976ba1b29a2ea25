#!/usr/bin/env node
/**
 * Makes the fixtures of agent-core's storage format 4 (src/stores/agent-core/README.md) with the
 * published packages themselves, never by hand: `@earendil-works/pi-agent-core` 0.99.1's JSONL
 * repository, and `@earendil-works/pi-session-backend-sqlite-node` 0.87.1 (with the agent-core
 * 0.87.1 it depends on) for the SQLite backend. Each session is driven through the package's own
 * AgentHarness with pi-ai's faux provider: prompts, tool calls, a retried error, an error that
 * ends a run, a compaction and a second one, a navigation with a branch summary, a second lane, labels, a
 * name, custom entries, a crash mid tool call, a fork, a pi v3 file the repository upgraded, and a
 * shared SQLite container.
 *
 *   node scripts/agent-core-fixtures.mjs OUT_DIR     (Node 22.19 or later: node:sqlite)
 *
 * OUT_DIR is laid out as pi's session directory: the JSONL repository's project folders
 * (`--<cwd>--/<time>_<id>.jsonl`), the backend's per-session databases in `sqlite/`, a shared
 * container in `shared/`. Its output is committed as fixtures/agent-core/ (fixtures/README.md);
 * ids and times are the packages' own (uuidv7, Date.now()), so a new run gives other bytes of the
 * same shapes.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = process.argv[2] && resolve(process.argv[2]);
if (!out) {
  console.error("usage: node scripts/agent-core-fixtures.mjs OUT_DIR");
  process.exit(2);
}

/** A package's module by its path under node_modules (the nested copies are not exported by name). */
const load = (path) => import(pathToFileURL(join(ROOT, "node_modules", path)).href);

/** agent-core and its pi-ai, at one version: the 0.99.1 alias, or the 0.87.1 the SQLite backend depends on. */
async function kit(version) {
  const base = version === "0.99" ? "agent-core-0.99" : "sqlite-backend-0.87/node_modules/@earendil-works/pi-agent-core";
  const piAi = version === "0.99" ? "agent-core-0.99/node_modules/@earendil-works/pi-ai" : "sqlite-backend-0.87/node_modules/@earendil-works/pi-ai";
  const core = await load(`${base}/dist/index.js`);
  const node = await load(`${base}/dist/harness/env/nodejs.js`);
  const ai = await load(`${piAi}/dist/index.js`);
  return { core, node, ai };
}

/**
 * A harness on `session` answered by the faux provider: each request takes the next scripted
 * answer; a summary request (compaction, branch summary) is answered with a summary.
 */
async function harnessOn(k, session, { tools = [] } = {}) {
  const { core, ai } = k;
  const faux = ai.fauxProvider();
  const models = ai.createModels();
  models.setProvider(faux.provider);
  const model = faux.getModel();
  const queue = [];
  const answer = (context) => {
    // (a summary request, a compaction's or a branch summary's, is asked with agent-core's summarization prompt)
    if (/<conversation>/.test(JSON.stringify(context.messages))) return ai.fauxAssistantMessage(`Summary: ${context.messages.length} message(s) condensed.`);
    const next = queue.shift();
    if (!next) return ai.fauxAssistantMessage("(nothing scripted)");
    return typeof next === "function" ? next(context) : next;
  };
  faux.setResponses(Array.from({ length: 400 }, () => answer));
  const { harness } = await core.AgentHarness.create(
    {
      session,
      models,
      model,
      tools,
      activeToolNames: tools.map((t) => t.name),
      compaction: { enabled: false, reserveTokens: 1000, keepRecentTokens: 40 },
      retry: { enabled: true, maxRetries: 2, baseDelayMs: 1, maxAgentDelayMs: 5 },
    },
    core.BACKGROUND_CONTEXT,
  );
  return { harness, queue, ai, ctx: core.BACKGROUND_CONTEXT };
}

/** The schemas' builder, as the packages' pi-ai re-exports it. */
const { Type } = (await kit("0.99")).ai;

const echo = {
  name: "echo",
  label: "Echo",
  description: "Echoes its text back",
  parameters: Type.Object({ text: Type.String() }),
  execute: async (_id, params) => ({ content: [{ type: "text", text: `echo: ${params.text}` }], details: { length: params.text.length } }),
};

/** A tool that never finishes until `release` is called: a crash mid call is the file as it stands then. */
function stuckTool() {
  let started;
  const running = new Promise((resolve) => (started = resolve));
  let release;
  const gate = new Promise((resolve) => (release = resolve));
  return {
    running,
    release: () => release(),
    tool: {
      name: "slow",
      label: "Slow",
      description: "Takes its time",
      parameters: Type.Object({ seconds: Type.Number() }),
      execute: async () => {
        started();
        await gate;
        return { content: [{ type: "text", text: "finally" }], details: {} };
      },
    },
  };
}

/** Prompts on `lane`, the answers scripted. */
async function turn(h, lane, text, answers) {
  h.queue.push(...answers);
  const r = await lane.prompt(text, undefined, h.ctx);
  if (!r.ok) throw new Error(`prompt failed: ${JSON.stringify(r.error)}`);
  return r.value;
}

const say = (h, text) => h.ai.fauxAssistantMessage(text);
const call = (h, text, args) => h.ai.fauxAssistantMessage([h.ai.fauxText(text), h.ai.fauxToolCall("echo", args)], { stopReason: "toolUse" });

/** The scenarios one session each: (harness, lane, session) => Promise. */
const SCENARIOS = {
  /** Prompts with tool calls, a label, a name, a custom entry. */
  async basic(h, lane) {
    await turn(h, lane, "hello", [call(h, "let me echo", { text: "hi" }), say(h, "done: hi")]);
    await lane.appendCustomEntry("app.note", { note: "a custom entry" }, h.ctx);
    await turn(h, lane, "two calls at once", [
      h.ai.fauxAssistantMessage([h.ai.fauxToolCall("echo", { text: "a" }), h.ai.fauxToolCall("echo", { text: "b" })], { stopReason: "toolUse" }),
      say(h, "both echoed"),
    ]);
    await h.harness.setLabel(await lane.getTipId(h.ctx), "checkpoint", h.ctx);
    await h.harness.setName("basic session", h.ctx);
  },
  /** A navigation back with a branch summary, a new turn from there, and a second lane. */
  async branches(h, lane) {
    await turn(h, lane, "first question", [say(h, "first answer")]);
    const fork = await lane.getTipId(h.ctx);
    await turn(h, lane, "second question", [call(h, "checking", { text: "x" }), say(h, "second answer")]);
    const nav = await lane.navigateTree(fork, { summarize: true }, h.ctx);
    if (!nav.ok) throw new Error(`navigation failed: ${JSON.stringify(nav.error)}`);
    await turn(h, lane, "another way", [say(h, "a different answer")]);
    const side = await h.harness.lane("side", { createAt: fork }, h.ctx);
    await turn(h, side, "on the side lane", [say(h, "side answer")]);
    await h.harness.setLabel(fork, "fork point", h.ctx);
  },
  /** Two compactions, the second cutting into the first's retained tail. */
  async compactions(h, lane) {
    for (let i = 0; i < 4; i++) await turn(h, lane, `question ${i} ${"words ".repeat(20)}`, [say(h, `answer ${i} ${"more ".repeat(20)}`)]);
    const c1 = await lane.compact({}, h.ctx);
    if (!c1.ok) throw new Error(`compaction failed: ${JSON.stringify(c1.error)}`);
    await turn(h, lane, "after the compaction", [call(h, "echoing", { text: "after" }), say(h, "noted")]);
    const c2 = await lane.compact({}, h.ctx);
    if (!c2.ok) throw new Error(`second compaction failed: ${JSON.stringify(c2.error)}`);
    await turn(h, lane, "after the second", [say(h, "still here")]);
  },
  /** A provider error retried to success, and an error that ends the run. */
  async errors(h, lane) {
    const failing = (text) => h.ai.fauxAssistantMessage("", { stopReason: "error", errorMessage: text });
    await turn(h, lane, "try this", [failing("overloaded"), say(h, "worked on retry")]);
    h.queue.push(failing("bad request"), failing("bad request"), failing("bad request"));
    await lane.prompt("this one fails", undefined, h.ctx);
    h.queue.length = 0;
    await turn(h, lane, "and again", [say(h, "fine now")]);
  },
};

async function jsonlSessions(dir) {
  const k = await kit("0.99");
  const { core, node } = k;
  const env = new node.NodeExecutionEnv({ cwd: dir });
  const repo = new core.JsonlSessionRepo({ fileSystem: env, sessionsRoot: dir });
  const made = {};
  for (const [name, scenario] of Object.entries(SCENARIOS)) {
    const session = await repo.create({ cwd: `/home/dev/${name}` }, core.BACKGROUND_CONTEXT);
    const h = await harnessOn(k, session, { tools: [echo] });
    const lane = await h.harness.lane("main", h.ctx);
    await scenario(h, lane, session);
    made[name] = session.metadata;
    await session.close(core.BACKGROUND_CONTEXT);
  }
  // A crash mid tool call: the file as it stands while the tool runs.
  {
    const session = await repo.create({ cwd: "/home/dev/crash" }, core.BACKGROUND_CONTEXT);
    const stuck = stuckTool();
    const h = await harnessOn(k, session, { tools: [echo, stuck.tool] });
    const lane = await h.harness.lane("main", h.ctx);
    await turn(h, lane, "warm up", [say(h, "ready")]);
    h.queue.push(h.ai.fauxAssistantMessage([h.ai.fauxText("this takes a while"), h.ai.fauxToolCall("slow", { seconds: 60 })], { stopReason: "toolUse" }));
    const run = lane.prompt("run the slow tool", undefined, h.ctx);
    await stuck.running;
    copyFileSync(session.metadata.path, `${session.metadata.path}.crashed`);
    stuck.release();
    h.queue.push(say(h, "the slow tool finished"));
    await run;
    await session.close(core.BACKGROUND_CONTEXT);
    // (the crashed copy is the fixture: the finished one is put aside)
    rmSync(session.metadata.path);
    copyFileSync(`${session.metadata.path}.crashed`, session.metadata.path);
    rmSync(`${session.metadata.path}.crashed`);
    made.crash = session.metadata;
  }
  // A fork of the branches session's main branch, and of the whole tree.
  for (const [name, options] of [["fork-branch", { scope: "branch", branch: "main" }], ["fork-tree", { scope: "tree" }]]) {
    const forked = await repo.fork(made.branches, options, core.BACKGROUND_CONTEXT);
    made[name] = forked.metadata;
    await forked.close(core.BACKGROUND_CONTEXT);
  }
  // A pi v3 file the repository upgraded in place: written by pi 1.6's SessionManager (messages with
  // usage, a model change, a custom message, a branch with a summary, a compaction, a label, a
  // name), opened by the repository, and a name set: the first write upgrades it.
  {
    const { SessionManager } = await import("@earendil-works/pi-coding-agent");
    const cwd = "/home/dev/upgraded";
    const pi = SessionManager.create(cwd, join(dir, "--home-dev-upgraded--"));
    const usage = (n) => ({ input: 100 * n, output: 10 * n, cacheRead: 0, cacheWrite: 0, totalTokens: 110 * n, cost: { input: 0.001 * n, output: 0.002 * n, cacheRead: 0, cacheWrite: 0, total: 0.003 * n } });
    const assistant = (text, n) => ({ role: "assistant", content: [{ type: "text", text }], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-6", usage: usage(n), stopReason: "stop", timestamp: Date.now() });
    const user = (text) => ({ role: "user", content: [{ type: "text", text }], timestamp: Date.now() });
    pi.appendModelChange("anthropic", "claude-sonnet-4-6");
    pi.appendMessage(user("start of the v3 session"));
    const first = pi.appendMessage(assistant("the first answer", 1));
    pi.appendCustomMessageEntry("app.context", "a custom message the model sees", true);
    pi.appendMessage(user("a second question"));
    const kept = pi.appendMessage(assistant("the second answer", 2));
    pi.appendMessage(user("a third question"));
    pi.appendMessage(assistant("the third answer", 3));
    pi.appendCompaction("the v3 session so far", kept, 1234);
    pi.appendMessage(user("after the v3 compaction"));
    pi.appendMessage(assistant("answer after it", 4));
    pi.branchWithSummary(first, "what the abandoned path did");
    pi.appendMessage(user("on the branch"));
    pi.appendMessage(assistant("branch answer", 5));
    pi.appendLabelChange(first, "first answer");
    pi.appendSessionInfo("v3 before the upgrade");
    const path = pi.getSessionFile();
    const listed = (await repo.list({ cwd }, core.BACKGROUND_CONTEXT)).find((m) => m.path === path);
    if (!listed) throw new Error(`the v3 file ${path} was not listed by the repository`);
    const session = await repo.open(listed, core.BACKGROUND_CONTEXT);
    await session.setName("upgraded from v3", core.BACKGROUND_CONTEXT);
    await session.close(core.BACKGROUND_CONTEXT);
    made.upgraded = listed;
  }
  await repo.close(core.BACKGROUND_CONTEXT);
  return made;
}

async function sqliteSessions(dir) {
  const k = await kit("0.87");
  const backend = await load("sqlite-backend-0.87/dist/index.js");
  const { core } = k;
  const made = {};
  // One database per session (the backend's default layout).
  const repo = new backend.SqliteSessionRepo({ directory: join(dir, "sqlite"), databaseFactory: backend.createNodeSqliteFactory() });
  for (const name of ["basic", "branches", "compactions", "errors"]) {
    const session = await repo.create({}, core.BACKGROUND_CONTEXT);
    const h = await harnessOn(k, session, { tools: [echo] });
    const lane = await h.harness.lane("main", h.ctx);
    await SCENARIOS[name](h, lane, session);
    made[`per-session/${name}`] = session.metadata;
    await session.close(core.BACKGROUND_CONTEXT);
  }
  const forked = await repo.fork(made["per-session/branches"], { scope: "branch", branch: "main" }, core.BACKGROUND_CONTEXT);
  made["per-session/fork"] = forked.metadata;
  await forked.close(core.BACKGROUND_CONTEXT);
  await repo.close(core.BACKGROUND_CONTEXT);
  // Several sessions in one shared container.
  const shared = new backend.SqliteSessionRepo({ directory: join(dir, "shared"), databasePath: join(dir, "shared", "sessions.sqlite"), databaseFactory: backend.createNodeSqliteFactory() });
  for (const name of ["basic", "branches"]) {
    const session = await shared.create({}, core.BACKGROUND_CONTEXT);
    const h = await harnessOn(k, session, { tools: [echo] });
    const lane = await h.harness.lane("main", h.ctx);
    await SCENARIOS[name](h, lane, session);
    made[`shared/${name}`] = session.metadata;
    await session.close(core.BACKGROUND_CONTEXT);
  }
  await shared.close(core.BACKGROUND_CONTEXT);
  return made;
}

if (existsSync(out)) rmSync(out, { recursive: true });
mkdirSync(out, { recursive: true });
// (one folder laid out as pi's session directory: the JSONL repository's project folders, the
// backend's per-session databases in sqlite/, and a shared container in shared/)
const jsonl = await jsonlSessions(out);
const sqlite = await sqliteSessions(out);
const list = (d) => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? list(join(d, e.name)) : [join(d, e.name)]));
for (const f of list(out)) console.log(`${relative(out, f)}  ${statSync(f).size} bytes`);
console.log(JSON.stringify({ jsonl: Object.fromEntries(Object.entries(jsonl).map(([k, m]) => [k, relative(out, m.path)])), sqlite: Object.fromEntries(Object.entries(sqlite).map(([k, m]) => [k, m.id])) }, null, 2));
