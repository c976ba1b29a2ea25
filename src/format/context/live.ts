import type { AnyEntry } from "../schema/types.js";
import { PAIRING_WORDS, Turn, turnOf } from "./pairing.js";

/**
 * The pairing rules as a branch grows, an entry at a time (`tail -f`): what `check` would say of
 * each entry as it is appended, said once, in `check`'s codes and words (`pairing.ts` judges a
 * whole tree; this follows one branch forward and holds only what the next entry can be judged
 * by). The turn whose calls the next result may answer is held whole; the calls before it are kept
 * by id, the latest `KEPT_CALLS` of them: memory stays flat however long the branch grows. A result
 * for a call forgotten so is still a result its turn did not ask for (`tool-result-orphan`, as
 * `check` says): only its words say less.
 *
 * Not followed (a watcher sees them in `check`): context edits, and what a compaction keeps.
 */

export interface LiveFinding {
  code: "tool-result-orphan" | "tool-result-duplicate" | "tool-result-no-id" | "tool-call-unanswered";
  message: string;
  /** The entry's line (for `tool-call-unanswered`, the call's). */
  line: number;
  entryId?: string;
  callId?: string;
}

/** Calls before the open turn kept, by id. */
const KEPT_CALLS = 10_000;

interface Call {
  line: number;
  entryId: string | undefined;
  answered: boolean;
  /** Its turn ended in error or was aborted: pi does not send it. */
  skipped?: string;
}

export class LivePairing {
  /** The turn the next result may answer: its calls by id. */
  private open: Map<string, Call> | undefined;
  /** Calls of the turns before it, oldest first. */
  private readonly before = new Map<string, Call>();

  /** `complete`: the branch is followed from its root (else the calls before the first entry are not known). */
  constructor(private complete = true) {}

  /** What `entry` (on `line`) breaks, as it comes after the entries given so far. */
  add(entry: AnyEntry, line: number): LiveFinding[] {
    const m = (entry as { message?: { role?: unknown; stopReason?: unknown; excludeFromContext?: unknown; content?: unknown; toolCallId?: unknown } }).message;
    const role = m && typeof m === "object" && typeof m.role === "string" ? m.role : undefined;
    const stop = m?.stopReason;
    const unsent = role === "assistant" ? stop === "error" || stop === "aborted" : role === "bashExecution" && m?.excludeFromContext === true;
    const id = typeof entry.id === "string" ? entry.id : undefined;
    switch (turnOf(entry.type, role, unsent)) {
      case Turn.Assistant:
      case Turn.Skipped: {
        const out = this.close();
        const calls = new Map<string, Call>();
        if (Array.isArray(m!.content))
          for (const block of m!.content as Array<{ type?: unknown; id?: unknown }>)
            if (block?.type === "toolCall" && typeof block.id === "string") calls.set(block.id, { line, entryId: id, answered: false, ...(unsent ? { skipped: String(stop) } : {}) });
        if (unsent) for (const [callId, call] of calls) this.remember(callId, call);
        else this.open = calls;
        return out;
      }
      case Turn.User:
        return this.close();
      case Turn.Compaction:
        this.close();
        return [];
      case Turn.Result:
        return this.result(m!.toolCallId, line, id);
      default:
        return [];
    }
  }

  private result(callId: unknown, line: number, entryId: string | undefined): LiveFinding[] {
    const at = { line, ...(entryId !== undefined ? { entryId } : {}) };
    if (typeof callId !== "string" || callId === "") return [{ code: "tool-result-no-id", message: PAIRING_WORDS.noId(callId), ...at }];
    const open = this.open?.get(callId);
    const call = open ?? this.before.get(callId);
    const found = (code: LiveFinding["code"], message: string): LiveFinding[] => [{ code, message, ...at, callId }];
    if (call?.answered) return found("tool-result-duplicate", PAIRING_WORDS.duplicate(callId, call.line));
    if (open) {
      open.answered = true;
      return [];
    }
    if (call) {
      call.answered = true;
      if (call.skipped) return found("tool-result-orphan", PAIRING_WORDS.skippedTurn(callId, call.skipped, call.line));
      return found("tool-result-orphan", PAIRING_WORDS.displaced(callId, call.line));
    }
    // (where the calls before are not all known, what is known is said: no call in the turn before it)
    return found("tool-result-orphan", this.complete ? PAIRING_WORDS.lost(callId) : `the result for \`${callId}\` has no call in the turn before it`);
  }

  /** The open turn closed: its calls still unanswered said, and kept with the calls before. */
  private close(): LiveFinding[] {
    const open = this.open;
    this.open = undefined;
    if (!open) return [];
    const out: LiveFinding[] = [];
    for (const [callId, call] of open) {
      if (!call.answered) out.push({ code: "tool-call-unanswered", message: PAIRING_WORDS.unanswered(callId), line: call.line, ...(call.entryId !== undefined ? { entryId: call.entryId } : {}), callId });
      this.remember(callId, call);
    }
    return out;
  }

  private remember(callId: string, call: Call): void {
    this.before.delete(callId);
    this.before.set(callId, call);
    if (this.before.size > KEPT_CALLS) {
      this.before.delete(this.before.keys().next().value!);
      this.complete = false;
    }
  }
}
