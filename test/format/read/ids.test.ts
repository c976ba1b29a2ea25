/**
 * UUID ids are kept as their 16 bytes, while every node so far holds one without a column of
 * their slots; any other id as its characters. The two must say the same: each seeded session is
 * read twice, once with its UUIDs as they are and once with each written as another string (a
 * letter in front: no longer a UUID), and the trees, the holders of every id, the duplicates and
 * the prefix searches are held to each other. Some sessions turn to hex ids, other strings or
 * entries without an id part way, so that the slots kept as runs are made a column mid-read; some
 * hold a few such entries among their UUIDs (kept aside, the runs going on), or a few too many.
 */
import { describe, expect, it } from "vitest";
import { IdIndex } from "../../../src/format/read/ids.js";
import { openSessionBuffer, type Session } from "../../../src/format/session/session.js";
import { rng } from "../../helpers/generate.js";
import { entry, header, jsonl } from "../../helpers/builders.js";

type Id = string | undefined;

function uuidFrom(r: () => number): string {
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(r() * 16).toString(16)).join("");
  return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
}

/** A seeded session's ids and parent ids; after entry `turn`, ids of kind `then`. */
function shape(seed: number, entries: number, turn: number, then: "hex" | "text" | "none"): Array<[Id, string | null]> {
  const r = rng(seed);
  const out: Array<[Id, string | null]> = [];
  const later: string[] = Array.from({ length: 8 }, () => uuidFrom(r));
  for (let k = 0; k < entries; k++) {
    let id: Id;
    if (k >= turn) id = then === "hex" ? Math.floor(r() * 2 ** 32).toString(16).padStart(8, "0") : then === "text" ? `entry ${k}` : undefined;
    else if (r() < 0.03 && k > 0) id = out[Math.floor(r() * k)]![0] ?? uuidFrom(r); // a duplicate
    else if (r() < 0.05) id = later.pop() ?? uuidFrom(r); // one a forward parent named before
    else id = uuidFrom(r);
    const x = r();
    const before = out.length > 0 ? out[out.length - 1]![0] : undefined;
    const parent =
      k === 0 || x < 0.04 ? null
      : x < 0.75 ? (before ?? null)
      : x < 0.88 ? (out[Math.floor(r() * k)]![0] ?? null)
      : x < 0.94 ? (later[Math.floor(r() * later.length)] ?? uuidFrom(r)) // forward, or missing once they are used
      : uuidFrom(r); // missing
    out.push([id, parent]);
  }
  return out;
}

/** A session of UUIDs with `count` entries among them holding a hex id, another string or none (a header's own id, an entry without one). */
function sprinkled(seed: number, entries: number, count: number): Array<[Id, string | null]> {
  const out = shape(seed, entries, Infinity, "none");
  const r = rng(seed + 1000);
  for (let j = 0; j < count; j++) {
    const k = j === 0 ? 0 : Math.floor(r() * entries);
    const kind = j % 3;
    out[k]![0] = kind === 0 ? `session ${j}` : kind === 1 ? Math.floor(r() * 2 ** 32).toString(16).padStart(8, "0") : undefined;
    // (one entry of each kind named as a parent, by the entry after it)
    if (j < 3 && k + 1 < entries && out[k]![0] !== undefined) out[k + 1]![1] = out[k]![0]!;
  }
  return out;
}

const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(s);
/** The same id as another string (not a UUID). */
const asText = (s: string | null | undefined) => (typeof s === "string" && isUuid(s) ? `u${s}` : s);

function open(nodes: Array<[Id, string | null]>, map: (s: string | null | undefined) => string | null | undefined): Session {
  const lines = nodes.map(([id, parentId]) => {
    const e = entry("custom", (map(id) as string | undefined) ?? "", (map(parentId) as string | null | undefined) ?? null);
    if (id === undefined) delete e.id;
    return JSON.stringify(e);
  });
  return openSessionBuffer("s.jsonl", Buffer.concat([jsonl(header()), Buffer.from(lines.join("\n") + "\n")]));
}

function agree(nodes: Array<[Id, string | null]>): void {
  const a = open(nodes, (s) => s);
  const b = open(nodes, asText);
  try {
    expect(a.tree.size).toBe(nodes.length);
    expect(Array.from(a.tree.parent)).toEqual(Array.from(b.tree.parent));
    expect(a.tree.problems).toEqual(b.tree.problems);
    expect(a.tree.roots).toEqual(b.tree.roots);
    for (let n = 0; n < nodes.length; n++) expect(asText(a.nodeId(n))).toBe(b.nodeId(n));
    const ids = new Set(nodes.flatMap(([id, p]) => [id, p]).filter((s): s is string => typeof s === "string"));
    for (const id of ids) expect(a.nodeOf(id), id).toBe(b.nodeOf(asText(id)!));
    expect(new Map([...a.duplicateIds].map(([id, holders]) => [asText(id), holders]))).toEqual(new Map(b.duplicateIds));
    // (a hex id may start as a UUID does: only the UUIDs' holders are compared)
    const uuidHolders = (list: number[]) => list.filter((n) => isUuid(a.nodeId(n) ?? ""));
    for (const id of [...ids].filter(isUuid).slice(0, 20)) expect(uuidHolders(a.nodesWithPrefix(id.slice(0, 2)))).toEqual(b.nodesWithPrefix(`u${id.slice(0, 2)}`));
  } finally {
    a.close();
    b.close();
  }
}

describe("UUID ids say what the same ids as other strings say", () => {
  for (let seed = 1; seed <= 6; seed++) {
    it(`a session of UUIDs (seed ${seed})`, () => agree(shape(seed, 600, Infinity, "none")));
  }
  for (const then of ["hex", "text", "none"] as const) {
    it(`UUIDs, then ${then} ids from entry 300`, () => agree(shape(100 + then.length, 600, 300, then)));
    it(`one UUID, then ${then} ids`, () => agree(shape(200 + then.length, 50, 1, then)));
  }
  for (const count of [1, 5, 40, 63]) {
    it(`UUIDs with ${count} entries among them holding another id or none: kept aside`, () => agree(sprinkled(300 + count, 1200, count)));
  }
  it("UUIDs with more entries holding another id or none than are kept aside: the columns made mid-read", () => agree(sprinkled(400, 1200, 150)));
  it("forward parents on most entries: the slots as a column", () => {
    const r = rng(7);
    const ids = Array.from({ length: 400 }, () => uuidFrom(r));
    // each entry names as its parent the id of the entry two after it, before that entry comes
    // (each parent takes a slot between two entries' own)
    agree(ids.map((id, k) => [id, k + 2 < ids.length ? ids[k + 2]! : null]));
  });
});

describe("the UUID table", () => {
  // (its entries carry a few bits of each UUID's hash while the nodes' numbers leave room: a table
  // given room for 8 bits of node number turns untagged at 254 nodes, and must say the same)
  for (const nodeBits of [25, 8]) {
    it(`finds each UUID's last holder and every duplicate, ${nodeBits === 25 ? "tagged throughout" : "turning untagged part way"}`, () => {
      const r = rng(nodeBits);
      const ids = new IdIndex(64, nodeBits);
      const uuids: string[] = [];
      const holders = new Map<string, number[]>();
      for (let node = 0; node < 3000; node++) {
        const id = uuids.length > 0 && r() < 0.1 ? uuids[Math.floor(r() * uuids.length)]! : uuidFrom(r);
        if (!holders.has(id)) uuids.push(id);
        holders.set(id, [...(holders.get(id) ?? []), node]);
        expect(ids.add(-1, id)).toBe(node);
        // (found as the nodes are added: the last holder so far)
        if (node % 97 === 0) for (const u of uuids.slice(-20)) expect(ids.find(-1, u)).toBe(holders.get(u)!.at(-1));
      }
      ids.seal();
      for (const u of uuids) expect(ids.find(-1, u), u).toBe(holders.get(u)!.at(-1));
      expect(ids.find(-1, uuidFrom(r))).toBe(-1);
      expect(new Map(ids.duplicates)).toEqual(new Map([...holders].filter(([, list]) => list.length > 1)));
    });
  }
});

describe("hex ids", () => {
  // (sealed by insertion up to 64 of them, by radix past that: both must find each id's last
  // holder and list every duplicate's holders in file order)
  for (const count of [1, 2, 7, 64, 65, 300]) {
    it(`finds each of ${count} hex ids' last holder and every duplicate`, () => {
      const r = rng(count);
      const ids = new IdIndex(8);
      const holders = new Map<number, number[]>();
      const seen: number[] = [];
      for (let node = 0; node < count; node++) {
        // (a few duplicates, and ids that differ in one byte only, so that every radix pass sorts)
        const hex = seen.length > 0 && r() < 0.15 ? seen[Math.floor(r() * seen.length)]! : r() < 0.3 && seen.length > 0 ? (seen.at(-1)! ^ (1 << Math.floor(r() * 32))) >>> 0 : Math.floor(r() * 2 ** 32);
        if (!holders.has(hex)) seen.push(hex);
        holders.set(hex, [...(holders.get(hex) ?? []), node]);
        expect(ids.add(hex, undefined)).toBe(node);
      }
      ids.seal();
      for (const [hex, list] of holders) expect(ids.find(hex, undefined), hex.toString(16)).toBe(list.at(-1));
      const absent = Array.from({ length: 20 }, () => Math.floor(r() * 2 ** 32)).find((h) => !holders.has(h))!;
      expect(ids.find(absent, undefined)).toBe(-1);
      const duplicates = [...holders].filter(([, list]) => list.length > 1).map(([hex, list]) => [hex.toString(16).padStart(8, "0"), list] as const);
      expect(new Map(ids.duplicates)).toEqual(new Map(duplicates));
    });
  }
});
