import type { Finding } from "../../format/check/findings.js";
import type { Validator } from "../../format/check/validate.js";
import { Session } from "../../format/session/session.js";
import { openSource } from "./input.js";
import { storedLines, storeFindings } from "../../stores/index.js";

/**
 * A session's findings as every command states them (docs/commands.md, "One verdict"): the validator's, and
 * what its store says of it: an OpenClaw live JSONL holding entries its database transcript lacks,
 * a database transcript whose live JSONL holds more, a transcript the importer set aside
 * (`databaseLacks`). `path` is where the session was found (`-` for standard input: no store).
 */
export function sessionFindings(session: Session, validator: Validator, path: string): Finding[] {
  const findings = validator.findings(session);
  if (path === "-" || !session.isSessionLike) return findings;
  // (a session read as pi's lines from another form, agent-core's format 4: its findings name its file's lines)
  const lines = storedLines(path);
  const found = lines ? findings.map((f) => onFileLines(f, lines)) : findings;
  found.push(...storeFindings(path, entryIds(session), entryIdsAt));
  return found;
}

/** A finding with its lines (and its cause's) those of the file the session was read from (0: none). */
function onFileLines(f: Finding, lines: (line: number) => number): Finding {
  const { line, causedBy, ...rest } = f;
  const at = line === undefined ? 0 : lines(line);
  const cause = causedBy ? { ...causedBy, line: causedBy.line === undefined ? 0 : lines(causedBy.line) } : undefined;
  return {
    ...rest,
    ...(at > 0 ? { line: at } : {}),
    ...(cause ? { causedBy: cause.line > 0 ? cause : { code: cause.code } } : {}),
  } as Finding;
}

/** A session's entry ids with their lines. */
function* entryIds(session: Session): Generator<{ id: string; line: number }> {
  for (let node = 0; node < session.tree.size; node++) {
    const id = session.nodeId(node);
    if (id !== undefined) yield { id, line: session.nodeLine(node) };
  }
}

/** The entry ids a session holds (one that is not there, or cannot be read: undefined). */
function entryIdsAt(ref: string): Set<string> | undefined {
  let source;
  try {
    source = openSource(ref);
  } catch {
    return undefined;
  }
  const session = Session.open(source, {});
  try {
    const ids = new Set<string>();
    for (let node = 0; node < session.tree.size; node++) {
      const id = session.nodeId(node);
      if (id !== undefined) ids.add(id);
    }
    return ids;
  } finally {
    session.close();
  }
}
