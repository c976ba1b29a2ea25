import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** Every file under a folder with its size and hash, by its path within it: what a reader must leave as it is. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!f.isFile()) continue;
    const p = join(f.parentPath, f.name);
    out[relative(dir, p)] = `${statSync(p).size}:${createHash("sha256").update(readFileSync(p)).digest("hex")}`;
  }
  return out;
}
