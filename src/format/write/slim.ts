import { editedAway, sessionSends } from "../context/sends.js";
import { finding, type Finding } from "../check/findings.js";
import { imageBytes } from "../read/pass-two.js";
import { LineFlag } from "../read/salvage.js";
import type { Session } from "../session/session.js";
import { rewriteLines, type RewriteResult } from "./rewrite.js";
import { CURRENT_VERSION, type AnyEntry } from "../schema/types.js";
import { formatBytes } from "../common/units.js";
import { quickFindings } from "../check/validate.js";

/**
 * `slim`: the payloads no branch's context holds, replaced by short placeholders. An entry is
 * live when the context pi builds for at least one leaf holds its message (or, for a compaction
 * or branch summary, its summary); a live entry is copied byte for byte. In an entry that is
 * behind, every string of `minSize` bytes or more in what it carries (message text, thinking and
 * its signature, tool-call arguments, tool output and details, shell output, custom content, a
 * summary) becomes a placeholder saying what was there and how big, and every image a text block
 * naming it: the entry keeps its id, parent, type, timestamp, role, tool name and call id, model,
 * usage and cost, and every value keeps its type. Which entries are live follows pi 1.6's
 * `buildSessionContext` (see `liveNodes`); the tests prove it against pi for every leaf.
 */

export const DEFAULT_MIN_SIZE = 1024;

/** What a slim saves, by kind of payload. */
export const SLIM_KINDS = ["toolOutput", "images", "thinking", "text", "summaries", "other"] as const;
export type SlimKind = (typeof SLIM_KINDS)[number];

export type SlimPlan =
  | { status: "refused"; reason: string; findings: Finding[] }
  | {
      status: "ready";
      /** Per node: 1 when some leaf's context holds it. */
      live: Uint8Array;
      liveCount: number;
    };

/**
 * Whether the file can be slimmed, and which entries are live. A corrupted file, a v1/v2 file and
 * a file with a parent cycle are refused: the first needs `repair`, the second `migrate`.
 */
export function planSlim(session: Session): SlimPlan {
  const findings = quickFindings(session);
  if (session.size > 0 && !session.isSessionLike) return { status: "refused", reason: `${findings[0]!.message}; nothing to slim`, findings };
  if (!session.header || session.size === 0) {
    const first = findings.find((f) => f.severity === "error") ?? finding("header-missing", "no session header", { line: 1 });
    return { status: "refused", reason: `${first.line ? `line ${first.line}: ` : ""}${first.message}; run \`pi-session repair\` first`, findings };
  }
  if (session.version > CURRENT_VERSION) return { status: "refused", reason: `version ${session.version} is newer than this tool's ${CURRENT_VERSION}; upgrade pi-session`, findings };
  if (session.version < CURRENT_VERSION) return { status: "refused", reason: `a v${session.version} file: run \`pi-session migrate\` first (slim works on v3)`, findings };
  const first = findings.find((f) => f.severity === "error" && !f.causedBy);
  if (first) {
    return { status: "refused", reason: `damaged (line ${first.line ?? 1}: ${first.message}); run \`pi-session repair\` first`, findings };
  }
  const live = liveNodes(session);
  let liveCount = 0;
  for (let n = 0; n < live.length; n++) if (live[n] && carriesPayload(session.nodeType(n))) liveCount++;
  return { status: "ready", live, liveCount };
}

/**
 * The nodes some leaf's context holds as they are written (`sessionSends`, the rule `check` and
 * `repair` judge by too; an entry every such leaf sees omitted or replaced by a context edit is not:
 * `editedAway`).
 */
export function liveNodes(session: Session): Uint8Array {
  const { sent } = sessionSends(session);
  const away = editedAway(session);
  for (let n = 0; n < sent.length; n++) if (away[n]) sent[n] = 0;
  return sent;
}

/** What a slim did (or, for a dry run, would do). */
export interface SlimResult extends RewriteResult {
  bytesBefore: number;
  bytesAfter: number;
  /** Bytes saved by kind: each line's saving shared among the kinds of the payloads it lost, by their sizes. */
  saved: Record<SlimKind, number>;
  entriesSlimmed: number;
  /** Entries whose message or summary some leaf's context holds (copied as they are). */
  liveEntries: number;
}

/**
 * Writes the slimmed file through `write` (or, without it, only works out what would change), in
 * one pass over the lines: live lines, and lines of entries behind that hold nothing of `minSize`
 * bytes and no image, are copied as they are; the rest are parsed, slimmed and written again.
 */
export function writeSlim(session: Session, plan: Extract<SlimPlan, { status: "ready" }>, minSize: number, write: ((chunk: string | Uint8Array) => void) | undefined): SlimResult {
  const saved = Object.fromEntries(SLIM_KINDS.map((k) => [k, 0])) as Record<SlimKind, number>;
  let entriesSlimmed = 0;
  let bytesAfter = 0;
  const slimmer = new Slimmer(minSize, saved);
  const counted = (chunk: string | Uint8Array) => {
    bytesAfter += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.length;
    write?.(chunk);
  };
  // Lines come in file order, as nodes are numbered: the node of a line is found by walking on.
  let next = 0;
  const nodes = session.tree.size;
  const result = rewriteLines(
    session.source,
    (index, bytes) => {
      while (next < nodes && session.nodeLine(next) - 1 < index) next++;
      const node = next < nodes && session.nodeLine(next) - 1 === index ? next : -1;
      if (node < 0 || plan.live[node]) return null;
      if (!carriesPayload(session.nodeType(node))) return null;
      // nothing of minSize bytes and no image: nothing to slim, no parse
      if (bytes.length < minSize && bytes.indexOf(IMAGE) < 0) return null;
      const entry = JSON.parse(bytes.toString((session.nodeFlags(node) & LineFlag.PLAIN_TEXT) !== 0 ? "latin1" : "utf8")) as AnyEntry;
      if (!slimmer.entry(entry)) return null;
      entriesSlimmed++;
      const cr = bytes.length > 0 && bytes[bytes.length - 1] === 13 ? "\r" : "";
      const line = JSON.stringify(entry) + cr;
      slimmer.settle(bytes.length - Buffer.byteLength(line));
      return [line];
    },
    counted,
  );
  const bytesBefore = session.size;
  return { ...result, bytesBefore, bytesAfter, saved, entriesSlimmed, liveEntries: plan.liveCount };
}

const IMAGE = Buffer.from('"image"');

/** The entry types whose message or summary a context holds: the only ones slimmed. */
function carriesPayload(type: string | undefined): boolean {
  return type === "message" || type === "custom_message" || type === "compaction" || type === "branch_summary";
}

const PLACEHOLDER_START = "[removed by pi-session slim: ";

/** The placeholder of a payload: what it was and how big. */
function placeholder(what: string, bytes: number): string {
  return `${PLACEHOLDER_START}${what}, ${formatBytes(bytes)}]`;
}

/**
 * Replaces an entry's payloads in place, counting what it saves: a line's saving (its bytes before
 * less after) is shared among the kinds of the payloads it lost, by their sizes (so the kinds add
 * up to the bytes saved, escapes and all, without re-encoding a payload to measure it).
 */
class Slimmer {
  private changed = false;
  /** The current entry's payloads' sizes (less their placeholders'), by kind. */
  private readonly pending = new Map<SlimKind, number>();

  constructor(
    private readonly minSize: number,
    private readonly saved: Record<SlimKind, number>,
  ) {}

  /** Slims an entry that is behind; true when anything changed. */
  entry(e: AnyEntry): boolean {
    this.changed = false;
    this.pending.clear();
    const o = e as Record<string, unknown>;
    switch (e.type) {
      case "message": {
        const m = o.message as Record<string, unknown> | undefined;
        if (!m || typeof m !== "object") break;
        const role = m.role;
        const output = role === "toolResult";
        if ("content" in m) m.content = this.content(m.content, output ? "toolOutput" : "text", output ? "tool output" : "text");
        if ("details" in m) m.details = this.strings(m.details, output ? "toolOutput" : "other", "details");
        if (role === "bashExecution" && "output" in m) m.output = this.string(m.output, "toolOutput", "shell output");
        if (role === "system" && m.sections && typeof m.sections === "object") m.sections = this.strings(m.sections, "text", "system prompt");
        break;
      }
      case "custom_message":
        if ("content" in o) o.content = this.content(o.content, "text", "text");
        if ("details" in o) o.details = this.strings(o.details, "other", "details");
        break;
      case "compaction":
      case "branch_summary":
        if ("summary" in o) o.summary = this.string(o.summary, "summaries", "summary");
        break;
    }
    return this.changed;
  }

  /** A string of `minSize` bytes or more, as its placeholder; anything else as it is. */
  private string(v: unknown, kind: SlimKind, what: string): unknown {
    // (a placeholder is never slimmed again: a second slim changes nothing)
    if (typeof v !== "string" || v.length * 3 < this.minSize || v.startsWith(PLACEHOLDER_START)) return v;
    const bytes = Buffer.byteLength(v);
    const p = placeholder(what, bytes);
    // (a payload shorter than its placeholder stays: under a small --min-size, it would grow)
    if (bytes < this.minSize || p.length >= bytes) return v;
    this.count(kind, bytes, p.length);
    return p;
  }

  /** Every string in a value (an object's, an array's) slimmed as `string` does; the value keeps its shape. */
  private strings(v: unknown, kind: SlimKind, what: string): unknown {
    if (typeof v === "string") return this.string(v, kind, what);
    if (Array.isArray(v)) return v.map((x) => this.strings(x, kind, what));
    if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      for (const key of Object.keys(o)) o[key] = this.strings(o[key], kind, what);
    }
    return v;
  }

  /** A message's content: a string, or blocks (text, thinking, tool calls, images). */
  private content(c: unknown, kind: SlimKind, what: string): unknown {
    if (typeof c === "string") return this.string(c, kind, what);
    if (!Array.isArray(c)) return c;
    return c.map((block: unknown) => {
      if (!block || typeof block !== "object") return block;
      const b = block as Record<string, unknown>;
      switch (b.type) {
        case "text":
          if ("text" in b) b.text = this.string(b.text, kind, what);
          return b;
        case "thinking": {
          if (typeof b.thinking === "string" && b.thinking.startsWith(PLACEHOLDER_START)) return b;
          const thinking = typeof b.thinking === "string" ? Buffer.byteLength(b.thinking) : 0;
          const signature = typeof b.thinkingSignature === "string" ? Buffer.byteLength(b.thinkingSignature) : 0;
          const p = placeholder("thinking", thinking + signature);
          if (thinking + signature < this.minSize || p.length >= thinking + signature) return b;
          const out: Record<string, unknown> = { ...b, thinking: p };
          if (typeof b.thinkingSignature === "string") out.thinkingSignature = "";
          this.count("thinking", thinking + signature, p.length);
          return out;
        }
        case "toolCall":
          if ("arguments" in b) b.arguments = this.strings(b.arguments, "other", "tool-call arguments");
          return b;
        case "image": {
          const data = typeof b.data === "string" ? b.data : "";
          const mime = typeof b.mimeType === "string" ? b.mimeType : "image";
          const out = { type: "text", text: placeholder(mime, imageBytes(b)) };
          this.count("images", data.length, out.text.length);
          return out;
        }
        default:
          return b;
      }
    });
  }

  /** Notes a payload of `size` bytes replaced by `placeholder` bytes. */
  private count(kind: SlimKind, size: number, placeholder: number): void {
    this.pending.set(kind, (this.pending.get(kind) ?? 0) + Math.max(0, size - placeholder));
    this.changed = true;
  }

  /** Shares the bytes the entry's line saved among its payloads' kinds (the largest takes what rounding leaves). */
  settle(lineSaved: number): void {
    let total = 0;
    for (const v of this.pending.values()) total += v;
    let given = 0;
    let largest: SlimKind = "other";
    let most = -1;
    for (const [kind, v] of this.pending) {
      const share = total > 0 ? Math.floor((lineSaved * v) / total) : 0;
      this.saved[kind] += share;
      given += share;
      if (v > most) {
        most = v;
        largest = kind;
      }
    }
    this.saved[largest] += lineSaved - given;
  }
}
