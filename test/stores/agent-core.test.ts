/**
 * agent-core's format 4 read where its sessions are not as the fixtures left them: each fixture
 * (made by the packages) changed the way a user's may be (a turn that ended aborted or deferred,
 * `main` moved back by a navigation or before the first entry, a compaction's tail no branch
 * holds, a line that is not a transaction, a last line cut short), and held to agent-core's own
 * reading of the changed file: contexts as read here and as pi 1.6 builds them from the lines, and
 * what the store says of it.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DatabaseSync } from "node:sqlite";
import { contextAt } from "../../src/format/context/branch.js";
import { Session } from "../../src/format/session/session.js";
import { openSource, storedVersion, storeFindings, listSessionFiles } from "../../src/stores/index.js";
import { beginRun } from "../../src/stores/common/run.js";
import { startsFormat4Bytes } from "../../src/stores/agent-core/run.js";
import { agentCoreJsonl } from "../helpers/agent-core.js";
import { pi, piEntries } from "../helpers/pi.js";
import { cliJson } from "../helpers/cli.js";

const FIXTURES = new URL("../../fixtures/agent-core/", import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), "agent-core-store-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A fixture's JSONL file by its project. */
function fixture(project: string): string {
  const dir = join(FIXTURES, `--home-dev-${project}--`);
  const name = readdirSync(dir).find((n) => !n.includes("-8efd-") && !n.includes("-8f0a-") && n.endsWith(".jsonl"))!;
  return join(dir, name);
}

let n = 0;
/** A copy of `path` with its lines changed by `change`, in a folder of its own. */
function changed(path: string, change: (lines: string[]) => string[]): string {
  const dir = join(work, `s${n++}`);
  const out = join(dir, path.split("/").pop()!);
  mkdirSync(dir, { recursive: true });
  const text = readFileSync(path, "utf8");
  const lines = text.endsWith("\n") ? text.slice(0, -1).split("\n") : text.split("\n");
  writeFileSync(out, `${change(lines).join("\n")}\n`);
  return out;
}

/** Each line's writes, a transaction a line. */
const writesOf = (line: string): Array<Record<string, any>> => {
  const v = JSON.parse(line);
  return Array.isArray(v) ? v : [v];
};
const line = (writes: Array<Record<string, any>>) => JSON.stringify(writes.length === 1 ? writes[0] : writes);

/** `path`'s contexts at every tip and leaf, as agent-core builds them, against this reader's and pi's from the lines. */
async function sameContexts(path: string): Promise<void> {
  beginRun();
  const oracle = await agentCoreJsonl(path);
  const source = openSource(path);
  const bytes = source.read(0, source.size);
  const v3 = `${path}.v3-reading.jsonl`;
  writeFileSync(v3, bytes);
  const session = Session.open(source);
  const entries = piEntries(v3);
  try {
    for (const leaf of oracle.leaves()) {
      const node = session.nodeOf(`${leaf}:omitted`) ?? session.nodeOf(leaf)!;
      const want = await oracle.context(leaf);
      expect(contextAt(session, node).messages, leaf).toEqual(want);
      expect(pi.buildSessionContext(entries, session.nodeId(node)!).messages, leaf).toEqual(want);
    }
    const tip = oracle.tips.get("main");
    expect(pi.buildSessionContext(entries).messages, "pi's current leaf").toEqual(tip === null || tip === undefined ? [] : await oracle.context(tip));
  } finally {
    session.close();
    rmSync(v3);
  }
}

const codes = (path: string) => {
  beginRun();
  return storeFindings(path, [], () => undefined).map((f) => f.code);
};

describe("agent-core's format 4, changed as a user's may be", () => {
  it("the fixtures as they are hold the packages' contexts (the changes below start from them)", async () => {
    for (const project of ["basic", "branches", "compactions", "errors", "crash", "upgraded"]) await sameContexts(fixture(project));
  });

  for (const stopReason of ["aborted", "deferred"]) {
    it(`a turn that ended ${stopReason} is left out of the context, as an error is: an edit omits it`, async () => {
      const path = changed(fixture("basic"), (lines) =>
        lines.map((l, i) => {
          if (i === 0 || !l.includes('"stopReason":"stop"')) return l;
          return line(writesOf(l).map((w) => (w.kind === "entry" && w.message?.stopReason === "stop" ? { ...w, message: { ...w.message, stopReason } } : w)));
        }),
      );
      const text = readFileSync(path, "utf8");
      expect(text).toContain(`"stopReason":"${stopReason}"`);
      await sameContexts(path);
    });
  }

  it("main moved back (a navigation with nothing after it), and main before the first entry: pi's current leaf is where main stands", async () => {
    const source = fixture("basic");
    const first = writesOf(readFileSync(source, "utf8").split("\n")[2]!).find((w) => w.kind === "entry")!;
    let seq = 10_000;
    const back = changed(source, (lines) => [...lines, line([{ kind: "value", op: "set", seq: seq++, namespace: "pi.branch.tip", key: "main", value: first.id }])]);
    await sameContexts(back);
    const none = changed(source, (lines) => [...lines.filter((l) => !l.includes('"pi.entry.label"') && !l.includes('"pi.session.name"')), line([{ kind: "value", op: "set", seq: seq++, namespace: "pi.branch.tip", key: "main", value: null }])]);
    await sameContexts(none);
  });

  it("a compaction whose tail no entry of its branch holds: the store says so (an error), and what pi can be given is kept", async () => {
    const path = changed(fixture("compactions"), (lines) =>
      lines.map((l, i) => {
        if (i === 0 || !l.includes('"type":"compaction"')) return l;
        return line(writesOf(l).map((w) => (w.kind === "entry" && w.type === "compaction" ? { ...w, retainedTail: [{ role: "user", content: [{ type: "text", text: "said nowhere" }], timestamp: 1 }, ...w.retainedTail] } : w)));
      }),
    );
    expect(codes(path)).toContain("agent-core-kept-tail");
    const r = await cliJson(["check", path]);
    expect(r.exitCode).toBe(1);
    const ls = await cliJson(["ls", join(path, ".."), "--no-cache"]);
    expect(ls.json.sessions[0].status).toMatch(/^invalid: /);
  });

  it("a line that is no transaction is said (agent-core refuses the file) and the rest is read; a torn last line is dropped, as agent-core drops it", async () => {
    const source = fixture("basic");
    const damaged = changed(source, (lines) => lines.map((l, i) => (i === 5 ? "{ not json" : l)));
    beginRun();
    const found = storeFindings(damaged, [], () => undefined);
    const f = found.find((x) => x.code === "agent-core-unreadable-lines")!;
    expect(f.line).toBe(6);
    expect(f.severity).toBe("error");
    const read = Session.open(openSource(damaged));
    expect(read.tree.size).toBeGreaterThan(5);
    read.close();
    const torn = changed(source, (lines) => [...lines, '{"kind":"value","op":"set","seq":99999,"namespace":"pi.ses']);
    writeFileSync(torn, readFileSync(torn, "utf8").slice(0, -1));
    expect(codes(torn)).toContain("agent-core-torn-line");
    await sameContexts(torn);
  });

  it("knows format 4 by its first line alone: pi's v3 files, and other JSON lines, are not it", () => {
    expect(startsFormat4Bytes(readFileSync(fixture("basic")))).toBe(true);
    for (const other of ["linear.jsonl", "events.jsonl", "compacted.jsonl", "empty.jsonl", "binary.bin"]) {
      expect(startsFormat4Bytes(readFileSync(new URL(`../../fixtures/${other}`, import.meta.url))), other).toBe(false);
    }
    expect(startsFormat4Bytes(Buffer.from('{"v":4,"kind":"header"}\n'))).toBe(false);
    beginRun();
    expect(storedVersion(new URL("../../fixtures/linear.jsonl", import.meta.url).pathname)).toBeUndefined();
  });

  it("a database of something else among pi's sessions is passed over; one that cannot be read is listed, and says why", async () => {
    const dir = join(work, "others");
    mkdirSync(dir, { recursive: true });
    const db = new DatabaseSync(join(dir, "notes.sqlite"));
    db.exec("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('hi')");
    db.close();
    writeFileSync(join(dir, "broken.sqlite"), "not a database at all, but long enough to be looked at".repeat(20));
    beginRun();
    const listed = listSessionFiles(dir);
    expect(listed).toEqual([join(dir, "broken.sqlite")]);
    const ls = await cliJson(["ls", dir, "--no-cache"]);
    expect(ls.json.sessions).toHaveLength(1);
    expect(ls.json.sessions[0].status).toBe("unreadable");
    expect(ls.stderr).toMatch(/broken\.sqlite: not a readable SQLite database/);
  });
});
