import { isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import { basename, dirname } from "node:path";
import type { Session } from "./reader.js";
import { rewriteLines, type RewriteOptions, type RewriteResult } from "./rewrite.js";
import { forEachLine } from "./source.js";
import { CURRENT_VERSION } from "./types.js";

/**
 * Repair (SPEC §7): every input line ends up in the repaired file, changed as little as possible,
 * or in the report as dropped, with its line number and a stable code. Pass one decides (line
 * level, then the tree); pass two writes through the shared rewriter, so the result (or its diff)
 * streams out and the original is never held whole.
 */

export type RepairCode =
  | "bom-removed"
  | "crlf-normalized"
  | "nul-removed"
  | "blank-dropped"
  | "newline-added"
  | "torn-dropped"
  | "fused-split"
  | "fragment-dropped"
  | "lines-joined"
  | "invalid-dropped"
  | "invalid-utf8-dropped"
  | "not-object-dropped"
  | "no-type-dropped"
  | "header-synthesized"
  | "header-moved"
  | "header-duplicate-dropped"
  | "id-assigned"
  | "duplicate-dropped"
  | "id-renamed"
  | "parent-reattached"
  | "entry-dropped"
  | "reference-missing";

export interface RepairAction {
  code: RepairCode;
  /** 1-based input line. */
  line: number;
  message: string;
  /** true when the line's content is gone from the result. */
  dropped: boolean;
}

export const REPAIR_CODES: Record<RepairCode, { dropped: boolean }> = {
  "bom-removed": { dropped: false },
  "crlf-normalized": { dropped: false },
  "nul-removed": { dropped: false },
  "blank-dropped": { dropped: true },
  "newline-added": { dropped: false },
  "torn-dropped": { dropped: true },
  "fused-split": { dropped: false },
  "fragment-dropped": { dropped: true },
  "lines-joined": { dropped: false },
  "invalid-dropped": { dropped: true },
  "invalid-utf8-dropped": { dropped: true },
  "not-object-dropped": { dropped: true },
  "no-type-dropped": { dropped: true },
  "header-synthesized": { dropped: false },
  "header-moved": { dropped: false },
  "header-duplicate-dropped": { dropped: true },
  "id-assigned": { dropped: false },
  "duplicate-dropped": { dropped: true },
  "id-renamed": { dropped: false },
  "parent-reattached": { dropped: false },
  "entry-dropped": { dropped: true },
  "reference-missing": { dropped: false },
};

type Decision = { kind: "drop" } | { kind: "normalize" } | { kind: "lines"; lines: string[] };

export interface RepairPlan {
  actions: RepairAction[];
  /** Lines written before the first input line (a moved or synthesized header). */
  headerLines: string[];
  decisions: Map<number, Decision>;
  /** Whether the result differs from the input at all. */
  changed: boolean;
  keptRecords: number;
}

/** A candidate record: one parsed object and where it came from. */
interface Piece {
  /** 0-based first input line. */
  index: number;
  /** Input lines it spans (joined records span several). */
  span: number;
  value: Record<string, unknown>;
  /** The record's text as it stands in the input, normalised (for byte-identity checks). */
  text: string;
  /** Whether the text must be rewritten even if the value is unchanged (split or joined). */
  rebuilt: boolean;
  /** Normalisations applied to a single line kept as is. */
  normalized: boolean;
}

const MAX_JOIN = 16;

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Splits a line holding several records (`{...}{...}`, or a torn record followed by the next
 * append) into its pieces: the text of each, parsed when it is a whole object.
 */
export function splitRecords(text: string): Array<{ text: string; value?: Record<string, unknown> }> {
  const cuts: number[] = [];
  for (let i = 1; i < text.length; i++) if (text[i] === "{" && (/}\s*$/.test(text.slice(Math.max(0, i - 8), i)) || text.startsWith('{"type"', i))) cuts.push(i);
  cuts.push(text.length);
  const pieces: Array<{ text: string; value?: Record<string, unknown> }> = [];
  let start = 0;
  while (start < text.length) {
    let found = -1;
    for (const end of cuts) {
      if (end <= start) continue;
      const value = parseObject(text.slice(start, end));
      if (value) {
        pieces.push({ text: text.slice(start, end).trim(), value });
        found = end;
        break;
      }
    }
    if (found >= 0) {
      start = found;
      continue;
    }
    const next = cuts.find((c) => c > start && c < text.length);
    const end = next ?? text.length;
    if (text.slice(start, end).trim()) pieces.push({ text: text.slice(start, end) });
    start = end;
  }
  return pieces;
}

function shortHash(...parts: Array<string | number>): string {
  return createHash("sha256").update(parts.join(":")).digest("hex");
}

/** The header to write when none can be found (SPEC §7): from pi's file naming, else the entries. */
export function synthesizeHeader(path: string, firstEntry: Record<string, unknown> | undefined, hasIds: boolean, fallbackTime: number): Record<string, unknown> {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z_(.+)\.jsonl$/.exec(basename(path));
  const dir = basename(dirname(path));
  const encoded = /^--(.+)--$/.exec(dir);
  let cwd: string | undefined = encoded ? `/${encoded[1]!.replace(/-/g, "/")}` : undefined;
  if (!cwd && firstEntry && typeof firstEntry.cwd === "string") cwd = firstEntry.cwd;
  const h = shortHash(basename(path), JSON.stringify(firstEntry ?? null));
  const id = m ? m[6]! : `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
  const timestamp = m ? `${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z` : typeof firstEntry?.timestamp === "string" ? firstEntry.timestamp : new Date(fallbackTime).toISOString();
  const header: Record<string, unknown> = { type: "session" };
  if (hasIds) header.version = CURRENT_VERSION;
  Object.assign(header, { id, timestamp, cwd: cwd ?? dirname(path) });
  return header;
}

/** Strips what repair normalises from a line: a BOM (line 1), a trailing CR, NUL bytes. */
function normalizeBytes(bytes: Buffer, first: boolean): { bytes: Buffer; bom: boolean; cr: boolean; nul: boolean } {
  let start = 0;
  let end = bytes.length;
  const bom = first && end >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  if (bom) start = 3;
  const cr = end > start && bytes[end - 1] === 13;
  if (cr) end--;
  let out = bytes.subarray(start, end);
  const nul = out.indexOf(0) !== -1;
  if (nul) out = Buffer.from(out.filter((b) => b !== 0));
  return { bytes: out, bom, cr, nul };
}

export function planRepair(session: Session, mtimeMs = Date.now()): RepairPlan {
  const actions: RepairAction[] = [];
  const decisions = new Map<number, Decision>();
  const act = (code: RepairCode, line: number, message: string) => actions.push({ code, line, message, dropped: REPAIR_CODES[code].dropped });
  const drop = (index: number) => decisions.set(index, { kind: "drop" });

  // ---- pass one, line level: every line becomes pieces (records) or is dropped with a reason
  const pieces: Piece[] = [];
  let pending: Array<{ index: number; text: string; terminated: boolean }> = [];
  let lastIndex = -1;
  let lastTerminated = true;

  const flushPending = () => {
    for (const p of pending) {
      const split = splitRecords(p.text);
      const whole = split.filter((s) => s.value);
      if (whole.length > 0) {
        act("fused-split", p.index + 1, `${split.length} pieces on one line; ${whole.length} kept`);
        for (const s of split.filter((x) => !x.value)) act("fragment-dropped", p.index + 1, `dropped a torn fragment (${s.text.length} characters) from the line`);
        whole.forEach((s) => pieces.push({ index: p.index, span: 1, value: s.value!, text: s.text, rebuilt: true, normalized: false }));
        continue;
      }
      drop(p.index);
      if (!p.terminated) act("torn-dropped", p.index + 1, "the last line was cut off mid-record");
      else act("invalid-dropped", p.index + 1, "not JSON, and no record could be recovered from it");
    }
    pending = [];
  };

  forEachLine(session.source, (raw, line, _offset, terminated) => {
    const index = line - 1;
    lastIndex = index;
    lastTerminated = terminated;
    const n = normalizeBytes(raw, index === 0);
    if (n.bom) act("bom-removed", line, "removed the UTF-8 byte-order mark");
    if (n.cr) act("crlf-normalized", line, "CRLF line end made LF");
    if (n.nul) act("nul-removed", line, "removed NUL bytes");
    const text = n.bytes.toString("utf8");
    if (!text.trim()) {
      drop(index);
      act("blank-dropped", line, n.nul ? "a line of NUL bytes" : "a blank line");
      return;
    }
    if (!isUtf8(n.bytes)) {
      flushPending();
      drop(index);
      act("invalid-utf8-dropped", line, "the line is not valid UTF-8");
      return;
    }
    let value: unknown;
    let ok = true;
    try {
      value = JSON.parse(text);
    } catch {
      ok = false;
    }
    if (!ok) {
      // A record split by a raw newline: join it with the lines before it when that parses.
      if (pending.length > 0) {
        for (const sep of ["\n", "\\n"]) {
          const joined = pending.map((p) => p.text).join(sep) + sep + text;
          const obj = parseObject(joined);
          if (obj && typeof obj.type === "string") {
            const first = pending[0]!;
            for (const p of pending.slice(1)) drop(p.index);
            drop(index);
            act("lines-joined", first.index + 1, `lines ${first.index + 1}-${line} were one record split by a raw newline`);
            pieces.push({ index: first.index, span: line - first.index, value: obj, text: joined, rebuilt: true, normalized: false });
            pending = [];
            return;
          }
        }
      }
      pending.push({ index, text, terminated });
      if (pending.length > MAX_JOIN) {
        const oldest = pending.shift()!;
        const rest = pending;
        pending = [oldest];
        flushPending();
        pending = rest;
      }
      return;
    }
    flushPending();
    if (!value || typeof value !== "object" || Array.isArray(value)) {
      drop(index);
      act("not-object-dropped", line, "JSON that is not an object");
      return;
    }
    const obj = value as Record<string, unknown>;
    if (typeof obj.type !== "string") {
      drop(index);
      act("no-type-dropped", line, "an object without `type`");
      return;
    }
    pieces.push({ index, span: 1, value: obj, text, rebuilt: false, normalized: n.bom || n.cr || n.nul });
  });
  flushPending();

  // ---- pass one, structure: the header, ids, parents
  const headerIdx = pieces.findIndex((p) => p.value.type === "session");
  const header = headerIdx >= 0 ? pieces[headerIdx]! : undefined;
  const entries = pieces.filter((p) => p.value.type !== "session");
  const legacy = header ? typeof header.value.version !== "number" || (header.value.version as number) < 2 : !entries.some((e) => typeof e.value.id === "string");
  const headerLines: string[] = [];
  for (const p of pieces) {
    if (p.value.type === "session" && p !== header) {
      if (p.span === 1 && !p.rebuilt) drop(p.index);
      act("header-duplicate-dropped", p.index + 1, "a second session header");
      p.value = {}; // dropped below
    }
  }
  const sessionId = typeof header?.value.id === "string" ? (header.value.id as string) : "";
  if (!header) {
    const synthesized = synthesizeHeader(session.name, entries[0]?.value, !legacy, mtimeMs);
    headerLines.push(JSON.stringify(synthesized));
    act("header-synthesized", 1, `no header: synthesized one (id ${String(synthesized.id)}, cwd ${String(synthesized.cwd)})`);
  } else {
    const firstRecord = pieces[0]!;
    if (firstRecord !== header || header.rebuilt) {
      headerLines.push(header.rebuilt ? JSON.stringify(header.value) : header.text);
      if (header.span === 1 && !header.rebuilt) drop(header.index);
      if (firstRecord !== header) act("header-moved", header.index + 1, "the header moved to line 1");
    } else if (header.normalized) {
      decisions.set(header.index, { kind: "normalize" });
    }
  }

  // Entries pi's loader would crash on go, whatever the version.
  for (const p of entries) {
    const e = p.value;
    if (e.type !== "message") continue;
    const m = e.message as { role?: unknown } | null | undefined;
    if (!m || typeof m !== "object" || typeof m.role !== "string") {
      act("entry-dropped", p.index + 1, "a message entry without `message.role` (pi's loader crashes on it)");
      p.value = {};
    }
  }

  // Entries (v2/v3): ids, duplicates, parents; v1 files are repaired at line level only.
  const changedPieces = new Set<Piece>();
  if (!legacy) {
    const knownIds = new Set(entries.map((e) => e.value.id).filter((id): id is string => typeof id === "string"));
    const seen = new Map<string, string>(); // id -> normalised text of its holder
    const renamed = new Map<string, string>();
    let prevId: string | null = null;
    const fresh = (line: number, k: number) => {
      for (let attempt = 0; ; attempt++) {
        const id = shortHash(sessionId, line, k, attempt).slice(0, 8);
        if (!knownIds.has(id)) {
          knownIds.add(id);
          return id;
        }
      }
    };
    entries.forEach((p, k) => {
      const e = p.value;
      const line = p.index + 1;
      if (Object.keys(e).length === 0) return; // dropped above
      if (typeof e.id !== "string") {
        e.id = fresh(line, k);
        if (!("parentId" in e) || typeof e.parentId !== "string") e.parentId = prevId;
        act("id-assigned", line, `no id: given ${e.id as string}, parent ${String(e.parentId)}`);
        changedPieces.add(p);
      } else if (seen.has(e.id)) {
        if (seen.get(e.id) === p.text) {
          act("duplicate-dropped", line, `an exact repeat of entry ${e.id}`);
          p.value = {};
          return;
        }
        const old = e.id;
        e.id = fresh(line, k);
        renamed.set(old, e.id as string);
        act("id-renamed", line, `id ${old} was already used by another entry: now ${e.id as string}`);
        changedPieces.add(p);
      }
      const id = e.id as string;
      if (e.parentId !== null) {
        const target = typeof e.parentId === "string" ? (renamed.get(e.parentId) ?? e.parentId) : undefined;
        if (target === undefined || target === id || !seen.has(target)) {
          const why = target === undefined ? "no parentId" : target === id ? "it was its own parent" : knownIds.has(target) ? `parent ${target} comes later in the file` : `parent ${target} does not exist`;
          e.parentId = prevId;
          act("parent-reattached", line, `${why}: re-attached to ${String(prevId)}`);
          changedPieces.add(p);
        } else if (target !== e.parentId) {
          e.parentId = target;
          changedPieces.add(p);
        }
      }
      seen.set(id, p.text);
      prevId = id;
    });
    // References that point nowhere stay, reported.
    const ids = new Set(seen.keys());
    for (const p of entries) {
      const e = p.value;
      const ref = e.type === "compaction" ? e.firstKeptEntryId : e.type === "label" ? e.targetId : e.type === "branch_summary" ? e.fromId : undefined;
      if (typeof ref === "string" && !ids.has(ref) && ref !== "root" && ref !== e.id) act("reference-missing", p.index + 1, `${String(e.type)} points to ${ref}, which does not exist (kept)`);
    }
  }

  // ---- decisions for the writer: what each input line becomes
  const byIndex = new Map<number, Piece[]>();
  for (const p of pieces) {
    if (p === header || Object.keys(p.value).length === 0) continue;
    const list = byIndex.get(p.index) ?? [];
    list.push(p);
    byIndex.set(p.index, list);
  }
  for (const p of pieces) {
    if (Object.keys(p.value).length === 0 && p.span === 1 && !p.rebuilt) drop(p.index);
  }
  let keptRecords = headerLines.length > 0 || header ? 1 : 0;
  for (const [index, list] of byIndex) {
    keptRecords += list.length;
    const single = list.length === 1 ? list[0]! : undefined;
    if (single && !single.rebuilt && !changedPieces.has(single)) {
      if (single.normalized) decisions.set(index, { kind: "normalize" });
      continue;
    }
    decisions.set(index, { kind: "lines", lines: list.map((p) => (changedPieces.has(p) || p.rebuilt ? JSON.stringify(p.value) : p.text)) });
  }
  // Lines whose every piece was dropped (fused lines of only dropped records).
  for (const p of pieces) if (!byIndex.has(p.index) && p !== header && !decisions.has(p.index)) drop(p.index);
  // A valid last line without its newline gets one.
  if (lastIndex >= 0 && !lastTerminated && !decisions.has(lastIndex)) {
    decisions.set(lastIndex, { kind: "normalize" });
    act("newline-added", lastIndex + 1, "added the missing final newline");
  } else if (lastIndex >= 0 && !lastTerminated && decisions.get(lastIndex)?.kind !== "drop" && !actions.some((a) => a.line === lastIndex + 1 && a.code === "torn-dropped")) {
    act("newline-added", lastIndex + 1, "added the missing final newline");
  }
  actions.sort((a, b) => a.line - b.line);
  return { actions, headerLines, decisions, changed: headerLines.length > 0 || decisions.size > 0, keptRecords };
}

/** Writes the repaired file (or only its diff) in one pass over the input. */
export function writeRepair(session: Session, plan: RepairPlan, write: ((chunk: string | Uint8Array) => void) | undefined, options: Pick<RewriteOptions, "diff"> = {}): RewriteResult {
  return rewriteLines(
    session.source,
    (index, bytes) => {
      const d = plan.decisions.get(index);
      if (!d) return null;
      if (d.kind === "drop") return [];
      if (d.kind === "normalize") return [normalizeBytes(bytes, index === 0).bytes.toString("utf8")];
      return d.lines;
    },
    write,
    { ...options, before: (index) => (index === 0 ? plan.headerLines : []) },
  );
}
