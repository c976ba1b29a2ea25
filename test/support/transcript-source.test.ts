/**
 * A transcript in OpenClaw's database read as bytes: from the start on (one cursor), and at any
 * offset in any order (a seek), every read equal to the rows' lines as node:sqlite and zlib decode
 * them here, `event_zstd` rows included; two transcripts read in turn do not disturb each other.
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { zstdDecompressSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { openSource } from "../../src/support/inputs/input.js";
import { ROOT } from "../helpers/paths.js";

const DB = join(ROOT, "../shared/openclaw-stores-sqlite/ccccx/agents/main/agent/openclaw-agent.sqlite");

function oracle(): Map<string, Buffer> {
  const d = new DatabaseSync(`file:${DB}?immutable=1`, { readOnly: true });
  const out = new Map<string, Buffer[]>();
  for (const r of d.prepare("SELECT session_id, CAST(event_json AS BLOB) AS json, event_zstd FROM transcript_events ORDER BY session_id, seq").all()) {
    const list = out.get(String(r.session_id)) ?? [];
    list.push(r.json !== null ? Buffer.from(r.json as Uint8Array) : zstdDecompressSync(r.event_zstd as Uint8Array), Buffer.from("\n"));
    out.set(String(r.session_id), list);
  }
  d.close();
  return new Map([...out].map(([id, parts]) => [id, Buffer.concat(parts)]));
}

/** A seeded generator, so a failure is the same each run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

describe("a database transcript as a source of bytes", () => {
  const rows = oracle();

  it("has compressed rows to read (the case it is for)", () => {
    const d = new DatabaseSync(`file:${DB}?immutable=1`, { readOnly: true });
    expect(Number(d.prepare("SELECT count(*) AS n FROM transcript_events WHERE event_json IS NULL").get()!.n)).toBeGreaterThan(0);
    d.close();
  });

  it("read whole, in chunks of any size from the start, it is the rows' lines", () => {
    for (const [id, bytes] of rows) {
      for (const chunk of [1, 7, 4096, 65536, bytes.length + 10]) {
        const source = openSource(`${DB}#${id}`);
        expect(source.size, id).toBe(bytes.length);
        const parts: Buffer[] = [];
        for (let at = 0; at < source.size; ) {
          const b = Buffer.alloc(chunk);
          const n = source.readInto(b, at);
          expect(n, `${id} at ${at}`).toBeGreaterThan(0);
          parts.push(b.subarray(0, n));
          at += n;
        }
        expect(Buffer.compare(Buffer.concat(parts), bytes), `${id} in chunks of ${chunk}`).toBe(0);
        source.close();
      }
    }
  });

  it("read at offsets in any order, and two sources read in turn, each read is those bytes", () => {
    const r = rng(7);
    const ids = [...rows.keys()];
    const sources = new Map(ids.map((id) => [id, openSource(`${DB}#${id}`)]));
    for (let i = 0; i < 400; i++) {
      const id = ids[Math.floor(r() * ids.length)]!;
      const bytes = rows.get(id)!;
      const at = Math.floor(r() * (bytes.length + 5));
      const length = 1 + Math.floor(r() * 9000);
      // (a read past the end gives what is there: nothing at or after the end)
      expect(Buffer.compare(sources.get(id)!.read(at, length), bytes.subarray(at, at + length)), `${id} ${at}+${length}`).toBe(0);
    }
    for (const s of sources.values()) s.close();
  });
});
