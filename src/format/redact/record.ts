import { formatBytes } from "../common/units.js";
import type { SessionDetector } from "./detector.js";
import type { Placeholders } from "./placeholder.js";

/**
 * Which strings of a record are read for secrets, and each secret replaced in it (README, "What
 * redact finds"). Every string and key is read, after JSON decoding, except what says how the
 * session hangs together or what no secret is: entry ids and their references, types, roles,
 * times, tool-call ids and tool names, models and providers, thinking signatures, image data.
 */

/** A record's own keys that are never read: its type, its ids and references, its time, what model and settings it names. */
const RECORD_KEPT = new Set(["type", "id", "parentId", "timestamp", "version", "targetId", "firstKeptEntryId", "fromId", "customType", "provider", "modelId", "thinkingLevel"]);

/** A message's keys that are never read: its role, the call it answers, its time, the API, model and response that made it, its usage. */
const MESSAGE_KEPT = new Set(["role", "toolCallId", "toolName", "timestamp", "api", "provider", "model", "responseId", "responseModel", "stopReason", "usage"]);

/** A content block's keys that are never read: its type and call id, signatures, an image's type (its data and a call's tool name by the block's type). */
const BLOCK_KEPT = new Set(["type", "id", "thinkingSignature", "textSignature", "signature", "redacted", "mimeType"]);

/** A string that is a file's data, `data:image/png;base64,…`: image data, never read. */
const DATA_URL = /^data:[\w.+-]+\/[\w.+-]+(?:;[\w.+-]+=[\w.+-]+)*;base64,[A-Za-z0-9+/=\s]*$/;

/** A secret found in a record: where (the field's path), what found it, what replaced it. Never the value. */
interface FieldFinding {
  /** The field's path in the record: `message.content[2].arguments.command`. */
  field: string;
  kind: string;
  rule: string;
  placeholder: string;
}

/** What reading a record came to: its findings (the record was changed where there are any) and images dropped. */
export interface RecordRedaction {
  findings: FieldFinding[];
  imagesDropped: number;
}

/** The text an image is replaced by with `--drop-images`. */
function droppedImage(block: Record<string, unknown>): string {
  const mime = typeof block.mimeType === "string" ? block.mimeType : "image";
  const bytes = typeof block.data === "string" ? Math.floor((block.data.length * 3) / 4) : 0;
  return `[image removed by pi-session redact: ${mime.replace(/[^\w./+-]/g, "")}, ${formatBytes(bytes)}]`;
}

/**
 * Reads every string of `record` (a line's JSON value, changed in place) for secrets and replaces
 * each by its placeholder; with `dropImages`, image blocks become a text block saying what was
 * there. Returns what was found, and `record` itself where it is a string (a line's value may be).
 */
export function redactRecord(record: unknown, detector: SessionDetector, placeholders: Placeholders, dropImages: boolean): RecordRedaction & { value: unknown } {
  const walk = new RecordWalk(detector, placeholders, dropImages);
  const value = walk.record(record);
  return { value, findings: walk.findings, imagesDropped: walk.imagesDropped };
}

class RecordWalk {
  readonly findings: FieldFinding[] = [];
  imagesDropped = 0;
  private readonly path: Array<string | number> = [];

  constructor(
    private readonly detector: SessionDetector,
    private readonly placeholders: Placeholders,
    private readonly dropImages: boolean,
  ) {}

  record(v: unknown): unknown {
    if (!isObject(v)) return this.any(v);
    return this.object(v, (key) => RECORD_KEPT.has(key), (key, x) => (key === "message" && isObject(x) ? this.message(x) : this.any(x, key)));
  }

  private message(m: Record<string, unknown>): unknown {
    return this.object(m, (key) => MESSAGE_KEPT.has(key), (key, x) => this.any(x, key));
  }

  /** A content block: its text, thinking and arguments read, what names and signs it kept. */
  private block(b: Record<string, unknown>): unknown {
    if (b.type === "image" && this.dropImages) {
      this.imagesDropped++;
      return { type: "text", text: droppedImage(b) };
    }
    return this.object(b, (key) => BLOCK_KEPT.has(key) || (key === "name" && b.type === "toolCall") || (key === "data" && b.type === "image"), (key, x) => this.any(x, key));
  }

  /** Any value: strings read, arrays and objects walked (an image's data kept); `key`: the key it is under (a `content` array holds blocks). */
  private any(v: unknown, key?: string): unknown {
    if (typeof v === "string") return this.text(v);
    if (Array.isArray(v)) {
      const blocks = key === "content";
      for (let i = 0; i < v.length; i++) {
        this.path.push(i);
        const x = v[i];
        v[i] = blocks && isObject(x) && typeof x.type === "string" ? this.block(x) : this.any(x);
        this.path.pop();
      }
      return v;
    }
    if (isObject(v)) return this.object(v, (k) => k === "data" && (v.type === "image" || "mimeType" in v), (k, x) => this.any(x, k));
    return v;
  }

  /**
   * An object's values walked (those `kept` says are not read left as they are), and its keys read
   * too (a key that holds a secret is replaced, the object's order kept).
   */
  private object(o: Record<string, unknown>, kept: (key: string) => boolean, walk: (key: string, value: unknown) => unknown): Record<string, unknown> {
    let renamed: Array<[string, string]> | undefined;
    for (const key of Object.keys(o)) {
      if (kept(key)) continue;
      const before = this.findings.length;
      const name = this.text(key);
      this.path.push(name);
      // (a key's own secrets are said at the key, by the name it now has)
      for (let k = before; k < this.findings.length; k++) this.findings[k]!.field = fieldPath(this.path);
      o[key] = walk(key, o[key]);
      this.path.pop();
      if (name !== key) (renamed ??= []).push([key, name]);
    }
    if (!renamed) return o;
    const names = new Map(renamed);
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [names.get(k) ?? k, x]));
  }

  /** A string with its secrets replaced (itself where it holds none). */
  private text(s: string): string {
    if (s.length < 4 || (s.length > 64 && DATA_URL.test(s))) return s;
    const matches = this.detector.find(s);
    if (matches.length === 0) return s;
    let out = "";
    let at = 0;
    for (const m of matches) {
      const placeholder = this.placeholders.of(m.kind, s.slice(m.start, m.end));
      out += s.slice(at, m.start) + placeholder;
      at = m.end;
      this.findings.push({ field: fieldPath(this.path), kind: m.kind, rule: m.rule, placeholder });
    }
    return out + s.slice(at);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `message.content[2].arguments.command`; a key that is no identifier in brackets, as JSON. */
function fieldPath(path: ReadonlyArray<string | number>): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(p)) out += out ? `.${p}` : p;
    else out += `[${JSON.stringify(p)}]`;
  }
  return out;
}
