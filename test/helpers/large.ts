/** Large inputs for crash tests, made with the benchmark's seeded generator. */
import { readFileSync, writeFileSync } from "node:fs";
// @ts-expect-error: a plain JS module shared with the benchmark
import { generateLargeSession } from "../../bench/generate.mjs";

/** A valid v1 file of about `sizeMB` (migrate has every line to rewrite). */
export function largeV1(path: string, sizeMB: number): void {
  generateLargeSession({ path, sizeMB, seed: 77, branched: false });
  const lines = readFileSync(path, "utf8").split("\n").filter(Boolean);
  const v1 = lines.map((l, i) => {
    const o = JSON.parse(l);
    if (i === 0) delete o.version;
    else {
      delete o.id;
      delete o.parentId;
    }
    return JSON.stringify(o);
  });
  writeFileSync(path, v1.join("\n") + "\n");
}

/** A v3 file of about `sizeMB` with a fused line, NULs and a torn end (repair has work to do). */
export function largeCorrupted(path: string, sizeMB: number): void {
  generateLargeSession({ path, sizeMB, seed: 78, branched: true });
  const lines = readFileSync(path, "utf8").split("\n").filter(Boolean);
  const mid = Math.floor(lines.length / 2);
  lines.splice(mid, 2, lines[mid]! + lines[mid + 1]!);
  lines.splice(mid + 5, 0, "\u0000".repeat(40));
  writeFileSync(path, lines.join("\n") + "\n" + lines[lines.length - 1]!.slice(0, 30));
}

/** A v3 session of about `sizeMB` that is mostly tool output behind compactions (slim has most of it to do). */
export function largeBloated(path: string, sizeMB: number): void {
  generateLargeSession({ path, sizeMB, seed: 79, shape: "bloated" });
}
