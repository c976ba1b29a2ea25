import { basename, dirname } from "node:path";
import { beginsSession } from "../../read/scanner.js";
import { plural } from "../../common/units.js";
import { CURRENT_VERSION, missingHeaderFields } from "../../schema/types.js";
import type { SessionStart } from "./plan.js";
import { C_DROPPED, C_HEADER, shortHash, type HeaderOutcome, type RepairWork } from "./work.js";

/*
 * Phase two of a repair: the header (kept, moved to line 1, completed, or synthesized from what the
 * file's name, its folder and its first entry say), and where each later session of the file begins.
 */

/**
 * What the other sessions of a file's folder say its cwd is (the most common), and how many say it:
 * given by the caller that may read them (the stores: pi keeps one project's sessions in one folder).
 */
export type CwdAround = (path: string) => { cwd: string; count: number } | undefined;

/** A synthesized header's values, and where each came from (said in the report). */
interface HeaderSources {
  id: string;
  timestamp: string;
  cwd: string;
  from: { id: string; timestamp: string; cwd: string };
}

/**
 * Where a synthesized header's fields come from: id and time from pi's file naming, else the
 * first entry (the id a hash of the file's name and that entry); the cwd from the other sessions
 * in the same folder, else the first entry, else the folder's name as pi encodes it, else the
 * folder itself.
 */
function headerSources(path: string, firstEntry: Record<string, unknown> | undefined, fallbackTime: number, around: CwdAround | undefined): HeaderSources {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z_(.+)\.jsonl$/.exec(basename(path));
  const encoded = /^--(.+)--$/.exec(basename(dirname(path)));
  const siblings = around?.(path);
  const [cwd, cwdFrom] = siblings
    ? [siblings.cwd, `the ${plural(siblings.count, "other session")} in its folder`]
    : firstEntry && typeof firstEntry.cwd === "string"
      ? [firstEntry.cwd, "the first entry"]
      : encoded
        ? [`/${encoded[1]!.replace(/-/g, "/")}`, "the folder's name (pi's encoding of it is lossy)"]
        : [dirname(path), "the file's folder"];
  const h = shortHash(basename(path), JSON.stringify(firstEntry ?? null));
  const id = m ? m[6]! : `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
  const [timestamp, timeFrom] = m ? [`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`, "the file name"] : typeof firstEntry?.timestamp === "string" ? [firstEntry.timestamp, "the first entry"] : [new Date(fallbackTime).toISOString(), "the file's modification time"];
  return { id, timestamp, cwd, from: { id: m ? "the file name" : "a hash of the file's name and first entry", timestamp: timeFrom, cwd: cwdFrom } };
}

/** The header to write when none can be found, and where each field came from (see `headerSources`). */
function synthesized(path: string, firstEntry: Record<string, unknown> | undefined, hasIds: boolean, fallbackTime: number, around: CwdAround | undefined): { header: Record<string, unknown>; sources: HeaderSources } {
  const header: Record<string, unknown> = { type: "session" };
  if (hasIds) header.version = CURRENT_VERSION;
  const sources = headerSources(path, firstEntry, fallbackTime, around);
  return { header: Object.assign(header, { id: sources.id, timestamp: sources.timestamp, cwd: sources.cwd }), sources };
}

/**
 * Phase two: the header. The first one goes to line 1 (completed if it lacks a string id,
 * timestamp or cwd), later ones are dropped; none: one is synthesized from the file's name and
 * folder, else from the entries.
 */
export function settleHeader(work: RepairWork, mtimeMs: number, around: CwdAround | undefined): HeaderOutcome {
  const { c, source } = work;
  const isHeader = (k: number) => (c.flags[k]! & C_HEADER) !== 0;
  let header = -1;
  let firstEntry = -1;
  let anyId = false;
  for (let k = 0; k < c.count; k++) {
    if (isHeader(k)) {
      if (header < 0) header = k;
      else {
        c.flags[k]! |= C_DROPPED;
        work.act("header-duplicate-dropped", c.lineOf(k) + 1, "a second session header");
      }
      continue;
    }
    if (firstEntry < 0) firstEntry = k;
    if (c.ids.has(k)) anyId = true;
  }
  const hv = header >= 0 ? c.headers.get(header)! : undefined;
  const legacy = hv ? typeof hv.version !== "number" || (hv.version as number) < 2 : !anyId;
  const headerLines: string[] = [];
  const firstValue = () => (firstEntry >= 0 ? (JSON.parse(work.textOf(firstEntry)) as Record<string, unknown>) : undefined);
  let sessionId = typeof hv?.id === "string" ? hv.id : "";
  if (!hv) {
    const { header: made, sources } = synthesized(source.name, firstValue(), !legacy, mtimeMs, around);
    sessionId = String(made.id);
    headerLines.push(JSON.stringify(made));
    work.act("header-synthesized", 1, `no header: synthesized one (id ${sources.id} from ${sources.from.id}, timestamp ${sources.timestamp} from ${sources.from.timestamp}, cwd ${sources.cwd} from ${sources.from.cwd})`);
  } else {
    const missing = missingHeaderFields(hv);
    if (header !== 0 || c.texts.has(header) || missing.length > 0) {
      let text = work.textOf(header);
      if (missing.length > 0) {
        // Assigning keeps a key where it was; a new key goes last.
        const value = JSON.parse(text) as Record<string, unknown>;
        const sources = headerSources(source.name, firstValue(), mtimeMs, around);
        for (const k of missing) value[k] = sources[k];
        sessionId = String(value.id);
        text = JSON.stringify(value);
        work.act("header-completed", c.lineOf(header) + 1, `the header had no string ${missing.map((k) => `\`${k}\``).join(", ")}: ${missing.map((k) => `${k} ${sources[k]} from ${sources.from[k]}`).join(", ")}`);
      }
      headerLines.push(text);
      c.flags[header]! |= C_DROPPED; // written at the top instead
      if (header !== 0) work.act("header-moved", c.lineOf(header) + 1, "the header moved to line 1");
    }
  }
  return { header, hv, headerLines, legacy, sessionId, anyId };
}

/**
 * The sessions that begin after the first: a later header on a line of its own that `beginsSession`
 * (the rule `check` applies). A later header followed by an entry with a parent continues the session.
 */
export function laterSessions(work: RepairWork, header: number): SessionStart[] {
  const { c } = work;
  const out: SessionStart[] = [];
  if (header < 0) return out;
  let last = c.headers.get(header)!.id;
  for (let k = header + 1; k + 1 < c.count; k++) {
    if (!(c.flags[k]! & C_HEADER) || c.offsetOf(k) < 0) continue;
    const v = c.headers.get(k)!;
    const next = k + 1;
    if (c.flags[next]! & C_HEADER || !beginsSession(v.id, last, c.parentKind[next]!)) continue;
    out.push({ line: c.lineOf(k) + 1, offset: c.offsetOf(k), id: v.id, timestamp: typeof v.timestamp === "string" ? v.timestamp : undefined });
    last = v.id;
  }
  return out;
}

