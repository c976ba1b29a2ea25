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

/** The tree and what each of its entries is, as the walk reads them. */
export interface PairingInput {
  readonly size: number;
  /** The nodes in pre-order. */
  preorder(): Int32Array;
  preorderIndex(node: number): number;
  subtreeSizeOf(node: number): number;
  turn(node: number): Turn;
  /** The hashes of an assistant's call ids (`idHash`), in its content's order. */
  calls(node: number): readonly number[];
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

/** What the walk undoes when it leaves a node's subtree. */
interface Frame {
  end: number;
  turn: number;
  closed: boolean;
  result: number;
  callsPushed: readonly number[];
  skippedPushed: readonly number[];
  lastResult: number;
}

const top = (m: Map<number, number[]>, h: number): number => {
  const s = m.get(h);
  return s !== undefined && s.length > 0 ? s[s.length - 1]! : -1;
};
const push = (m: Map<number, number[]>, h: number, n: number): void => {
  const s = m.get(h);
  if (s) s.push(n);
  else m.set(h, [n]);
};
const pop = (m: Map<number, number[]>, h: number): void => {
  m.get(h)!.pop();
};

/** Every break of the pairing rules in the tree, in pre-order; `unanswered` only when asked for. */
export function pairingFindings(t: PairingInput, withUnanswered = true): PairingFinding[] {
  const out: PairingFinding[] = [];
  const order = t.preorder();
  const keptCalls = new Map<number, number[]>();
  const skippedCalls = new Map<number, number[]>();
  const results = new Map<number, number[]>();
  // the path: nodes by depth, and each node's place on it while it is there
  const path: number[] = [];
  const onPath = new Int32Array(t.size).fill(-1);
  const frames: Frame[] = [];
  /** The turn a next result may answer (-1: none), and whether pi has closed it (answered its open calls). */
  let turn = -1;
  let closed = false;
  /** The last result right under the turn's call on this path (-1: none yet). */
  let lastResult = -1;
  const reported = new Set<string>();
  const pre = (n: number) => t.preorderIndex(n);
  /** Whether the call `h` of the assistant at `call` has a result after it on this path. */
  const answeredAfter = (h: number, call: number) => {
    const r = top(results, h);
    return r >= 0 && pre(r) > pre(call);
  };
  const closeTurn = () => {
    if (turn >= 0 && !closed && withUnanswered) {
      for (const h of t.calls(turn)) {
        if (answeredAfter(h, turn)) continue;
        const key = `${turn}:${h}`;
        if (reported.has(key)) continue;
        reported.add(key);
        out.push({ kind: "unanswered", node: turn, callNode: turn, resultNode: -1, hash: h, after: -1 });
      }
    }
  };
  for (let i = 0; i < order.length; i++) {
    const n = order[i]!;
    while (frames.length > 0 && frames[frames.length - 1]!.end < i) {
      const f = frames.pop()!;
      const leaving = path.pop()!;
      onPath[leaving] = -1;
      for (const h of f.callsPushed) pop(keptCalls, h);
      for (const h of f.skippedPushed) pop(skippedCalls, h);
      if (f.result >= 0) pop(results, f.result);
      turn = f.turn;
      closed = f.closed;
      lastResult = f.lastResult;
    }
    const frame: Frame = { end: i + t.subtreeSizeOf(n) - 1, turn, closed, result: -1, callsPushed: [], skippedPushed: [], lastResult };
    onPath[n] = path.length;
    path.push(n);
    frames.push(frame);
    switch (t.turn(n)) {
      case Turn.User:
        closeTurn();
        turn = -1;
        lastResult = -1;
        break;
      case Turn.System:
        // held while calls wait (pi emits it after their results); else it stands in the way
        if (!(turn >= 0 && !closed && t.calls(turn).length > 0)) {
          turn = -1;
          lastResult = -1;
        }
        break;
      case Turn.Skipped: {
        closeTurn();
        closed = true;
        const calls = t.calls(n);
        for (const h of calls) push(skippedCalls, h, n);
        frame.skippedPushed = calls;
        break;
      }
      case Turn.Assistant: {
        closeTurn();
        turn = n;
        closed = false;
        lastResult = -1;
        const calls = t.calls(n);
        for (const h of calls) push(keptCalls, h, n);
        frame.callsPushed = calls;
        break;
      }
      case Turn.Compaction: {
        closeTurn();
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
            out.push({ kind: "kept-result", node: n, callNode: Number.isNaN(h) ? -1 : callAbove(keptCalls, h, pre, pre(m)), resultNode: m, hash: h, after: -1 });
            break;
          }
        }
        // the turn goes on only if its call is in the kept part
        if (!(turn >= 0 && at >= 0 && onPath[turn]! >= at)) {
          turn = -1;
          lastResult = -1;
        }
        break;
      }
      case Turn.Result: {
        const h = t.resultHash(n);
        if (Number.isNaN(h)) {
          out.push({ kind: "no-id", node: n, callNode: -1, resultNode: n, hash: h, after: -1 });
          break;
        }
        const inTurn = turn >= 0 && top(keptCalls, h) === turn;
        if (inTurn && !closed && !answeredAfter(h, turn)) {
          lastResult = n;
        } else if (inTurn && answeredAfter(h, turn)) {
          out.push({ kind: "duplicate", node: n, callNode: turn, resultNode: n, hash: h, after: -1 });
        } else {
          const call = top(keptCalls, h);
          if (call >= 0 && answeredAfter(h, call)) out.push({ kind: "duplicate", node: n, callNode: call, resultNode: n, hash: h, after: -1 });
          else if (call >= 0) out.push({ kind: "displaced", node: n, callNode: call, resultNode: n, hash: h, after: lastResultUnder(t, path, onPath, call) });
          else if (top(skippedCalls, h) >= 0) out.push({ kind: "skipped-turn", node: n, callNode: top(skippedCalls, h), resultNode: n, hash: h, after: -1 });
          else out.push({ kind: "lost", node: n, callNode: -1, resultNode: n, hash: h, after: -1 });
        }
        push(results, h, n);
        frame.result = h;
        break;
      }
      default:
        break;
    }
    // a leaf: the end of a branch closes its turn
    if (t.subtreeSizeOf(n) === 1) closeTurn();
  }
  return out;
}

/** The most recent kept call with hash `h` above pre-order place `below` on the path (-1: none). */
function callAbove(keptCalls: Map<number, number[]>, h: number, pre: (n: number) => number, below: number): number {
  const s = keptCalls.get(h);
  if (!s) return -1;
  for (let k = s.length - 1; k >= 0; k--) if (pre(s[k]!) < below) return s[k]!;
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
