import { BLOCK_MS, BLOCK_STRIDE, ENTRY_STRIDE, type FileUsage } from "./records.js";

/** A session's usage and what orders it among the others. */
export interface SessionUsage {
  file: string;
  /** Its header's `id` (else whatever names it: the id in its file name, the path). */
  id: string;
  /** Its header's timestamp in ms (NaN when it has none). */
  created: number;
  cwd: string | null;
  usage: FileUsage;
}

/**
 * Each entry once: which records of each session an earlier session holds too (a fork's copy of
 * its parent's path, a copied or older snapshot of a file: the same id and timestamp). Sessions
 * are taken in order of creation (header time, then path; a session without a time last); a
 * record is the session's own unless an earlier session holds its entry. Within one file every
 * record is the file's own, as pi's `/session` counts it. Returns, per session in the order
 * given, a flag per record (1: inherited), or null when it inherits none.
 *
 * An entry two files hold has one time, so only records in a quarter hour that two files have
 * records in are looked up (`FileUsage.blocks`): in a store of sessions that share nothing, no
 * record is (a set of every record, probed at random, was most of a warm report). Sessions whose
 * records are one object (files of the same bytes, read once: an OpenClaw transcript and the
 * importer's copy of it) count as one here: the first of them is looked up as any session is, and
 * each later one's records are all held by it, with no lookup. So do sessions whose records are the
 * same entries, record for record (those files read apart: from a warm cache).
 */
export function sharedRecords(sessions: readonly SessionUsage[]): Array<Uint8Array | null> {
  const order = sessions.map((_, i) => i).sort((a, b) => byCreation(sessions[a]!, sessions[b]!));
  const usages = sameEntries(sessions);
  // quarter hour -> how many sessions have records in it (NaN: the records without a time)
  const holders = new Map<number, number>();
  const distinct = new Set<FileUsage>();
  for (const usage of usages) {
    if (distinct.has(usage)) continue;
    distinct.add(usage);
    const b = usage.blocks;
    let last: number | undefined;
    for (let at = 0; at < b.length; at += BLOCK_STRIDE) {
      const block = b[at]!;
      if (block === last || (Number.isNaN(block) && last !== undefined && Number.isNaN(last))) continue;
      last = block;
      holders.set(block, (holders.get(block) ?? 0) + 1);
    }
  }
  const busy = (block: number) => (holders.get(block) ?? 0) > 1;
  let candidates = 0;
  const counted = new Set<FileUsage>();
  const involved = usages.map((usage) => {
    let any = false;
    const again = counted.has(usage);
    counted.add(usage);
    for (let at = 0; at < usage.blocks.length; at += BLOCK_STRIDE) {
      if (!busy(usage.blocks[at]!)) continue;
      any = true;
      if (!again) candidates += usage.blocks[at + 2]!;
    }
    return any;
  });
  const seen = new EntrySet(candidates);
  const flags: Array<Uint8Array | null> = new Array(sessions.length).fill(null);
  const first = new Set<FileUsage>();
  order.forEach((i, rank) => {
    const usage = usages[i]!;
    const r = usage.entries;
    const n = r.length / ENTRY_STRIDE;
    if (first.has(usage)) {
      flags[i] = keyedRecords(r, n);
      return;
    }
    first.add(usage);
    if (!involved[i]) return;
    let shared: Uint8Array | null = null;
    let lastBlock = NaN;
    let lastBusy = false;
    for (let k = 0; k < n; k++) {
      const key = r[k * ENTRY_STRIDE + 1]!;
      if (key < 0) continue;
      const time = r[k * ENTRY_STRIDE]!;
      const block = Math.floor(time / BLOCK_MS);
      if (block !== lastBlock) {
        lastBlock = block;
        lastBusy = busy(block);
      }
      // (a session that holds an entry twice counts it twice: only an earlier session's holding shares it)
      if (lastBusy && seen.holder(key, timeKey(time), rank) < rank) (shared ??= new Uint8Array(n))[k] = 1;
    }
    flags[i] = shared;
  });
  return flags;
}

/**
 * Each session's records, or where they are the same entries as an earlier session's (each
 * record's time and key, in order) that session's: what `sharedRecords` would find of them by
 * looking each record up (every keyed record held by the earlier one), found by comparing them.
 */
function sameEntries(sessions: readonly SessionUsage[]): FileUsage[] {
  // (by how many records and the last one's time and key: candidates, then compared; a few of each at most)
  const alike = new Map<number, FileUsage[]>();
  return sessions.map(({ usage }) => {
    const e = usage.entries;
    if (e.length === 0) return usage;
    const ends = (e.length * 4_294_967_311 + e[e.length - 1]!) * 1_000_003 + e[e.length - 2]!;
    const earlier = alike.get(ends);
    if (!earlier) {
      alike.set(ends, [usage]);
      return usage;
    }
    const same = earlier.find((other) => other === usage || sameNumbers(other.entries, e));
    if (same) return same;
    if (earlier.length < ALIKE_KEPT) earlier.push(usage);
    return usage;
  });
}

/** Sessions kept to compare with for one count and last record: past these, a session is looked up as any is (its results the same, found more slowly). */
const ALIKE_KEPT = 8;

/** Whether two arrays hold the same numbers, in order. */
function sameNumbers(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  // (NaN, a record without a time, equals NaN here)
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && (a[i] === a[i] || b[i] === b[i])) return false;
  return true;
}

/** A flag for each record with an entry key (what another session can hold too), or null when none has one. */
function keyedRecords(entries: Float64Array, n: number): Uint8Array | null {
  let flags: Uint8Array | null = null;
  for (let k = 0; k < n; k++) if (entries[k * ENTRY_STRIDE + 1]! >= 0) (flags ??= new Uint8Array(n))[k] = 1;
  return flags;
}

/**
 * Entries seen, (key, time) -> the first session (by rank) that held it: open addressing, probed
 * by the key's low 32 bits, kept beside the holder in one Int32Array (a probe reads one pair), the
 * whole key and time (a Float64Array, in pairs) compared only where those bits match. Every probe
 * is a likely cache miss, and every page of a fresh table a page fault (some 3 ms a megabyte on the
 * machines measured): the table is filled up to three quarters, about 22 bytes an entry. A `Map`
 * keyed by the 53-bit keys (heap numbers, not small integers) took a tenth of a warm report.
 */
class EntrySet {
  /** A slot's key's low 32 bits, then its holder's rank + 1 (0: an empty slot). */
  private slots: Int32Array;
  /** A slot's key, then its time. */
  private values: Float64Array;
  private mask: number;
  private size = 0;

  constructor(expected: number) {
    let capacity = 16;
    while (capacity * 3 < expected * 4) capacity *= 2;
    this.slots = new Int32Array(capacity * 2);
    this.values = new Float64Array(capacity * 2);
    this.mask = capacity - 1;
  }

  /** The rank of the first session that held (key, time); now `rank`'s when none did. */
  holder(key: number, time: number, rank: number): number {
    const low = key | 0;
    const slots = this.slots;
    // (keys are hashes already; the multiply spreads ids that count up, as replayed ones do)
    let at = Math.imul(low ^ (low >>> 16), 0x45d9f3b) & this.mask;
    for (;;) {
      const h = slots[at * 2 + 1]!;
      if (h === 0) break;
      if (slots[at * 2] === low && this.values[at * 2] === key && this.values[at * 2 + 1] === time) return h - 1;
      at = (at + 1) & this.mask;
    }
    slots[at * 2] = low;
    slots[at * 2 + 1] = rank + 1;
    this.values[at * 2] = key;
    this.values[at * 2 + 1] = time;
    if (++this.size * 4 > (this.mask + 1) * 3) this.grow();
    return rank;
  }

  private grow(): void {
    const { slots, values } = this;
    const capacity = (this.mask + 1) * 2;
    this.slots = new Int32Array(capacity * 2);
    this.values = new Float64Array(capacity * 2);
    this.mask = capacity - 1;
    this.size = 0;
    for (let k = 0; k * 2 < slots.length; k++) if (slots[k * 2 + 1]) this.holder(values[k * 2]!, values[k * 2 + 1]!, slots[k * 2 + 1]! - 1);
  }
}

/** A time as a key (entries without a time are the same when their ids are). */
const timeKey = (t: number): number => (Number.isNaN(t) ? -Infinity : t);

function byCreation(a: SessionUsage, b: SessionUsage): number {
  const ta = Number.isNaN(a.created) ? Infinity : a.created;
  const tb = Number.isNaN(b.created) ? Infinity : b.created;
  return ta !== tb ? (ta < tb ? -1 : 1) : a.file < b.file ? -1 : a.file > b.file ? 1 : 0;
}
