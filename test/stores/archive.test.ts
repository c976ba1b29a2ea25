/**
 * Where a session is archived (`archiveOf`), and which archive folders hold what was archived from a
 * folder (`archivedSessions`), on folders laid out as each store lays them out: the one answer
 * `archive`, `ls --archived`, `usage`, `restore` and `show` share.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { archivedSessions, archiveOf, archivedPath } from "../../src/stores/index.js";

const base = () => mkdtempSync(join(tmpdir(), "pi-session-archive-of-"));

describe("archiveOf", () => {
  it("puts an OpenClaw root's sessions in archive/ inside the root, laid out as the root", () => {
    const root = join(base(), ".openclaw");
    mkdirSync(join(root, "agents/main/sessions"), { recursive: true });
    const file = join(root, "agents/main/sessions/a.jsonl.reset.2026-01-01T00-00-00.000Z");
    expect(archiveOf(file, "/nowhere")).toEqual({ root, archive: join(root, "archive") });
    expect(archivedPath(file, archiveOf(file, "/nowhere"))).toBe(join(root, "archive/agents/main/sessions/a.jsonl.reset.2026-01-01T00-00-00.000Z.zst"));
  });

  it("puts pi's session directory's sessions in archive/ beside it, and a project folder's elsewhere in archive/ in the folder holding it (nothing written above that folder)", () => {
    const home = base();
    const sessions = join(home, ".pi/agent/sessions");
    expect(archiveOf(join(sessions, "--w--/x.jsonl"), sessions)).toEqual({ root: sessions, archive: join(home, ".pi/agent/archive") });
    const copy = join(home, "backup/sessions");
    expect(archiveOf(join(copy, "--w--/x.jsonl"), sessions)).toEqual({ root: copy, archive: join(copy, "archive") });
  });

  it("puts any other session in archive/ in its own folder: never above it", () => {
    expect(archiveOf("/tmp/bin.jsonl", "/home/u/.pi/agent/sessions")).toEqual({ root: "/tmp", archive: "/tmp/archive" });
    expect(archivedPath("/tmp/bin.jsonl", archiveOf("/tmp/bin.jsonl", "/x"))).toBe("/tmp/archive/bin.jsonl.zst");
    expect(archiveOf("/bin.jsonl", "/x")).toEqual({ root: "/", archive: "/archive" });
  });
});

describe("archivedSessions", () => {
  const line = (path: string, archive: string) => JSON.stringify({ action: "archive", path, archive, id: null, size: 1, sha256: "0", compressed: 1, time: "2026-01-01T00:00:00.000Z" });

  it("of a folder: its own archive/, and of an archive beside it only what its manifest says came from inside it", () => {
    const home = base();
    const a = join(home, "a");
    const b = join(home, "b");
    mkdirSync(join(a, "archive"), { recursive: true });
    mkdirSync(b);
    mkdirSync(join(home, "archive"));
    writeFileSync(join(a, "archive/x.jsonl.zst"), "");
    writeFileSync(join(a, "archive/manifest.ndjson"), `${line(join(a, "x.jsonl"), "x.jsonl.zst")}\n`);
    // (the archive beside a and b holds both's: each gets its own)
    writeFileSync(join(home, "archive/y.jsonl.zst"), "");
    writeFileSync(join(home, "archive/z.jsonl.zst"), "");
    writeFileSync(join(home, "archive/manifest.ndjson"), `${line(join(a, "y.jsonl"), "y.jsonl.zst")}\n${line(join(b, "z.jsonl"), "z.jsonl.zst")}\n`);
    expect(archivedSessions(a).sessions.map((s) => s.path).sort()).toEqual([join(a, "archive/x.jsonl.zst"), join(home, "archive/y.jsonl.zst")]);
    expect(archivedSessions(b).sessions.map((s) => s.path)).toEqual([join(home, "archive/z.jsonl.zst")]);
  });

  it("follows what a manifest records --to took elsewhere, and names a recorded folder that is not there", () => {
    const home = base();
    const sessions = join(home, "sessions");
    mkdirSync(join(sessions, "--w--"), { recursive: true });
    mkdirSync(join(home, "archive"));
    const away = join(home, "disk/archive");
    mkdirSync(join(away, "--w--"), { recursive: true });
    writeFileSync(join(home, "archive/manifest.ndjson"), `${JSON.stringify({ action: "elsewhere", folder: away, time: "2026-01-01T00:00:00.000Z" })}\n${JSON.stringify({ action: "elsewhere", folder: join(home, "gone"), time: "2026-01-01T00:00:00.000Z" })}\n`);
    writeFileSync(join(away, "--w--/x.jsonl.zst"), "");
    writeFileSync(join(away, "manifest.ndjson"), `${line(join(sessions, "--w--/x.jsonl"), "--w--/x.jsonl.zst")}\n`);
    const found = archivedSessions(sessions);
    expect(found.sessions.map((s) => [s.path, s.line?.path])).toEqual([[join(away, "--w--/x.jsonl.zst"), join(sessions, "--w--/x.jsonl")]]);
    expect(found.missing).toEqual([{ folder: join(home, "gone"), recordedIn: join(home, "archive") }]);
  });
});
