import { readFileSync } from "node:fs";
import { readHead } from "../../format/read/source.js";
import { currentRun } from "../common/run.js";
import { format4Header, readFormat4Jsonl, type Format4Session } from "./format4.js";
import { containerRef } from "./ref.js";
import { ContainerError, openContainer, type Container } from "./sqlite.js";
import { translate, type Translation } from "./translate.js";

/**
 * What a command's run holds of agent-core's sessions (`StoreRun`): each container opened once,
 * and each session read once, replayed and translated, for every question the run asks of it
 * (its bytes, its findings, its ledger, whether a writer may touch it). Closed with the run.
 */
export class AgentCoreRun {
  private readonly containers = new Map<string, Container | ContainerError | null>();
  private readonly sessions = new Map<string, Read | null>();

  /** A plain file opened for reading whose first bytes (`head`) were seen: none of this store's is asked of it again. */
  seen(path: string, head: Buffer): boolean {
    const is = startsFormat4Bytes(head);
    if (!is && !this.sessions.has(path)) this.sessions.set(path, null);
    return is;
  }

  /** The container at `path`; null: a database of something else; throws a `ContainerError` saying why it cannot be read. */
  container(path: string): Container | null {
    let c = this.containers.get(path);
    if (c === undefined) {
      try {
        c = openContainer(path) ?? null;
      } catch (error) {
        c = error instanceof ContainerError ? error : new ContainerError(`${path}: ${(error as Error).message}`);
      }
      this.containers.set(path, c);
    }
    if (c instanceof ContainerError) throw c;
    return c;
  }

  /**
   * The session `path` names, read and translated: a format-4 JSONL file, a container's session
   * (`<db>#<id>`), or a container holding one session (its file); null where `path` is none of
   * these. Throws, saying why, where it is one but cannot be read.
   */
  session(path: string): Read | null {
    let read = this.sessions.get(path);
    if (read === undefined) {
      read = this.readSession(path);
      this.sessions.set(path, read);
    }
    return read;
  }

  private readSession(path: string): Read | null {
    const ref = containerRef(path);
    if (ref) {
      const container = this.container(ref.database);
      if (!container) return null;
      if (!container.sessions.some((s) => s.id === ref.id)) throw new ContainerError(`${ref.database}: holds no session ${ref.id} (it holds ${container.sessions.length}); run \`pi-session ls\` to find sessions`);
      return readOf(container.read(ref.id));
    }
    if (path.endsWith(".sqlite")) {
      const container = this.container(path);
      if (!container) return null;
      if (container.sessions.length !== 1) throw new ContainerError(`${path}: agent-core's container of ${container.sessions.length} sessions, not one; name one as ${path}#<session id>, or give its folder`);
      return readOf(container.read(container.sessions[0]!.id));
    }
    if (!path.endsWith(".jsonl") || !startsFormat4(path)) return null;
    return readOf(readFormat4Jsonl(readFileSync(path, "utf8")));
  }

  close(): void {
    for (const c of this.containers.values()) if (c && !(c instanceof ContainerError)) c.close();
    this.containers.clear();
    this.sessions.clear();
  }
}

/** A session read: what it is (`session`), and its lines as pi's (`translation`). */
export interface Read {
  session: Format4Session;
  translation: Translation;
  bytes: Buffer;
}

function readOf(session: Format4Session): Read {
  const translation = translate(session);
  return { session, translation, bytes: Buffer.from(translation.lines) };
}

/** Bytes of a first line read to know a file's format: a header is a few hundred. */
const HEAD = 4096;

/** Whether the file at `path` starts with a format-4 header (one read of its first bytes; pi's `{"type":"session"` is passed over at once). */
function startsFormat4(path: string): boolean {
  try {
    return startsFormat4Bytes(readHead(path, HEAD));
  } catch {
    return false;
  }
}

const V4 = Buffer.from('"v":4');
/** How far into a format-4 header `"v":4` starts at most. */
const V4_WITHIN = 256;

/** Whether `head`, a file's first bytes, starts with a format-4 header. */
export function startsFormat4Bytes(head: Buffer): boolean {
  // (every format-4 header agent-core writes holds `"v":4` near its start; pi's never does. Only
  // the start is searched: the 4 KB each file shows, searched whole, were 29 ms of a 424 ms profile
  // of a cold `usage` of 3,000 OpenClaw transcripts; bounded, that run is 0.97 × (paired, n = 12))
  if (head.subarray(0, V4_WITHIN + V4.length).indexOf(V4) < 0) return false;
  const end = head.indexOf(0x0a);
  return format4Header(head.toString("utf8", 0, end < 0 ? head.length : end)) !== undefined;
}

/** This thread's run's agent-core sessions. */
export function agentCoreRun(): AgentCoreRun {
  return currentRun().of("agent-core", () => new AgentCoreRun());
}
