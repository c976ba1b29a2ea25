import { Turn, type EditEffect, type PairingFinding, type PairingInput } from "../context/pairing.js";
import { pairingFindings } from "../context/pairing-walk.js";
import { preorderNumbers, preorderWindows } from "../session/tree.js";

/**
 * Repair's conversation phase (docs/commands.md, "A session every request fails on"): what to do so that
 * every branch is sendable again, without taking any sound entry off its branch. On the tree the
 * line-level repair leaves (records in file order, each parent before its children):
 *
 * - a result with no call above it, one for a call in a turn pi does not send, a second result for
 *   an answered call, a result without a call id: removed, its children re-attached to its parent;
 * - a result with a message (or a compaction's cut) between it and its unanswered call: moved back
 *   under its call, after the results already there: its line goes right after theirs, the entry
 *   that followed them becomes its child, its own children its old parent's;
 * - a compaction whose kept part starts at a result: it keeps from the turn holding the call
 *   (none above: from the first message after the results);
 * - a result whose call a context edit takes away (the turn omitted, or replaced without it): an
 *   edit omitting the result is added right after that edit, on every branch below it, as pi's
 *   own `appendContextEdit` would write it (the history stays as it is; pi then sends neither, and
 *   OpenClaw, which reads no context edits, both); a result below the edit, which no branch sends
 *   with its call, is removed.
 *
 * Only what some leaf sends is mended (the walk's `sent`, the rule `check` judges by): a compaction
 * a later one supersedes on every branch, a result no leaf's context holds, are left as they are.
 * Findings are settled in pre-order, each on the tree as the ones before it left it. A displaced
 * result that is the file's last entry is moved only where the entry the file then ends with hangs
 * below it (else the current leaf would change branch): otherwise it is left, and said.
 */

/** The tree as repair holds it: records `0..size-1` in file order. */
export interface TurnRecords {
  size: number;
  /** Each record's parent record (-1: a root). Parents come first. The plan takes the column: its fixes change it. */
  parent: Int32Array;
  turn(k: number): Turn;
  /** Record `k`'s call id hashes: slots `callStart(k)` to `callStart(k + 1)` of `callHash`. */
  callStart(k: number): number;
  callHash(slot: number): number;
  /** The record holding call slot `slot`. */
  callNode(slot: number): number;
  resultHash(k: number): number;
  /** A compaction's first kept record (-1: none). */
  keptFrom(k: number): number;
  /** A context edit's effect, its targets as records (undefined: no edit). */
  edit(k: number): EditEffect | undefined;
}

export interface ConversationFix {
  /** The pairing finding this settles (its nodes are records). */
  finding: PairingFinding;
  /** removed; moved (after `to`); kept-from (the compaction keeps from `to`, -1: from itself); omitted (an edit omitting it added after the edit `to`); left (not fixed). */
  action: "removed" | "moved" | "kept-from" | "omitted" | "left";
  to: number;
  /** Why a result was left where it is (`left`). */
  why?: LeftReason;
}

/**
 * Why repair leaves a displaced result where it stands: moving it would change the branch pi
 * resumes on (the file's last entry, whose branch lost what it held), or an edit repair adds
 * stands between them.
 */
export type LeftReason = "leaf" | "added";

export interface ConversationPlan {
  fixes: ConversationFix[];
  /** Records whose parent changes: record -> new parent (-1: a root). */
  parents: Map<number, number>;
  /** Records to write right after another one's line: record -> the records after it, in order. */
  after: Map<number, number[]>;
  /** Records that leave the file. */
  removed: Set<number>;
  /** Compactions whose `firstKeptEntryId` changes: compaction -> record (-1: the compaction itself). */
  keptFrom: Map<number, number>;
  /**
   * Context edits after which edits omitting results are added: edit -> the results, in order, and
   * the edit's children (they move under the last edit added).
   */
  omissions: Map<number, { results: number[]; children: number[] }>;
  /** The edits added, in order (record `size + j` in `parents` is the `j`th): each one's result and the edit it follows. */
  added: Array<{ target: number; after: number }>;
}

/**
 * The tree as the fixes leave it, for the walk to judge again: records `0..size-1`, then the edits
 * added (each omitting one result, in a chain right after the edit it follows). A fix can bring
 * back into a context what was cut from it (a compaction made to keep from further back brings the
 * edits in that range back into force), so the plan walks the tree again until nothing sent breaks.
 */
class FixedTree {
  /** Each record's parent (-1: a root), the added edits' after the records' (`size`). */
  parent: Int32Array;
  readonly removed = new Set<number>();
  /** Compactions' first kept records as fixed (-1: none kept). */
  readonly keptFrom = new Map<number, number>();
  /** Added edits: each one's target, and the edit whose chain it ends (records `size…`). */
  readonly added: Array<{ target: number; after: number }> = [];
  /** An edit's chain of added edits, last first: the edit -> its last added one. */
  readonly chainEnd = new Map<number, number>();
  /** Records written right after another one's line (results moved back under their call): record -> the records after it, in order. */
  readonly after = new Map<number, number[]>();
  /** The records `after` holds: written there, not at their own line. */
  readonly moved = new Set<number>();
  /**
   * Children lists, only where a fix changed them; the others are the records' own, from
   * `childStart`/`childList` (made when a fix first asks, 8 bytes a record; a list of its own
   * every record was a hundred or more, and most repairs change none).
   */
  private readonly changed = new Map<number, number[]>();
  private childStart: Int32Array | undefined;
  private childList: Int32Array | undefined;
  /**
   * The columns each walk is numbered in, made once for every round (`input`): the order the
   * records are taken in, their places in pre-order and where their subtrees end (a round made its
   * own, while the last round's were still garbage). The walk takes the nodes in pre-order a window
   * at a time: a column of them, and the numbering's scratch, were 8 bytes a record more.
   */
  private readonly columns = { topo: new Int32Array(0), at: new Int32Array(0), end: new Int32Array(0) };

  constructor(private readonly r: TurnRecords) {
    // (the records' own column, changed in place: a copy was 4 bytes a record)
    this.parent = r.parent;
  }

  get size(): number {
    return this.r.size + this.added.length;
  }

  /** The children of `p`, in file order (then as fixes placed them). */
  childrenOf(p: number): readonly number[] {
    const changed = this.changed.get(p);
    if (changed) return changed;
    if (p >= this.r.size) return [];
    if (!this.childStart) this.indexChildren();
    return Array.from(this.childList!.subarray(this.childStart![p]!, this.childStart![p + 1]!));
  }

  /** The records' own children lists, from their parents as they came (made before the first change: counted, summed, filled in file order). */
  private indexChildren(): void {
    const { size } = this.r;
    const parent = this.parent;
    const start = new Int32Array(size + 1);
    for (let k = 0; k < size; k++) if (parent[k]! >= 0) start[parent[k]! + 1]!++;
    for (let k = 0; k < size; k++) start[k + 1]! += start[k]!;
    const fill = start.slice(0, size);
    const list = new Int32Array(start[size]!);
    for (let k = 0; k < size; k++) if (parent[k]! >= 0) list[fill[parent[k]!]!++] = k;
    this.childStart = start;
    this.childList = list;
  }

  /** `p`'s children list as a fix may change it. */
  private listOf(p: number): number[] {
    let list = this.changed.get(p);
    if (!list) this.changed.set(p, (list = [...this.childrenOf(p)]));
    return list;
  }

  setParent(k: number, p: number): void {
    const old = this.parent[k]!;
    if (old === p) return;
    if (!this.childStart) this.indexChildren();
    if (old >= 0) {
      const list = this.listOf(old);
      list.splice(list.indexOf(k), 1);
    }
    this.parent[k] = p;
    if (p >= 0) this.listOf(p).push(k);
  }

  remove(k: number): void {
    for (const ch of [...this.childrenOf(k)]) this.setParent(ch, this.parent[k]!);
    this.setParent(k, -1);
    this.removed.add(k);
  }

  /** An edit omitting `target`, added at the end of edit `e`'s chain: what hung below the chain hangs below it. */
  addOmission(e: number, target: number): void {
    const k = this.size;
    const tail = this.chainEnd.get(e) ?? e;
    this.added.push({ target, after: e });
    if (k >= this.parent.length) {
      const grown = new Int32Array(this.parent.length + 16 + (this.parent.length >>> 4));
      grown.set(this.parent);
      this.parent = grown;
    }
    this.parent[k] = -1;
    for (const ch of [...this.childrenOf(tail)]) this.setParent(ch, k);
    this.setParent(k, tail);
    this.chainEnd.set(e, k);
  }

  /** The pairing walk over the tree as it stands; a leaf is a record without children, or the one written last (pi's current leaf). */
  input(): PairingInput {
    const { r, columns } = this;
    const n = this.size;
    if (columns.at.length < n) Object.assign(columns, { at: new Int32Array(n + 16), end: new Int32Array(n + 16) });
    // The order the lines are written in, parents first (what the pre-order numbering needs): each
    // added edit right after the edit whose chain it is in, each moved result right after the
    // record it follows (and what follows it in turn), none of either: the records' own.
    const reordered = this.added.length > 0 || this.moved.size > 0;
    if (reordered && columns.topo.length < n) columns.topo = new Int32Array(n + 16);
    const addedAfter = new Map<number, number[]>();
    for (const [j, a] of this.added.entries()) {
      const list = addedAfter.get(a.after);
      if (list) list.push(r.size + j);
      else addedAfter.set(a.after, [r.size + j]);
    }
    let at = 0;
    let last = -1;
    const place = (k: number): void => {
      if (reordered) columns.topo[at++] = k;
      if (k >= r.size || !this.removed.has(k)) last = k;
      for (const v of addedAfter.get(k) ?? []) place(v);
      for (const m of this.after.get(k) ?? []) place(m);
    };
    for (let k = 0; k < r.size; k++) if (!this.moved.has(k)) place(k);
    if (reordered && at !== n) throw new Error(`repair: the fixed tree's order holds ${at} of its ${n} records`);
    const { at: pre, end } = preorderNumbers(this.parent.subarray(0, n), reordered ? columns.topo.subarray(0, n) : undefined, columns);
    const subtreeSizeOf = (k: number) => end[k]! - pre[k]!;
    const added = (k: number) => k >= r.size;
    return {
      size: n,
      preorderWindows: () => preorderWindows(pre),
      preorderIndex: (k) => pre[k]!,
      subtreeSizeOf,
      turn: (k) => (added(k) || this.removed.has(k) ? Turn.None : r.turn(k)),
      callStart: (k) => (k >= r.size ? r.callStart(r.size) : r.callStart(k)),
      callHash: (slot) => r.callHash(slot),
      callNode: (slot) => r.callNode(slot),
      resultHash: (k) => (added(k) ? NaN : r.resultHash(k)),
      keptFrom: (k) => this.keptFrom.get(k) ?? r.keptFrom(k),
      isLeaf: (k) => subtreeSizeOf(k) === 1 || k === last,
      edit: (k) => (added(k) ? { targets: [this.added[k - r.size]!.target], omit: true, calls: [] } : this.removed.has(k) ? undefined : r.edit(k)),
    };
  }
}

/** How many times the plan walks the tree again after its fixes (each round mends what the last one brought back into a context). */
const ROUNDS = 4;

/** What repair does to the conversation; an empty plan when nothing breaks the pairing rules. */
export function planConversation(r: TurnRecords): ConversationPlan {
  const tree = new FixedTree(r);
  const plan: ConversationPlan = { fixes: [], parents: new Map(), after: tree.after, removed: new Set(), keptFrom: new Map(), omissions: new Map(), added: tree.added };
  // (the tree's parents as they stand: its column grows when an edit is added)
  const parentOf = (k: number) => tree.parent[k]!;
  const setParent = (k: number, p: number) => {
    if (parentOf(k) === p) return;
    tree.setParent(k, p);
    plan.parents.set(k, p);
  };
  /** A removed record's parent when it was removed. */
  const formerParent = new Map<number, number>();
  const remove = (k: number) => {
    formerParent.set(k, parentOf(k));
    for (const ch of [...tree.childrenOf(k)]) setParent(ch, parentOf(k));
    tree.remove(k);
    plan.removed.add(k);
  };
  /**
   * Where a result `k` displaced from `anchor` goes: after the last record an earlier move wrote
   * after `anchor` that is still on `k`'s branch (results moved onto another branch are not its).
   */
  const placeFor = (anchor: number, k: number) => {
    let place = anchor;
    for (const m of plan.after.get(anchor) ?? []) {
      if (!isAbove(tree.parent, m, k)) break;
      place = m;
    }
    return place;
  };
  const added = (k: number) => k >= r.size;
  /**
   * The record the file would end with, `skip` aside (pi's current leaf): the last one kept at its
   * own line, or what was moved after it. The last record is moved only where the one the file then
   * ends with hangs below its old parent (the entries the current branch held, it still holds).
   */
  const lastWritten = (skip: number): number => {
    let k = r.size - 1;
    while (k >= 0 && (k === skip || plan.removed.has(k) || tree.moved.has(k))) k--;
    for (let next = k; next >= 0; ) {
      k = next;
      next = -1;
      for (const m of tree.after.get(k) ?? []) if (m !== skip && !plan.removed.has(m)) next = m;
    }
    return k;
  };
  /** Results left where they stand: said once, not found again each round. */
  const left = new Set<number>();
  for (let round = 0; round < ROUNDS; round++) {
    const findings = pairingFindings(tree.input(), false).filter((f) => f.sent && !plan.removed.has(f.resultNode) && !(f.kind === "displaced" && left.has(f.resultNode)));
    if (findings.length === 0) break;
    for (const f of findings) {
      switch (f.kind) {
        case "lost":
        case "skipped-turn":
        case "duplicate":
        case "no-id": {
          remove(f.resultNode);
          plan.fixes.push({ finding: f, action: "removed", to: -1 });
          break;
        }
        case "displaced": {
          const k = f.resultNode;
          const anchor = f.after >= 0 ? f.after : f.callNode;
          const place = placeFor(anchor, k);
          // the entry under `place` on the way down to k
          let c = parentOf(k);
          let below = -1;
          while (c >= 0 && c !== place) {
            below = c;
            c = parentOf(c);
          }
          if (c !== place || below < 0) {
            // (an earlier fix of this round moved what stood above it: the next round sees where it stands)
            if (round === ROUNDS - 1) plan.fixes.push({ finding: f, action: "left", to: -1 });
            break;
          }
          const old = parentOf(k);
          // (the file's last entry is pi's current leaf: moved, the file ends with another entry, whose branch must hold what k's did)
          const why: LeftReason | undefined = added(below) ? "added" : k === lastWritten(-1) && !isAbove(tree.parent, old, lastWritten(k)) ? "leaf" : undefined;
          if (why) {
            left.add(k);
            plan.fixes.push({ finding: f, action: "left", to: -1, why });
            break;
          }
          for (const ch of [...tree.childrenOf(k)]) setParent(ch, old);
          setParent(k, place);
          setParent(below, k);
          const list = tree.after.get(anchor);
          if (list) list.push(k);
          else tree.after.set(anchor, [k]);
          tree.moved.add(k);
          plan.fixes.push({ finding: f, action: "moved", to: place });
          break;
        }
        case "kept-result": {
          const compaction = f.node;
          let to = f.callNode;
          if (to < 0) {
            // no call above: keep from the first message after the leading results
            to = -1;
            // (from the result, or where it stood when this round removed it: its former parent's child on the way)
            const gone = formerParent.get(f.resultNode);
            const from = gone === undefined ? f.resultNode : (tree.childrenOf(gone).find((ch) => isAbove(tree.parent, ch, compaction)) ?? -1);
            for (let m = from; m >= 0 && m !== compaction; ) {
              const kind = r.turn(m);
              if (!added(m) && kind !== Turn.Result && kind !== Turn.None && kind !== Turn.System) {
                to = m;
                break;
              }
              // the child on the way to the compaction
              m = tree.childrenOf(m).find((ch) => isAbove(tree.parent, ch, compaction)) ?? -1;
            }
          }
          plan.keptFrom.set(compaction, to);
          tree.keptFrom.set(compaction, to);
          plan.fixes.push({ finding: f, action: "kept-from", to });
          break;
        }
        case "edited": {
          const k = f.resultNode;
          if (isAbove(tree.parent, f.edit, k)) {
            // below the edit: no branch sends it with its call
            remove(k);
            plan.fixes.push({ finding: f, action: "removed", to: -1 });
            break;
          }
          const o = plan.omissions.get(f.edit);
          if (o?.results.includes(k)) break;
          if (o) o.results.push(k);
          else plan.omissions.set(f.edit, { results: [k], children: [] });
          tree.addOmission(f.edit, k);
          plan.fixes.push({ finding: f, action: "omitted", to: f.edit });
          break;
        }
        case "unanswered":
          break;
      }
    }
  }
  // what hangs below each chain of added edits (real records: they move under its last edit)
  for (const [e, o] of plan.omissions) o.children = tree.childrenOf(tree.chainEnd.get(e)!).filter((k) => !added(k));
  return plan;
}

/** Whether `a` is `k` or above it. */
function isAbove(parent: ArrayLike<number>, a: number, k: number): boolean {
  for (let c = k; c >= 0; c = parent[c]!) if (c === a) return true;
  return false;
}
