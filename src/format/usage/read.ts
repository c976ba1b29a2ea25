import { LineFlag, parseLine } from "../read/salvage.js";
import { idHash, idHashHex } from "../common/hash.js";
import { fieldsOf, idText, lendFields, scanLine, Verdict, type ScanFields } from "../read/scanner.js";
import { Session } from "../session/session.js";
import { ChunkSearch } from "../read/chunk-search.js";
import { forEachLine, type ByteSource } from "../read/source.js";
import { simdFind } from "../read/wasm/simd.js";
import { type AnyEntry, type FileKind, type SessionHeader } from "../schema/types.js";
import { v1FirstId } from "../schema/migrations.js";
import { messageUsageKey, UsageCollector, usageAmounts, type FileUsage, type UsageAmounts } from "./records.js";
import type { PriceOf } from "./prices.js";

/**
 * One file's usage records (`usage`), as pi reads the file: the records of the lines pi parses
 * (the header first, else nothing: pi opens a file whose first record is no header as empty), and
 * what the salvage rule finds on the lines it skips, reported apart.
 *
 * Two ways, one answer. The reference is `Session` (pass one, skimming only what may carry
 * usage). The fast way reads only the lines that can hold usage: a line without the bytes
 * `"usage"` (nor `\u`, with which a key may spell them) holds no usage key, so it is neither
 * scanned nor parsed: on a store, half the bytes. It stands aside for the reference whenever a
 * line it reads is not a record pi parses (a torn or fused line, whose neighbours the salvage rule
 * reads too), when line 1 is no header, when two lines of a v1 file may have drawn the same id
 * (`V1Ids`), and when it found no entry with an id (what the file is then takes every line). Tests hold the two equal on every fixture, corpus file and corruption.
 */

export interface UsageRead {
  header: SessionHeader | null;
  kind: FileKind;
  usage: FileUsage;
}

const USAGE_KEY = Buffer.from('"usage"');
const CACHE_WRITE_1H = Buffer.from('"cacheWrite1h"');
const ESCAPE_U = Buffer.from("\\u");
/** Entry types that may carry usage besides messages. */
const USAGE_TYPES = new Set(["usage", "compaction", "branch_summary"]);

/** Thrown inside the fast read to hand the file to the reference. */
const STAND_ASIDE = Symbol("stand aside");

/** `priceOf`: the prices a request with no cost recorded is estimated by (`prices.ts`; none: not estimated). */
export function readFileUsage(source: ByteSource, priceOf?: PriceOf): UsageRead {
  return fastUsage(source, priceOf) ?? referenceUsage(source, priceOf);
}

/** The reference: the session reader, skimming only what may carry usage. */
export function referenceUsage(source: ByteSource, priceOf?: PriceOf): UsageRead {
  const collector = new UsageCollector(64, priceOf);
  const session = Session.open(source, {
    skim: true,
    usageOnly: true,
    onRecord: (value, record) => collector.onRecord(value, record),
    onSkipped: (value, line) => collector.onSkipped(value, line),
  });
  const header = session.header;
  // pi opens a file whose first record is not a header with a string id as empty (a header behind
  // a byte-order mark is no record to pi: JSON.parse refuses the mark)
  const h = session.headerRecord;
  const readable = header !== null && typeof header.id === "string" && h !== null && h.line === session.firstRecordLine && !(h.flags & LineFlag.BOM);
  return { header, kind: session.size === 0 ? "other" : session.fileKind, usage: collector.result(readable) };
}

/** The first `"usage"` or `\u` that starts in `chunk[from..limit)`, or -1. */
function find(chunk: Buffer, from: number, limit: number): number {
  const fast = simdFind(chunk, from, limit);
  if (fast !== -2) return fast;
  const view = chunk.subarray(from, Math.min(chunk.length, limit + USAGE_KEY.length - 1));
  const k = view.indexOf(USAGE_KEY);
  const e = view.subarray(0, k < 0 ? view.length : k + 1).indexOf(ESCAPE_U);
  const first = e >= 0 ? e : k;
  return first >= 0 && first < limit - from ? from + first : -1;
}

/**
 * A v1 file's entry ids, as the session reader gives them (`V1IdAllocator`): a line's id is the
 * first digest of the session's id and the line's number, unless an entry before it took that id
 * already. Which lines are entries the fast read does not know (it scans only the lines with
 * usage), so every line that is not blank is taken to be one: where two of those lines' first
 * digests are the same, an id may have been drawn again, and the read stands aside for the
 * reference. Otherwise every entry's id is its line's first digest, whichever lines are entries.
 */
class V1Ids {
  private readonly seen = new Set<string>();
  private readonly ids = new Map<number, string>();

  constructor(private readonly sessionId: string) {}

  /** Line `line` (`chunk[start..end)`) read: its first digest noted, unless it is blank. */
  see(chunk: Buffer, start: number, end: number, line: number): void {
    let k = start;
    while (k < end && (chunk[k] === 0x20 || chunk[k] === 0x09 || chunk[k] === 0x0d || chunk[k] === 0x0a)) k++;
    if (k === end) return;
    const id = v1FirstId(this.sessionId, line);
    if (this.seen.has(id)) throw STAND_ASIDE;
    this.seen.add(id);
    this.ids.set(line, id);
  }

  /** The id of the entry on line `line` (seen). */
  of(line: number): string {
    return this.ids.get(line)!;
  }
}

/** Bytes a session holds a usage record, about (in ../shared/corpus, 2-4 KB): tables are made for the file's size at the start. */
const BYTES_A_RECORD = 3072;

function fastUsage(source: ByteSource, priceOf?: PriceOf): UsageRead | undefined {
  if (source.size === 0) return undefined;
  return lendFields((fields) => fastUsageWith(source, fields, priceOf));
}

function fastUsageWith(source: ByteSource, fields: ScanFields, priceOf?: PriceOf): UsageRead | undefined {
  const collector = new UsageCollector(source.size / BYTES_A_RECORD, priceOf);
  const hits = new ChunkSearch(find, (chunk, at) => (chunk[at] === 0x5c ? ESCAPE_U.length : USAGE_KEY.length));
  const amounts: UsageAmounts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };
  let viewed: Buffer | undefined;
  let view: Uint8Array = new Uint8Array(0);
  let header: SessionHeader | undefined;
  // (a v1 file: each line's id, as the session reader gives them, where no two lines' first ids collide)
  let v1: V1Ids | undefined;
  try {
    forEachLine(source, (chunk, start, end, line) => {
      if (line === 1) {
        if (chunk[start] === 0xef && chunk[start + 1] === 0xbb && chunk[start + 2] === 0xbf) throw STAND_ASIDE;
        const { value } = parseLine(chunk.subarray(start, end), true);
        const h = value as SessionHeader | undefined;
        if (!h || typeof h !== "object" || h.type !== "session" || typeof h.id !== "string") throw STAND_ASIDE;
        if (!((typeof h.version === "number" ? h.version : 1) >= 2)) v1 = new V1Ids(h.id);
        header = h;
        return;
      }
      if (v1 !== undefined) v1.see(chunk, start, end, line);
      if (!hits.within(chunk, start, end)) return;
      const verdict = scanLine(chunk, fields, start, end, true);
      if (verdict === Verdict.Valid) {
        if (!fields.object) return;
        const type = fields.type;
        const id = () => (v1 !== undefined ? v1.of(line) : idText(fields));
        if (type === "message" && fields.usageStart >= 0) {
          // (the whole line when `responseModel` is no string: the scanner keeps only a string)
          if (fields.responseModelKind === 2) return collector.onRecord(JSON.parse(chunk.toString("utf8", start, end)) as AnyEntry, { id: id(), time: fields.time });
          const key = messageUsageKey(fields.role, fields.provider, fields.model, fields.responseModel);
          if (key === undefined) return;
          const from = start + fields.usageStart;
          const to = start + fields.usageEnd;
          // (a plain Uint8Array view: element reads on a Buffer were several times slower here)
          if (chunk !== viewed) view = new Uint8Array((viewed = chunk).buffer, chunk.byteOffset, chunk.length);
          const text = v1 !== undefined ? v1.of(line) : fields.idHex >= 0 ? undefined : idText(fields);
          const entryKey = v1 === undefined && fields.idHex >= 0 ? idHashHex(fields.idHex) : text !== undefined ? idHash(text) : -1;
          let parsed: { cacheWrite1h?: unknown } | undefined;
          const used = readUsageAmounts(view, chunk, from, to, amounts) ? amounts : usageAmounts((parsed = JSON.parse(chunk.toString("latin1", from, to))));
          // (an hour-long cache write is priced apart, and only a request with no cost recorded is priced: only then is it looked for)
          const priced = priceOf !== undefined && used.cost === 0 && typeof fields.provider === "string" && typeof fields.model === "string";
          if (priced && parsed === undefined && chunk.subarray(from, to).includes(CACHE_WRITE_1H)) parsed = JSON.parse(chunk.toString("latin1", from, to));
          const long = parsed?.cacheWrite1h;
          const pricing = priced ? { provider: fields.provider!, model: fields.model!, ...(typeof long === "number" && long > 0 ? { cacheWrite1h: long } : {}) } : undefined;
          collector.add(key, used, entryKey, fields.time, pricing);
        } else if (type !== undefined && USAGE_TYPES.has(type)) {
          collector.onRecord(JSON.parse(chunk.toString("utf8", start, end)) as AnyEntry, { id: id(), time: fields.time });
        }
        return;
      }
      if (verdict === Verdict.Invalid) throw STAND_ASIDE;
      // deferred (NULs, escaped keys, a line pieced together across reads): JSON.parse decides
      const { value } = parseLine(chunk.subarray(start, end));
      if (value === undefined) throw STAND_ASIDE;
      if (!value || typeof value !== "object" || Array.isArray(value)) return;
      fieldsOf(value as Record<string, unknown>, fields);
      collector.onRecord(value as AnyEntry, { id: v1 !== undefined ? v1.of(line) : typeof (value as { id?: unknown }).id === "string" ? (value as { id: string }).id : undefined, time: fields.time });
    });
  } catch (error) {
    if (error === STAND_ASIDE) return undefined;
    throw error;
  }
  // What the file is (`fileKindOf`) takes an entry with an id: one with usage is one. Without
  // one (a session with no answer yet, pi's `--mode json` output behind a header), the reference says.
  if (!collector.anyId) return undefined;
  return { header: header!, kind: "session", usage: collector.result(true) };
}

/** Keys of a usage object this reads, as bytes, by length; the values they fill. */
const AMOUNT_KEYS: Array<[Uint8Array, keyof UsageAmounts] | undefined> = [];
for (const k of ["input", "output", "cacheRead", "cacheWrite"] as const) AMOUNT_KEYS[k.length] = [Buffer.from(k), k];

/** The amount the key at `key` names, if any (keys are told apart by length first: `totalTokens`, `reasoning` and the like cost one comparison). */
function amountField(reader: ObjectReader, key: number): keyof UsageAmounts | undefined {
  const candidate = AMOUNT_KEYS[reader.keyLength(key)];
  return candidate && reader.keyIs(key, candidate[0]) ? candidate[1] : undefined;
}
const COST = Buffer.from("cost");

const TOTAL = Buffer.from("total");

/**
 * `usageAmounts(JSON.parse(bytes[start..end)))` for a usage object as pi writes it (numbers, and
 * `cost`, an object of numbers), read from the bytes without making an object or a string of
 * them (a whole number is read digit by digit; another, by `Number`). False for anything else (a
 * string or array value, an escaped key, deeper nesting): the caller parses that.
 */
function readUsageAmounts(bytes: Uint8Array, buffer: Buffer, start: number, end: number, out: UsageAmounts): boolean {
  out.input = out.output = out.cacheRead = out.cacheWrite = out.cost = 0;
  const reader = READER.reset(bytes, buffer, start, end);
  for (let key = reader.firstKey(); key >= 0; key = reader.nextKey()) {
    if (reader.keyIs(key, COST)) {
      if (reader.opens()) {
        // the last `total` counts; a cost without one is none
        let total = 0;
        const inner = reader.enter();
        for (let k = inner; k >= 0; k = reader.nextKey()) {
          const wanted = reader.keyIs(k, TOTAL);
          const v = reader.number(wanted);
          if (Number.isNaN(v)) return false;
          if (wanted) total = v;
        }
        if (!reader.leave()) return false;
        out.cost = Number.isFinite(total) ? total : 0;
      } else {
        if (Number.isNaN(reader.number(false))) return false;
        out.cost = 0;
      }
      continue;
    }
    const field = amountField(reader, key);
    const v = reader.number(field !== undefined);
    if (Number.isNaN(v)) return false;
    if (field !== undefined) out[field] = Number.isFinite(v) ? v : 0;
  }
  return reader.ok;
}

/**
 * A cursor over a JSON object of numbers in bytes (valid JSON: the scanner checked the line). Keys
 * are byte ranges; `ok` turns false on anything it does not read (then the caller parses).
 */
class ObjectReader {
  ok = true;
  private b: Uint8Array = new Uint8Array(0);
  /** The same bytes as a Buffer, for the text of a number that is not whole. */
  private buffer: Buffer = Buffer.alloc(0);
  private i = 0;
  private end = 0;
  private keyEnd = 0;
  private depth = 0;

  /** Over `b[start..end)` afresh (one reader serves every record: a record read is no allocation). */
  reset(b: Uint8Array, buffer: Buffer, start: number, end: number): this {
    this.b = b;
    this.buffer = buffer;
    this.i = start;
    this.end = end;
    this.ok = true;
    this.keyEnd = 0;
    this.depth = 0;
    return this;
  }

  private ws(): void {
    const b = this.b;
    let i = this.i;
    while (i < this.end && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09)) i++;
    this.i = i;
  }

  /** Inside `{`: the first key's start, or -1 (none, or not read). */
  firstKey(): number {
    this.ws();
    if (this.b[this.i] !== 0x7b) return this.fail();
    this.i++;
    return this.key();
  }

  /** After a value: the next key's start, or -1 at the object's close (or not read). */
  nextKey(): number {
    this.ws();
    const c = this.b[this.i];
    if (c === 0x2c) {
      this.i++;
      return this.key();
    }
    if (c === 0x7d) {
      this.i++;
      if (this.depth > 0) return -1;
      this.ws();
      if (this.i !== this.end) this.ok = false;
      return -1;
    }
    return this.fail();
  }

  private key(): number {
    this.ws();
    const b = this.b;
    if (b[this.i] === 0x7d) {
      this.i++;
      return -1;
    }
    if (b[this.i] !== 0x22) return this.fail();
    const start = ++this.i;
    while (this.i < this.end && b[this.i] !== 0x22) {
      if (b[this.i] === 0x5c) return this.fail();
      this.i++;
    }
    this.keyEnd = this.i++;
    this.ws();
    if (b[this.i] !== 0x3a) return this.fail();
    this.i++;
    this.ws();
    return start;
  }

  keyLength(start: number): number {
    return this.keyEnd - start;
  }

  keyIs(start: number, name: Uint8Array): boolean {
    if (this.keyEnd - start !== name.length) return false;
    for (let k = 0; k < name.length; k++) if (this.b[start + k] !== name[k]) return false;
    return true;
  }

  /** Whether the value is an object. */
  opens(): boolean {
    return this.b[this.i] === 0x7b;
  }

  /** Into the object value: its first key, or -1. */
  enter(): number {
    if (this.depth > 0) return this.fail();
    this.depth++;
    this.i++;
    return this.key();
  }

  /** Out of it (after its close); false when it was not read whole. */
  leave(): boolean {
    this.depth--;
    return this.ok;
  }

  /** The number value (0 when not `wanted`: skipped); NaN when the value is not a number. */
  number(wanted: boolean): number {
    const b = this.b;
    const start = this.i;
    let v = 0;
    let whole = true;
    let i = start;
    for (; i < this.end; i++) {
      const d = b[i]!;
      if (d >= 0x30 && d <= 0x39) v = v * 10 + (d - 0x30);
      else if (d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d) whole = false;
      else break;
    }
    if (i === start) {
      this.ok = false;
      return NaN;
    }
    this.i = i;
    if (!wanted) return 0;
    return whole && i - start < 16 ? v : Number(latin1(this.buffer, start, i));
  }

  private fail(): number {
    this.ok = false;
    return -1;
  }
}

const READER = new ObjectReader();

/** Node's own `latin1Slice` where it has one (no argument checks: a number's text per request), else `toString`. */
const latin1: (b: Buffer, start: number, end: number) => string =
  typeof (Buffer.prototype as unknown as { latin1Slice?: unknown }).latin1Slice === "function"
    ? (b, start, end) => (b as unknown as { latin1Slice(s: number, e: number): string }).latin1Slice(start, end)
    : (b, start, end) => b.toString("latin1", start, end);
