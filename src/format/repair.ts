import { isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import { basename, dirname } from "node:path";
import { emptyFields, scanLine, Verdict } from "./scanner.js";
import { rewriteLines, type RewriteOptions, type RewriteResult } from "./rewrite.js";
import { forEachLine, type ByteSource } from "./source.js";
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

/** A record of the result, as the writer makes it: the line's own text (or `text`), with `patch` applied. */
interface OutPiece {
  text?: string;
  patch?: { id?: string; parentId?: string | null };
}

type Decision = { kind: "drop" } | { kind: "normalize" } | { kind: "pieces"; pieces: OutPiece[] };

export interface RepairPlan {
  actions: RepairAction[];
  /** Lines written before the first input line (a moved or synthesized header). */
  headerLines: string[];
  decisions: Map<number, Decision>;
  /** Whether the result differs from the input at all. */
  changed: boolean;
  keptRecords: number;
  /** Whether the file holds a session header, or an entry with an id (else it is no pi session). */
  sessionLike: boolean;
}

/**
 * A candidate record: where it came from and the few fields the tree pass needs (a gigabyte file
 * has hundreds of thousands; their values are not kept, the writer re-reads the lines).
 */
interface Piece {
  /** 0-based first input line. */
  index: number;
  /** Input lines it spans (joined records span several). */
  span: number;
  type: string;
  id: string | undefined;
  parentId: string | null | undefined;
  /** For a message: whether `message.role` is a string (pi's loader crashes otherwise). */
  messageOk: boolean;
  /** compaction firstKeptEntryId, label targetId, branch_summary fromId. */
  ref: string | undefined;
  /** The text of a split or joined record (a whole line's text is re-read instead). */
  text?: string;
  /** Where the line lies in the file, for a record that is a whole line (-1 for the others). */
  offset: number;
  length: number;
  /** The header's value. */
  header?: Record<string, unknown>;
  /** Normalisations applied to a single line kept as is. */
  normalized: boolean;
  dropped?: boolean;
  patch?: { id?: string; parentId?: string | null };
}

function refOf(v: Record<string, unknown>): string | undefined {
  const r = v.type === "compaction" ? v.firstKeptEntryId : v.type === "label" ? v.targetId : v.type === "branch_summary" ? v.fromId : undefined;
  return typeof r === "string" ? r : undefined;
}

function pieceOf(v: Record<string, unknown>, index: number, span: number, text: string | undefined, normalized: boolean, offset = -1, length = -1): Piece {
  const m = v.message as { role?: unknown } | null | undefined;
  return {
    index,
    span,
    type: v.type as string,
    id: typeof v.id === "string" ? v.id : undefined,
    parentId: typeof v.parentId === "string" || v.parentId === null ? v.parentId : undefined,
    messageOk: v.type !== "message" || (!!m && typeof m === "object" && typeof m.role === "string"),
    ref: refOf(v),
    ...(text !== undefined ? { text } : {}),
    offset,
    length,
    ...(v.type === "session" ? { header: v } : {}),
    normalized,
  };
}

/** Types whose lines repair parses in full (few, and it needs their references or value). */
const PARSED_TYPES = new Set(["compaction", "label", "branch_summary", "session"]);

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

/**
 * Plans the repair of `source` in one pass over its lines (no index of the session is built first:
 * a line's own scan tells all repair needs). `mtimeMs` dates a synthesized header as a last resort.
 */
export function planRepair(source: ByteSource, mtimeMs = Date.now()): RepairPlan {
  const actions: RepairAction[] = [];
  const decisions = new Map<number, Decision>();
  const act = (code: RepairCode, line: number, message: string) => actions.push({ code, line, message, dropped: REPAIR_CODES[code].dropped });
  const drop = (index: number) => decisions.set(index, { kind: "drop" });

  // ---- pass one, line level: every line becomes pieces (records) or is dropped with a reason
  const pieces: Piece[] = [];
  const fields = emptyFields();
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
        whole.forEach((s) => pieces.push(pieceOf(s.value!, p.index, 1, s.text, false)));
        continue;
      }
      drop(p.index);
      if (!p.terminated) act("torn-dropped", p.index + 1, "the last line was cut off mid-record");
      else act("invalid-dropped", p.index + 1, "not JSON, and no record could be recovered from it");
    }
    pending = [];
  };

  forEachLine(source, (raw, line, offset, terminated) => {
    const index = line - 1;
    lastIndex = index;
    lastTerminated = terminated;
    const n = normalizeBytes(raw, index === 0);
    if (n.bom) act("bom-removed", line, "removed the UTF-8 byte-order mark");
    if (n.cr) act("crlf-normalized", line, "CRLF line end made LF");
    if (n.nul) act("nul-removed", line, "removed NUL bytes");
    if (!isUtf8(n.bytes)) {
      flushPending();
      drop(index);
      act("invalid-utf8-dropped", line, "the line is not valid UTF-8");
      return;
    }
    const normalized = n.bom || n.cr || n.nul;
    // Most lines: the validating scanner reads the few fields needed, no JSON.parse.
    const verdict = scanLine(n.bytes, fields);
    if (verdict === Verdict.Valid && fields.object && fields.type !== undefined && !PARSED_TYPES.has(fields.type)) {
      flushPending();
      pieces.push({
        index,
        span: 1,
        type: fields.type,
        id: fields.id,
        parentId: fields.parentKind === 1 ? fields.parentId : fields.parentKind === 2 ? null : undefined,
        messageOk: fields.type !== "message" || fields.role !== undefined,
        ref: undefined,
        offset,
        length: raw.length,
        normalized,
      });
      return;
    }
    const text = n.bytes.toString("utf8");
    if (!text.trim()) {
      drop(index);
      act("blank-dropped", line, n.nul ? "a line of NUL bytes" : "a blank line");
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
            pieces.push(pieceOf(obj, first.index, line - first.index, joined, false));
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
    pieces.push(pieceOf(obj, index, 1, undefined, normalized, offset, raw.length));
  });
  flushPending();

  // ---- pass one, structure: the header, ids, parents
  /** A piece's own text, normalised: its `text`, else its line read again. */
  const textOf = (p: Piece): string => {
    if (p.text !== undefined) return p.text;
    return normalizeBytes(source.read(p.offset, p.length), p.index === 0).bytes.toString("utf8");
  };
  const header = pieces.find((p) => p.type === "session");
  const entries = pieces.filter((p) => p.type !== "session");
  const hv = header?.header;
  const legacy = hv ? typeof hv.version !== "number" || (hv.version as number) < 2 : !entries.some((e) => e.id !== undefined);
  const headerLines: string[] = [];
  for (const p of pieces) {
    if (p.type === "session" && p !== header) {
      p.dropped = true;
      act("header-duplicate-dropped", p.index + 1, "a second session header");
    }
  }
  const sessionId = typeof hv?.id === "string" ? hv.id : "";
  if (!header) {
    const first = entries[0];
    const firstValue = first ? (JSON.parse(textOf(first)) as Record<string, unknown>) : undefined;
    const synthesized = synthesizeHeader(source.name, firstValue, !legacy, mtimeMs);
    headerLines.push(JSON.stringify(synthesized));
    act("header-synthesized", 1, `no header: synthesized one (id ${String(synthesized.id)}, cwd ${String(synthesized.cwd)})`);
  } else if (pieces[0] !== header || header.text !== undefined) {
    headerLines.push(textOf(header));
    header.dropped = true; // written at the top instead
    if (pieces[0] !== header) act("header-moved", header.index + 1, "the header moved to line 1");
  }

  // Entries pi's loader would crash on go, whatever the version.
  for (const p of entries) {
    if (!p.messageOk) {
      act("entry-dropped", p.index + 1, "a message entry without `message.role` (pi's loader crashes on it)");
      p.dropped = true;
    }
  }

  // Entries (v2/v3): ids, duplicates, parents; v1 files are repaired at line level only.
  if (!legacy) {
    const knownIds = new Set(entries.map((e) => e.id).filter((id): id is string => id !== undefined));
    const holder = new Map<string, Piece>(); // id -> the kept entry holding it
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
      if (p.dropped) return;
      const line = p.index + 1;
      const patch: { id?: string; parentId?: string | null } = {};
      if (p.id === undefined) {
        patch.id = p.id = fresh(line, k);
        if (typeof p.parentId !== "string") patch.parentId = p.parentId = prevId;
        act("id-assigned", line, `no id: given ${p.id}, parent ${String(p.parentId)}`);
      } else if (holder.has(p.id)) {
        // The same id again: an exact repeat goes; a different entry gets an id of its own.
        if (textOf(holder.get(p.id)!) === textOf(p)) {
          act("duplicate-dropped", line, `an exact repeat of entry ${p.id}`);
          p.dropped = true;
          return;
        }
        const old = p.id;
        patch.id = p.id = fresh(line, k);
        renamed.set(old, p.id);
        act("id-renamed", line, `id ${old} was already used by another entry: now ${p.id}`);
      }
      const id = p.id;
      if (p.parentId !== null) {
        const target = typeof p.parentId === "string" ? (renamed.get(p.parentId) ?? p.parentId) : undefined;
        if (target === undefined || target === id || !holder.has(target)) {
          const why = target === undefined ? "no parentId" : target === id ? "it was its own parent" : knownIds.has(target) ? `parent ${target} comes later in the file` : `parent ${target} does not exist`;
          patch.parentId = p.parentId = prevId;
          act("parent-reattached", line, `${why}: re-attached to ${String(prevId)}`);
        } else if (target !== p.parentId) {
          patch.parentId = p.parentId = target;
        }
      }
      if (Object.keys(patch).length > 0) p.patch = patch;
      holder.set(id, p);
      prevId = id;
    });
    // References that point nowhere stay, reported.
    for (const p of entries) {
      if (!p.dropped && p.ref !== undefined && !holder.has(p.ref) && p.ref !== "root" && p.ref !== p.id) {
        act("reference-missing", p.index + 1, `${p.type} points to ${p.ref}, which does not exist (kept)`);
      }
    }
  }

  // ---- decisions for the writer: what each input line becomes
  const byIndex = new Map<number, Piece[]>();
  for (const p of pieces) {
    if (p.dropped) continue;
    const list = byIndex.get(p.index) ?? [];
    list.push(p);
    byIndex.set(p.index, list);
  }
  let keptRecords = header || headerLines.length > 0 ? 1 : 0;
  for (const [index, list] of byIndex) {
    keptRecords += list.length - (list.includes(header!) ? 1 : 0);
    const single = list.length === 1 ? list[0]! : undefined;
    if (single && single.text === undefined && !single.patch) {
      if (single.normalized) decisions.set(index, { kind: "normalize" });
      continue;
    }
    decisions.set(index, { kind: "pieces", pieces: list.map((p) => ({ ...(p.text !== undefined ? { text: p.text } : {}), ...(p.patch ? { patch: p.patch } : {}) })) });
  }
  // Lines none of whose pieces are kept (dropped entries, headers moved up, fused lines of dropped records).
  for (const p of pieces) if (!byIndex.has(p.index)) drop(p.index);
  for (let i = 1; i < pieces.length; i++) {
    // a joined record's other lines
    const p = pieces[i]!;
    for (let k = 1; k < p.span; k++) if (!byIndex.has(p.index + k)) drop(p.index + k);
  }
  // A valid last line without its newline gets one.
  if (lastIndex >= 0 && !lastTerminated && !decisions.has(lastIndex)) {
    decisions.set(lastIndex, { kind: "normalize" });
    act("newline-added", lastIndex + 1, "added the missing final newline");
  } else if (lastIndex >= 0 && !lastTerminated && decisions.get(lastIndex)?.kind !== "drop") {
    act("newline-added", lastIndex + 1, "added the missing final newline");
  }
  actions.sort((a, b) => a.line - b.line);
  const sessionLike = header !== undefined || entries.some((e) => e.id !== undefined);
  return { actions, headerLines, decisions, changed: headerLines.length > 0 || decisions.size > 0, keptRecords, sessionLike };
}

/** Writes the repaired file (or only its diff) in one pass over the input. */
export function writeRepair(source: ByteSource, plan: RepairPlan, write: ((chunk: string | Uint8Array) => void) | undefined, options: Pick<RewriteOptions, "diff"> = {}): RewriteResult {
  return rewriteLines(
    source,
    (index, bytes) => {
      const d = plan.decisions.get(index);
      if (!d) return null;
      if (d.kind === "drop") return [];
      const own = () => normalizeBytes(bytes, index === 0).bytes.toString("utf8");
      if (d.kind === "normalize") return [own()];
      return d.pieces.map((p) => {
        const text = p.text ?? own();
        if (!p.patch) return text;
        // Assigning keeps a key where it was; a new key goes last (as pi's own mutations leave it).
        const value = JSON.parse(text) as Record<string, unknown>;
        if ("id" in p.patch) value.id = p.patch.id;
        if ("parentId" in p.patch) value.parentId = p.patch.parentId;
        return JSON.stringify(value);
      });
    },
    write,
    { ...options, before: (index) => (index === 0 ? plan.headerLines : []) },
  );
}
