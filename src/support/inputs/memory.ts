import v8 from "node:v8";

/** Sessions this large are read memory-first (`sizeHint`). */
const MEMORY_FIRST_BYTES = 512 * 1024 * 1024;

let memoryFirst = false;

/**
 * Told the size of a session about to be read. V8 doubles its young generation (up to its limit)
 * whenever enough objects have survived its scavenges since the last doubling, which a long read
 * always comes to; on a gigabyte session that was the difference between meeting the peak-RSS
 * bound and missing it (figures: BENCHMARKS.md, "the young generation"). From
 * `MEMORY_FIRST_BYTES` on, the young generation keeps its starting size: more, smaller scavenges,
 * at little cost there. Smaller sessions, where the speed targets are, keep V8's default.
 */
export function sizeHint(bytes: number): void {
  if (bytes >= MEMORY_FIRST_BYTES) youngKeptSmall();
}

/**
 * The young generation kept at its starting size from now on, in this thread and the workers
 * started after (V8's flags are the process's): a long read of many sessions (`search`'s first
 * build) holds the peak where many short-lived objects would otherwise double it again and again.
 */
export function youngKeptSmall(): void {
  if (memoryFirst) return;
  memoryFirst = true;
  // The flag is read whenever the young generation would grow, so setting it now takes effect. It
  // is in the V8s of Node 20 to 24 (11 to 13); a V8 that did not know it would print an error on
  // stdout, so it is set only there.
  const major = Number(process.versions.v8.split(".")[0]);
  if (major >= 11 && major <= 13) v8.setFlagsFromString("--semi-space-growth-factor=1");
}
