import { fileKindOf } from "../../schema/types.js";
import type { ByteSource } from "../../read/source.js";
import { settleConversation } from "./conversation.js";
import { laterSessions, settleHeader, type CwdAround } from "./header.js";
import { settleIds } from "./ids.js";
import { decideLines } from "./lines.js";
import type { RepairAction, RepairPlan } from "./plan.js";
import { readCandidates } from "./read.js";
import { C_BAD_MESSAGE, C_DROPPED, RepairWork } from "./work.js";

export { REPAIR_CODES, type RepairAction, type RepairCode, type RepairPlan, type SessionStart } from "./plan.js";
export type { CwdAround } from "./header.js";
export { writeRepair } from "./lines.js";

/**
 * Plans the repair of `source` (no index of the session is built first: a line's own scan tells
 * all repair needs), in phases: every line made records or dropped by the salvage rule
 * (`readCandidates`), the header (`settleHeader`), entries pi's loader would crash on dropped,
 * ids, duplicates and parents (`settleIds`), then what each input line becomes (`decideLines`).
 * `mtimeMs` dates a synthesized header as a last resort; `around` says what the other sessions of
 * the file's folder say its cwd is (a synthesized header's best source).
 */
export function planRepair(source: ByteSource, mtimeMs = Date.now(), around?: CwdAround): RepairPlan {
  const work = new RepairWork(source);
  readCandidates(work);
  const head = settleHeader(work, mtimeMs, around);
  const c = work.c;
  // Entries pi's loader would crash on go, whatever the version.
  for (let k = 0; k < c.count; k++) {
    if (c.flags[k]! & C_BAD_MESSAGE) {
      work.act("entry-dropped", c.lineOf(k) + 1, "a message entry without `message.role` (pi's loader crashes on it)");
      c.flags[k]! |= C_DROPPED;
    }
  }
  // Entries (v2/v3): ids, duplicates, parents; v1 files are repaired at line level only.
  if (!head.legacy) settleIds(work, head.sessionId);
  settleConversation(work, head.legacy);
  const keptRecords = decideLines(work, head);
  work.actions.sort((a, b) => a.line - b.line);
  foldCrlf(work.actions);
  const fileKind = fileKindOf({ header: head.hv !== undefined, entryWithId: head.anyId, events: work.events });
  return { actions: work.actions, headerLines: head.headerLines, decisions: work.decisions, changed: head.headerLines.length > 0 || work.decisions.size > 0, keptRecords, fileKind, laterSessions: laterSessions(work, head.header) };
}

/** CR LF ends made LF, said once (at the first line, with how many): a Windows file has one on every line. */
function foldCrlf(actions: RepairAction[]): void {
  const lines = actions.filter((a) => a.code === "crlf-normalized").map((a) => a.line);
  if (lines.length < 2) return;
  const first = actions.findIndex((a) => a.code === "crlf-normalized");
  const message = `CRLF line ends made LF on ${lines.length} lines (lines ${lines.slice(0, 5).join(", ")}${lines.length > 5 ? ", …" : ""})`;
  const rest = actions.filter((a, i) => i === first || a.code !== "crlf-normalized");
  rest[rest.indexOf(actions[first]!)] = { ...actions[first]!, message };
  actions.splice(0, actions.length, ...rest);
}

