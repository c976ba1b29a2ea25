/**
 * A transcript in OpenClaw's database read as bytes: from the start on (one cursor), and at any
 * offset in any order (a seek), every read equal to the rows' lines as node:sqlite and zlib decode
 * them here, `event_zstd` rows included; two transcripts read in turn do not disturb each other.
 */
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { constants, zstdCompressSync, zstdDecompressSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { openSource } from "../../src/support/inputs/input.js";
import { databaseTranscripts } from "../../src/stores/openclaw-sqlite/transcripts.js";
import { ROOT } from "../helpers/paths.js";
import { agentDatabase } from "../helpers/agent-database.js";

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

/**
 * A database of many transcripts, made here: rows of every size (a few past a batch's bytes),
 * compressed as OpenClaw compresses them (one frame declaring its length) and in the forms it does
 * not write (no declared length, two frames), so that both ways of decompressing a batch are read.
 * Rows are read in batches that run on from one transcript into the next; every transcript must
 * read as its rows, in any order, a damaged row must fail only its own transcript, and a gateway's
 * commit while a read goes on must not show in it.
 */
describe("a database of many transcripts, read in batches", () => {
  const { path: db, db: d } = agentDatabase("pi-session-batches-");
  const expected = new Map<string, Buffer>();
  const r = rng(38);
  const ids: string[] = [];
  {
    const insert = d.prepare("INSERT INTO transcript_events VALUES (?, ?, ?, 1, ?, ?, ?)");
    // (rows inserted in a shuffled order, as a gateway's turns interleave: the table's own order is not the key's)
    const inserts: Array<[string, number, string | null, Buffer | null, number | null, string | null]> = [];
    for (let t = 0; t < 300; t++) {
      // (ids whose order as SQLite sorts them is not the order they were made in)
      const id = `${(t * 7919) % 300}`.padStart(3, "0") + "-session";
      ids.push(id);
      // (5: a few lines longer than a batch's bytes allow several of; 6: lines that allow some tens a batch)
      // (7 and 8: more rows than a batch holds, each small)
      const rows = t === 5 ? 3 : t === 6 ? 60 : t === 7 || t === 8 ? 1300 : Math.floor(r() ** 3 * 400);
      const lines: Buffer[] = [];
      for (let seq = 0; seq < rows; seq++) {
        const size = t === 5 ? 3_500_000 : t === 6 ? 200_000 : t === 7 || t === 8 ? Math.floor(r() * 200) : r() < 0.1 ? 1500 + Math.floor(r() * 20000) : Math.floor(r() * 600);
        const line = Buffer.from(JSON.stringify({ type: "message", id: `${t}-${seq}`, text: "abcdefgh".repeat(size / 8 + 1).slice(0, size) }));
        lines.push(line, Buffer.from("\n"));
        const form = line.length < 1024 ? "json" : (["one frame", "one frame", "no declared length", "two frames"] as const)[Math.floor(r() * 4)]!;
        if (form === "json") inserts.push([id, seq, line.toString(), null, null, null]);
        else {
          const half = Math.floor(line.length / 2);
          const packed =
            form === "one frame"
              ? zstdCompressSync(line)
              : form === "no declared length"
                ? zstdCompressSync(line, { params: { [constants.ZSTD_c_contentSizeFlag]: 0 } })
                : Buffer.concat([zstdCompressSync(line.subarray(0, half)), zstdCompressSync(line.subarray(half))]);
          inserts.push([id, seq, null, packed, line.length, "{}"]);
        }
      }
      if (rows > 0) expected.set(id, Buffer.concat(lines));
    }
    d.exec("BEGIN");
    for (const row of inserts.map((row) => ({ row, key: r() })).sort((a, b) => a.key - b.key)) insert.run(...row.row);
    d.exec("COMMIT");
    d.close();
  }
  const live = [...expected.keys()];
  const read = (id: string, chunk = 65536): Buffer => {
    const source = openSource(`${db}#${id}`);
    const parts: Buffer[] = [];
    for (let at = 0; at < source.size; ) {
      const b = Buffer.alloc(chunk);
      const n = source.readInto(b, at);
      if (n === 0) break;
      parts.push(b.subarray(0, n));
      at += n;
    }
    source.close();
    return Buffer.concat(parts);
  };

  it("has what it is for: transcripts past a batch's bytes and rows, and each form of compressed row", () => {
    expect([...expected.values()].filter((b) => b.length > 8 * 1024 * 1024).length).toBe(2);
    // (a batch holds at most 512 rows)
    expect(live.filter((id) => expected.get(id)!.toString().split("\n").length > 513).length).toBe(2);
  });

  it("every transcript reads as its rows, in the order they are listed, backwards and shuffled", () => {
    const listed = databaseTranscripts(db).map((p) => p.slice(p.indexOf("#") + 1));
    expect(new Set(listed)).toEqual(new Set(live));
    const shuffled = live.slice().sort(() => r() - 0.5);
    for (const order of [listed, listed.slice().reverse(), shuffled]) {
      for (const id of order) expect(Buffer.compare(read(id), expected.get(id)!), id).toBe(0);
    }
  });

  it("read whole from its start, then at offsets anywhere (where each row is, learnt on the way), each read is those bytes", () => {
    for (const id of live.filter((_, k) => k % 7 === 0)) {
      const bytes = expected.get(id)!;
      const source = openSource(`${db}#${id}`);
      expect(Buffer.compare(source.read(0, source.size), bytes), id).toBe(0);
      for (let i = 0; i < 25; i++) {
        const at = Math.floor(r() * (bytes.length + 3));
        const length = 1 + Math.floor(r() * 5000);
        expect(Buffer.compare(source.read(at, length), bytes.subarray(at, at + length)), `${id} ${at}+${length}`).toBe(0);
      }
      source.close();
    }
  });

  it("compared with bytes (sameAs), it is the same as its rows' lines and no other bytes", () => {
    for (const id of live.filter((_, k) => k % 5 === 0)) {
      const bytes = expected.get(id)!;
      const source = openSource(`${db}#${id}`);
      expect(source.sameAs!(bytes), id).toBe(true);
      // (a byte changed at the start, inside the first row and the last, at a row's newline, at the end; one byte fewer)
      const newline = bytes.indexOf(10);
      const lastStart = bytes.lastIndexOf(10, bytes.length - 2) + 1;
      for (const at of [0, newline >> 1, newline, lastStart + ((bytes.length - 1 - lastStart) >> 1), bytes.length - 1]) {
        const other = Buffer.from(bytes);
        other[at] = other[at] === 10 ? 32 : 10;
        expect(source.sameAs!(other), `${id} at ${at}`).toBe(false);
      }
      expect(source.sameAs!(bytes.subarray(0, bytes.length - 1)), id).toBe(false);
      // (and read after, it still reads its rows)
      expect(Buffer.compare(source.read(0, source.size), bytes), id).toBe(0);
      source.close();
    }
  });

  it("several transcripts read a little at a time, in turn, each read is its rows", () => {
    const sources = live.slice(0, 40).map((id) => ({ id, source: openSource(`${db}#${id}`), at: 0, parts: [] as Buffer[] }));
    for (let open = sources; open.length > 0; open = open.filter((s) => s.at < s.source.size)) {
      for (const s of open) {
        const b = s.source.read(s.at, 1 + Math.floor(r() * 3000));
        s.parts.push(b);
        s.at += b.length;
      }
    }
    for (const s of sources) expect(Buffer.compare(Buffer.concat(s.parts), expected.get(s.id)!), s.id).toBe(0);
  });
});

describe("damage and a gateway's writes, with batches", () => {
  const make = (): { db: string; ids: string[] } => {
    const { path: db, db: d } = agentDatabase("pi-session-batch-damage-", true);
    const ids = ["a", "b", "c"];
    const insert = d.prepare("INSERT INTO transcript_events VALUES (?, ?, ?, 1, ?, ?, '{}')");
    for (const id of ids) {
      for (let seq = 0; seq < 4; seq++) {
        const line = Buffer.from(JSON.stringify({ type: "message", id: `${id}${seq}`, text: "z".repeat(2000) }));
        // b's third row records a length its frame does not hold; every other row is whole
        insert.run(id, seq, null, zstdCompressSync(line), id === "b" && seq === 2 ? line.length + 1 : line.length);
      }
    }
    d.close();
    return { db, ids };
  };

  it("a damaged row fails its own transcript, naming it and the row; the transcripts around it read whole", () => {
    const { db } = make();
    const text = (id: string) => {
      const s = openSource(`${db}#${id}`);
      return s.read(0, s.size).toString();
    };
    expect(text("a").split("\n")).toHaveLength(5);
    const held = Buffer.byteLength(JSON.stringify({ type: "message", id: "b2", text: "z".repeat(2000) }));
    expect(() => text("b")).toThrow(`${db}#b: row 2 of transcript_events holds ${held} bytes where event_utf8_bytes says ${held + 1}; the database is damaged there`);
    expect(text("c").split("\n")).toHaveLength(5);
  });

  it("a row with neither column, or a frame that does not decompress, fails its own transcript, naming it and the row", () => {
    const { path: db, db: d } = agentDatabase("pi-session-row-damage-");
    const insert = d.prepare("INSERT INTO transcript_events VALUES (?, ?, ?, 1, ?, ?, NULL)");
    const line = (id: string, seq: number) => Buffer.from(JSON.stringify({ type: "message", id: `${id}${seq}`, text: "y".repeat(1500) }));
    for (const id of ["a", "b", "c", "d"]) {
      for (let seq = 0; seq < 3; seq++) {
        const bytes = line(id, seq);
        if (id === "b" && seq === 1) insert.run(id, seq, null, null, null);
        else if (id === "c" && seq === 2) insert.run(id, seq, null, Buffer.from("not a zstd frame at all"), bytes.length);
        else if (seq === 1) insert.run(id, seq, null, zstdCompressSync(bytes), bytes.length);
        else insert.run(id, seq, bytes.toString(), null, null);
      }
    }
    d.close();
    const text = (id: string) => {
      const s = openSource(`${db}#${id}`);
      return s.read(0, s.size).toString();
    };
    const whole = (id: string) => [0, 1, 2].map((seq) => `${line(id, seq)}\n`).join("");
    expect(text("a")).toBe(whole("a"));
    expect(() => text("b")).toThrow(`${db}#b: row 1 of transcript_events holds neither event_json nor event_zstd; the database is damaged there`);
    expect(() => text("c")).toThrow(new RegExp(`^${db.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}#c: row 2 of transcript_events does not decompress \\(.+\\); the database is damaged there$`));
    expect(text("d")).toBe(whole("d"));
  });

  it("what a gateway commits while a read goes on is not in it: each transcript reads as the database was when it was opened", () => {
    const { db } = make();
    const writer = new DatabaseSync(db);
    // (the damaged row is mended first: this is about what is read, not what is wrong)
    writer.exec("UPDATE transcript_events SET event_utf8_bytes = event_utf8_bytes - 1 WHERE session_id = 'b' AND seq = 2");
    const rowsNow = (id: string) => Buffer.concat(writer.prepare("SELECT event_zstd FROM transcript_events WHERE session_id = ? ORDER BY seq").all(id).flatMap((row) => [zstdDecompressSync(row.event_zstd as Uint8Array), Buffer.from("\n")]));
    const before = { a: rowsNow("a"), c: rowsNow("c") };
    const a = openSource(`${db}#a`);
    // a gateway rewrites a row of each and appends one (a repair of its own), after the reader opened the database
    for (const id of ["a", "c"]) {
      writer.prepare("UPDATE transcript_events SET event_json = ?, event_zstd = NULL, event_utf8_bytes = NULL WHERE session_id = ? AND seq = 1").run(JSON.stringify({ type: "custom", id: "rewritten" }), id);
      writer.prepare("INSERT INTO transcript_events VALUES (?, 4, ?, 2, NULL, NULL, NULL)").run(id, JSON.stringify({ type: "custom", id: "appended" }));
    }
    expect(Buffer.compare(a.read(0, a.size + 100), before.a)).toBe(0);
    const c = openSource(`${db}#c`);
    expect(Buffer.compare(c.read(0, c.size + 100), before.c)).toBe(0);
    writer.close();
  });
});
