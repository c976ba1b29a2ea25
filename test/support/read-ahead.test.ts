/**
 * Rows read ahead: a batch of a database's rows runs on from one transcript into the ones after it
 * (a store's small transcripts, a query and a zstd call a batch), but where threads share a store a
 * chunk at a time, only into the transcripts of this thread's chunk (`readAheadWithin`): rows read
 * past it would be another thread's, decompressed twice. Counted here by the rows handed to zstd.
 */
import { zstdCompressSync } from "node:zlib";
import { describe, expect, it, vi } from "vitest";
import { openSource } from "../../src/support/inputs/input.js";
import { readAheadWithin } from "../../src/stores/index.js";
import { decompressZstdEach } from "../../src/stores/common/zstd.js";
import { agentDatabase } from "../helpers/agent-database.js";

vi.mock("../../src/stores/common/zstd.js", async (original) => {
  const m = await original<typeof import("../../src/stores/common/zstd.js")>();
  return { ...m, decompressZstdEach: vi.fn(m.decompressZstdEach) };
});
const decompressed = () => vi.mocked(decompressZstdEach).mock.calls.reduce((n, [blobs]) => n + blobs.length, 0);

/** Five transcripts of four compressed rows each, small enough for one batch to hold them all. */
function store(): { db: string; text: Map<string, string> } {
  const { path, db: d } = agentDatabase("pi-session-read-ahead-");
  const insert = d.prepare("INSERT INTO transcript_events VALUES (?, ?, NULL, 1, ?, ?, '{}')");
  const text = new Map<string, string>();
  for (const id of ["a", "b", "c", "d", "e"]) {
    const lines: string[] = [];
    for (let seq = 0; seq < 4; seq++) {
      const line = JSON.stringify({ type: "message", id: `${id}${seq}`, text: `${id} `.repeat(600) });
      insert.run(id, seq, zstdCompressSync(line), Buffer.byteLength(line));
      lines.push(`${line}\n`);
    }
    text.set(id, lines.join(""));
  }
  d.close();
  return { db: path, text };
}

const read = (path: string) => {
  const s = openSource(path);
  try {
    return s.read(0, s.size).toString();
  } finally {
    s.close();
  }
};

describe("a database's rows read ahead", () => {
  it("one thread reading them all: the first transcript's batch holds the others' rows, each decompressed once", () => {
    const { db, text } = store();
    vi.mocked(decompressZstdEach).mockClear();
    readAheadWithin(undefined);
    for (const id of text.keys()) expect(read(`${db}#${id}`)).toBe(text.get(id));
    expect(decompressed()).toBe(20);
    expect(vi.mocked(decompressZstdEach).mock.calls).toHaveLength(1);
  });

  it("a thread given a chunk reads ahead into the chunk's own transcripts and none past it; the next chunk's are read when asked for, each once", () => {
    const { db, text } = store();
    vi.mocked(decompressZstdEach).mockClear();
    try {
      readAheadWithin([`${db}#a`, `${db}#b`, "/some/file.jsonl"]);
      expect(read(`${db}#a`)).toBe(text.get("a"));
      // (a's rows and b's: not c's, d's or e's, which another thread may be given)
      expect(decompressed()).toBe(8);
      expect(read(`${db}#b`)).toBe(text.get("b"));
      expect(decompressed()).toBe(8);
      readAheadWithin([`${db}#d`]);
      expect(read(`${db}#d`)).toBe(text.get("d"));
      expect(decompressed()).toBe(12);
      // a transcript outside the chunk is still read whole when asked for: its own rows only
      expect(read(`${db}#e`)).toBe(text.get("e"));
      expect(decompressed()).toBe(16);
    } finally {
      readAheadWithin(undefined);
    }
  });
});
