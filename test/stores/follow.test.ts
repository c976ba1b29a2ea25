/**
 * A file followed as it is appended to (`FileFollower`, what `tail -f` reads pi's files and
 * OpenClaw's JSONL transcripts with): whole lines only, a line not yet whole held until it is, and
 * a file cut short, rewritten in place, replaced or gone said as such, never read as an append.
 */
import { appendFileSync, mkdtempSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileFollower, StampFollower } from "../../src/stores/common/follow.js";

const fileWith = (text: string) => {
  const path = join(mkdtempSync(join(tmpdir(), "pi-session-follow-")), "s.jsonl");
  writeFileSync(path, text);
  return path;
};
const text = (e: ReturnType<FileFollower["poll"]>) => (e.kind === "lines" ? e.lines.map((l) => l.toString()) : e.kind);

describe("FileFollower", () => {
  it("hands on each appended line once, whole; a line not yet whole waits for its newline", () => {
    const path = fileWith("a\nb\n");
    const f = new FileFollower(path, { bytes: 4, lines: 2 });
    expect(text(f.poll())).toEqual([]);
    appendFileSync(path, "c\nd");
    expect(text(f.poll())).toEqual(["c"]);
    expect(text(f.poll())).toEqual([]);
    appendFileSync(path, "ee\n\nf\n");
    expect(text(f.poll())).toEqual(["dee", "", "f"]);
  });

  it("starts where the reader stopped, a last line the reader held back included", () => {
    const path = fileWith("a\nhalf");
    const f = new FileFollower(path, { bytes: 2, lines: 1 });
    appendFileSync(path, " and the rest\n");
    expect(text(f.poll())).toEqual(["half and the rest"]);
  });

  it("says a file replaced between its read and the follower's start, by the inode it had before the read", () => {
    const path = fileWith("a\n");
    const ino = statSync(path).ino;
    writeFileSync(`${path}.tmp`, "a\nb\n");
    renameSync(`${path}.tmp`, path);
    expect(new FileFollower(path, { bytes: 2, lines: 1, ino }).poll()).toMatchObject({ kind: "changed", why: expect.stringMatching(/replaced/) });
  });

  it("says a file cut short, rewritten in place, replaced by another, or gone", () => {
    const cut = fileWith("a\nb\n");
    const f1 = new FileFollower(cut, { bytes: 4, lines: 2 });
    truncateSync(cut, 2);
    expect(f1.poll()).toMatchObject({ kind: "changed", why: expect.stringMatching(/cut short/) });

    const inPlace = fileWith("aaaa\nbbbb\n");
    const f2 = new FileFollower(inPlace, { bytes: 10, lines: 2 });
    writeFileSync(inPlace, "xxxx\nyyyy\nzzzz\n");
    expect(f2.poll()).toMatchObject({ kind: "changed", why: expect.stringMatching(/in place/) });

    const replaced = fileWith("a\n");
    const f3 = new FileFollower(replaced, { bytes: 2, lines: 1 });
    writeFileSync(`${replaced}.tmp`, "a\nb\n");
    renameSync(`${replaced}.tmp`, replaced);
    expect(f3.poll()).toMatchObject({ kind: "changed", why: expect.stringMatching(/replaced/) });

    const gone = fileWith("a\n");
    const f4 = new FileFollower(gone, { bytes: 2, lines: 1 });
    rmSync(gone);
    expect(f4.poll()).toMatchObject({ kind: "gone" });
  });
});

describe("StampFollower", () => {
  it("says `changed` at first (the session may have been written since it was read), then nothing while the stamp stands, `changed` quietly when it moves, `gone` when there is none", () => {
    let stamp: number[] | undefined = [1, 2];
    const f = new StampFollower(["x"], () => stamp);
    expect(f.poll()).toMatchObject({ kind: "changed", quiet: true });
    expect(f.poll()).toEqual({ kind: "lines", lines: [] });
    stamp = [1, 3];
    expect(f.poll()).toMatchObject({ kind: "changed", quiet: true });
    expect(f.poll()).toEqual({ kind: "lines", lines: [] });
    stamp = undefined;
    expect(f.poll()).toMatchObject({ kind: "gone" });
  });
});
