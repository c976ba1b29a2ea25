import type { Finding } from "../../format/check/findings.js";
import type { ByteSource } from "../../format/read/source.js";
import type { Pricing, UsageAmounts } from "../../format/usage/records.js";
import type { Follower, FollowFrom } from "./follow.js";
import type { StoreRun } from "./run.js";
import type { StoreFacts } from "./store-facts.js";

/*
 * What a store is to the rest of the tool (src/stores/README.md): one object per store folder,
 * registered in `stores/registry.ts`. Every question the layers above ask of sessions (where
 * they are, which one an argument names, their bytes, their stamp, what they are to their owner)
 * is asked of each store in turn; a store answers those it knows and passes on the rest
 * (undefined, or nothing). Only `name`, `list`, `named` and `idOf` are required: a store of
 * plain files in a folder needs no more.
 */

/**
 * A session as its store keeps it, named once where it is found: a file (pi's, or OpenClaw's
 * JSONL), a compressed archive, or a transcript in a container that holds several (OpenClaw's
 * database: `<database>#<session id>`). Nothing outside the store that named it takes it apart.
 */
export type SessionRef = { kind: "file"; path: string } | { kind: "archive"; path: string } | { kind: "transcript"; path: string; container: string; id: string };

/** What the caches (`ls`, `usage`) key a session by: one whose stamp is unchanged is read from the cache. */
export interface SessionStamp {
  size: number;
  mtimeMs: number;
  ino: number;
  /** A file's status change time (what no `touch` sets back): `search`'s index holds it too. */
  ctimeMs?: number;
}

/** Where a command looks: pi's session directory (as flags and environment set it) and the environment (other stores' roots). */
interface Where {
  piDir: string;
  /** Not given: only the session directory is searched (a library caller's lookup). */
  env?: NodeJS.ProcessEnv;
}

/** What the other stores say of what lies inside a store's folder. */
export interface Others {
  /** The sessions of a folder laid out by another store (undefined: none's). */
  list(dir: string): string[] | undefined;
  /** Whether a file is one another store's listing passes over. */
  passOver(path: string): boolean;
  /** The sessions other stores keep among a folder's files (`names`), besides the ones its own store lists. */
  among(dir: string, names: readonly string[]): string[];
}

/** A request of a session's usage as its store keeps it (a ledger), where that, not its messages, is what it used. */
export interface StoredRequest {
  /** Whose: `provider/model`, or what the request stands for. */
  key: string;
  amounts: UsageAmounts;
  /** `idHash` of its entry (a copy of the session holding that entry counts it once with this), else of the request. */
  entryKey: number;
  /** Milliseconds since the epoch. */
  time: number;
  /** What prices it where no cost is recorded (the provider and model it was asked of), where known. */
  pricing?: Pricing;
}

/**
 * Who alone moves or removes a session this tool leaves where it is (`archive`): its owner, what
 * it is to them (a plural noun: `transcripts`), and the owner's command that retires such
 * sessions, where it has one.
 */
export interface Keeper {
  owner: string;
  /** What it keeps, a plural whose first word is the noun ("transcripts", "files the import left"): one is said without that word's s. */
  what: string;
  command?: string;
}

export interface Store {
  /** As `--store` names it (a store kept inside another's folders goes by that one's name). */
  readonly name: "pi" | "openclaw";
  /** Where this store's roots are looked for, said when none is found (none: it has no roots of its own). */
  readonly lookedFor?: (piDir: string) => string;
  /** The roots of this store on this machine, that a store-wide command given no directory reads. */
  roots?(where: Required<Where>): string[];
  /** `dir`, given as `--session-dir`, taken as this store's root: the environment under which the store finds it there (undefined: not one of its roots). */
  rootEnv?(dir: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv | undefined;
  /**
   * The sessions of `dir` when it is (or is inside) this store's layout, sorted; undefined: not
   * this store's. `archives`: with archives and copies (writers leave them alone unless named);
   * `others`: what the other stores say of a folder or a file inside `dir` (a store laid out within another).
   */
  list(dir: string, archives: boolean, others: Others): string[] | undefined;
  /** A file in this store's layout that is no session (a trace beside its transcripts): every store's listing passes over it. */
  passOver?(path: string): boolean;
  /** Its sessions among the files of a folder another store lists (`names`: the folder's), named as it names them. */
  among?(dir: string, names: readonly string[]): string[];
  /** The sessions a FILE argument names: a session id, the start of one, or a key the store gives. */
  named(query: string, where: Where): string[];
  /** The session id in a path this store names (undefined: none it knows). */
  idOf(path: string): string | undefined;
  /** The ids of the sessions it keeps (what shell completion offers). */
  sessionIds?(where: Required<Where>): string[];
  /** Why a place of this store could not be searched, a line each. */
  unsearched?(env: NodeJS.ProcessEnv): string[];
  /** What `path` is, where it is a session this store names specially (a transcript in a container, an archive). */
  ref?(path: string): SessionRef | undefined;
  /** A session's bytes as stored, where this store keeps them otherwise than as a file (undefined: a plain file). */
  open?(path: string): ByteSource | undefined;
  /**
   * A plain file this store knows by its first bytes, as pi's lines (undefined: not one of its
   * own). `head()` reads them (a view valid during the call alone): a store asks only of a file
   * whose name it may have.
   */
  recognise?(path: string, head: () => Buffer): ByteSource | undefined;
  /** A session's stamp, where it is not its file's (null: this store's, but it has none now, so it is never cached). */
  stamp?(path: string): SessionStamp | null | undefined;
  /** What a session is to this store (undefined: not one of its own); `firstText`: its first user message, where the caller has it. */
  facts?(path: string, firstText?: string | null): StoreFacts | undefined;
  /** The process a session's lock names, and whether it runs now. */
  lock?(path: string): { lock: string; pid: number; live: boolean } | undefined;
  /** The format version a session is stored in, where pi cannot read it as it is (agent-core's 4): `ls` says so, and that it needs migrating. */
  storedVersion?(path: string): number | undefined;
  /**
   * Where a session's lines as pi's come from, where they are not its file's (agent-core's format 4,
   * read as pi's lines): line -> the line of its file (0: none: a line the reading adds, or a
   * database's). Findings and matches name the file's lines.
   */
  lines?(path: string): ((line: number) => number) | undefined;
  /**
   * The session followed as it is written, from what was read of it (`tail -f`): null where nothing
   * more will be written to it (an archive, cold storage); undefined where it is not this store's
   * to follow (a plain file is followed by its appended bytes).
   */
  follow?(path: string, from: FollowFrom): Follower | null | undefined;
  /** Who alone may move the session, where that is not this tool: `archive` leaves it, and says whose it is (undefined: a file it may move). */
  keeper?(path: string): Keeper | undefined;
  /**
   * A session pi cannot open as stored (`storedVersion`): its v3 copy, the file `migrate` writes
   * (at `file`; default: beside it, by its name), and whether that file holds exactly the session's
   * lines as pi's (then it is migrated: nothing left to write).
   */
  v3Copy?(path: string, file?: string): { path: string; current: boolean; continued: boolean } | undefined;
  /** A session stored otherwise than as pi's lines (`storedVersion`): its own size (its stamp's) and lines (null: a database's, which has none of its own). */
  extent?(path: string): { size: number; lines: number | null } | undefined;
  /** Why `command` may not write the session, in one line naming it (undefined: it may). */
  refusal?(path: string, command: string): string | undefined;
  /** The session's usage as the store keeps it, where that is what counts (a ledger), not its messages'. */
  usage?(path: string): StoredRequest[] | undefined;
  /** What the store says of a session beyond its lines (its own finding codes). */
  findings?(path: string, ids: Iterable<{ id: string; line: number }>, idsOf: (path: string) => Set<string> | undefined): Finding[];
  /** Jobs with what sessions that may be one another's bytes again share (`twin`: read once when they are); the jobs as they are where none is this store's. */
  withTwinKeys?<T extends { path: string; stamp: { size: number } | undefined; twin?: string }>(jobs: T[]): T[];
  /** The session a path holds, where several paths hold one (grep reports each match once). */
  group?(path: string): string | undefined;
  /** What to say of a directory of this store given that holds no session file (undefined: nothing special). */
  emptyNote?(dir: string): string | undefined;
  /** A store-wide command's run keeps (`env`) or does not keep (undefined) what this store caches between runs. */
  keep?(run: StoreRun, env: NodeJS.ProcessEnv | undefined): void;
  /** What the run keeps, saved. */
  save?(run: StoreRun): void;
  /** Which sessions this thread reads next (a worker's chunk; undefined: all that follow). */
  readAheadWithin?(paths: readonly string[] | undefined): void;
}
