import { IntMap, RunStack } from "../read/columns.js";
import { Turn, type EditEffect, type PairingFinding, type PairingInput, type PairingKind } from "./pairing.js";

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
 * it stands between a call and a later result; a compaction starts again from its kept part; a
 * context edit that omits an assistant turn, or replaces its content without its calls, takes those
 * calls away from every leaf below the edit (the latest edit of a turn on the path wins), and an
 * edit that omits a result takes the result away. Not followed: edits that omit the message
 * standing between a call and its result (they can only mend a break), calls a replacement adds,
 * and, inside a kept part, an older compaction's own cut.
 *
 * A break is judged where pi judges it: at the leaves. A result (or a compaction's kept part) found
 * broken is held, while the walk is below it, until a leaf whose context holds it: it is sent
 * broken (`sent`). One that no leaf's context holds (a later compaction cuts it from every branch
 * through it, an edit omits it) is not sent. Breaks wait in a list in the order the walk found them;
 * one sent leaves the list, and a leaf looks only as far back as its context reaches.
 */

/**
 * Stacks keyed by a hash, for the nodes (or call slots) on the walk's path: the top for each hash
 * in a map of whole numbers (`IntMap`), each item's predecessor in a typed array indexed by the
 * item, so a push or a pop is a map write and nothing is allocated per item. The map is keyed by
 * the hash's low 32 bits; items whose hashes share them share a stack and are told apart by their
 * full hash. Pops come in the reverse order of pushes (the walk leaves what it entered last), so a
 * popped item is its stack's top.
 */
class HashStacks {
  private readonly topOf = new IntMap();
  private readonly below: Int32Array;
  private readonly hashOf: Float64Array;

  constructor(items: number) {
    this.below = new Int32Array(items);
    this.hashOf = new Float64Array(items);
  }
  top(h: number): number {
    let k = this.topOf.get(h | 0);
    while (k >= 0 && this.hashOf[k] !== h) k = this.below[k]!;
    return k;
  }
  push(h: number, item: number): void {
    const key = h | 0;
    this.below[item] = this.topOf.get(key);
    this.hashOf[item] = h;
    this.topOf.set(key, item);
  }
  pop(h: number, item: number): void {
    const under = this.below[item]!;
    if (under < 0) this.topOf.delete(h | 0);
    else this.topOf.set(h | 0, under);
  }
  /** The item for `h` below `k` (-1: none): with `top`, the items for `h` from the top down. */
  next(h: number, k: number): number {
    for (k = this.below[k]!; k >= 0; k = this.below[k]!) if (this.hashOf[k] === h) return k;
    return -1;
  }
}

/**
 * `node`'s place in `path` (-1: not in it), where the nodes are in pre-order (`pre`, a node's place
 * in it: the walk's path, root first): a search, where a column a node saying its place was 4 bytes
 * an entry.
 */
function placeOf(path: RunStack, node: number, pre: (node: number) => number): number {
  const want = pre(node);
  let lo = 0;
  let hi = path.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = pre(path.at(mid));
    if (at === want) return mid;
    if (at < want) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Every break of the pairing rules in the tree, in the order found (pre-order); `unanswered` only when asked for. */
export function pairingFindings(t: PairingInput, withUnanswered = true): PairingFinding[] {
  return new PairingWalk(t, withUnanswered).run();
}

/** What the walk restores when it leaves a branch. */
interface BranchState {
  turn: number;
  closed: boolean;
  last: number;
  keptDepth: number;
  newest: number;
}

/**
 * The walk's state, for the path it is on: the calls of the turns on it (kept and skipped, by their
 * slots), which result answers each kept call, the edits in force, and the branches it is in. Only
 * where a node's subtree ends before the branch around it does (a sibling follows) is what to
 * restore kept: where its subtree ends in pre-order, the path's length and the state before it. A
 * chain of a million entries is one branch.
 */
class PairingWalk {
  private readonly out: PairingFinding[] = [];
  private readonly keptCalls: HashStacks;
  private readonly skippedCalls: HashStacks;
  /** Per call slot: the result on the path that answers it (-1: none). */
  private readonly answeredBy: Int32Array;
  /** The slots answered on the path, in the order answered (undone last first, as the walk leaves their results). */
  private readonly answered = new RunStack();
  /** The path: nodes by depth (a node's place on it: `onPath`), a chain a run. */
  private readonly path = new RunStack();
  private readonly pre: (node: number) => number;
  private readonly ends: number[] = [];
  private readonly depths: number[] = [];
  private readonly saved: BranchState[] = [];
  /** The turn a next result may answer (-1: none), and whether pi has closed it (answered its open calls). */
  private turn = -1;
  private closed = false;
  /** The last result right under the turn's call on this path (-1: none yet). */
  private lastResult = -1;
  /** Where the context of a leaf below starts on the path (the newest compaction's kept part), and that compaction (-1: none). */
  private keptDepth = 0;
  private newest = -1;
  private readonly reported = new Set<number>();
  /** Per call slot: the context edit on the path that took the call away (-1: none). */
  private readonly hiddenBy: Int32Array;
  /** Per result an edit on the path touched (few: a map, not a column a node): whether the latest edit of it omits it. */
  private readonly omitted = new Map<number, number>();
  /** Per result, as `omitted`: how many edits on the path gave its call back (an earlier edit had taken it). */
  private readonly restored = new Map<number, number>();
  /** What each edit on the path changed (or a compaction that brought edits back), to undo when the walk leaves it. */
  private readonly edits = new Map<number, Array<() => void>>();
  /** Edits on the path whose targets a compaction had cut when the walk met them, in path order. */
  private readonly dormant: Array<{ edit: number; effect: EditEffect }> = [];
  /**
   * Breaks found and not yet sent, in a list in the order found (each the finding's index, the
   * depth of the node whose visit found it): a leaf looks back from the newest while the finder is
   * in its context.
   */
  private readonly held = { finding: [] as number[], depth: [] as number[], owner: [] as number[], prev: [] as number[], next: [] as number[] };
  private tail = -1;
  /** For `kept-result`: every leading result of the kept part (a leaf sends it broken while one is not omitted). */
  private readonly leading = new Map<number, number[]>();

  constructor(
    private readonly t: PairingInput,
    private readonly withUnanswered: boolean,
  ) {
    const slots = t.callStart(t.size);
    this.keptCalls = new HashStacks(slots);
    this.skippedCalls = new HashStacks(slots);
    this.answeredBy = new Int32Array(slots).fill(-1);
    this.hiddenBy = new Int32Array(slots).fill(-1);
    this.pre = (node) => t.preorderIndex(node);
  }

  /** `node`'s place on the path (its depth below the root), -1 when the walk is not below it. */
  private onPath(node: number): number {
    return placeOf(this.path, node, this.pre);
  }

  /** The call slot result `n` (on the path) answers (-1: none): a call with its id whose answer it is. */
  private answeredSlot(n: number): number {
    const h = this.t.resultHash(n);
    if (Number.isNaN(h)) return -1;
    const calls = this.keptCalls;
    for (let k = calls.top(h); k >= 0; k = calls.next(h, k)) if (this.answeredBy[k] === n) return k;
    return -1;
  }

  run(): PairingFinding[] {
    let i = 0;
    for (const window of this.t.preorderWindows()) for (let w = 0; w < window.length; w++) this.visit(window[w]!, i++);
    return this.out;
  }

  /** Node `n`, `i`th in pre-order. */
  private visit(n: number, i: number): void {
    const { t, ends } = this;
    while (ends.length > 0 && ends[ends.length - 1]! < i) this.leave();
    const end = i + t.subtreeSizeOf(n) - 1;
    if (ends.length === 0 || end < ends[ends.length - 1]!) {
      ends.push(end);
      this.depths.push(this.path.length);
      this.saved.push({ turn: this.turn, closed: this.closed, last: this.lastResult, keptDepth: this.keptDepth, newest: this.newest });
    }
    this.path.push(n);
    this.enter(n);
    // a leaf: the end of a branch closes its turn, and what its context holds broken is sent
    if (t.subtreeSizeOf(n) === 1) this.closeTurn();
    if (t.isLeaf(n)) this.atLeaf();
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
      default: {
        const effect = t.edit(n);
        if (effect) this.contextEdit(n, effect);
        break;
      }
    }
  }

  /** A break found at the visit of node `owner`: held until a leaf sends it. */
  private hold(f: PairingFinding, owner: number): void {
    const { held } = this;
    const i = held.finding.length;
    held.finding.push(this.out.length);
    held.depth.push(this.onPath(owner));
    held.owner.push(owner);
    held.prev.push(this.tail);
    held.next.push(-1);
    if (this.tail >= 0) held.next[this.tail] = i;
    this.tail = i;
    this.out.push(f);
  }

  private unhold(i: number): void {
    const { held } = this;
    const prev = held.prev[i]!;
    const next = held.next[i]!;
    if (prev >= 0) held.next[prev] = next;
    if (next >= 0) held.prev[next] = prev;
    else this.tail = prev;
    held.prev[i] = held.next[i] = -2;
  }

  /** A leaf: every held break its context holds is sent. */
  private atLeaf(): void {
    const { held, out } = this;
    for (let i = this.tail; i >= 0; ) {
      const prev = held.prev[i]!;
      // (held in path order: one found above the context's start, and all before it, are cut)
      if (held.depth[i]! < this.keptDepth) break;
      const f = out[held.finding[i]!]!;
      const inContext =
        f.kind === "kept-result"
          ? f.node === this.newest && this.leading.get(f.node)!.some((r) => this.sendsResult(r))
          : (f.resultNode === held.owner[i] ? held.depth[i]! : this.onPath(f.resultNode)) >= this.keptDepth && this.sendsResult(f.resultNode);
      if (inContext) {
        f.sent = true;
        this.unhold(i);
      }
      i = prev;
    }
  }

  /** Whether a result on the path is sent as it was judged: no edit omits it, none gave its call back. */
  private sendsResult(r: number): boolean {
    return !this.omitted.get(r) && !this.restored.get(r);
  }

  private compaction(n: number): void {
    const { t, path } = this;
    this.closeTurn();
    const from = t.keptFrom(n);
    const at = from >= 0 ? this.onPath(from) : -1;
    this.keptDepth = at >= 0 ? at : path.length - 1;
    this.newest = n;
    // the kept part's leading results: in the context after the compaction, nothing comes before them
    if (at >= 0) {
      const leading: number[] = [];
      for (let k = at; k < path.length - 1; k++) {
        const m = path.at(k);
        const kind = t.turn(m);
        if (kind === Turn.None || kind === Turn.System) continue;
        if (kind !== Turn.Result) break;
        leading.push(m);
      }
      if (leading.length > 0) {
        const m = leading[0]!;
        const h = t.resultHash(m);
        const callNode = Number.isNaN(h) ? -1 : callAbove(this.keptCalls, t, h, t.preorderIndex(m));
        this.leading.set(n, leading);
        this.hold({ kind: "kept-result", node: n, callNode, resultNode: m, hash: h, after: -1, edit: -1, cause: -1, sent: false }, n);
      }
    }
    // edits in the kept part whose targets it keeps too are in force again below
    for (const d of this.dormant) if (this.onPath(d.edit) >= this.keptDepth) this.applyEdit(d.edit, d.effect, n);
    // the turn goes on only if its call is in the kept part
    if (!(this.turn >= 0 && at >= 0 && this.onPath(this.turn) >= at)) {
      this.turn = -1;
      this.lastResult = -1;
    }
  }

  private result(n: number): void {
    const { t } = this;
    const h = t.resultHash(n);
    const found = (kind: PairingKind, callNode: number, extra: Partial<PairingFinding> = {}) => this.hold({ kind, node: n, callNode, resultNode: n, hash: h, after: -1, edit: -1, cause: -1, sent: false, ...extra }, n);
    if (Number.isNaN(h)) return found("no-id", -1);
    // the most recent call with this id on the path that no edit took away, and whether a result answers it already
    let k = -1;
    let takenBy = -1;
    const calls = this.keptCalls;
    for (let slot = calls.top(h); slot >= 0; slot = calls.next(h, slot)) {
      if (this.hiddenBy[slot]! < 0) {
        k = slot;
        break;
      }
      if (takenBy < 0) takenBy = this.hiddenBy[slot]!;
    }
    const call = k < 0 ? -1 : t.callNode(k);
    if (call >= 0 && this.answeredBy[k]! >= 0) found("duplicate", call);
    else if (call >= 0 && call === this.turn && !this.closed) {
      this.lastResult = n;
      this.answer(k, n);
    } else if (call >= 0) {
      // (a displaced result is its call's answer: one more for the call is a duplicate)
      found("displaced", call, { after: lastResultUnder(t, this.path, this.onPath(call)) });
      this.answer(k, n);
    } else if (takenBy >= 0) found("edited", t.callNode(calls.top(h)), { edit: takenBy, cause: takenBy });
    else if (this.skippedCalls.top(h) >= 0) found("skipped-turn", t.callNode(this.skippedCalls.top(h)));
    else found("lost", -1);
  }

  /**
   * A context edit (`e`) on the path: each target above it that a leaf's context holds with it is
   * edited for every leaf below. An assistant turn omitted, or replaced without some of its calls,
   * loses those calls: a result above the edit that answered one is sent without it (`edited`),
   * and one that comes later answers nothing. A result omitted is not sent at all. What it changed
   * is undone when the walk leaves the edit. An edit whose target a compaction cut from the context
   * waits (`dormant`): a later compaction that keeps both brings it back into force.
   */
  private contextEdit(e: number, effect: EditEffect): void {
    if (effect.targets.some((target) => this.onPath(target) >= 0 && this.onPath(target) < this.keptDepth)) {
      this.dormant.push({ edit: e, effect });
    }
    this.applyEdit(e, effect, e);
  }

  /** Edit `e`'s effect on its targets in the context, undone when the walk leaves `owner` (the edit, or the compaction that brought it back). */
  private applyEdit(e: number, effect: EditEffect, owner: number): void {
    const t = this.t;
    const undo = this.edits.get(owner) ?? [];
    const atEdit = this.onPath(e);
    for (const target of effect.targets) {
      const at = this.onPath(target);
      if (at < this.keptDepth || target === e || at > atEdit) continue; // (not above it in the context: pi edits nothing)
      const kind = t.turn(target);
      if (kind === Turn.Result) {
        // (the latest edit of a result wins: a replacement after an omission sends it again)
        const before = this.omitted.get(target) ?? 0;
        const now = effect.omit ? 1 : 0;
        if (before !== now) {
          this.omitted.set(target, now);
          undo.push(() => this.omitted.set(target, before));
        }
        // (a result sent again, or rewritten, below an edit that took its call: the break is below this edit too)
        const k = this.answeredSlot(target);
        if (now === 0 && k >= 0 && this.hiddenBy[k]! >= 0) {
          this.hold({ kind: "edited", node: target, callNode: t.callNode(k), resultNode: target, hash: t.callHash(k), after: -1, edit: e, cause: this.hiddenBy[k]!, sent: false }, owner);
        }
        continue;
      }
      if (kind !== Turn.Assistant) continue;
      for (let k = t.callStart(target); k < t.callStart(target + 1); k++) {
        const taken = effect.omit || !effect.calls.includes(t.callHash(k));
        const before = this.hiddenBy[k]!;
        if (taken === before >= 0) continue; // (the latest edit of a turn wins: only a change counts)
        this.hiddenBy[k] = taken ? e : -1;
        const result = this.answeredBy[k]!;
        if (taken && result >= 0) {
          this.hold({ kind: "edited", node: result, callNode: target, resultNode: result, hash: t.callHash(k), after: -1, edit: e, cause: e, sent: false }, owner);
        } else if (!taken && result >= 0) {
          // (a later edit gives the call back: what the earlier one broke is whole again below)
          this.restored.set(result, (this.restored.get(result) ?? 0) + 1);
          undo.push(() => this.restored.set(result, this.restored.get(result)! - 1));
        }
        undo.push(() => (this.hiddenBy[k] = before));
      }
      if (effect.omit && this.turn === target) {
        this.turn = -1;
        this.lastResult = -1;
      }
    }
    if (undo.length > 0) this.edits.set(owner, undo);
  }

  /** Result `n` answers the call in slot `k` (undone when the walk leaves `n`). */
  private answer(k: number, n: number): void {
    this.answeredBy[k] = n;
    this.answered.push(k);
  }

  private closeTurn(): void {
    const { t, turn } = this;
    if (turn < 0 || this.closed || !this.withUnanswered) return;
    for (let k = t.callStart(turn); k < t.callStart(turn + 1); k++) {
      if (this.answeredBy[k]! >= 0 || this.hiddenBy[k]! >= 0 || this.reported.has(k)) continue;
      this.reported.add(k);
      this.out.push({ kind: "unanswered", node: turn, callNode: turn, resultNode: -1, hash: t.callHash(k), after: -1, edit: -1, cause: -1, sent: false });
    }
  }

  /** Undoes what node `n` pushed. */
  private undo(n: number): void {
    const { t, held } = this;
    while (this.tail >= 0 && held.owner[this.tail] === n) this.unhold(this.tail);
    const kind = t.turn(n);
    if (kind === Turn.Assistant || kind === Turn.Skipped) {
      const stacks = kind === Turn.Assistant ? this.keptCalls : this.skippedCalls;
      for (let k = t.callStart(n + 1) - 1; k >= t.callStart(n); k--) stacks.pop(t.callHash(k), k);
    } else if (kind === Turn.Result) {
      // (what results below it answered is undone already: its answer, if any, is the last)
      const a = this.answered;
      const top = a.length > 0 ? a.at(a.length - 1) : -1;
      if (top >= 0 && this.answeredBy[top] === n) {
        this.answeredBy[top] = -1;
        a.length--;
      }
    }
    const steps = this.edits.get(n);
    if (steps) {
      for (let j = steps.length - 1; j >= 0; j--) steps[j]!();
      this.edits.delete(n);
    }
    if (this.dormant.length > 0 && this.dormant[this.dormant.length - 1]!.edit === n) this.dormant.pop();
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
    for (let k = path.length - 1; k >= depth; k--) this.undo(path.at(k));
    path.length = depth;
    const s = this.saved.pop()!;
    this.turn = s.turn;
    this.closed = s.closed;
    this.lastResult = s.last;
    this.keptDepth = s.keptDepth;
    this.newest = s.newest;
  }
}

/** The most recent kept call with hash `h` above pre-order place `below` on the path (-1: none). */
function callAbove(keptCalls: HashStacks, t: PairingInput, h: number, below: number): number {
  for (let k = keptCalls.top(h); k >= 0; k = keptCalls.next(h, k)) if (t.preorderIndex(t.callNode(k)) < below) return t.callNode(k);
  return -1;
}

/** The last of the results that follow the assistant `call` directly on the path (-1: none). */
function lastResultUnder(t: PairingInput, path: RunStack, callAt: number): number {
  let last = -1;
  for (let k = callAt + 1; k < path.length - 1; k++) {
    const m = path.at(k);
    if (t.turn(m) !== Turn.Result) break;
    last = m;
  }
  return last;
}
