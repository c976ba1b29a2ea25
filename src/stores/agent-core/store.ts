import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { CliError, shellQuote } from "../../errors.js";
import { BufferSource } from "../../format/read/source.js";
import { StampFollower } from "../common/follow.js";
import type { Store } from "../common/store.js";
import { v3CopyOf } from "./copy.js";
import { findingsOf } from "./findings.js";
import { ledgerOf } from "./ledger.js";
import { containerPath, containerRef } from "./ref.js";
import { agentCoreRun, type Read } from "./run.js";
import { ContainerError, containerStamp } from "./sqlite.js";

/*
 * agent-core's storage format 4 (README.md beside this file): JSONL files laid out as pi lays out
 * its sessions, which pi's store lists and this one recognises by their first line, and the SQLite
 * backend's databases found among them. Read as the lines of a pi v3 session (`translate.ts`), its
 * usage from its ledger; only `migrate` writes from it.
 */

/** A per-session container's name: `<session id>.sqlite` (the backend's layout for an id of letters, digits, `_` and `-`). */
const PER_SESSION = /^([\w-]+)\.sqlite$/;

/** The session `path` names, read (null: none of this store's); a container that cannot be read is a one-line error. */
function read(path: string): Read | null {
  try {
    return agentCoreRun().session(path);
  } catch (error) {
    throw new CliError(error instanceof ContainerError ? error.message : `${path}: ${(error as Error).message}`);
  }
}

/** The sessions of the containers among a folder's files, each named as `ls` lists it. */
function sessionsAmong(dir: string, names: readonly string[]): string[] {
  const out: string[] = [];
  for (const name of names) {
    if (!name.endsWith(".sqlite")) continue;
    const path = `${dir}/${name}`;
    let container;
    try {
      container = agentCoreRun().container(path);
    } catch {
      // a database that cannot be read is listed by its file: reading it says why
      out.push(path);
      continue;
    }
    if (!container) continue;
    const alone = container.sessions.length === 1 && PER_SESSION.exec(name)?.[1] === container.sessions[0]!.id;
    if (alone) out.push(path);
    else for (const s of container.sessions) out.push(containerPath(path, s.id));
  }
  return out;
}

/** Every container in pi's session directory and its project folders. */
function containersUnder(root: string): string[] {
  const out: string[] = [];
  const visit = (dir: string, depth: number) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isFile() && e.name.endsWith(".sqlite")) out.push(join(dir, e.name));
      else if (e.isDirectory() && depth === 0) visit(join(dir, e.name), 1);
    }
  };
  visit(root, 0);
  return out;
}

/** A file's lines: its newlines, and a last line without one. */
function lineCount(path: string): number {
  const fd = openSync(path, "r");
  try {
    const chunk = Buffer.allocUnsafe(1 << 20);
    let lines = 0;
    let last = 0x0a;
    for (let n; (n = readSync(fd, chunk, 0, chunk.length, null)) > 0; ) {
      for (let at = chunk.indexOf(0x0a); at >= 0 && at < n; at = chunk.indexOf(0x0a, at + 1)) lines++;
      last = chunk[n - 1]!;
    }
    return lines + (last === 0x0a ? 0 : 1);
  } finally {
    closeSync(fd);
  }
}

export const agentCoreStore: Store = {
  // (its sessions are in pi's session directory: `--store pi` reads them)
  name: "pi",
  list: () => undefined,
  among: sessionsAmong,
  named(query, { piDir }) {
    const out: string[] = [];
    for (const db of containersUnder(piDir)) {
      const own = PER_SESSION.exec(basename(db))?.[1];
      if (own !== undefined && own.startsWith(query)) {
        out.push(db);
        continue;
      }
      for (const session of sessionsAmong(dirname(db), [basename(db)])) {
        const id = containerRef(session)?.id ?? own;
        if (id?.startsWith(query)) out.push(session);
      }
    }
    return out;
  },
  idOf(path) {
    return containerRef(path)?.id ?? PER_SESSION.exec(basename(path))?.[1];
  },
  sessionIds({ piDir }) {
    return containersUnder(piDir).flatMap((db) => sessionsAmong(dirname(db), [basename(db)]).map((s) => containerRef(s)?.id ?? PER_SESSION.exec(basename(s))?.[1] ?? ""));
  },
  ref(path) {
    const ref = containerRef(path);
    return ref ? { kind: "transcript", path, container: ref.database, id: ref.id } : undefined;
  },
  open(path) {
    if (!containerRef(path) && !path.endsWith(".sqlite")) return undefined;
    const r = read(path);
    return r ? new BufferSource(path, r.bytes) : undefined;
  },
  recognise(path, head) {
    // (agent-core's JSONL repository names its files `<time>_<id>.jsonl`)
    if (!path.endsWith(".jsonl") || !agentCoreRun().seen(path, head())) return undefined;
    const r = read(path);
    return r ? new BufferSource(path, r.bytes) : undefined;
  },
  stamp(path) {
    if (!containerRef(path) && !path.endsWith(".sqlite")) return undefined;
    return containerStamp(containerRef(path)?.database ?? path) ?? null;
  },
  follow(path) {
    // (read whole whenever it is read: followed by its stamp, and read again when that moves)
    const database = containerRef(path)?.database ?? (path.endsWith(".sqlite") ? path : undefined);
    if (database) return new StampFollower([database, `${database}-wal`], () => containerStamp(database));
    if (!path.endsWith(".jsonl") || !read(path)) return undefined;
    return new StampFollower([path], () => {
      const st = statSync(path, { throwIfNoEntry: false });
      return st ? [st.size, st.mtimeMs, st.ino] : undefined;
    });
  },
  findings(path) {
    const r = agentCoreRun().session(path);
    return r ? findingsOf(r, !containerRef(path) && !path.endsWith(".sqlite"), v3CopyOf(path, r)) : [];
  },
  lines(path) {
    const r = agentCoreRun().session(path);
    if (!r) return undefined;
    const lines = r.translation.sourceLines;
    return (line) => lines[line] ?? 0;
  },
  storedVersion(path) {
    return agentCoreRun().session(path) ? 4 : undefined;
  },
  keeper(path) {
    // (a database of agent-core's SQLite backend, or a session in one: its rows are the backend's to change)
    if (!containerRef(path) && !path.endsWith(".sqlite")) return undefined;
    return { owner: "agent-core", what: "sessions in its SQLite databases" };
  },
  extent(path) {
    if (!agentCoreRun().session(path)) return undefined;
    const database = containerRef(path)?.database ?? (path.endsWith(".sqlite") ? path : undefined);
    if (database) return { size: containerStamp(database)?.size ?? 0, lines: null };
    return { size: statSync(path).size, lines: lineCount(path) };
  },
  v3Copy(path, file) {
    const r = agentCoreRun().session(path);
    return r ? v3CopyOf(path, r, file) : undefined;
  },
  refusal(path, command) {
    if (command === "migrate") return undefined;
    let r: Read | null;
    try {
      r = agentCoreRun().session(path);
    } catch {
      r = null;
    }
    if (!r) return undefined;
    return `${path}: stored in agent-core's storage format 4, which pi 1.6 cannot open; nothing was written. \`pi-session migrate ${shellQuote(path)}\` writes a v3 copy beside it; then \`pi-session ${command}\` that file`;
  },
  usage(path) {
    const r = agentCoreRun().session(path);
    return r ? ledgerOf(r.session) : undefined;
  },
};
