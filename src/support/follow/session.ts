import { basename } from "node:path";
import type { CommandContext } from "../../command.js";
import { CliError, describeFsError } from "../../errors.js";
import { FINDING_INFO, type Severity } from "../../format/check/findings.js";
import { resolveEntry } from "../../format/context/branch.js";
import { LivePairing } from "../../format/context/live.js";
import { sessionName, shortSessionId } from "../../format/session/labels.js";
import { LineFlag } from "../../format/read/salvage.js";
import { BufferSource, type ByteSource } from "../../format/read/source.js";
import type { AnyEntry } from "../../format/schema/types.js";
import { Session, type OpenOptions } from "../../format/session/session.js";
import { readFileUsage } from "../../format/usage/read.js";
import { entryUsage, forEachRecord, UsageTotals, type EntryUsage } from "../../format/usage/records.js";
import { followSession, sessionIdOf, sessionStamp, storedUsage, type Follower } from "../../stores/index.js";
import { openSource, requireSession } from "../inputs/input.js";

/*
 * One session followed as it is written (`tail`; docs/commands.md, "tail"): its current branch's
 * last entries read once, then each entry as its store hands on its line, with what a watcher
 * needs said as it happens: each turn's usage and the session's running totals (as `usage` counts
 * them: every entry of the file, on every branch), a new branch, a compaction, a broken pairing
 * (as `check` names it, once), and the session rewritten, gone or replaced under its key.
 * Memory stays flat: what is held is the last entry's id, the totals, and the pairing rules' few
 * thousand calls (`LivePairing`).
 */

export interface TailEntry {
  session: FollowedSession;
  /** The 1-based line of its file (of its transcript's rows, for a database's). */
  line: number;
  entry: AnyEntry;
  /** What it used, where it carries usage. */
  usage?: EntryUsage;
}

export type NoticeKind = "branch" | "compaction" | "finding" | "rewritten" | "gone" | "moved" | "replaced" | "end" | "line";

export interface TailNotice {
  session: FollowedSession;
  notice: NoticeKind;
  message: string;
  line?: number;
  entryId?: string;
  /** A finding's code and severity (`finding`, `line`). */
  code?: string;
  severity?: Severity;
}

export interface TailEvents {
  entry(e: TailEntry): void;
  notice(n: TailNotice): void;
}

/** Entries of the branch before the first shown that the pairing rules are given (not shown): what the next result may answer is in the last few. */
const SEED = 200;

/** How many of the latest entries shown a session remembers by id (a rewrite shows what it holds that was not shown: ten thousand ids, under a megabyte). */
const SEEN = 10_000;

/** The ids of the entries shown (or passed over), the latest `SEEN` of them, oldest first. */
class SeenIds {
  private readonly ids = new Set<string>();

  add(id: string): void {
    this.ids.delete(id);
    this.ids.add(id);
    if (this.ids.size > SEEN) this.ids.delete(this.ids.values().next().value!);
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  get size(): number {
    return this.ids.size;
  }

  clear(): void {
    this.ids.clear();
  }
}

/** What was read of a session: the lines of its last whole line, and its bytes. */
interface ReadTo {
  lines: number;
  bytes: number;
  ino?: number;
}

/**
 * A session followed. `name` is what the user named it by, where that was not a path (an id, a
 * prefix, an OpenClaw key): when the session is gone or its key moves on, the name is looked up
 * again, and a key that now names another session is followed there.
 */
export class FollowedSession {
  totals = new UsageTotals();
  follower: Follower | null = null;
  /** Lines read (the next line is `line + 1`). */
  private line = 0;
  private lastId: string | null = null;
  /** The entries shown, or passed over to show the last `n` (what a rewrite does not show again). */
  private readonly seen = new SeenIds();
  private pairing = new LivePairing();
  /** A `gone` said already (said once, until the session is back). */
  private goneSaid = false;
  private replacedSaid = false;
  /** The session's name (its latest `session_info`), for `--all`'s prefix. */
  title: string | undefined;

  constructor(
    public path: string,
    private readonly name: string | undefined,
    private readonly events: TailEvents,
    private readonly ctx: Pick<CommandContext, "sessionDir" | "env" | "run">,
    private readonly resolve: (name: string) => string | undefined,
    /** Whether the totals are the whole session's (`usage`'s), else what came since it was first followed (`--all`: a store is not read whole to start). */
    private readonly wholeTotals = true,
    /** What its store calls it (an OpenClaw label), where it says. */
    private readonly storeLabel?: string,
    /** The session's bytes, where they come once and are not stored (standard input: nothing to follow). */
    private readonly bytes?: Buffer,
  ) {}

  /** A read of the session that takes its name (the latest `session_info`'s, as `ls` names it) as it goes. */
  private readonly withName: OpenOptions = { only: new Set(["session_info"]), onRecord: (entry) => (this.title = sessionName(entry)) };

  /** The short name `--all` prefixes its lines with: the session's name, else its store's label, else its id's first 8 characters. */
  get label(): string {
    return this.title ?? this.storeLabel ?? shortId(this.path);
  }

  /**
   * Reads the session, showing the last `n` entries of its current branch, and begins following
   * it; `again`: the session was rewritten under it, and what its branch holds that was not shown
   * is shown (`strict`: a file that holds no session is an error).
   */
  start(n: number, { strict = false, again = false }: { strict?: boolean; again?: boolean } = {}): void {
    const to = this.read(n, again, strict);
    this.follower?.close();
    this.follower = this.bytes ? null : followSession(this.path, to);
    this.ctx.run.release();
  }

  /**
   * Begins following the session from its end, nothing read (`--all`'s sessions but the latest:
   * a store of thousands is not read to start). Where it is, and what its branch holds, is read
   * when its first new line comes.
   */
  startAtEnd(): void {
    this.follower?.close();
    this.follower = followSession(this.path, { bytes: -1, lines: -1 });
    this.line = Number.NaN;
    this.ctx.run.release();
  }

  /** Whether there is anything to follow (an archive, cold storage: no). */
  get followable(): boolean {
    return this.follower !== null;
  }

  /** What came since the last poll, handed to the events. */
  poll(): void {
    if (!this.follower) return;
    const event = this.follower.poll();
    switch (event.kind) {
      case "lines":
        if (event.lines.length > 0) this.goneSaid = false;
        for (const bytes of event.lines) this.take(bytes);
        return;
      case "changed":
        if (!event.quiet) this.say("rewritten", `${this.path} ${event.why}: read again; what it holds that was not shown follows`);
        this.start(10, { again: true });
        return;
      case "gone": {
        if (this.moveOn()) return;
        if (!this.goneSaid) this.say("gone", `${this.path} ${event.why}; waiting for it to come back (Ctrl-C to stop)`);
        this.goneSaid = true;
        return;
      }
      case "replaced":
        if (this.moveOn()) return;
        if (!this.replacedSaid) this.say("replaced", `${event.key} now names another session (${event.by}); \`pi-session tail ${event.key} -f\` follows that one`);
        this.replacedSaid = true;
        return;
    }
  }

  close(): void {
    this.follower?.close();
    this.follower = null;
  }

  /** The session the user's name now names, where that is another one: followed from its start. */
  private moveOn(): boolean {
    if (this.name === undefined) return false;
    let now: string | undefined;
    try {
      now = this.resolve(this.name);
    } finally {
      this.ctx.run.release();
    }
    // (not the session itself under another name: a reset's archive of it, named by the same id)
    if (now === undefined || now === this.path || (sessionIdOf(now) !== undefined && sessionIdOf(now) === sessionIdOf(this.path))) return false;
    this.say("moved", `${this.name} now names ${now}: following it`);
    this.close();
    this.path = now;
    this.line = 0;
    this.lastId = null;
    this.seen.clear();
    this.goneSaid = this.replacedSaid = false;
    this.start(Number.POSITIVE_INFINITY);
    return true;
  }

  /** One line the store handed on. */
  private take(bytes: Buffer): void {
    if (Number.isNaN(this.line)) this.place(bytes);
    const line = ++this.line;
    if (bytes.length === 0 || (bytes.length === 1 && bytes[0] === 13)) return;
    let entry: AnyEntry;
    try {
      entry = JSON.parse(bytes.toString("utf8")) as AnyEntry;
    } catch {
      entry = undefined as unknown as AnyEntry;
    }
    if (!entry || typeof entry !== "object" || Array.isArray(entry)) {
      this.say("line", `line ${line} is not a JSON object; pi skips it (\`pi-session check\` says more, \`pi-session repair\` mends it)`, { line, code: "line-invalid-json", severity: FINDING_INFO["line-invalid-json"].severity });
      return;
    }
    // (a header: a session started in the file, or the file's own header read again)
    if ((entry as { type?: unknown }).type === "session") return;
    const id = typeof entry.id === "string" ? entry.id : undefined;
    // (the entry held back as not yet whole when the session was read, come whole)
    if (id !== undefined && id === this.lastId) return;
    const parent = (entry as { parentId?: unknown }).parentId;
    // (a new branch: said under the entry that starts it, as every notice is under its entry)
    const branch = this.lastId !== null && typeof parent === "string" && parent !== this.lastId ? this.branchAt(parent) : undefined;
    this.show(entry, line, false, undefined, branch);
  }

  /**
   * The first line that came to a session followed from its end (`startAtEnd`): where it is (its
   * line, found by its entry's id), and the branch it grows (the pairing rules given it).
   */
  private place(bytes: Buffer): void {
    let entry: { id?: unknown; parentId?: unknown } | undefined;
    try {
      entry = JSON.parse(bytes.toString("utf8"));
    } catch {
      entry = undefined;
    }
    try {
      const session = openSync(this.path, this.withName);
      try {
        const node = typeof entry?.id === "string" ? findNode(session, entry.id) : -1;
        // (an entry with no id: the session's lines as now, less those that came after it, if any)
        this.line = node >= 0 ? session.nodeLine(node) - 1 : session.lineCount - 1;
        const parent = typeof entry?.parentId === "string" ? findNode(session, entry.parentId) : -1;
        if (parent >= 0) {
          this.seed(session, session.tree.pathTo(parent));
          this.lastId = entry!.parentId as string;
        }
      } finally {
        session.close();
      }
    } catch {
      this.line = 0;
    } finally {
      this.ctx.run.release();
    }
  }

  /** An entry of the followed branch (`id`: its id as read, where its line has none: a v1 file's): its usage counted, shown, then what it starts or breaks said. */
  private show(entry: AnyEntry, line: number, counted = false, id = typeof entry.id === "string" ? entry.id : undefined, starts?: () => void): void {
    const usage = entryUsage(entry);
    if (usage && !counted) this.totals.add(usage.amounts);
    const findings = this.pairing.add(entry, line);
    if (id !== undefined) {
      this.lastId = id;
      this.seen.add(id);
    }
    if (entry.type === "session_info") this.title = sessionName(entry);
    this.events.entry({ session: this, line, entry, ...(usage ? { usage } : {}) });
    starts?.();
    if (entry.type === "compaction") {
      const c = entry as { tokensBefore?: unknown; firstKeptEntryId?: unknown };
      const before = typeof c.tokensBefore === "number" ? `${c.tokensBefore.toLocaleString("en-US")} tokens before; ` : "";
      this.say("compaction", `compaction: ${before}keeps the conversation from entry ${String(c.firstKeptEntryId)} on`, { line, ...(typeof entry.id === "string" ? { entryId: entry.id } : {}) });
    }
    for (const f of findings) this.say("finding", `${f.code}: ${f.message}`, { line: f.line, ...(f.entryId !== undefined ? { entryId: f.entryId } : {}), code: f.code, severity: FINDING_INFO[f.code].severity });
  }

  /**
   * A new entry under `parent`, not the last one shown (someone went back, as `/tree` does): the
   * pairing rules start again from the branch to it; what says so, said once the entry is shown.
   */
  private branchAt(parent: string): () => void {
    let where = "";
    try {
      const session = openSync(this.path, { only: new Set() });
      try {
        const node = findNode(session, parent);
        if (node >= 0) {
          where = ` (line ${session.nodeLine(node)})`;
          this.seed(session, session.tree.pathTo(node));
        } else this.pairing = new LivePairing(false);
      } finally {
        session.close();
      }
    } catch {
      this.pairing = new LivePairing(false);
    } finally {
      this.ctx.run.release();
    }
    this.lastId = parent;
    return () => this.say("branch", `new branch from ${parent}${where}: its parent is an entry earlier than the last one shown, as going back in /tree makes`);
  }

  /** The pairing rules given the branch's last entries (`nodes`), nothing said. */
  private seed(session: Session, nodes: Int32Array): void {
    this.pairing = new LivePairing(nodes.length <= SEED);
    const from = Math.max(0, nodes.length - SEED);
    for (let k = from; k < nodes.length; k++) this.pairing.add(session.entry(nodes[k]!), session.nodeLine(nodes[k]!));
  }

  /**
   * Reads the session: the last `n` entries of its current branch shown (or, `again`, those after
   * the last it holds of the entries seen, but those seen: a rewrite that moved an entry later,
   * as `repair` moves a result under its call, does not show it twice), the totals and the pairing
   * rules set; what was read.
   */
  private read(n: number, again: boolean, strict: boolean): ReadTo {
    // (the file as it is before it is read: one put in its place since is a rewrite, read again)
    const ino = this.bytes ? undefined : sessionStamp(this.path)?.ino;
    const session = this.bytes ? Session.open(new BufferSource(this.path, this.bytes), this.withName) : openSync(this.path, this.withName);
    try {
      if (strict) requireSession(session, this.ctx.sessionDir);
      this.totals = this.wholeTotals ? totalsOf(this.bytes ? new BufferSource(this.path, this.bytes) : this.path) : new UsageTotals();
      const count = session.lineCount;
      // (a last line not yet whole, or whole but for its newline, is held back: it comes again, whole)
      const last = count - 1;
      const held = count > 0 && session.lineState(last).flags & LineFlag.NO_NEWLINE ? 1 : 0;
      const heldNode = held ? session.nodeAtLine(last) : -1;
      const leaf = session.leafNode;
      let nodes = leaf >= 0 ? session.tree.pathTo(leaf) : new Int32Array(0);
      if (heldNode >= 0 && nodes.length > 0 && nodes[nodes.length - 1] === heldNode) nodes = nodes.subarray(0, nodes.length - 1);
      let from = Math.max(0, nodes.length - n);
      if (again && this.seen.size > 0) {
        let anchor = nodes.length - 1;
        while (anchor >= 0 && !this.seen.has(session.nodeId(nodes[anchor]!) ?? "")) anchor--;
        // (none of what was seen is there: another session, shown as one is at first)
        if (anchor >= 0) from = anchor + 1;
      } else if (again) from = 0;
      this.seed(session, nodes.subarray(0, from));
      this.lastId = from > 0 ? (session.nodeId(nodes[from - 1]!) ?? null) : null;
      // (passed over to show the last `n`: seen, as far as a rewrite is concerned)
      if (this.lastId !== null) this.seen.add(this.lastId);
      for (let k = from; k < nodes.length; k++) {
        const node = nodes[k]!;
        const id = session.nodeId(node);
        if (again && id !== undefined && this.seen.has(id)) {
          this.pairing.add(session.entry(node), session.nodeLine(node));
          this.lastId = id;
          continue;
        }
        this.show(session.entry(node), session.nodeLine(node), true, id);
      }
      this.line = count - held;
      return { lines: this.line, bytes: held ? session.record(last).offset : session.size, ...(ino !== undefined ? { ino } : {}) };
    } finally {
      session.close();
    }
  }

  private say(notice: NoticeKind, message: string, more: Partial<TailNotice> = {}): void {
    this.events.notice({ session: this, notice, message, ...more });
  }
}

/** The session at `path` read (synchronously: a poll reads between two waits). */
function openSync(path: string, options: OpenOptions): Session {
  try {
    return Session.open(openSource(path), options);
  } catch (error) {
    throw error instanceof CliError ? error : describeFsError(path, error);
  }
}

/** The node of the entry with id `id`, or -1. */
function findNode(session: Session, id: string): number {
  try {
    return resolveEntry(session, id);
  } catch {
    return -1;
  }
}

/** A session's totals as `usage` counts them: every request of the file (or of bytes read once), or of its store's ledger. */
function totalsOf(from: string | ByteSource): UsageTotals {
  const totals = new UsageTotals();
  const stored = typeof from === "string" ? storedUsage(from) : undefined;
  if (stored) {
    for (const r of stored) totals.add(r.amounts);
    return totals;
  }
  const source = typeof from === "string" ? openSource(from) : from;
  try {
    forEachRecord(readFileUsage(source).usage, null, (r) => totals.add(r));
  } finally {
    source.close();
  }
  return totals;
}

/** A session's short name: 8 characters of its id that tell it from others (`shortSessionId`), else of its file's name. */
function shortId(path: string): string {
  const id = sessionIdOf(path);
  return id !== undefined ? shortSessionId(id) : basename(path).slice(0, 8);
}
