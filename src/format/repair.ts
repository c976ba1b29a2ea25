import { isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import { basename, dirname } from "node:path";
import { BrokenRun, classifyText, decodeLine, normalizeLine, type SessionRecord } from "./salvage.js";
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
  | "invalid-utf8-replaced"
  | "not-object-dropped"
  | "no-type-dropped"
  | "header-synthesized"
  | "header-completed"
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
  "invalid-utf8-replaced": { dropped: false },
  "not-object-dropped": { dropped: true },
  "no-type-dropped": { dropped: true },
  "header-synthesized": { dropped: false },
  "header-completed": { dropped: false },
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
 * A record the result will hold: where it came from and the few fields the tree pass needs (a
 * gigabyte file has hundreds of thousands; their values are not kept, the writer re-reads the lines).
 */
interface Candidate {
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

function candidateOf(v: SessionRecord, index: number, span: number, text: string | undefined, normalized: boolean, offset = -1, length = -1): Candidate {
  const m = v.message as { role?: unknown } | null | undefined;
  return {
    index,
    span,
    type: v.type,
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

function shortHash(...parts: Array<string | number>): string {
  return createHash("sha256").update(parts.join(":")).digest("hex");
}

/** Where a synthesized header's fields come from (SPEC §7): pi's file naming, else the entries. */
function headerSources(path: string, firstEntry: Record<string, unknown> | undefined, fallbackTime: number): { id: string; timestamp: string; cwd: string } {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z_(.+)\.jsonl$/.exec(basename(path));
  const dir = basename(dirname(path));
  const encoded = /^--(.+)--$/.exec(dir);
  let cwd: string | undefined = encoded ? `/${encoded[1]!.replace(/-/g, "/")}` : undefined;
  if (!cwd && firstEntry && typeof firstEntry.cwd === "string") cwd = firstEntry.cwd;
  const h = shortHash(basename(path), JSON.stringify(firstEntry ?? null));
  const id = m ? m[6]! : `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
  const timestamp = m ? `${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z` : typeof firstEntry?.timestamp === "string" ? firstEntry.timestamp : new Date(fallbackTime).toISOString();
  return { id, timestamp, cwd: cwd ?? dirname(path) };
}

/** The header to write when none can be found (SPEC §7): from pi's file naming, else the entries. */
export function synthesizeHeader(path: string, firstEntry: Record<string, unknown> | undefined, hasIds: boolean, fallbackTime: number): Record<string, unknown> {
  const header: Record<string, unknown> = { type: "session" };
  if (hasIds) header.version = CURRENT_VERSION;
  return Object.assign(header, headerSources(path, firstEntry, fallbackTime));
}

const HEADER_FIELDS = ["id", "timestamp", "cwd"] as const;

/**
 * Plans the repair of `source` in one pass over its lines (no index of the session is built first:
 * a line's own scan tells all repair needs). `mtimeMs` dates a synthesized header as a last resort.
 */
export function planRepair(source: ByteSource, mtimeMs = Date.now()): RepairPlan {
  const actions: RepairAction[] = [];
  const decisions = new Map<number, Decision>();
  const act = (code: RepairCode, line: number, message: string) => actions.push({ code, line, message, dropped: REPAIR_CODES[code].dropped });
  const drop = (index: number) => decisions.set(index, { kind: "drop" });

  // ---- pass one, line level: every line becomes records or is dropped, by the salvage rule
  const candidates: Candidate[] = [];
  const fields = emptyFields();
  let lastIndex = -1;
  let lastTerminated = true;

  const broken = new BrokenRun((o) => {
    switch (o.kind) {
      case "joined":
        act("lines-joined", o.first + 1, `lines ${o.first + 1}-${o.last + 1} were one record split by a raw newline`);
        for (let i = o.first + 1; i <= o.last; i++) drop(i);
        candidates.push(candidateOf(o.value, o.first, o.last - o.first + 1, o.text, false));
        return;
      case "blank":
        drop(o.index);
        act("blank-dropped", o.index + 1, "a blank line");
        return;
      case "pieces": {
        const line = o.index + 1;
        if (o.records.length === 0) {
          drop(o.index);
          if (!o.terminated) act("torn-dropped", line, "the last line was cut off mid-record");
          else act("invalid-dropped", line, "not JSON, and no record could be recovered from it");
          return;
        }
        const kept = o.records.length;
        act("fused-split", line, kept === 1 ? "kept the record that follows a torn write, on a line of its own" : `${kept} records on one line, each put on a line of its own`);
        for (const f of o.fragments) act("fragment-dropped", line, `dropped a torn fragment (${f.length} characters) from the line`);
        for (const r of o.records) candidates.push(candidateOf(r.value, o.index, 1, r.text, false));
        return;
      }
    }
  });

  forEachLine(source, (raw, line, offset, terminated) => {
    const index = line - 1;
    lastIndex = index;
    lastTerminated = terminated;
    const n = normalizeLine(raw, index === 0);
    if (n.bom) act("bom-removed", line, "removed the UTF-8 byte-order mark");
    if (n.cr) act("crlf-normalized", line, "CRLF line end made LF");
    if (n.nul) act("nul-removed", line, "removed NUL bytes");
    // Most lines: the validating scanner reads the few fields needed, no JSON.parse.
    const verdict = scanLine(n.bytes, fields);
    const badUtf8 = !(verdict === Verdict.Valid && fields.ascii) && !isUtf8(n.bytes);
    const normalized = n.bom || n.cr || n.nul || badUtf8;
    const replaced = () => badUtf8 && act("invalid-utf8-replaced", line, "bytes that are not UTF-8 written as U+FFFD, as pi reads them");
    if (verdict === Verdict.Valid && fields.object && fields.type !== undefined && !PARSED_TYPES.has(fields.type)) {
      broken.flush();
      candidates.push({
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
      replaced();
      return;
    }
    const text = decodeLine(n.bytes);
    const c = text === undefined ? undefined : classifyText(text);
    if (c?.kind === "blank") {
      if (!broken.blank(index)) {
        drop(index);
        act("blank-dropped", line, n.nul ? "a line of NUL bytes" : "a blank line");
      }
      return;
    }
    if (c?.kind === "broken") return broken.add(index, text!, terminated);
    broken.flush();
    if (c?.kind !== "record") {
      drop(index);
      if (c === undefined) act("invalid-dropped", line, "the line is too long to read as text");
      else if (c.kind === "not-object") act("not-object-dropped", line, "JSON that is not an object");
      else act("no-type-dropped", line, "an object without `type`");
      return;
    }
    candidates.push(candidateOf(c.value, index, 1, undefined, normalized, offset, raw.length));
    replaced();
  });
  broken.flush();

  // ---- pass one, structure: the header, ids, parents
  /** A piece's own text, normalised: its `text`, else its line read again. */
  const textOf = (p: Candidate): string => {
    if (p.text !== undefined) return p.text;
    return normalizeLine(source.read(p.offset, p.length), p.index === 0).bytes.toString("utf8");
  };
  const header = candidates.find((p) => p.type === "session");
  const entries = candidates.filter((p) => p.type !== "session");
  const hv = header?.header;
  const legacy = hv ? typeof hv.version !== "number" || (hv.version as number) < 2 : !entries.some((e) => e.id !== undefined);
  const headerLines: string[] = [];
  for (const p of candidates) {
    if (p.type === "session" && p !== header) {
      p.dropped = true;
      act("header-duplicate-dropped", p.index + 1, "a second session header");
    }
  }
  const firstValue = () => (entries[0] ? (JSON.parse(textOf(entries[0])) as Record<string, unknown>) : undefined);
  let sessionId = typeof hv?.id === "string" ? hv.id : "";
  if (!header) {
    const synthesized = synthesizeHeader(source.name, firstValue(), !legacy, mtimeMs);
    sessionId = String(synthesized.id);
    headerLines.push(JSON.stringify(synthesized));
    act("header-synthesized", 1, `no header: synthesized one (id ${String(synthesized.id)}, cwd ${String(synthesized.cwd)})`);
  } else {
    const missing = HEADER_FIELDS.filter((k) => typeof hv![k] !== "string");
    if (candidates[0] !== header || header.text !== undefined || missing.length > 0) {
      let text = textOf(header);
      if (missing.length > 0) {
        // Assigning keeps a key where it was; a new key goes last.
        const value = JSON.parse(text) as Record<string, unknown>;
        const sources = headerSources(source.name, firstValue(), mtimeMs);
        for (const k of missing) value[k] = sources[k];
        sessionId = String(value.id);
        text = JSON.stringify(value);
        act("header-completed", header.index + 1, `the header had no string ${missing.map((k) => `\`${k}\``).join(", ")}: ${missing.map((k) => `${k} ${sources[k]}`).join(", ")}`);
      }
      headerLines.push(text);
      header.dropped = true; // written at the top instead
      if (candidates[0] !== header) act("header-moved", header.index + 1, "the header moved to line 1");
    }
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
    const holder = new Map<string, Candidate>(); // id -> the kept entry holding it
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
  const byIndex = new Map<number, Candidate[]>();
  for (const p of candidates) {
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
  for (const p of candidates) if (!byIndex.has(p.index)) drop(p.index);
  for (let i = 1; i < candidates.length; i++) {
    // a joined record's other lines
    const p = candidates[i]!;
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
      const own = () => normalizeLine(bytes, index === 0).bytes.toString("utf8");
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
