/**
 * `search`'s directory of sessions (support/search/directory.ts): a stamp is held only where it is
 * the same in every part (size, mtime, inode, ctime) and the index was sure of it, git's rule for
 * a racy stamp: a file written within two seconds of when it was read may be written again within
 * the same tick of a coarse clock and keep its stamp, so the next search looks at its bytes again.
 */
import { describe, expect, it } from "vitest";
import { Directory, sureStamp } from "../../src/support/search/directory.js";

const stamp = { size: 100, mtimeMs: 1_000_000, ino: 7, ctimeMs: 1_000_500 };

describe("the directory of sessions", () => {
  it("holds a stamp it was sure of only where size, mtime, inode and ctime are the same", () => {
    const d = new Directory([], [], new Float64Array(0)).changed(new Map([["/s/a.jsonl", { id: 1, stamp, kind: "session", skipped: 0, sure: true }]]), ["/s/a.jsonl"]);
    const slot = d.slotOf("/s/a.jsonl");
    expect(d.holds(slot, stamp)).toBe(true);
    for (const other of [{ size: 101 }, { mtimeMs: 1_000_001 }, { ino: 8 }, { ctimeMs: 1_000_501 }]) expect(d.holds(slot, { ...stamp, ...other })).toBe(false);
    // (and the same after a change to another session)
    const again = d.changed(new Map([["/s/b.jsonl", { id: 2, stamp, kind: "session", skipped: 0, sure: true }]]), ["/s/b.jsonl", "/s/a.jsonl"]);
    expect(again.holds(again.slotOf("/s/a.jsonl"), stamp)).toBe(true);
  });

  it("never holds a stamp it was unsure of, however alike", () => {
    const d = new Directory([], [], new Float64Array(0)).changed(new Map([["/s/a.jsonl", { id: 1, stamp, kind: "session", skipped: 0, sure: false }]]), ["/s/a.jsonl"]);
    expect(d.holds(d.slotOf("/s/a.jsonl"), stamp)).toBe(false);
    const kept = d.changed(new Map(), ["/s/a.jsonl"]);
    expect(kept.holds(kept.slotOf("/s/a.jsonl"), stamp)).toBe(false);
  });

  it("is unsure of a file whose mtime or ctime is within two seconds of the read, or after it", () => {
    const began = 2_000_000;
    expect(sureStamp({ ...stamp, mtimeMs: began - 5000, ctimeMs: began - 5000 }, began)).toBe(true);
    expect(sureStamp({ ...stamp, mtimeMs: began - 1999, ctimeMs: began - 5000 }, began)).toBe(false);
    expect(sureStamp({ ...stamp, mtimeMs: began - 5000, ctimeMs: began - 1000 }, began)).toBe(false);
    expect(sureStamp({ ...stamp, mtimeMs: began + 60_000, ctimeMs: began - 5000 }, began)).toBe(false);
    // (a database transcript's stamp, from its rows, has no ctime)
    expect(sureStamp({ size: 10, mtimeMs: began, ino: 3 }, began)).toBe(true);
  });
});
