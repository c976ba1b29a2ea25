/**
 * The pairing rules' vocabulary, shared by whoever judges them: what an entry is to them (`Turn`,
 * `turnOf`), what a judge is given of a tree (`PairingInput`) and what it finds (`PairingFinding`),
 * and each break in words (`PAIRING_WORDS`). The walk that judges a whole tree is
 * `pairing-walk.ts`; `live.ts` judges a branch as it grows.
 */

/**
 * What a break of the pairing rules is called, in words: one sentence for each, as `check` says it
 * of a whole tree and `tail` of a branch as it grows (`live.ts`). `call` is the call's id.
 */
export const PAIRING_WORDS = {
  noId: (raw: unknown) => `a tool result whose toolCallId is ${raw === "" ? "empty" : raw === undefined ? "missing" : `not a string (${JSON.stringify(raw)?.slice(0, 40)})`}`,
  lost: (call: string) => `the result for \`${call}\` has no call before it on its branch`,
  skippedTurn: (call: string, stopReason: string, callLine: number) => `the result for \`${call}\` answers a turn that ended in ${stopReason} (line ${callLine}), which pi does not send`,
  displaced: (call: string, callLine: number) => `the result for \`${call}\` is cut off from its call (line ${callLine}) by a message or a compaction`,
  duplicate: (call: string, callLine: number) => `a second result for \`${call}\`, whose call (line ${callLine}) is answered already`,
  unanswered: (call: string) => `call \`${call}\` has no result on a branch through it`,
};

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

/** What a context edit does to the pairing rules (`PairingInput.edit`). */
export interface EditEffect {
  /** The entries it edits (every holder of its `targetId`: pi edits each one its context holds). */
  targets: readonly number[];
  /** Whether it omits them (`replacement: null`). */
  omit: boolean;
  /** For a replacement: the call id hashes its content holds (an assistant target keeps only these calls). */
  calls: readonly number[];
}

/** The tree and what each of its entries is, as the walk reads them. */
export interface PairingInput {
  readonly size: number;
  /** The nodes in pre-order, a window after another (each one read before the next is asked for: its buffer may be refilled). */
  preorderWindows(): Iterable<ArrayLike<number>>;
  preorderIndex(node: number): number;
  subtreeSizeOf(node: number): number;
  turn(node: number): Turn;
  /**
   * An assistant's calls: slots `callStart(node)` to `callStart(node + 1)` of `callHash`, the
   * hashes of its call ids (`idHash`), in its content's order (the slots of all nodes in node order).
   */
  callStart(node: number): number;
  callHash(slot: number): number;
  /** The node holding call slot `slot`. */
  callNode(slot: number): number;
  /** A result's call id hash; NaN when its `toolCallId` is empty or not a string. */
  resultHash(node: number): number;
  /** A compaction's first kept entry (-1: none, or not found). */
  keptFrom(node: number): number;
  /** Whether pi builds a context for this node: it has no children, or it is the current leaf. */
  isLeaf(node: number): boolean;
  /** A context edit's effect (undefined: the node is no edit, or its replacement is not an object). */
  edit(node: number): EditEffect | undefined;
}

export type PairingKind =
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
  /** A result whose call a context edit took away (`edit`): the turn omitted, or its content replaced without the call. */
  | "edited"
  /** A call with no result in its turn on some branch (pi answers it with an error result: sendable). */
  | "unanswered";

export interface PairingFinding {
  kind: PairingKind;
  /** The entry that breaks the rule (for `kept-result`, the compaction). */
  node: number;
  /** The call's entry, where there is one (`skipped-turn`, `displaced`, `duplicate`, `unanswered`, `edited`, `kept-result` when found). */
  callNode: number;
  /** The result (for `kept-result`: the first result of the kept part; for `unanswered`: -1). */
  resultNode: number;
  /** The call id's hash (NaN for `no-id`). */
  hash: number;
  /** For `displaced`: the last result already right under the call on this path (-1: none), where a result moved back goes. */
  after: number;
  /**
   * For `edited`: the context edit below which the result is sent without its call (the one that
   * took the call away, or a later one that brought the result back); -1 for the other kinds.
   */
  edit: number;
  /** For `edited`: the context edit that took the call away (-1 for the other kinds). */
  cause: number;
  /** Whether some leaf's context holds the break: pi sends it, and the provider refuses the request (always false for `unanswered`). */
  sent: boolean;
}

/**
 * The first place in `nodes` (ascending: a pairing input's calls or results, kept in node order)
 * holding `node` or more. The walk asks in pre-order, mostly node order: a few steps on from
 * `hint` (where the last search ended) when that is where it is, else a binary search.
 */
export function seekNode(nodes: Int32Array, node: number, hint: number): number {
  let k = hint <= nodes.length && (hint === 0 || nodes[hint - 1]! < node) ? hint : 0;
  for (let steps = 0; k < nodes.length && nodes[k]! < node; k++) {
    if (++steps > 8) {
      let hi = nodes.length;
      while (k < hi) {
        const mid = (k + hi) >>> 1;
        if (nodes[mid]! < node) k = mid + 1;
        else hi = mid;
      }
      return k;
    }
  }
  return k;
}
