/**
 * The pairing rules, over a whole tree in one linear pass: which tool results a provider refuses in
 * what pi sends (`send.ts`, `pairingProblems`), judged for every entry on its own path from the
 * root, and for every compaction by what it keeps. A walk in pre-order keeps, for the path it is
 * on, the assistant turn whose calls the next result may answer, and for each call id the calls
 * and results the path holds (stacks, undone as the walk leaves a subtree), so no entry looks up
 * or down the tree: the cost is one step an entry, whatever the shape.
 *
 * What the walk follows of pi's transform: an assistant turn that ended in error or was aborted is
 * not sent, and closes the turn before it (pi answers its open calls with an error result); a user
 * message (and what pi sends as one: custom messages, bash runs, summaries) closes the turn and
 * starts none; a system message that comes while calls wait is held until they are answered, else
 * it stands between a call and a later result; a compaction starts again from its kept part. Not
 * followed: context edits (a dropped or replaced turn) and, inside a kept part, an older
 * compaction's own cut; both are rare and neither hides a finding on the path it is made on.
 */

/** What an entry is to the pairing rules. */
export const enum Turn {
  /** Not a message of the conversation (a label, a model change, an unknown role, …). */
  None = 0,
  /** Sent as a user message: user, custom, a bash run in the context, a custom message, a branch summary. */
  User = 1,
  System = 2,
  Assistant = 3,
  /** An assistant turn pi does not send (`stopReason` error or aborted). */
  Skipped = 4,
  Result = 5,
  Compaction = 6,
}

/** What an entry is to the pairing rules, from its type and role (`unsent`: a message pi leaves out). */
export function turnOf(type: string | undefined, role: string | undefined, unsent: boolean): Turn {
  switch (type) {
    case "message":
      switch (role) {
        case "assistant":
          return unsent ? Turn.Skipped : Turn.Assistant;
        case "toolResult":
          return Turn.Result;
        case "system":
          return Turn.System;
        case "user":
        case "custom":
        case "hookMessage":
          return Turn.User;
        case "bashExecution":
          return unsent ? Turn.None : Turn.User;
        default:
          return Turn.None;
      }
    case "custom_message":
      return Turn.User;
    case "branch_summary":
      return unsent ? Turn.None : Turn.User;
    case "compaction":
      return Turn.Compaction;
    default:
      return Turn.None;
  }
}

/** The tree and what each of its entries is, as the walk reads them. */
export interface PairingInput {
  readonly size: number;
  /** The nodes in pre-order. */
  preorder(): Int32Array;
  preorderIndex(node: number): number;
  subtreeSizeOf(node: number): number;
  turn(node: number): Turn;
  /**
   * An assistant's calls: slots `callStart(node)` to `callStart(node + 1)` of `callHash`, the
   * hashes of its call ids (`idHash`), in its content's order (the slots of all nodes in node order).
   */
  callStart(node: number): number;
  callHash(slot: number): number;
  /** A result's call id hash; NaN when its `toolCallId` is empty or not a string. */
  resultHash(node: number): number;
  /** A compaction's first kept entry (-1: none, or not found). */
  keptFrom(node: number): number;
}

type PairingKind =
  /** A result whose call is in no turn above it on its path. */
  | "lost"
  /** A result whose call is in an assistant turn pi does not send. */
  | "skipped-turn"
  /** A result whose call is on its path, unanswered, with a message (or a compaction's cut) between them. */
  | "displaced"
  /** A second result for a call already answered. */
  | "duplicate"
  /** A result with an empty `toolCallId`, or one that is not a string. */
  | "no-id"
  /** A compaction whose kept part starts at a result: in the context after it, the result has no call. */
  | "kept-result"
  /** A call with no result in its turn on some branch (pi answers it with an error result: sendable). */
  | "unanswered";

export interface PairingFinding {
  kind: PairingKind;
  /** The entry that breaks the rule (for `kept-result`, the compaction). */
  node: number;
  /** The call's entry, where there is one (`skipped-turn`, `displaced`, `duplicate`, `unanswered`, `kept-result` when found). */
  callNode: number;
  /** The result (for `kept-result`: the first result of the kept part; for `unanswered`: -1). */
  resultNode: number;
  /** The call id's hash (NaN for `no-id`). */
  hash: number;
  /** For `displaced`: the last result already right under the call on this path (-1: none), where a result moved back goes. */
  after: number;
}

/**
 * Stacks keyed by a hash, for the nodes (or call slots) on the walk's path: the top for each hash
 * in a map, each item's predecessor in a typed array indexed by the item, so a push or a pop is a
 * map write and nothing is allocated per item. The map is keyed by the hash's low 32 bits (a
 * small integer, where a 53-bit key would be a boxed number for every entry); items whose hashes
 * share them share a stack and are told apart by their full hash. Pops come in the reverse order
 * of pushes (the walk leaves what it entered last), so a popped item is its stack's top.
 */
class HashStacks {
  private readonly topOf = new Map<number, number>();
  private readonly below: Int32Array;
  private readonly hashOf: Float64Array;

  constructor(items: number) {
    this.below = new Int32Array(items);
    this.hashOf = new Float64Array(items);
  }
  top(h: number): number {
    let k = this.topOf.get(h | 0) ?? -1;
    while (k >= 0 && this.hashOf[k] !== h) k = this.below[k]!;
    return k;
  }
  push(h: number, item: number): void {
    const key = h | 0;
    this.below[item] = this.topOf.get(key) ?? -1;
    this.hashOf[item] = h;
    this.topOf.set(key, item);
  }
  pop(h: number, item: number): void {
    const under = this.below[item]!;
    if (under < 0) this.topOf.delete(h | 0);
    else this.topOf.set(h | 0, under);
  }
  /** The items for `h` from the top down. */
  *from(h: number): Generator<number> {
    for (let k = this.top(h); k >= 0; k = this.below[k]!) if (this.hashOf[k] === h) yield k;
  }
}

/** Every break of the pairing rules in the tree, in pre-order; `unanswered` only when asked for. */
export function pairingFindings(t: PairingInput, withUnanswered = true): PairingFinding[] {
  return new PairingWalk(t, withUnanswered).run();
}

/**
 * The walk's state, for the path it is on: the calls of the turns on it (kept and skipped, by their
 * slots), which result answers each kept call, and the branches it is in. Only where a node's
 * subtree ends before the branch around it does (a sibling follows) is what to restore kept:
 * where its subtree ends in pre-order, the path's length and the state before it. A chain of a
 * million entries is one branch.
 */
class PairingWalk {
  private readonly out: PairingFinding[] = [];
  private readonly keptCalls: HashStacks;
  private readonly skippedCalls: HashStacks;
  private readonly answeredBy: Int32Array;
  private readonly answers: Int32Array;
  /** The node holding a call slot. */
  private readonly slotNode: Int32Array;
  /** The path: nodes by depth, and each node's place on it while it is there. */
  private readonly path: number[] = [];
  private readonly onPath: Int32Array;
  private readonly ends: number[] = [];
  private readonly depths: number[] = [];
  private readonly saved: Array<{ turn: number; closed: boolean; last: number }> = [];
  /** The turn a next result may answer (-1: none), and whether pi has closed it (answered its open calls). */
  private turn = -1;
  private closed = false;
  /** The last result right under the turn's call on this path (-1: none yet). */
  private lastResult = -1;
  private readonly reported = new Set<number>();

  constructor(
    private readonly t: PairingInput,
    private readonly withUnanswered: boolean,
  ) {
    const slots = t.callStart(t.size);
    this.keptCalls = new HashStacks(slots);
    this.skippedCalls = new HashStacks(slots);
    this.answeredBy = new Int32Array(slots).fill(-1);
    this.answers = new Int32Array(t.size).fill(-1);
    this.slotNode = new Int32Array(slots);
    for (let n = 0; n < t.size; n++) for (let k = t.callStart(n); k < t.callStart(n + 1); k++) this.slotNode[k] = n;
    this.onPath = new Int32Array(t.size).fill(-1);
  }

  run(): PairingFinding[] {
    const { t, ends } = this;
    const order = t.preorder();
    for (let i = 0; i < order.length; i++) {
      const n = order[i]!;
      while (ends.length > 0 && ends[ends.length - 1]! < i) this.leave();
      const end = i + t.subtreeSizeOf(n) - 1;
      if (ends.length === 0 || end < ends[ends.length - 1]!) {
        ends.push(end);
        this.depths.push(this.path.length);
        this.saved.push({ turn: this.turn, closed: this.closed, last: this.lastResult });
      }
      this.onPath[n] = this.path.length;
      this.path.push(n);
      this.enter(n);
      // a leaf: the end of a branch closes its turn
      if (t.subtreeSizeOf(n) === 1) this.closeTurn();
    }
    return this.out;
  }

  private enter(n: number): void {
    const t = this.t;
    switch (t.turn(n)) {
      case Turn.User:
        this.closeTurn();
        this.turn = -1;
        this.lastResult = -1;
        break;
      case Turn.System:
        // held while calls wait (pi emits it after their results); else it stands in the way
        if (!(this.turn >= 0 && !this.closed && t.callStart(this.turn + 1) > t.callStart(this.turn))) {
          this.turn = -1;
          this.lastResult = -1;
        }
        break;
      case Turn.Skipped:
        this.closeTurn();
        this.closed = true;
        for (let k = t.callStart(n); k < t.callStart(n + 1); k++) this.skippedCalls.push(t.callHash(k), k);
        break;
      case Turn.Assistant:
        this.closeTurn();
        this.turn = n;
        this.closed = false;
        this.lastResult = -1;
        for (let k = t.callStart(n); k < t.callStart(n + 1); k++) this.keptCalls.push(t.callHash(k), k);
        break;
      case Turn.Compaction:
        this.compaction(n);
        break;
      case Turn.Result:
        this.result(n);
        break;
      default:
        break;
    }
  }

  private compaction(n: number): void {
    const { t, path, onPath } = this;
    this.closeTurn();
    const from = t.keptFrom(n);
    const at = from >= 0 ? onPath[from]! : -1;
    // the kept part's leading results: in the context after the compaction, nothing comes before them
    if (at >= 0) {
      for (let k = at; k < path.length - 1; k++) {
        const m = path[k]!;
        const kind = t.turn(m);
        if (kind === Turn.None || kind === Turn.System) continue;
        if (kind !== Turn.Result) break;
        const h = t.resultHash(m);
        const callNode = Number.isNaN(h) ? -1 : callAbove(this.keptCalls, this.slotNode, h, (x) => t.preorderIndex(x), t.preorderIndex(m));
        this.out.push({ kind: "kept-result", node: n, callNode, resultNode: m, hash: h, after: -1 });
        break;
      }
    }
    // the turn goes on only if its call is in the kept part
    if (!(this.turn >= 0 && at >= 0 && onPath[this.turn]! >= at)) {
      this.turn = -1;
      this.lastResult = -1;
    }
  }

  private result(n: number): void {
    const { t, out } = this;
    const h = t.resultHash(n);
    if (Number.isNaN(h)) {
      out.push({ kind: "no-id", node: n, callNode: -1, resultNode: n, hash: h, after: -1 });
      return;
    }
    // the most recent call with this id on the path, and whether a result answers it already
    const k = this.keptCalls.top(h);
    const call = k < 0 ? -1 : this.slotNode[k]!;
    if (call >= 0 && this.answeredBy[k]! >= 0) out.push({ kind: "duplicate", node: n, callNode: call, resultNode: n, hash: h, after: -1 });
    else if (call >= 0 && call === this.turn && !this.closed) {
      this.lastResult = n;
      this.answer(k, n);
    } else if (call >= 0) {
      // (a displaced result is its call's answer: one more for the call is a duplicate)
      out.push({ kind: "displaced", node: n, callNode: call, resultNode: n, hash: h, after: lastResultUnder(t, this.path, this.onPath, call) });
      this.answer(k, n);
    } else if (this.skippedCalls.top(h) >= 0) {
      const slot = this.skippedCalls.top(h);
      out.push({ kind: "skipped-turn", node: n, callNode: this.slotNode[slot]!, resultNode: n, hash: h, after: -1 });
    } else out.push({ kind: "lost", node: n, callNode: -1, resultNode: n, hash: h, after: -1 });
  }

  /** Result `n` answers the call in slot `k` (undone when the walk leaves `n`). */
  private answer(k: number, n: number): void {
    this.answeredBy[k] = n;
    this.answers[n] = k;
  }

  private closeTurn(): void {
    const { t, turn } = this;
    if (turn < 0 || this.closed || !this.withUnanswered) return;
    for (let k = t.callStart(turn); k < t.callStart(turn + 1); k++) {
      if (this.answeredBy[k]! >= 0 || this.reported.has(k)) continue;
      this.reported.add(k);
      this.out.push({ kind: "unanswered", node: turn, callNode: turn, resultNode: -1, hash: t.callHash(k), after: -1 });
    }
  }

  /** Undoes what node `n` pushed. */
  private undo(n: number): void {
    const t = this.t;
    this.onPath[n] = -1;
    const kind = t.turn(n);
    if (kind === Turn.Assistant || kind === Turn.Skipped) {
      const stacks = kind === Turn.Assistant ? this.keptCalls : this.skippedCalls;
      for (let k = t.callStart(n + 1) - 1; k >= t.callStart(n); k--) stacks.pop(t.callHash(k), k);
    } else if (this.answers[n]! >= 0) {
      this.answeredBy[this.answers[n]!] = -1;
      this.answers[n] = -1;
    }
  }

  /**
   * Leaves the innermost branch: what its nodes pushed undone, last first, and the state before it
   * back. Its nodes still in place are the path's below its depth (a branch inside it has been
   * left already, and what is left of it is one chain).
   */
  private leave(): void {
    const { path } = this;
    this.ends.pop();
    const depth = this.depths.pop()!;
    for (let k = path.length - 1; k >= depth; k--) this.undo(path[k]!);
    path.length = depth;
    const s = this.saved.pop()!;
    this.turn = s.turn;
    this.closed = s.closed;
    this.lastResult = s.last;
  }
}

/** The most recent kept call with hash `h` above pre-order place `below` on the path (-1: none). */
function callAbove(keptCalls: HashStacks, slotNode: Int32Array, h: number, pre: (n: number) => number, below: number): number {
  for (const k of keptCalls.from(h)) if (pre(slotNode[k]!) < below) return slotNode[k]!;
  return -1;
}

/** The last of the results that follow the assistant `call` directly on the path (-1: none). */
function lastResultUnder(t: PairingInput, path: readonly number[], onPath: Int32Array, call: number): number {
  let last = -1;
  for (let k = onPath[call]! + 1; k < path.length - 1; k++) {
    const m = path[k]!;
    if (t.turn(m) !== Turn.Result) break;
    last = m;
  }
  return last;
}
