import { C_DROPPED, C_HEADER, shortHash, type RepairWork } from "./work.js";

/**
 * Phase three (v2 and v3 files): every kept entry gets an id of its own (a missing one assigned, a
 * duplicate of a different entry renamed, an exact repeat dropped) and a parent that an
 * append-only writer could have written (an earlier kept entry; else the entry before). Then
 * references that point nowhere are reported (they are kept).
 */
export function settleIds(work: RepairWork, sessionId: string): void {
  const { c } = work;
  const act = work.act.bind(work);
  const isHeader = (k: number) => (c.flags[k]! & C_HEADER) !== 0;
  c.ids.seal();
  // What each candidate holds once it is kept: its own id (HOLDS), or a fresh one (`freshHolder`).
  const holds = new Uint8Array(c.count);
  const freshHolder = new Map<string, number>();
  /** The last kept candidate before `k` that holds `id`, or -1. */
  const holderBefore = (id: string, k: number): number => {
    const fresh = freshHolder.get(id);
    if (fresh !== undefined) return fresh < k ? fresh : -1;
    const holders = c.ids.duplicates.get(id) ?? [c.ids.findString(id)];
    for (let j = holders.length - 1; j >= 0; j--) {
      const h = holders[j]!;
      if (h >= 0 && h < k && holds[h]) return h;
    }
    return -1;
  };
  const renamed = new Map<string, string>();
  const taken = new Set<string>(); // ids handed out here
  const known = (id: string) => c.ids.findString(id) >= 0 || taken.has(id);
  // The entry kept last (its candidate, and its id if it was given a fresh one): its id string
  // is made only when a message or a patch needs it.
  let prevKept = -1;
  let prevFresh: string | undefined;
  let prevId: string | null = null;
  let prevIdStale = false;
  const previousId = (): string | null => {
    if (prevIdStale) {
      prevId = prevFresh ?? c.ids.idOf(prevKept) ?? null;
      prevIdStale = false;
    }
    return prevId;
  };
  // (the holders of an id held more than once: renamed, dropped or kept as the first)
  const duplicated = new Set<number>();
  for (const holders of c.ids.duplicates.values()) for (const h of holders) duplicated.add(h);
  const fresh = (line: number, k: number) => {
    for (let attempt = 0; ; attempt++) {
      const id = shortHash(sessionId, line, k, attempt).slice(0, 8);
      if (!known(id)) {
        taken.add(id);
        return id;
      }
    }
  };
  work.freshId = fresh;
  const parentK = (c.parentK = new Int32Array(c.count).fill(-1));
  let entryNumber = -1;
  for (let k = 0; k < c.count; k++) {
    if (isHeader(k)) continue;
    entryNumber++;
    if (c.flags[k]! & C_DROPPED) continue;
    // Most entries: a hex id or a UUID held by no other, and the entry kept before as parent
    // (its own id: a renamed one's is fresh). Nothing to fix, and nothing to make a string of.
    if (!duplicated.has(k) && prevKept >= 0 && prevFresh === undefined && (c.ids.hexAt(k) >= 0 || c.ids.uuidSlotAt(k) >= 0) && c.parentIsIdOf(k, prevKept)) {
      holds[k] = 1;
      parentK[k] = prevKept;
      prevKept = k;
      prevIdStale = true;
      continue;
    }
    const prevId = previousId();
    const line = c.lineOf(k) + 1;
    const patch: { id?: string; parentId?: string | null } = {};
    let id = c.ids.idOf(k);
    let parentId: string | null | undefined = c.parentKind[k] === 2 ? null : c.parentId(k);
    let own = true;
    if (id === undefined) {
      id = patch.id = fresh(line, entryNumber);
      own = false;
      if (typeof parentId !== "string") parentId = patch.parentId = prevId;
      act("id-assigned", line, `no id: given ${id}, parent ${String(parentId)}`);
    } else if (c.ids.duplicates.has(id) || freshHolder.has(id)) {
      const holder = holderBefore(id, k);
      if (holder >= 0) {
        // The same id again: an exact repeat goes; a different entry gets an id of its own.
        if (work.textOf(holder) === work.textOf(k)) {
          act("duplicate-dropped", line, `an exact repeat of entry ${id}`);
          c.flags[k]! |= C_DROPPED;
          continue;
        }
        const old = id;
        id = patch.id = fresh(line, entryNumber);
        own = false;
        renamed.set(old, id);
        act("id-renamed", line, `id ${old} was already used by another entry: now ${id}`);
      }
    }
    if (parentId !== null) {
      const target: string | undefined = typeof parentId === "string" ? (renamed.get(parentId) ?? parentId) : undefined;
      // (the entry before, most often: held, without looking)
      if (target === undefined || target === id || (target !== prevId && holderBefore(target, k) < 0)) {
        const why = target === undefined ? "no parentId" : target === id ? "it was its own parent" : known(target) ? `parent ${target} comes later in the file` : `parent ${target} does not exist`;
        patch.parentId = prevId;
        parentK[k] = prevKept;
        act("parent-reattached", line, `${why}: re-attached to ${prevId === null ? "nothing (a root)" : prevId}`);
      } else {
        if (target !== parentId) patch.parentId = target;
        parentK[k] = target === prevId ? prevKept : holderBefore(target, k);
      }
    }
    if (patch.id !== undefined || "parentId" in patch) c.patches.set(k, patch);
    if (own) holds[k] = 1;
    else freshHolder.set(id, k);
    prevKept = k;
    prevFresh = own ? undefined : id;
    prevIdStale = true;
  }
  // References that point nowhere stay, reported.
  for (const [k, { type, ref }] of c.refs) {
    if (!(c.flags[k]! & C_DROPPED) && holderBefore(ref, c.count) < 0 && ref !== "root" && ref !== (c.patches.get(k)?.id ?? c.ids.idOf(k))) {
      act("reference-missing", c.lineOf(k) + 1, `${type} points to ${ref}, which does not exist (kept)`);
    }
  }
}

