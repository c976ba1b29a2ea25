/*
 * agent-core's storage format 4 (README.md beside this file): a session as agent-core 0.85-0.99
 * keeps it, whether in a JSONL file (a header line, then one transaction a line) or in the SQLite
 * backend's tables. What a reader needs of it, replayed in order: the conversation's entries, the
 * current values (branch tips, labels, the session's name, operations in progress) and the usage
 * ledger.
 */

/** The first line of a format-4 JSONL file. */
export interface Format4Header {
  v: 4;
  kind: "header";
  id: string;
  storageVersion: number;
  createdAt: number;
  cwd: string;
  parentSessionId?: string;
  legacyParentSessionPath?: string;
  nextSeq?: number;
}

/** An entry of the conversation tree (agent-core's `Entry`: message, compaction, branch_summary, custom). */
export interface Format4Entry {
  id: string;
  parentId: string | null;
  seq: number;
  /** Milliseconds since the epoch. */
  timestamp: number;
  type: string;
  [field: string]: unknown;
}

/** A row of the usage ledger: what one request (or an adjustment) used. */
export interface LedgerRow {
  id: string;
  seq: number;
  usage: unknown;
  entryId?: string;
  adjustment: boolean;
  details?: unknown;
}

/** A format-4 session, replayed: what every reader of it needs. */
export interface Format4Session {
  id: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** The agent's working directory (the SQLite backend keeps none unless its metadata says). */
  cwd: string | null;
  parentSessionId: string | null;
  legacyParentSessionPath: string | null;
  /** In commit order (by `seq`): a parent always before its children. */
  entries: Format4Entry[];
  /** Branch name -> its tip (null: before the first entry). */
  tips: Map<string, string | null>;
  /** Entry id -> its label. */
  labels: Map<string, string>;
  name: string | undefined;
  ledger: LedgerRow[];
  /** Operations a crash or a kill left in progress (`pi.op.meta`): their ids and where they stood. */
  openOperations: Array<{ id: string; at: string | undefined }>;
  /** Entry id -> the line of the JSONL file that wrote it (a database's entries have none). */
  lineOf: Map<string, number>;
  /** Lines (JSONL) that are not a transaction agent-core would replay: their 1-based numbers and why. */
  damaged: Array<{ line: number; reason: string }>;
  /** A last line cut short (a write the process did not finish): agent-core drops it. */
  torn: boolean;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isCount = (v: unknown, min: number): v is number => Number.isSafeInteger(v) && (v as number) >= min;

/** Whether `value` is a format-4 header as agent-core 0.99's codec accepts it. */
function isFormat4Header(value: unknown): value is Format4Header {
  return (
    isRecord(value) &&
    value.kind === "header" &&
    value.v === 4 &&
    typeof value.id === "string" &&
    typeof value.cwd === "string" &&
    isCount(value.storageVersion, 1) &&
    isCount(value.createdAt, 0) &&
    (value.nextSeq === undefined || isCount(value.nextSeq, 1)) &&
    (value.parentSessionId === undefined || typeof value.parentSessionId === "string") &&
    (value.legacyParentSessionPath === undefined || typeof value.legacyParentSessionPath === "string")
  );
}

/** What a first line is: a format-4 header, or not (a pi session's, anything else). Cheap for every other file: a prefix test first. */
export function format4Header(firstLine: string): Format4Header | undefined {
  if (!/^\s*\{/.test(firstLine) || !firstLine.includes('"header"')) return undefined;
  try {
    const value: unknown = JSON.parse(firstLine);
    return isFormat4Header(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The session's state as its writes build it (agent-core's `InMemoryStorageState`, only what a reader needs). */
export class Replay {
  private readonly byId = new Map<string, Format4Entry>();
  readonly entries: Format4Entry[] = [];
  readonly tips = new Map<string, string | null>();
  readonly labels = new Map<string, string>();
  name: string | undefined;
  readonly ledger: LedgerRow[] = [];
  private readonly operations = new Map<string, string | undefined>();
  readonly lineOf = new Map<string, number>();
  /** The line of the file the writes now applied come from (0: none, a database). */
  line = 0;

  /** One committed write; throws, saying why, where agent-core would refuse it. */
  apply(write: unknown): void {
    if (!isRecord(write) || !isCount(write.seq, 1)) throw new Error("a write without a sequence number");
    switch (write.kind) {
      case "entry": {
        const { kind: _kind, ...entry } = write;
        if (typeof entry.id !== "string" || typeof entry.type !== "string" || !isCount(entry.timestamp, 0)) throw new Error("an entry without an id, a type or a time");
        if (entry.parentId !== null && (typeof entry.parentId !== "string" || !this.byId.has(entry.parentId))) throw new Error(`entry ${entry.id}'s parent ${String(entry.parentId)} is not an earlier entry`);
        if (this.byId.has(entry.id)) throw new Error(`entry id ${entry.id} again`);
        const e = entry as Format4Entry;
        this.byId.set(e.id, e);
        this.entries.push(e);
        if (this.line > 0) this.lineOf.set(e.id, this.line);
        return;
      }
      case "usage":
        if (typeof write.id !== "string") throw new Error("a usage row without an id");
        this.ledger.push({ id: write.id, seq: write.seq as number, usage: write.usage, ...(typeof write.entryId === "string" ? { entryId: write.entryId } : {}), adjustment: write.adjustment === true, ...(write.details !== undefined ? { details: write.details } : {}) });
        return;
      case "value":
        if (typeof write.namespace !== "string" || typeof write.key !== "string") throw new Error("a value without an address");
        if (write.op === "set") this.setValue(write.namespace, write.key, write.value);
        else if (write.op === "delete") this.setValue(write.namespace, write.key, undefined);
        else throw new Error(`a value operation ${String(write.op)}`);
        return;
      case "list":
        if (write.op !== "append" && write.op !== "delete") throw new Error(`a list operation ${String(write.op)}`);
        // (lists hold operation state: an assistant's frames while it streams; nothing a reader shows)
        return;
      default:
        throw new Error(`a write of kind ${String(write.kind)}`);
    }
  }

  /** A value set (`undefined`: deleted): the ones a reader needs, of agent-core's namespaces (`values.js`). */
  setValue(namespace: string, key: string, value: unknown): void {
    switch (namespace) {
      case "pi.branch.tip":
        if (value === undefined) this.tips.delete(key);
        else this.tips.set(key, typeof value === "string" ? value : null);
        return;
      case "pi.entry.label":
        if (typeof value === "string" && value !== "") this.labels.set(key, value);
        else this.labels.delete(key);
        return;
      case "pi.session.name":
        this.name = typeof value === "string" && value !== "" ? value : undefined;
        return;
      case "pi.op.meta":
        if (value === undefined) this.operations.delete(key);
        else this.operations.set(key, this.operations.get(key));
        return;
      case "pi.op.state":
        if (value !== undefined && this.operations.has(key)) this.operations.set(key, isRecord(value) && typeof value.at === "string" ? value.at : undefined);
        return;
      default:
        return;
    }
  }

  /** Entry `id`, if the session has it. */
  entry(id: string): Format4Entry | undefined {
    return this.byId.get(id);
  }

  session(facts: Pick<Format4Session, "id" | "createdAt" | "cwd" | "parentSessionId" | "legacyParentSessionPath" | "damaged" | "torn">): Format4Session {
    return {
      ...facts,
      entries: this.entries,
      tips: this.tips,
      labels: this.labels,
      name: this.name,
      ledger: this.ledger,
      lineOf: this.lineOf,
      openOperations: [...this.operations].map(([id, at]) => ({ id, at })),
    };
  }
}

/**
 * A format-4 JSONL file's session: the header, then each complete line a transaction (one write,
 * or an array of them) replayed in order. A last line without its newline is a write the process
 * did not finish: agent-core drops it, and so does this. A line agent-core would refuse (not JSON,
 * a write it does not know, a parent not yet written) is passed over and said (`damaged`), where
 * agent-core refuses the whole file: what the rest holds is still read.
 */
export function readFormat4Jsonl(text: string): Format4Session {
  const end = text.indexOf("\n");
  const header = format4Header(end < 0 ? text : text.slice(0, end));
  if (!header) throw new Error("not agent-core's storage format 4 (its first line is no format-4 header)");
  const torn = !text.endsWith("\n");
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "" || torn) lines.pop();
  const replay = new Replay();
  const damaged: Format4Session["damaged"] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      damaged.push({ line: i + 1, reason: "not JSON" });
      continue;
    }
    replay.line = i + 1;
    try {
      for (const write of Array.isArray(value) ? value : [value]) replay.apply(write);
    } catch (error) {
      damaged.push({ line: i + 1, reason: (error as Error).message });
    }
  }
  return replay.session({
    id: header.id,
    createdAt: header.createdAt,
    cwd: header.cwd,
    parentSessionId: header.parentSessionId ?? null,
    legacyParentSessionPath: header.legacyParentSessionPath ?? null,
    damaged,
    torn,
  });
}
