import { messageText, type AgentMessage } from "../../schema/types.js";
import { seekNode, Turn } from "../../context/pairing.js";
import { IncreasingRuns } from "../../read/columns.js";
import { planConversation, type ConversationFix, type LeftReason } from "../conversation.js";
import type { Patch } from "./plan.js";
import { C_DROPPED, C_HEADER, type RepairWork } from "./work.js";

/**
 * Phase four (v2 and v3 files): the conversation (`planConversation`), on the tree phase three
 * leaves: results a provider refuses removed or moved back under their call, compactions made to
 * keep whole turns. Each fix is an action of the report, with the call id and the result's text.
 */
export function settleConversation(work: RepairWork, legacy: boolean): void {
  const { c } = work;
  // (the records kept: their candidates, increasing, as runs: a column each way was 8 bytes a candidate)
  const records = new IncreasingRuns();
  let results = 0;
  for (let k = 0; k < c.count; k++) {
    if (c.flags[k]! & (C_DROPPED | C_HEADER)) continue;
    records.push(k);
    if (c.turn[k] === Turn.Result) results++;
  }
  if (results === 0) return;
  const recordOf = (k: number) => records.indexOf(k);
  // (a v1 file is one branch: each record's parent is the one before; the column is the plan's to
  // change, made of the candidates' own in place: record r is candidate r or a later one, so each is
  // read before it is written over, where a column of its own was 4 bytes a candidate)
  const column = c.parentK;
  const parent = legacy ? new Int32Array(records.length) : column.subarray(0, records.length);
  c.parentK = new Int32Array(0);
  for (let r = 0; r < records.length; r++) {
    const p = legacy ? -2 : column[records.at(r)]!;
    parent[r] = p === -2 ? r - 1 : p >= 0 ? recordOf(p) : -1;
  }
  // calls by record, in record order (candidates add them in candidate order; a dropped candidate's are left out)
  let callRecord = new Int32Array(c.callHashes.count);
  let hashes = new Float64Array(c.callHashes.count);
  let calls = 0;
  for (let j = 0; j < c.callHashes.count; j++) {
    const r = recordOf(c.callHashes.node[j]!);
    if (r < 0) continue;
    callRecord[calls] = r;
    hashes[calls++] = c.callHashes.number[j]!;
  }
  callRecord = callRecord.subarray(0, calls);
  hashes = hashes.subarray(0, calls);
  let callHint = 0;
  const resultNodes = c.resultHashes.node.subarray(0, c.resultHashes.count);
  let resultHint = 0;
  const idOf = (k: number): string | undefined => c.patches.get(k)?.id ?? c.ids.idOf(k);
  /** The records holding `id` under it (a renamed one holds its new id). */
  const holdersOf = (id: string): number[] => {
    const holders = c.ids.duplicates.get(id) ?? [c.ids.findString(id)];
    return holders.filter((h) => h >= 0 && c.patches.get(h)?.id === undefined).map(recordOf).filter((r) => r >= 0);
  };
  const plan = planConversation({
    size: records.length,
    parent,
    turn: (r) => c.turn[records.at(r)]! as Turn,
    callStart: (r) => (callHint = seekNode(callRecord, r, callHint)),
    callHash: (slot) => hashes[slot]!,
    callNode: (slot) => callRecord[slot]!,
    resultHash: (r) => {
      const k = records.at(r);
      const at = (resultHint = seekNode(resultNodes, k, resultHint));
      return at < resultNodes.length && resultNodes[at] === k ? c.resultHashes.number[at]! : NaN;
    },
    keptFrom: (r) => {
      const k = records.at(r);
      if (legacy) return -1; // (a v1 compaction keeps by index: what migrate turns into an id)
      const ref = c.refs.get(k);
      if (!ref || ref.type !== "compaction") return -1;
      const holders = c.ids.duplicates.get(ref.ref) ?? [c.ids.findString(ref.ref)];
      for (let j = holders.length - 1; j >= 0; j--) {
        const h = holders[j]!;
        const r = h >= 0 && h < k && c.patches.get(h)?.id === undefined ? recordOf(h) : -1;
        if (r >= 0) return r;
      }
      return -1;
    },
    edit: (r) => {
      const e = c.edits.get(records.at(r));
      return e && !legacy ? { targets: holdersOf(e.target), omit: e.omit, calls: e.calls } : undefined;
    },
  });
  if (legacy) {
    // v1 entries have no ids to re-attach by: said, to be mended once the file is migrated
    for (const fix of plan.fixes) reportFix(work, { ...fix, action: "left" }, records, idOf, "a v1 file: run `pi-session migrate FILE`, then repair it");
    return;
  }
  const patch = (k: number): Patch => {
    let p = c.patches.get(k);
    if (!p) c.patches.set(k, (p = {}));
    return p;
  };
  // (each edit added: an omission as pi's appendContextEdit writes it, timed as the edit it follows)
  const addedIds = plan.added.map((a, j) => work.freshId(c.lineOf(records.at(a.after)) + 1, -1 - j));
  const recordId = (p: number): string | null => (p < 0 ? null : p >= records.length ? addedIds[p - records.length]! : (idOf(records.at(p)) ?? null));
  for (const [r, p] of plan.parents) patch(records.at(r)).parentId = recordId(p);
  for (const [r, list] of plan.after) {
    c.after.set(records.at(r), list.map((m) => records.at(m)));
    for (const m of list) c.moved.add(records.at(m));
  }
  for (const [r, to] of plan.keptFrom) patch(records.at(r)).firstKeptEntryId = idOf(records.at(to < 0 ? r : to));
  for (const [e, o] of plan.omissions) {
    const k = records.at(e);
    const timestamp = (JSON.parse(work.textOf(k)) as { timestamp?: unknown }).timestamp;
    let parentId = idOf(k) ?? null;
    const texts: string[] = [];
    for (const [j, a] of plan.added.entries()) {
      if (a.after !== e) continue;
      texts.push(JSON.stringify({ type: "context_edit", id: addedIds[j], parentId, timestamp, targetId: idOf(records.at(a.target)), replacement: null }));
      parentId = addedIds[j]!;
    }
    c.inserted.set(k, texts);
    for (const ch of o.children) patch(records.at(ch)).parentId = parentId;
  }
  for (const fix of plan.fixes) reportFix(work, fix, records, idOf);
  for (const r of plan.removed) c.flags[records.at(r)]! |= C_DROPPED;
}

/** Why a displaced result is left where it stands, as the report says it. */
const LEFT: Record<LeftReason | "rounds", string> = {
  leaf: "moved, the file would end on another branch and pi would resume there, without what this branch holds",
  added: "an edit repair adds would stand between them",
  rounds: "what stood above it was moved by repair's last round; run repair again",
};

/** A conversation fix as an action of the report: the line, the entry, the call id, the start of the result's text. */
function reportFix(work: RepairWork, fix: ConversationFix, records: IncreasingRuns, idOf: (k: number) => string | undefined, whyLeft: string = LEFT[fix.why ?? "rounds"]): void {
  const { c } = work;
  const f = fix.finding;
  const result = f.resultNode >= 0 ? records.at(f.resultNode) : -1;
  const value = result >= 0 ? (JSON.parse(work.textOf(result)) as { message?: AgentMessage }).message : undefined;
  const callId = value && typeof value.toolCallId === "string" ? value.toolCallId : undefined;
  const text = value ? messageText(value).replace(/\s+/g, " ").trim() : "";
  const quoted = text.length > 0 ? `, "${text.length > 48 ? `${text.slice(0, 47)}…` : text}"` : "";
  const what = result >= 0 ? `the result for \`${callId ?? ""}\` (entry ${idOf(result) ?? "without id"}${quoted})` : "";
  const lineOf = (r: number) => c.lineOf(records.at(r)) + 1;
  const line = fix.action === "kept-from" ? lineOf(f.node) : result >= 0 ? c.lineOf(result) + 1 : lineOf(f.node);
  const why: Record<typeof f.kind, string> = {
    lost: "no call for it above it on its branch",
    "skipped-turn": `its call is in an assistant turn pi does not send (line ${f.callNode >= 0 ? lineOf(f.callNode) : "?"})`,
    duplicate: `its call (line ${f.callNode >= 0 ? lineOf(f.callNode) : "?"}) was already answered`,
    "no-id": `its toolCallId is ${callId === undefined ? "missing or not a string" : "empty"}`,
    displaced: "a message stood between them",
    edited: `the context edit on line ${f.cause >= 0 ? lineOf(f.cause) : "?"} takes its call away`,
    "kept-result": "",
    unanswered: "",
  };
  switch (fix.action) {
    case "removed":
      work.act("result-removed", line, `removed ${what}: ${why[f.kind]}`);
      break;
    case "moved":
      work.act("result-moved", line, `moved ${what} back under its call (line ${lineOf(f.callNode)}), after line ${lineOf(fix.to)}: ${why[f.kind]}`);
      break;
    case "kept-from": {
      const to = fix.to < 0 ? f.node : fix.to;
      work.act("compaction-kept-moved", line, `the compaction kept from ${what}, without its call: it now keeps from entry ${idOf(records.at(to)) ?? "?"} (line ${lineOf(to)})${fix.to >= 0 && f.callNode === fix.to ? ", the turn holding the call" : ""}`);
      break;
    }
    case "omitted":
      work.act("result-omitted", lineOf(fix.to), `added an edit omitting ${what} right after this edit: ${f.cause === fix.to ? "it" : `the edit on line ${lineOf(f.cause)}`} takes away its call (line ${lineOf(f.callNode)}), and pi then sends neither on any branch below`);
      break;
    case "left":
      work.act("conversation-left", line, `left ${what || "the compaction"} as it is (${why[f.kind] || "its kept part starts at a result"}): ${whyLeft}`);
      break;
  }
}

