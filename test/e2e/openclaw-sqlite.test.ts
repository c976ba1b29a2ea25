/**
 * OpenClaw's SQLite era, on the two real stores OpenClaw 2026.9.6's own importer migrated
 * (../shared/openclaw-stores-sqlite): every transcript in the database found once with its key
 * and label; `cat` byte for byte what the rows hold (decoded here with node:sqlite and zlib, not
 * with the tool's reader); `context` as pi builds it from those lines; `usage` and `grep` equal to
 * the same store's JSONL era; a `.zst` archive read; the writers refusing a database transcript;
 * a gateway holding a write transaction no obstacle; and no file of the store changed, `-wal` and
 * `-shm` included (absent ones not created).
 */
import { createHash } from "node:crypto";
import { chmodSync, closeSync, cpSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, utimesSync, writeFileSync, writeSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { zstdCompressSync, zstdDecompressSync } from "node:zlib";
import { execa } from "execa";
import { beforeAll, describe, expect, it } from "vitest";
import { cli, cliJson } from "../helpers/cli.js";
import { snapshot } from "../helpers/snapshot.js";
import { ROOT } from "../helpers/paths.js";
import { pi } from "../helpers/pi.js";

const SQLITE_STORES = join(ROOT, "../shared/openclaw-stores-sqlite");
const JSONL_STORES = join(ROOT, "../shared/openclaw-stores");
const STORES = ["ccccx", "archeoneocode"];

/** A store copied under a home of its own, writable, as a user has it. */
function homeWith(store: string): { home: string; root: string } {
  const home = mkdtempSync(join(tmpdir(), "pi-session-sqlite-home-"));
  const root = join(home, ".openclaw");
  cpSync(join(SQLITE_STORES, store), root, { recursive: true });
  for (const f of readdirSync(root, { recursive: true, withFileTypes: true })) chmodSync(join(f.parentPath, f.name), f.isDirectory() ? 0o755 : 0o644);
  chmodSync(root, 0o755);
  return { home, root };
}

/** The oracle: a transcript's lines as the database holds them, decoded here. */
function rowsOf(db: string): Map<string, Buffer> {
  const d = new DatabaseSync(`file:${db}?immutable=1`, { readOnly: true });
  const out = new Map<string, Buffer[]>();
  for (const r of d.prepare("SELECT session_id, seq, CAST(event_json AS BLOB) AS json, event_zstd FROM transcript_events ORDER BY session_id, seq").all()) {
    const line = r.json !== null ? Buffer.from(r.json as Uint8Array) : zstdDecompressSync(r.event_zstd as Uint8Array);
    const list = out.get(String(r.session_id)) ?? [];
    list.push(line, Buffer.from("\n"));
    out.set(String(r.session_id), list);
  }
  d.close();
  return new Map([...out].map(([id, parts]) => [id, Buffer.concat(parts)]));
}

const dbOf = (root: string) => join(root, "agents/main/agent/openclaw-agent.sqlite");

describe.each(STORES)("the %s store in OpenClaw's database", (store) => {
  let home: string;
  let root: string;
  let before: Record<string, string>;
  let rows: Map<string, Buffer>;
  const env = () => ({ HOME: home });

  beforeAll(() => {
    ({ home, root } = homeWith(store));
    before = snapshot(root);
    rows = rowsOf(dbOf(root));
    expect(rows.size).toBeGreaterThan(0);
  });

  it("ls finds each database transcript once, with its key and label from session_nodes and session_windows, the era said", async () => {
    const r = await cliJson(["ls", "--no-cache"], { env: env() });
    expect(r.exitCode).toBe(0);
    const fromDb = r.json.sessions.filter((s: { source: string }) => s.source === "sqlite");
    expect(fromDb.map((s: { id: string }) => s.id).sort()).toEqual([...rows.keys()].sort());
    expect(fromDb.map((s: { path: string }) => s.path).sort()).toEqual([...rows.keys()].map((id) => `${dbOf(root)}#${id}`).sort());
    const d = new DatabaseSync(`file:${dbOf(root)}?immutable=1`, { readOnly: true });
    for (const s of fromDb) {
      const w = d.prepare("SELECT session_key FROM session_windows WHERE session_id = ?").get(s.id) as { session_key: string } | undefined;
      expect(s.key, s.id).toBe(w?.session_key ?? null);
      const labels = d.prepare("SELECT label FROM session_nodes WHERE current_session_id = ? AND label IS NOT NULL").all(s.id).map((x) => x.label);
      if (labels.length > 0) expect(labels).toContain(s.label);
      expect(s.store).toBe("openclaw");
    }
    d.close();
    // the importer's copies are copies, archives are JSONL files
    for (const s of r.json.sessions.filter((x: { path: string }) => x.path.includes("session-sqlite-import-archive"))) expect(s.copyOf, s.path).not.toBeNull();
  });

  it("--session-dir takes the store's root wherever it is (a key found there); <database>#<prefix> names a transcript as an id prefix does", async () => {
    const viaHome = await cli(["cat", "agent:main:main"], { env: env() });
    expect(viaHome.exitCode, viaHome.stderr).toBe(0);
    // (no ~/.openclaw and no $OPENCLAW_STATE_DIR: the root given is the store)
    const viaFlag = await cli(["cat", "agent:main:main", "--session-dir", root]);
    expect(viaFlag.exitCode, viaFlag.stderr).toBe(0);
    expect(viaFlag.stdout).toBe(viaHome.stdout);
    const missing = await cli(["cat", "agent:main:nope", "--session-dir", root]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain("--session-dir names another store's root");
    const [id] = [...rows.keys()];
    const shown = await cliJson(["show", `${dbOf(root)}#${id!.slice(0, 8)}`]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.json.header.id).toBe(id);
  });

  it("cat prints each transcript byte for byte as its rows hold it (event_zstd decompressed), by id, key or path", async () => {
    for (const [id, bytes] of rows) {
      const byId = await execa("node", [join(ROOT, "bin/pi-session.js"), "cat", id], { env: { HOME: home, XDG_CACHE_HOME: join(home, ".cache") }, encoding: "buffer", stripFinalNewline: false, reject: false });
      expect(byId.exitCode, id).toBe(0);
      expect(Buffer.compare(Buffer.from(byId.stdout), bytes), id).toBe(0);
      const byPath = await execa("node", [join(ROOT, "bin/pi-session.js"), "cat", `${dbOf(root)}#${id}`], { encoding: "buffer", stripFinalNewline: false });
      expect(Buffer.compare(Buffer.from(byPath.stdout), bytes), id).toBe(0);
    }
    const main = await execa("node", [join(ROOT, "bin/pi-session.js"), "cat", "agent:main:main"], { env: { HOME: home, XDG_CACHE_HOME: join(home, ".cache") }, encoding: "buffer", stripFinalNewline: false });
    const mainId = JSON.parse(Buffer.from(main.stdout).toString("utf8").split("\n")[0]!).id as string;
    expect(Buffer.compare(Buffer.from(main.stdout), rows.get(mainId)!)).toBe(0);
  });

  it("context --json of every database transcript is pi's buildSessionContext of its lines", async () => {
    for (const [id, bytes] of rows) {
      const entries = pi.parseSessionEntries(bytes.toString("utf8")).filter((e: { type: string }) => e.type !== "session");
      const r = await cliJson(["context", id], { env: env() });
      expect(r.exitCode, id).toBe(0);
      const { activeToolNames: _tools, ...context } = r.json;
      expect(context, id).toEqual(JSON.parse(JSON.stringify(pi.buildSessionContext(entries))));
    }
  });

  it("every read-only command says of a database transcript what it says of the same lines in a file: tree, path, context --llm, check, export, show, grep", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-sqlite-as-file-"));
    for (const [id, bytes] of rows) {
      const ref = `${dbOf(root)}#${id}`;
      const file = join(dir, `${id}.jsonl`);
      writeFileSync(file, bytes);
      const run = async (args: string[], at: string) => {
        const r = await cli([...args.slice(0, 1), at, ...args.slice(1)], { env: env() });
        // (the error result pi supplies for an unanswered call is stamped with the time it is made)
        const stdout = r.stdout.split(at).join("FILE").replace(/("No result provided"\\?"?\}\],\\?"isError\\?":true,\\?"timestamp\\?":)\d+/g, "$1T");
        return { exitCode: r.exitCode, stdout, stderr: r.stderr.split(at).join("FILE") };
      };
      for (const args of [["tree", "--json"], ["path", "--json"], ["path", "--leaves", "--json"], ["context", "--llm", "--json"], ["check", "--json"], ["export", "--format", "json"]]) {
        expect(await run(args, ref), `${args.join(" ")} ${id}`).toEqual(await run(args, file));
      }
      // (what only the database knows is said beside it: the transcript's OpenClaw key and agent, and its label as the title; export jsonl's header is stamped now, as pi's /export stamps it)
      const withoutStore = (r: { stdout: string }) => r.stdout.split("\n").slice(1).filter((l) => !l.startsWith("- **OpenClaw ")).join("\n");
      expect(withoutStore(await run(["export"], ref)), `export ${id}`).toBe(withoutStore(await run(["export"], file)));
      const body = (r: { stdout: string }) => r.stdout.split("\n").slice(1).join("\n");
      expect(body(await run(["export", "--format", "jsonl"], ref)), `export jsonl ${id}`).toBe(body(await run(["export", "--format", "jsonl"], file)));
      const shown = async (at: string) => {
        const { openclaw: _store, ...rest } = JSON.parse((await run(["show", "--json"], at)).stdout);
        return rest;
      };
      expect(await shown(ref), `show ${id}`).toEqual(await shown(file));
      const grep = async (at: string) => (await run(["grep", "-F", "-i", "the", "--json"], at)).stdout;
      expect(await grep(ref), `grep ${id}`).toBe(await grep(file));
    }
  });

  it("usage and grep give what the same store gives in its JSONL era", async () => {
    const totals = (json: { total: unknown; rows: Array<Record<string, unknown>> }) => ({ total: json.total, rows: json.rows });
    const sqlite = await cliJson(["usage", root, "--no-cache"]);
    const jsonl = await cliJson(["usage", join(JSONL_STORES, store), "--no-cache"]);
    expect(sqlite.exitCode).toBe(0);
    expect(totals(sqlite.json)).toEqual(totals(jsonl.json));
    for (const pattern of [["-F", "-i", "github"], ["-i", "error|fail"]]) {
      const found = async (dir: string) => {
        const r = await cliJson(["grep", ...pattern, dir]);
        // (every match as it is reported: a copy that is its database transcript's bytes is searched once, as the transcript)
        return { total: r.json.total, matches: (r.json.matches as Array<{ id: string; session: string; line: number; field: string }>).map((m) => `${m.session}:${m.id}:${m.line}:${m.field}`).sort() };
      };
      const sqlite = await found(root);
      expect(sqlite.matches.length, pattern.join(" ")).toBeGreaterThan(0);
      expect(sqlite, pattern.join(" ")).toEqual(await found(join(JSONL_STORES, store)));
    }
  });

  it("the writers refuse a database transcript, saying how to get a file of it; nothing changed", async () => {
    const id = [...rows.keys()][0]!;
    for (const command of ["repair", "migrate", "slim"]) {
      const r = await cli([command, id], { env: env() });
      expect(r.exitCode, command).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr, command).toBe(`pi-session: ${dbOf(root)}#${id}: the transcript is in OpenClaw's database, which OpenClaw alone writes; nothing was written. For a file of it: \`pi-session cat ${id} > ${id}.jsonl\`, then \`pi-session ${command}\` that file\n`);
    }
  });

  it("after every command, no file of the store changed, and no -wal or -shm was made", () => {
    // (runs last: the commands above read this copy)
    expect(snapshot(root)).toEqual(before);
    expect(existsSync(`${dbOf(root)}-wal`)).toBe(existsSync(join(SQLITE_STORES, store, "agents/main/agent/openclaw-agent.sqlite-wal")));
  });
});

describe("a live gateway and its archives", () => {
  it("a write transaction held by another process neither blocks a read past the busy wait nor fails it, and what it committed before is read", async () => {
    const { home, root } = homeWith("ccccx");
    const db = dbOf(root);
    const id = "b5b4ed18-f040-49f7-aa6d-42132e00c908";
    const writer = new DatabaseSync(db);
    writer.exec("PRAGMA wal_autocheckpoint = 0");
    const line = JSON.stringify({ type: "custom", customType: "written-while-reading", data: {}, id: "feedf00d", parentId: "8b4ef49f", timestamp: "2026-03-15T16:09:00.000Z" });
    writer.prepare("INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, 100, ?, 1)").run(id, line);
    writer.exec("BEGIN IMMEDIATE");
    writer.prepare("INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, 101, ?, 2)").run(id, JSON.stringify({ type: "custom", id: "uncommitted" }));
    try {
      const started = Date.now();
      const r = await cli(["cat", id], { env: { HOME: home } });
      expect(Date.now() - started).toBeLessThan(3000);
      expect(r.exitCode).toBe(0);
      expect(r.stdout.trimEnd().split("\n").at(-1)).toBe(line);
      expect(r.stdout).not.toContain("uncommitted");
      const shown = await cliJson(["show", id], { env: { HOME: home } });
      expect(shown.json.currentLeaf).toBe("feedf00d");
    } finally {
      writer.exec("ROLLBACK");
      writer.close();
    }
  });

  it("a log without its index (-wal, no -shm): what only the log holds is read from a copy, and the copy is gone when the command ends", async () => {
    const { home, root } = homeWith("ccccx");
    const db = dbOf(root);
    const id = "b5b4ed18-f040-49f7-aa6d-42132e00c908";
    // the database as it was before the write, then the log with the write in it (a gateway that
    // stopped before checkpointing, its -shm lost): the line is in the log alone
    const before = readFileSync(db);
    const writer = new DatabaseSync(db);
    writer.exec("PRAGMA wal_autocheckpoint = 0");
    const line = JSON.stringify({ type: "custom", customType: "in-the-log-only", data: {}, id: "0123abcd", parentId: "8b4ef49f", timestamp: "2026-03-15T16:09:00.000Z" });
    writer.prepare("INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, 100, ?, 1)").run(id, line);
    const log = readFileSync(`${db}-wal`);
    writer.close();
    writeFileSync(db, before);
    writeFileSync(`${db}-wal`, log);
    rmSync(`${db}-shm`, { force: true });
    const kept = snapshot(root);
    const tmp = mkdtempSync(join(tmpdir(), "pi-session-tmp-"));
    const r = await cli(["cat", id], { env: { HOME: home, TMPDIR: tmp } });
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe(line);
    const listed = await cliJson(["ls", root, "--no-cache"], { env: { HOME: home, TMPDIR: tmp } });
    expect(listed.json.sessions.find((s: { path: string }) => s.path.endsWith(`#${id}`)).messages).toBeGreaterThan(0);
    expect(readdirSync(tmp)).toEqual([]);
    expect(snapshot(root)).toEqual(kept);
  });

  it("an archive the database keeps and has not published to a file is listed and read from its row, counted once; published, it is the file alone", async () => {
    const { root } = homeWith("ccccx");
    const sessions = join(root, "agents/main/sessions");
    const before = await cliJson(["usage", root, "--json", "--no-cache"]);
    const plain = readdirSync(sessions).find((n) => n.includes(".jsonl.reset."))!;
    const text = readFileSync(join(sessions, plain));
    const name = `${plain}.zst`;
    // the archive moved into its row of session_transcript_archives, as OpenClaw keeps one it has not published yet
    rmSync(join(sessions, plain));
    const blob = zstdCompressSync(text);
    const writer = new DatabaseSync(dbOf(root));
    writer.prepare("INSERT INTO session_transcript_archives (session_id, generation, session_key, reason, encoding, archive_blob, archive_sha256, archive_name, created_at, published_at) VALUES (?, 'g1', 'agent:main:main', 'reset', 'zstd', ?, ?, ?, 1, NULL)").run(plain.slice(0, plain.indexOf(".")), blob, createHash("sha256").update(blob).digest("hex"), name);
    writer.close();
    const ref = `${dbOf(root)}#${name}`;
    const listed = await cliJson(["ls", root, "--json", "--no-cache"]);
    const rows = listed.json.sessions.filter((r: { path: string }) => r.path.includes(plain));
    expect(rows.map((r: { path: string; archived: string; source: string }) => [r.path, r.archived, r.source])).toEqual([[ref, "reset", "sqlite"]]);
    const cat = await execa("node", [join(ROOT, "bin/pi-session.js"), "cat", ref], { encoding: "buffer", stripFinalNewline: false });
    expect(Buffer.compare(Buffer.from(cat.stdout), text)).toBe(0);
    const after = await cliJson(["usage", root, "--json", "--no-cache"]);
    expect(after.json.total).toEqual(before.json.total);
    // published: the file is the archive, and the row is not listed beside it
    writeFileSync(join(sessions, name), blob);
    const published = new DatabaseSync(dbOf(root));
    published.prepare("UPDATE session_transcript_archives SET published_at = 2 WHERE archive_name = ?").run(name);
    published.close();
    const again = await cliJson(["ls", root, "--json", "--no-cache"]);
    expect(again.json.sessions.filter((r: { path: string }) => r.path.includes(plain)).map((r: { path: string }) => r.path)).toEqual([join(sessions, name)]);
    expect((await cliJson(["usage", root, "--json", "--no-cache"])).json.total).toEqual(before.json.total);
  });

  it("usage --by key puts a reset's archives under the key they were, where the store records it (since 2026.9: a key's usage family, in sessions.json, then in the database its importer made), both eras alike; an archive nothing names stays `-`, saying why", async () => {
    const key = "agent:main:feishu:direct:ou_b3b3dc776df60982741679029db666e9";
    const current = "4cd0abc6-56b7-41af-ad24-4dfe17acb43c";
    // (the store's reset archives, oldest first: the sessions this key had before)
    const resets = readdirSync(join(JSONL_STORES, "ccccx/agents/main/sessions")).filter((n) => n.includes(".jsonl.reset.")).sort((a, b) => a.split(".reset.")[1]!.localeCompare(b.split(".reset.")[1]!)).map((n) => n.slice(0, 36));
    const family = { usageFamilyKey: key, usageFamilySessionIds: [...resets, current], previousSessionId: resets.at(-1)! };
    // The JSONL era: the key's entry as OpenClaw 2026.9.6 writes it after those resets.
    const jsonl = join(mkdtempSync(join(tmpdir(), "pi-session-family-")), "ccccx");
    cpSync(join(JSONL_STORES, "ccccx"), jsonl, { recursive: true });
    for (const f of readdirSync(jsonl, { recursive: true, withFileTypes: true })) chmodSync(join(f.parentPath, f.name), f.isDirectory() ? 0o755 : 0o644);
    const index = join(jsonl, "agents/main/sessions/sessions.json");
    const entries = JSON.parse(readFileSync(index, "utf8")) as Record<string, Record<string, unknown>>;
    Object.assign(entries[key]!, family);
    writeFileSync(index, JSON.stringify(entries, null, 2));
    // The SQLite era: what OpenClaw 2026.9.6's importer makes of that store (run on it when this
    // test was written: the entry as it was, in entry_json; previousSessionId as the window's
    // previous_session_id), made here on a copy of the shared store its importer migrated.
    const { root } = homeWith("ccccx");
    const writer = new DatabaseSync(dbOf(root));
    writer.prepare("UPDATE session_nodes SET entry_json = json_set(entry_json, '$.usageFamilyKey', ?, '$.usageFamilySessionIds', json(?), '$.previousSessionId', ?) WHERE session_key = ?").run(key, JSON.stringify(family.usageFamilySessionIds), family.previousSessionId, key);
    writer.prepare("UPDATE session_windows SET previous_session_id = ? WHERE session_id = ?").run(family.previousSessionId, current);
    writer.close();
    type Row = { key: string; sessions: number; requests: number; cost: number; why?: string };
    const rows = async (at: string) => ((await cliJson(["usage", at, "--by", "key", "--json", "--no-cache"])).json.rows as Row[]).map(({ key, sessions, requests, cost, why }) => ({ key, sessions, requests, cost: Math.round(cost * 1e6), ...(why ? { why } : {}) }));
    const before = await rows(join(JSONL_STORES, "ccccx"));
    expect(before.find((r) => r.key === "-")).toMatchObject({ sessions: resets.length + 1, why: `${resets.length + 1} reset or deleted archives its store records no key for` });
    const after = await rows(jsonl);
    expect(after.find((r) => r.key === key)).toMatchObject({ sessions: resets.length + 1 });
    // (what nothing records: the deleted archive, said)
    expect(after.find((r) => r.key === "-")).toMatchObject({ sessions: 1, why: "1 reset or deleted archive its store records no key for" });
    // every request once, wherever it is put; the two eras alike
    const sum = (rs: Row[]) => rs.reduce((n, r) => n + r.requests, 0);
    expect(sum(after)).toBe(sum(before));
    expect(await rows(root)).toEqual(after);
    // the key still names its live transcript alone, and an archive's row says whose it was
    const env = { OPENCLAW_STATE_DIR: join(jsonl) };
    const named = await cli(["cat", key], { env });
    expect(named.exitCode, named.stderr).toBe(0);
    const listed = await cliJson(["ls", jsonl, "--json", "--no-cache"]);
    const archive = listed.json.sessions.find((r: { path: string }) => r.path.includes(`${resets[0]}.jsonl.reset.`));
    expect(archive).toMatchObject({ key });
  });

  it("ls rows say what session_windows says: the session a reset replaced, who spawned it, its channel; usage --by key lists a sub-agent under its spawner", async () => {
    const { root } = homeWith("ccccx");
    const writer = new DatabaseSync(dbOf(root));
    const child = "4cd0abc6-56b7-41af-ad24-4dfe17acb43c";
    writer.prepare("UPDATE session_windows SET previous_session_id = ?, spawned_by = 'agent:main:main', channel = 'telegram' WHERE session_id = ?").run("2b3b234e-6291-453f-a086-ca332ab249c4", child);
    writer.close();
    const listed = await cliJson(["ls", root, "--json", "--no-cache"]);
    const row = listed.json.sessions.find((r: { path: string }) => r.path === `${dbOf(root)}#${child}`);
    expect(row).toMatchObject({ source: "sqlite", replaces: "2b3b234e-6291-453f-a086-ca332ab249c4", spawnedBy: "agent:main:main", channel: "telegram", kind: "direct" });
    const byKey = await cliJson(["usage", root, "--by", "key", "--json", "--no-cache"]);
    const spawner = byKey.json.rows.find((r: { key: string }) => r.key === "agent:main:main");
    expect(spawner.spawned.map((x: { key: string }) => x.key)).toEqual([row.key]);
  });

  it("a database without a column it reads is one line naming it, in ls too; the rest of the store is read; a search by id says it could not look there", async () => {
    for (const [version, says] of [
      [23, "an OpenClaw database of schema version 23, which should hold transcript_events.event_zstd and does not; it may be damaged or changed by hand: OpenClaw's `openclaw doctor` checks it"],
      [24, "an OpenClaw database of schema version 24, which pi-session does not know (it reads version 23): it lacks transcript_events.event_zstd; `pi-session` may need updating"],
    ] as const) {
      const { home, root } = homeWith("ccccx");
      const writer = new DatabaseSync(dbOf(root));
      writer.exec("ALTER TABLE transcript_events RENAME COLUMN event_zstd TO event_blob");
      writer.prepare("UPDATE schema_meta SET schema_version = ?").run(version);
      writer.close();
      const line = `pi-session: ${dbOf(root)}: ${says}\n`;
      const listed = await cliJson(["ls", root, "--json", "--no-cache"]);
      expect([listed.exitCode, listed.stderr]).toEqual([0, line]);
      const row = listed.json.sessions.find((r: { path: string }) => r.path === dbOf(root));
      expect(row).toMatchObject({ status: "unreadable", error: `${dbOf(root)}: ${says}` });
      // (the importer's copies and the archives in sessions/ are still listed, and read)
      expect(listed.json.sessions.filter((r: { status: string }) => r.status === "ok").length).toBeGreaterThan(10);
      const human = await cli(["ls", root, "--no-cache"]);
      expect([human.exitCode, human.stderr]).toEqual([0, line]);
      // (the transcripts unread, what the importer's copies hold of them is what grep finds: no match of theirs is passed over)
      const found = await cliJson(["grep", "-F", "-i", "github", root]);
      expect(found.exitCode).toBe(2);
      const live = (r: { json: { matches: Array<{ file: string; session: string; id: string }> } }, where: RegExp) => r.json.matches.filter((m) => where.test(m.file)).map((m) => `${m.session}:${m.id}`).sort();
      // (the oracle: the live transcripts' matches in the store's JSONL era)
      const before = await cliJson(["grep", "-F", "-i", "github", join(JSONL_STORES, "ccccx")]);
      expect(live(found, /session-sqlite-import-archive/)).toEqual(live(before, /\/sessions\/[^/]+\.jsonl$/));
      expect(live(found, /session-sqlite-import-archive/).length).toBeGreaterThan(20);
      const shown = await cli(["show", "b5b4ed18"], { env: { HOME: home } });
      expect(shown.exitCode).toBe(2);
      expect(shown.stderr.split("\n").filter(Boolean)).toHaveLength(1);
      expect(shown.stderr).toContain(`run \`pi-session ls\` to find sessions; not searched: ${dbOf(root)}: ${says}`);
    }
  });

  it("a .zst archive (OpenClaw's zstd of the text) reads as the plain one: show, context, usage", async () => {
    const { root } = homeWith("ccccx");
    const sessions = join(root, "agents/main/sessions");
    const plain = readdirSync(sessions).find((n) => n.includes(".jsonl.reset."))!;
    const zst = `${plain}.zst`;
    writeFileSync(join(sessions, zst), zstdCompressSync(readFileSync(join(sessions, plain))));
    const a = await cliJson(["context", join(sessions, plain)]);
    const b = await cliJson(["context", join(sessions, zst)]);
    expect(b.exitCode).toBe(0);
    expect(b.json).toEqual(a.json);
    const cat = await execa("node", [join(ROOT, "bin/pi-session.js"), "cat", join(sessions, zst)], { encoding: "buffer", stripFinalNewline: false });
    expect(Buffer.compare(Buffer.from(cat.stdout), readFileSync(join(sessions, plain)))).toBe(0);
    const listed = await cliJson(["ls", root, "--no-cache"]);
    const row = listed.json.sessions.find((s: { path: string }) => s.path.endsWith(zst));
    expect(row).toMatchObject({ status: "ok", archived: "reset", source: "jsonl" });
    const refused = await cli(["repair", join(sessions, zst)]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("a zstd-compressed archive; nothing was written");
    writeFileSync(join(sessions, `cut.jsonl.reset.2026-09-01T00-00-00.000Z.zst`), zstdCompressSync(readFileSync(join(sessions, plain))).subarray(0, 40));
    const cut = await cli(["show", join(sessions, `cut.jsonl.reset.2026-09-01T00-00-00.000Z.zst`)]);
    expect(cut.exitCode).toBe(2);
    expect(cut.stderr).toMatch(/cut\.jsonl\.reset\.2026-09-01T00-00-00\.000Z\.zst: not a readable zstd archive \(.+\); the file may be cut short or damaged\n$/);
  });

  it("check names a live JSONL that holds entries its database transcript lacks, and a transcript the importer set aside", async () => {
    const { home, root } = homeWith("ccccx");
    const agent = join(root, "agents/main");
    const id = "b5b4ed18-f040-49f7-aa6d-42132e00c908";
    const held = await execa("node", [join(ROOT, "bin/pi-session.js"), "cat", id], { env: { HOME: home }, encoding: "buffer", stripFinalNewline: false });
    const extra = [
      { type: "message", id: "extra001", parentId: "8b4ef49f", timestamp: "2026-03-15T16:10:00.000Z", message: { role: "user", content: "after the import", timestamp: 1 } },
      { type: "message", id: "extra002", parentId: "extra001", timestamp: "2026-03-15T16:10:01.000Z", message: { role: "user", content: "and again", timestamp: 2 } },
    ];
    const live = join(agent, "sessions", `${id}.jsonl`);
    const lines = Buffer.from(held.stdout).toString("utf8").trimEnd().split("\n").length;
    writeFileSync(live, Buffer.concat([Buffer.from(held.stdout), Buffer.from(extra.map((e) => JSON.stringify(e)).join("\n") + "\n")]));
    const aside = join(agent, "session-sqlite-import-archive", "archive-tier.0f0f0f0f-1111-2222-3333-444444444444.jsonl.imported-1796192004999");
    cpSync(live, aside);
    const r = await cliJson(["check", root], { env: { HOME: home } });
    expect(r.exitCode).toBe(1);
    const bad = r.json.files.filter((f: { errors: number }) => f.errors > 0).map((f: { file: string; findings: Array<{ code: string; line?: number; message: string }> }) => [f.file, f.findings.map((x) => [x.code, x.line])]);
    expect(bad).toEqual([
      [live, [["openclaw-sqlite-lacks", lines + 1]]],
      [aside, [["openclaw-not-imported", undefined]]],
    ]);
    const text = await cli(["check", live], { env: { HOME: home } });
    expect(text.stdout).toContain(`${live}:${lines + 1}: error openclaw-sqlite-lacks: 2 entries of session ${id} (from line ${lines + 1}, entry extra001) are not in OpenClaw's database`);
    // the set-aside transcript is listed as such (so usage reads and counts it), and ls states check's verdict of both
    const listed = await cliJson(["ls", root, "--no-cache"]);
    expect(listed.json.sessions.find((s: { path: string }) => s.path === aside)).toMatchObject({ notImported: true, copyOf: null, status: "invalid: 1 error", errors: 1 });
    // the live JSONL left beside the database is that session, under its key, marked as what it is
    const dbRow = listed.json.sessions.find((s: { path: string }) => s.path.endsWith(`openclaw-agent.sqlite#${id}`));
    expect(listed.json.sessions.find((s: { path: string }) => s.path === live)).toMatchObject({ status: "invalid: 1 error", errors: 1, key: dbRow.key, label: dbRow.label, agent: "main", besideDatabase: true, source: "jsonl" });
    expect(dbRow.key).toBe("agent:main:main");
    const table = await cli(["ls", root, "--no-cache", "--wide"], { env: { HOME: home } });
    expect(table.stdout.split("\n").find((l) => l.startsWith(id) && l.includes("(jsonl beside db)"))).toMatch(/invalid: 1 error$/);
    const shown = await cliJson(["show", live], { env: { HOME: home } });
    expect(shown.json.problems.errors).toBe(1);
    // the database's own transcript is sound, and says the JSONL beside it holds more
    const own = await cliJson(["check", id], { env: { HOME: home } });
    expect(own.exitCode).toBe(0);
    expect(own.json.files[0].findings).toEqual([expect.objectContaining({ code: "openclaw-jsonl-has-more", severity: "warning", message: `the live JSONL of this session, ${live}, holds 2 entries this transcript lacks` })]);
  });

  it("usage counts a transcript the importer set aside (its requests were paid for), and the importer's copies once", async () => {
    const { root } = homeWith("ccccx");
    const before = (await cliJson(["usage", root, "--json", "--no-cache"])).json.total;
    const usage = { input: 100, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: 110, cost: { input: 0.25, output: 0.5, cacheRead: 0, cacheWrite: 0, total: 0.75 } };
    const lines = [
      { type: "session", version: 3, id: "0f0f0f0f-1111-2222-3333-444444444444", timestamp: "2026-03-01T10:00:00.000Z", cwd: "/w" },
      { type: "message", id: "aa000001", parentId: null, timestamp: "2026-03-01T10:00:01.000Z", message: { role: "user", content: "hi", timestamp: 1 } },
      { type: "message", id: "aa000002", parentId: "aa000001", timestamp: "2026-03-01T10:00:02.000Z", message: { role: "assistant", content: [{ type: "text", text: "hello" }], provider: "anthropic", model: "claude", usage, stopReason: "stop", timestamp: 2 } },
    ];
    writeFileSync(join(root, "agents/main/session-sqlite-import-archive", "archive-tier.0f0f0f0f-1111-2222-3333-444444444444.jsonl.imported-1796192004999"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
    const after = (await cliJson(["usage", root, "--json", "--no-cache"])).json.total;
    expect([after.requests - before.requests, Number((after.cost - before.cost).toFixed(9)), after.input - before.input]).toEqual([1, 0.75, 100]);
  });

  it("cat of a plain file is its bytes, a damaged one included", async () => {
    for (const name of ["fused.jsonl", "crlf-bom.jsonl", "branched.jsonl"]) {
      const r = await execa("node", [join(ROOT, "bin/pi-session.js"), "cat", join(ROOT, "fixtures", name)], { encoding: "buffer", stripFinalNewline: false });
      expect(Buffer.compare(Buffer.from(r.stdout), readFileSync(join(ROOT, "fixtures", name))), name).toBe(0);
    }
    const missing = await cli(["cat", join(ROOT, "fixtures/nope.jsonl")]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain("nope.jsonl: no such file or directory");
  });

  it("cat of standard input or with --json is a usage error (exit 2, one line)", async () => {
    const json = await cli(["cat", join(ROOT, "fixtures/linear.jsonl"), "--json"]);
    expect([json.exitCode, json.stdout]).toEqual([2, ""]);
    expect(json.stderr).toMatch(/^pi-session: cat prints the session's bytes as stored; --json does not apply .*\n$/);
    const stdin = await cli(["cat", "-"], { input: "x" });
    expect([stdin.exitCode, stdin.stdout]).toEqual([2, ""]);
  });
});

/*
 * OpenClaw's cold storage (`session.maintenance.coldStorage`): fixtures/openclaw-cold is the
 * archeoneocode store after OpenClaw 2026.9.6's own maintenance moved both its live transcripts out
 * of `transcript_events` into `sessions/cold/<sha256>.jsonl.zst` (scripts/openclaw-cold-store.mjs).
 * The oracle is the same store before that: its rows, decoded here.
 */
describe("transcripts in OpenClaw's cold storage", () => {
  const COLD = join(ROOT, "fixtures/openclaw-cold");
  const hot = rowsOf(dbOf(join(SQLITE_STORES, "archeoneocode")));

  /** The cold store copied where it can be changed, with `change` applied to its database. */
  function coldCopy(change?: (db: DatabaseSync, root: string) => void): string {
    const root = mkdtempSync(join(tmpdir(), "pi-session-cold-"));
    cpSync(COLD, root, { recursive: true });
    if (change) {
      const db = new DatabaseSync(dbOf(root));
      change(db, root);
      db.close();
    }
    return root;
  }

  it("the fixture holds no rows in transcript_events: each transcript is in an archive file", () => {
    const d = new DatabaseSync(`file:${dbOf(COLD)}?immutable=1`, { readOnly: true });
    expect(d.prepare("SELECT count(*) AS n FROM transcript_events").get()!.n).toBe(0);
    expect(d.prepare("SELECT storage FROM session_transcript_cold_archives").all().map((r) => r.storage)).toEqual(["file", "file"]);
    d.close();
    expect(hot.size).toBe(2);
  });

  it("ls lists each cold transcript once, marked cold, with its key and size as when it was hot; cat and context read it as the rows were", async () => {
    const before = snapshot(COLD);
    const listed = await cliJson(["ls", COLD, "--no-cache"]);
    expect(listed.exitCode).toBe(0);
    const fromDb = listed.json.sessions.filter((s: { source: string }) => s.source === "sqlite");
    expect(fromDb.map((s: { id: string }) => s.id).sort()).toEqual([...hot.keys()].sort());
    for (const s of fromDb) {
      expect(s, s.id).toMatchObject({ cold: true, status: "ok", size: hot.get(s.id)!.length, path: `${dbOf(COLD)}#${s.id}` });
    }
    expect(fromDb.find((s: { key: string }) => s.key === "agent:main:main")).toBeDefined();
    const human = await cli(["ls", COLD, "--no-cache"], { env: { COLUMNS: "200" } });
    expect(human.stdout.split("\n").filter((l) => l.includes("(cold)")).length).toBe(2);
    for (const [id, bytes] of hot) {
      const cat = await execa("node", [join(ROOT, "bin/pi-session.js"), "cat", `${dbOf(COLD)}#${id}`], { encoding: "buffer", stripFinalNewline: false });
      expect(Buffer.compare(Buffer.from(cat.stdout), bytes), id).toBe(0);
      const entries = pi.parseSessionEntries(bytes.toString("utf8")).filter((e: { type: string }) => e.type !== "session");
      const context = await cliJson(["context", `${dbOf(COLD)}#${id}`]);
      const { activeToolNames: _tools, ...got } = context.json;
      expect(got, id).toEqual(JSON.parse(JSON.stringify(pi.buildSessionContext(entries))));
    }
    const usage = await cliJson(["usage", COLD, "--no-cache"]);
    const was = await cliJson(["usage", join(SQLITE_STORES, "archeoneocode"), "--no-cache"]);
    expect(usage.json.total).toEqual(was.json.total);
    expect(snapshot(COLD)).toEqual(before);
  });

  it("an archive kept in the database row (storage 'sqlite') reads the same", async () => {
    const root = coldCopy((db, dir) => {
      for (const r of db.prepare("SELECT session_id, archive_name FROM session_transcript_cold_archives").all()) {
        const file = join(dir, "agents/main/sessions/cold", String(r.archive_name));
        db.prepare("UPDATE session_transcript_cold_archives SET storage = 'sqlite', archive_blob = ? WHERE session_id = ?").run(readFileSync(file), String(r.session_id));
      }
    });
    rmSync(join(root, "agents/main/sessions/cold"), { recursive: true });
    for (const [id, bytes] of hot) {
      const cat = await execa("node", [join(ROOT, "bin/pi-session.js"), "cat", `${dbOf(root)}#${id}`], { encoding: "buffer", stripFinalNewline: false });
      expect(Buffer.compare(Buffer.from(cat.stdout), bytes), id).toBe(0);
    }
  });

  it("a missing or changed archive is one line naming the transcript and the archive, exit 2; ls still lists the rest", async () => {
    const root = coldCopy();
    const cold = join(root, "agents/main/sessions/cold");
    const [first, second] = readdirSync(cold).sort();
    const bytes = readFileSync(join(cold, first!));
    bytes[bytes.length - 1] ^= 0xff;
    writeFileSync(join(cold, first!), bytes);
    rmSync(join(cold, second!));
    const d = new DatabaseSync(`file:${dbOf(root)}?immutable=1`, { readOnly: true });
    const idOf = (name: string) => String(d.prepare("SELECT session_id FROM session_transcript_cold_archives WHERE archive_name = ?").get(name)!.session_id);
    const [changed, missing] = [idOf(first!), idOf(second!)];
    d.close();
    const a = await cli(["cat", `${dbOf(root)}#${changed}`]);
    expect([a.exitCode, a.stdout]).toEqual([2, ""]);
    expect(a.stderr).toBe(`pi-session: ${dbOf(root)}#${changed}: its cold-storage archive ${first} is not what the database recorded (${bytes.length} bytes, ${bytes.length} recorded, or another SHA-256); it is damaged: restore it from a backup\n`);
    const b = await cli(["show", `${dbOf(root)}#${missing}`]);
    expect(b.exitCode).toBe(2);
    expect(b.stderr.split("\n").filter(Boolean)).toHaveLength(1);
    expect(b.stderr).toContain(`${dbOf(root)}#${missing}: its cold-storage archive ${second} cannot be read (ENOENT at ${join(cold, second!)}); restore it from a backup`);
    const listed = await cliJson(["ls", root, "--no-cache"]);
    expect(listed.json.sessions.filter((s: { status: string }) => s.status === "ok")).toHaveLength(2);
    expect(listed.json.sessions).toHaveLength(4);
  });
});

describe("a database's facts kept (ls and usage, warm)", () => {
  /** A round time, exact in every clock's precision: a stamp set back to it is the stamp it had. */
  const LONG_AGO = new Date("2026-11-01T00:00:00.000Z");
  const still = (db: string) => {
    for (const p of [db, `${db}-wal`, `${db}-shm`]) if (existsSync(p)) utimesSync(p, LONG_AGO, LONG_AGO);
  };
  const factsFiles = (cache: string) => (existsSync(join(cache, "pi-session/openclaw")) ? readdirSync(join(cache, "pi-session/openclaw")) : []);
  /** The database's first bytes overwritten in place (its size, inode and, set back, its time as they were): opened, it is not a database. */
  const spoil = (db: string): (() => void) => {
    const fd = openSync(db, "r+");
    const header = Buffer.alloc(16);
    readSync(fd, header, 0, 16, 0);
    writeSync(fd, Buffer.alloc(16, 0x78), 0, 16, 0);
    closeSync(fd);
    still(db);
    return () => {
      const back = openSync(db, "r+");
      writeSync(back, header, 0, 16, 0);
      closeSync(back);
      still(db);
    };
  };
  /** The ccccx store in a home of its own, its database still since long ago, and a cache folder of its own. */
  const stillStore = () => {
    const { home, root } = homeWith("ccccx");
    const db = dbOf(root);
    still(db);
    const cache = mkdtempSync(join(tmpdir(), "pi-session-facts-cache-"));
    return { root, db, cache, env: { HOME: home, XDG_CACHE_HOME: cache } };
  };

  it("a warm run over databases whose files are as they were opens none of them: the same rows and report, from the facts cache", async () => {
    const { root, db, cache, env } = stillStore();
    const cold = await cliJson(["ls", root], { env });
    const coldUsage = await cliJson(["usage", root, "--by", "key"], { env });
    expect(cold.exitCode).toBe(0);
    expect(factsFiles(cache)).toHaveLength(1);
    const restore = spoil(db);
    try {
      // read, the database would be "not a readable SQLite database"
      const unread = await cli(["ls", root, "--no-cache"], { env });
      expect(unread.stderr).toMatch(/not a readable SQLite database/);
      const warm = await cliJson(["ls", root], { env });
      expect(warm.stderr).toBe("");
      expect(warm.json).toEqual(cold.json);
      const warmUsage = await cliJson(["usage", root, "--by", "key"], { env });
      expect(warmUsage.stderr).toBe("");
      expect(warmUsage.json).toEqual(coldUsage.json);
    } finally {
      restore();
    }
  });

  it("a database whose files changed is read again; facts read while its files were changing are not kept", async () => {
    const { root, db, cache, env } = stillStore();
    const before = await cliJson(["ls", root], { env });
    const id = "b5b4ed18-f040-49f7-aa6d-42132e00c908";
    const keptRows = () => {
      const files = factsFiles(cache);
      expect(files).toHaveLength(1);
      const { live } = JSON.parse(readFileSync(join(cache, "pi-session/openclaw", files[0]!), "utf8"));
      return live.rows[live.id.indexOf(id)] as number;
    };
    const rowsBefore = keptRows();
    const writer = new DatabaseSync(db);
    const line = JSON.stringify({ type: "custom", customType: "written-after", data: {}, id: "feedf00d", parentId: "8b4ef49f", timestamp: "2026-03-15T16:09:00.000Z" });
    writer.prepare("INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, 100, ?, 1)").run(id, line);
    writer.close();
    const after = await cliJson(["ls", root], { env });
    const size = (r: typeof before) => r.json.sessions.find((s: { path: string }) => s.path === `${db}#${id}`).size;
    expect(size(after)).toBe(size(before) + Buffer.byteLength(line) + 1);
    // (written a moment ago: a gateway may be in the middle of a commit; what was kept before stays, and is not used)
    expect(keptRows()).toBe(rowsBefore);
    still(db);
    await cliJson(["ls", root], { env });
    expect(keptRows()).toBe(rowsBefore + 1);
  });

  it("rows read where the facts came from the cache are the database's own (the usage cache gone), and a facts file that does not read back is read again and rewritten", async () => {
    const { root, cache, env } = stillStore();
    const expected = await cliJson(["usage", root, "--by", "key", "--no-cache"], { env });
    await cliJson(["ls", root], { env });
    const [file] = factsFiles(cache);
    expect(file).toBeDefined();
    const again = await cliJson(["usage", root, "--by", "key"], { env });
    expect(again.json).toEqual(expected.json);
    const path = join(cache, "pi-session/openclaw", file!);
    const whole = readFileSync(path, "utf8");
    writeFileSync(path, whole.slice(0, whole.length >> 1));
    rmSync(join(cache, "pi-session/usage-index.bin"));
    const torn = await cliJson(["usage", root, "--by", "key"], { env });
    expect(torn.stderr).toBe("");
    expect(torn.json).toEqual(expected.json);
    expect(JSON.parse(readFileSync(path, "utf8")).path).toBe(dbOf(root));
  });

  it("--no-cache neither reads nor keeps a database's facts", async () => {
    const { root, cache, env } = stillStore();
    await cliJson(["ls", root, "--no-cache"], { env });
    await cliJson(["usage", root, "--no-cache"], { env });
    expect(factsFiles(cache)).toEqual([]);
    await cliJson(["ls", root], { env });
    const restore = spoil(dbOf(root));
    try {
      const r = await cli(["usage", root, "--no-cache"], { env });
      expect(r.stderr).toMatch(/not a readable SQLite database/);
    } finally {
      restore();
    }
  });

  it("a database is known by its absolute path: named from its folder in one run and absolute in the next, its facts are one file", async () => {
    const { root, db, cache, env } = stillStore();
    const near = await cliJson(["usage", basename(root), "--by", "key"], { env, cwd: dirname(root) });
    expect(near.exitCode).toBe(0);
    expect(factsFiles(cache)).toHaveLength(1);
    const kept = () => JSON.parse(readFileSync(join(cache, "pi-session/openclaw", factsFiles(cache)[0]!), "utf8"));
    expect(kept().path).toBe(db);
    const far = await cliJson(["usage", root, "--by", "key"], { env });
    expect(far.stderr).toBe("");
    expect(far.json.total).toEqual(near.json.total);
    // (one database, one file: the run that named it absolutely kept its facts where the first did)
    expect(factsFiles(cache)).toHaveLength(1);
    expect(kept().path).toBe(db);
  });
});
