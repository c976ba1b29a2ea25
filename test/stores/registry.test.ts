/**
 * A store is a folder and one line in `stores/registry.ts`: every question the layers above ask of
 * sessions goes through the registered stores. Here a toy store (sessions kept as lines of one
 * bundle file, named `<bundle>!<id>`) is registered for the test alone, and the face finds its
 * sessions, names them, opens their bytes, stamps and describes them, and `ls`'s reader makes a
 * row of one, with nothing else told of it.
 */
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BufferSource } from "../../src/format/read/source.js";
import type { Store } from "../../src/stores/common/store.js";
import { PI_FACTS } from "../../src/stores/common/store-facts.js";
import { STORES } from "../../src/stores/registry.js";
import { listSessionFiles, lockOf, noStoreMessage, openSource, refOf, resolveInput, sessionStamp, storeRoots, transcriptFacts } from "../../src/stores/index.js";
import { describeSession } from "../../src/support/ls/rows.js";

const header = (id: string) => JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-01-02T03:04:05.000Z", cwd: "/toy" });
const message = (id: string, text: string) => JSON.stringify({ type: "message", id, parentId: null, timestamp: "2026-01-02T03:04:06.000Z", message: { role: "user", content: text, timestamp: 1 } });

/** A bundle: `{"<session id>": ["line", …], …}`. */
const bundleOf = (path: string): Record<string, string[]> => JSON.parse(readFileSync(path, "utf8")) as Record<string, string[]>;
const split = (path: string) => {
  const at = path.lastIndexOf("!");
  return at > 0 && path.slice(0, at).endsWith(".toy") ? { bundle: path.slice(0, at), id: path.slice(at + 1) } : undefined;
};

let root: string;
const toy: Store = {
  name: "openclaw",
  lookedFor: () => "a toy root",
  roots: () => [root],
  list: (dir) => (dir === root ? Object.keys(bundleOf(join(root, "all.toy"))).map((id) => `${root}/all.toy!${id}`) : undefined),
  named: (query) => Object.keys(bundleOf(join(root, "all.toy"))).filter((id) => id.startsWith(query)).map((id) => `${root}/all.toy!${id}`),
  idOf: (path) => split(path)?.id,
  ref(path) {
    const s = split(path);
    return s ? { kind: "transcript", path, container: s.bundle, id: s.id } : undefined;
  },
  open(path) {
    const s = split(path);
    return s ? new BufferSource(path, Buffer.from(bundleOf(s.bundle)[s.id]!.join("\n") + "\n")) : undefined;
  },
  stamp: (path) => (split(path) ? { size: 7, mtimeMs: 8, ino: 9 } : undefined),
  facts: (path) => (split(path) ? { ...PI_FACTS, store: "openclaw", agent: "toy", key: `toy:${split(path)!.id}` } : undefined),
  lock: (path) => (split(path) ? { lock: `${path}.lock`, pid: 1, live: true } : undefined),
};

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "toy-store-"));
  writeFileSync(join(root, "all.toy"), JSON.stringify({ "aaa-1": [header("aaa-1"), message("m1", "hello toy")], "bbb-2": [header("bbb-2"), message("m2", "second")] }));
  (STORES as Store[]).unshift(toy);
});
afterAll(() => {
  (STORES as Store[]).splice(STORES.indexOf(toy), 1);
  rmSync(root, { recursive: true, force: true });
});

describe("a store registered in one line", () => {
  it("is listed, named, opened, stamped and described through the face", () => {
    const files = listSessionFiles(root);
    expect(files).toEqual([`${root}/all.toy!aaa-1`, `${root}/all.toy!bbb-2`]);
    expect(resolveInput("bbb", "/nonexistent", {})).toBe(`${root}/all.toy!bbb-2`);
    expect(refOf(files[0]!)).toEqual({ kind: "transcript", path: files[0], container: `${root}/all.toy`, id: "aaa-1" });
    const source = openSource(files[0]!);
    expect(source.read(0, source.size).toString()).toBe(`${header("aaa-1")}\n${message("m1", "hello toy")}\n`);
    expect(sessionStamp(files[1]!)).toEqual({ size: 7, mtimeMs: 8, ino: 9 });
    expect(transcriptFacts(files[1]!)).toMatchObject({ agent: "toy", key: "toy:bbb-2" });
    expect(lockOf(files[1]!)).toMatchObject({ pid: 1 });
    expect(storeRoots("/nonexistent", {}, "openclaw")).toContain(root);
    expect(noStoreMessage("/nowhere", "all")).toContain("a toy root");
  });

  it("its sessions read as any other: ls's row of one", async () => {
    const row = await describeSession(`${root}/all.toy!aaa-1`, sessionStamp(`${root}/all.toy!aaa-1`));
    expect(row).toMatchObject({ id: "aaa-1", cwd: "/toy", messages: 1, status: "ok", title: "hello toy" });
  });

  it("and what is no store's stays a file: pi's", () => {
    expect(refOf(join(root, "x.jsonl"))).toEqual({ kind: "file", path: join(root, "x.jsonl") });
    expect(transcriptFacts(join(root, "x.jsonl")).store).toBe("pi");
  });
});
