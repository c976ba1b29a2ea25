import { pairingFindings, Turn, type PairingFinding, type PairingInput } from "../context/pairing.js";
import { whatLeavesSend, type Sends } from "../context/sends.js";
import { preorderNumbers } from "../session/tree.js";

/**
 * Repair's conversation phase (README, "A session every request fails on"): what to do so that
 * every branch is sendable again, without taking any sound entry off its branch. On the tree the
 * line-level repair leaves (records in file order, each parent before its children):
 *
 * - a result with no call above it, one for a call in a turn pi does not send, a second result for
 *   an answered call, a result without a call id: removed, its children re-attached to its parent;
 * - a result with a message (or a compaction's cut) between it and its unanswered call: moved back
 *   under its call, after the results already there: its line goes right after theirs, the entry
 *   that followed them becomes its child, its own children its old parent's;
 * - a compaction whose kept part starts at a result: it keeps from the turn holding the call
 *   (none above: from the first message after the results).
 *
 * Only what some leaf sends is mended (`whatLeavesSend`, the rule `check` judges by): a compaction
 * a later one supersedes on every branch, a result no leaf's context holds, are left as they are.
 * Findings are settled in pre-order, each on the tree as the ones before it left it. A displaced
 * result that is the file's last entry is moved only where the entry before it is its parent
 * (else the current leaf would change branch): otherwise it is left, and said.
 */

/** The tree as repair holds it: records `0..size-1` in file order. */
export interface TurnRecords {
  size: number;
  /** Each record's parent record (-1: a root). Parents come first. */
  parent: Int32Array;
  turn(k: number): Turn;
  /** Record `k`'s call id hashes: slots `callStart(k)` to `callStart(k + 1)` of `callHash`. */
  callStart(k: number): number;
  callHash(slot: number): number;
  resultHash(k: number): number;
  /** A compaction's first kept record (-1: none). */
  keptFrom(k: number): number;
}

export interface ConversationFix {
  /** The pairing finding this settles (its nodes are records). */
  finding: PairingFinding;
  /** removed; moved (after `to`); kept-from (the compaction keeps from `to`, -1: from itself); left (not fixed). */
  action: "removed" | "moved" | "kept-from" | "left";
  to: number;
}

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
}

/** The pre-order of a tree whose parents come before their children. */
function shape(parent: Int32Array): { order: Int32Array; at: Int32Array; size: Int32Array } {
  const { at, size } = preorderNumbers(parent);
  const order = new Int32Array(parent.length);
  for (let k = 0; k < parent.length; k++) order[at[k]!] = k;
  return { order, at, size };
}

/** The pairing walk over records. */
function recordPairing(r: TurnRecords): PairingInput {
  const { order, at, size } = shape(r.parent);
  return {
    size: r.size,
    preorder: () => order,
    preorderIndex: (k) => at[k]!,
    subtreeSizeOf: (k) => size[k]!,
    turn: (k) => r.turn(k),
    callStart: (k) => r.callStart(k),
    callHash: (slot) => r.callHash(slot),
    resultHash: (k) => r.resultHash(k),
    keptFrom: (k) => r.keptFrom(k),
  };
}

/** What some leaf sends, over records: the leaves, and the last record (pi's current leaf, where no `leaf` entry moves it). */
function recordSends(r: TurnRecords): Sends {
  const children = new Int32Array(r.size);
  const depth = new Int32Array(r.size);
  for (let k = 0; k < r.size; k++) {
    const p = r.parent[k]!;
    if (p >= 0) {
      children[p]!++;
      depth[k] = depth[p]! + 1;
    }
  }
  return whatLeavesSend({
    size: r.size,
    parent: (k) => r.parent[k]!,
    isLeaf: (k) => children[k] === 0 || k === r.size - 1,
    isCompaction: (k) => r.turn(k) === Turn.Compaction,
    bounds: (c) => {
      const from = r.keptFrom(c);
      return { anchor: c, keptFrom: from >= 0 ? from : undefined };
    },
    sentWhenKept: (k) => r.turn(k) !== Turn.System,
    depth: (k) => depth[k]!,
  });
}

/** What repair does to the conversation; an empty plan when nothing breaks the pairing rules. */
export function planConversation(r: TurnRecords): ConversationPlan {
  const plan: ConversationPlan = { fixes: [], parents: new Map(), after: new Map(), removed: new Set(), keptFrom: new Map() };
  const all = pairingFindings(recordPairing(r), false);
  if (all.length === 0) return plan;
  const sends = recordSends(r);
  const findings = all.filter((f) => (f.kind === "kept-result" ? sends.inForce[f.node] === 1 : sends.sent[f.resultNode] === 1));
  if (findings.length === 0) return plan;
  const parent = Int32Array.from(r.parent);
  // children, as the fixes leave them (only asked of the few records a fix touches)
  const children = new Map<number, number[]>();
  for (let k = 0; k < r.size; k++) {
    const p = parent[k]!;
    if (p < 0) continue;
    const list = children.get(p);
    if (list) list.push(k);
    else children.set(p, [k]);
  }
  const setParent = (k: number, p: number) => {
    const old = parent[k]!;
    if (old === p) return;
    if (old >= 0) {
      const list = children.get(old)!;
      list.splice(list.indexOf(k), 1);
    }
    parent[k] = p;
    if (p >= 0) {
      const list = children.get(p);
      if (list) list.push(k);
      else children.set(p, [k]);
    }
    plan.parents.set(k, p);
  };
  /** The last record written after `k` by an earlier move (the place the next one goes). */
  const tailAfter = (k: number) => {
    const list = plan.after.get(k);
    return list ? list[list.length - 1]! : k;
  };
  for (const f of findings) {
    switch (f.kind) {
      case "lost":
      case "skipped-turn":
      case "duplicate":
      case "no-id": {
        const k = f.resultNode;
        for (const ch of [...(children.get(k) ?? [])]) setParent(ch, parent[k]!);
        plan.removed.add(k);
        plan.fixes.push({ finding: f, action: "removed", to: -1 });
        break;
      }
      case "displaced": {
        const k = f.resultNode;
        const anchor = f.after >= 0 ? f.after : f.callNode;
        const place = tailAfter(anchor);
        // the entry under `place` on the way down to k
        let c = parent[k]!;
        let below = -1;
        while (c >= 0 && c !== place) {
          below = c;
          c = parent[c]!;
        }
        let lastKept = r.size - 1;
        while (lastKept >= 0 && plan.removed.has(lastKept)) lastKept--;
        if (c !== place || below < 0 || (k === lastKept && lastKept - 1 !== parent[k])) {
          plan.fixes.push({ finding: f, action: "left", to: -1 });
          break;
        }
        const old = parent[k]!;
        for (const ch of [...(children.get(k) ?? [])]) setParent(ch, old);
        setParent(k, place);
        setParent(below, k);
        const list = plan.after.get(anchor);
        if (list) list.push(k);
        else plan.after.set(anchor, [k]);
        plan.fixes.push({ finding: f, action: "moved", to: place });
        break;
      }
      case "kept-result": {
        const compaction = f.node;
        let to = f.callNode;
        if (to < 0) {
          // no call above: keep from the first message after the leading results
          to = -1;
          for (let m = f.resultNode; m >= 0 && m !== compaction; ) {
            const kind = r.turn(m);
            if (kind !== Turn.Result && kind !== Turn.None && kind !== Turn.System) {
              to = m;
              break;
            }
            const next: number[] = children.get(m) ?? [];
            // the child on the way to the compaction
            m = next.find((ch) => isAbove(parent, ch, compaction)) ?? -1;
          }
        }
        plan.keptFrom.set(compaction, to);
        plan.fixes.push({ finding: f, action: "kept-from", to });
        break;
      }
      case "unanswered":
        break;
    }
  }
  return plan;
}

/** Whether `a` is `k` or above it. */
function isAbove(parent: Int32Array, a: number, k: number): boolean {
  for (let c = k; c >= 0; c = parent[c]!) if (c === a) return true;
  return false;
}
