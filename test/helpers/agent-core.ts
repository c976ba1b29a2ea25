/**
 * The oracle for agent-core's storage format 4: the published packages themselves (package.json's
 * aliases `agent-core-0.99` = `@earendil-works/pi-agent-core` 0.99.1, and `sqlite-backend-0.87` =
 * `@earendil-works/pi-session-backend-sqlite-node` 0.87.1 with the agent-core 0.87.1 it depends
 * on). A session is opened by the package's own storage (JSONL: `JsonlStorage`, on a copy, as it
 * rewrites a torn file; SQLite: `SqliteSessionRepo`, read as it reads), and each branch's context
 * is the package's own `buildSessionContext` (not exported by the entry: imported from the module
 * its harness loads).
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";

const ROOT = new URL("../../", import.meta.url).pathname;
const load = (path: string): Promise<any> => import(pathToFileURL(join(ROOT, "node_modules", path)).href);

type Entry = { id: string; parentId: string | null; seq: number; type: string; [k: string]: unknown };
type Usage = { input: number; output: number; cacheRead: number; cacheWrite: number; totalTokens: number; cost: { total: number } };

/** A session as agent-core's storage reads it: its entries, the tips of its branches, its ledger, and each node's context. */
export interface AgentCoreSession {
  id: string;
  entries: Entry[];
  tips: Map<string, string | null>;
  labels: Map<string, string>;
  name: string | undefined;
  /** The ledger's rows, each once. */
  ledger: Array<{ id: string; usage: Usage; entryId?: string; adjustment: boolean }>;
  /** The context agent-core builds at `id` (its branch root -> `id`). */
  context(id: string): Promise<unknown[]>;
  /** Every leaf (an entry no other names as its parent) and every branch's tip. */
  leaves(): string[];
}

async function fromStorage(storage: any, id: string, buildSessionContext: (entries: unknown[]) => Promise<unknown[]>, ctx: unknown, values: any): Promise<AgentCoreSession> {
  const entries: Entry[] = await storage.scanEntries({}, ctx);
  const tips = new Map<string, string | null>((await storage.scanValues(values.branchTipInventoryPrefix(), ctx)).map((v: any) => [v.address.key, v.value]));
  const labels = new Map<string, string>((await storage.scanValues(values.entryLabel(""), ctx)).map((v: any) => [v.address.key, v.value]));
  const name = (await storage.getValue(values.sessionName, ctx))?.value;
  const ledger = await storage.scanUsage({}, ctx);
  return {
    id,
    entries,
    tips,
    labels,
    name,
    ledger,
    async context(at) {
      const path = await storage.scanBranch({ start: at, order: "oldestFirst" }, ctx);
      return buildSessionContext(path);
    },
    leaves() {
      const parents = new Set(entries.map((e) => e.parentId));
      const out = new Set(entries.filter((e) => !parents.has(e.id)).map((e) => e.id));
      for (const tip of tips.values()) if (tip !== null) out.add(tip);
      return [...out];
    },
  };
}

/** A format-4 JSONL file as agent-core 0.99.1 reads it (from a copy: it rewrites a torn file in place). */
export async function agentCoreJsonl(path: string): Promise<AgentCoreSession> {
  const core = await load("agent-core-0.99/dist/index.js");
  const { NodeExecutionEnv } = await load("agent-core-0.99/dist/harness/env/nodejs.js");
  const { JsonlStorage } = await load("agent-core-0.99/dist/harness/session/jsonl/storage.js");
  const { buildSessionContext } = await load("agent-core-0.99/dist/harness/session/context.js");
  const values = await load("agent-core-0.99/dist/harness/session/values.js");
  const dir = mkdtempSync(join(tmpdir(), "agent-core-oracle-"));
  try {
    const copy = join(dir, basename(path));
    copyFileSync(path, copy);
    const ctx = core.BACKGROUND_CONTEXT;
    const storage = await JsonlStorage.open({ fileSystem: new NodeExecutionEnv({ cwd: dir }), path: copy }, ctx);
    const id = (storage as { header: { id: string } }).header.id;
    return await fromStorage(storage, id, buildSessionContext, ctx, values);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The sessions of a SQLite container as the 0.87.1 backend reads them (read-only; a copy of the files). */
export async function agentCoreSqlite(path: string): Promise<AgentCoreSession[]> {
  const backend = await load("sqlite-backend-0.87/dist/index.js");
  const base = "sqlite-backend-0.87/node_modules/@earendil-works/pi-agent-core";
  const core = await load(`${base}/dist/index.js`);
  const { buildSessionContext } = await load(`${base}/dist/harness/session/context.js`);
  const values = await load(`${base}/dist/harness/session/values.js`);
  const dir = mkdtempSync(join(tmpdir(), "agent-core-oracle-"));
  const ctx = core.BACKGROUND_CONTEXT;
  try {
    const copy = join(dir, basename(path));
    copyFileSync(path, copy);
    for (const suffix of ["-wal", "-shm"]) {
      try {
        copyFileSync(`${path}${suffix}`, `${copy}${suffix}`);
      } catch {
        // none beside it
      }
    }
    const shared = !/^[\w-]+\.sqlite$/.test(basename(path)) || basename(path) === "sessions.sqlite";
    const repo = new backend.SqliteSessionRepo({ directory: dir, ...(shared ? { databasePath: copy } : {}), databaseFactory: backend.createNodeSqliteFactory() });
    const factory = backend.createNodeSqliteFactory();
    const out: AgentCoreSession[] = [];
    for (const metadata of await repo.list(undefined, ctx)) {
      // (the backend's own storage, on a read-only connection: what its sessions read through)
      const storage = new backend.SqliteStorage(await factory.openReadOnly(copy), { sessionId: metadata.id });
      out.push(await fromStorage(storage, metadata.id, buildSessionContext, ctx, values));
    }
    await repo.close(ctx);
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
