import { normalizeLine } from "../../read/salvage.js";
import type { ByteSource } from "../../read/source.js";
import { rewriteLines, type RewriteOptions, type RewriteResult } from "../rewrite.js";
import type { OutPiece, RepairPlan } from "./plan.js";
import { C_DROPPED, C_NORMALIZED, type HeaderOutcome, type RepairWork } from "./work.js";

/**
 * Phase five: what each input line becomes (candidates come in line order): kept as it is,
 * normalised, dropped, or the records it holds written again (split, joined, patched). Returns how
 * many records the result holds.
 */
export function decideLines(work: RepairWork, head: HeaderOutcome): number {
  const { c, decisions } = work;
  let keptRecords = head.hv || head.headerLines.length > 0 ? 1 : 0;
  // Lines that keep a record, marked only when a joined record's other lines need the answer (a
  // byte a line: a set of a million numbers would hold ~40 bytes each).
  const linesWithRecords = c.spans.size > 0 ? new Uint8Array(work.lastIndex + 1) : undefined;
  for (let k = 0; k < c.count; ) {
    const index = c.lineOf(k);
    let end = k + 1;
    while (end < c.count && c.lineOf(end) === index) end++;
    // (most lines hold one candidate, kept as it is: decided without an array)
    if (end === k + 1 && !(c.flags[k]! & C_DROPPED) && !c.texts.has(k) && !c.patches.has(k) && !c.moved.has(k) && !c.after.has(k) && !c.inserted.has(k)) {
      if (k !== head.header) keptRecords++;
      if (linesWithRecords) linesWithRecords[index] = 1;
      if (c.flags[k]! & C_NORMALIZED) decisions.set(index, { kind: "normalize" });
      k = end;
      continue;
    }
    // (a record moved elsewhere is written after its new parent's line instead; records moved
    // after one of this line's are written with it)
    const kept: number[] = [];
    // (a result moved after one moved before it is written after that one, wherever it went; the
    // records moved after one that is dropped are written where it was)
    const keep = (j: number): void => {
      if (!(c.flags[j]! & C_DROPPED)) kept.push(j);
      for (const m of c.after.get(j) ?? []) keep(m);
    };
    for (let j = k; j < end; j++) if (!c.moved.has(j)) keep(j);
    keptRecords += kept.filter((j) => j !== head.header).length;
    if (kept.length === 0) work.drop(index); // none kept: dropped entries, a header moved up, fused lines of dropped records
    else {
      if (linesWithRecords) linesWithRecords[index] = 1;
      const pieces: OutPiece[] = [];
      for (const j of kept) {
        pieces.push({ ...(c.texts.has(j) ? { text: c.texts.get(j)! } : c.moved.has(j) ? { text: work.textOf(j) } : {}), ...(c.patches.has(j) ? { patch: c.patches.get(j)! } : {}) });
        for (const text of c.inserted.get(j) ?? []) {
          pieces.push({ text });
          keptRecords++;
        }
      }
      decisions.set(index, { kind: "pieces", pieces });
    }
    k = end;
  }
  // a joined record's other lines
  for (const [k, span] of c.spans) for (let extra = 1; extra <= span; extra++) if (!linesWithRecords![c.lineOf(k) + extra]) work.drop(c.lineOf(k) + extra);
  // A valid last line without its newline gets one.
  const last = work.lastIndex;
  if (last >= 0 && !work.lastTerminated && !decisions.has(last)) {
    decisions.set(last, { kind: "normalize" });
    work.act("newline-added", last + 1, "added the missing final newline");
  } else if (last >= 0 && !work.lastTerminated && decisions.get(last)?.kind !== "drop") {
    work.act("newline-added", last + 1, "added the missing final newline");
  }
  return keptRecords;
}

/** Writes the repaired file (or only its diff) in one pass over the input. */
export function writeRepair(source: ByteSource, plan: RepairPlan, write: ((chunk: string | Uint8Array) => void) | undefined, options: Pick<RewriteOptions, "diff"> = {}): RewriteResult {
  return rewriteLines(
    source,
    (index, bytes) => {
      const d = plan.decisions.get(index);
      if (!d) return null;
      if (d.kind === "drop") return [];
      const own = () => normalizeLine(bytes, index === 0).bytes.toString("utf8");
      if (d.kind === "normalize") return [own()];
      return d.pieces.map((p) => {
        const text = p.text ?? own();
        if (!p.patch) return text;
        // Assigning keeps a key where it was; a new key goes last (as pi's own mutations leave it).
        const value = JSON.parse(text) as Record<string, unknown>;
        if ("id" in p.patch) value.id = p.patch.id;
        if ("parentId" in p.patch) value.parentId = p.patch.parentId;
        if (p.patch.firstKeptEntryId !== undefined) value.firstKeptEntryId = p.patch.firstKeptEntryId;
        return JSON.stringify(value);
      });
    },
    write,
    { ...options, before: (index) => (index === 0 ? plan.headerLines : []) },
  );
}

