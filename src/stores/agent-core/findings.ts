import type { Finding } from "../../format/check/findings.js";
import type { Read } from "./run.js";

/**
 * This store's own findings (docs/reference.md, "Finding codes"): what a format-4 session is beyond its lines
 * as pi reads them. Keyed by every code, as the format library's are.
 */
type AgentCoreCode = "agent-core-format-4" | "agent-core-kept-tail" | "agent-core-unreadable-lines" | "agent-core-torn-line" | "agent-core-operation-open";

const MIGRATE = "pi-session migrate FILE";

const INFO = {
  "agent-core-format-4": { severity: "warning", hint: "pi 1.6 cannot open agent-core's storage format 4; `pi-session migrate` writes a v3 copy beside it that pi opens with the same context on every branch, and leaves this one as it is", next: MIGRATE },
  "agent-core-kept-tail": { severity: "error", hint: "agent-core keeps messages after this compaction that no entry of its branch holds as pi would rebuild them: pi's context here lacks them (or holds others)" },
  "agent-core-unreadable-lines": { severity: "error", hint: "agent-core refuses the whole file over these lines; pi-session reads the rest, and `pi-session migrate` writes what it reads" },
  "agent-core-torn-line": { severity: "info", hint: "a write the process did not finish: agent-core drops the line (and rewrites the file without it when it opens it)" },
  "agent-core-operation-open": { severity: "info", hint: "agent-core resumes or settles the operation when it opens the session; the conversation is read as it stands" },
} as const satisfies Record<AgentCoreCode, { severity: Finding["severity"]; hint: string; next?: string }>;

function agentCoreFinding(code: AgentCoreCode, message: string, where: { line?: number; entryId?: string } = {}, done = false): Finding {
  const info: { severity: Finding["severity"]; hint: string; next?: string } = INFO[code];
  // (`done`: what the next step would do is done already)
  return { code, severity: info.severity, ...where, message, hint: info.hint, ...(info.next !== undefined && !done ? { next: info.next } : {}) };
}

/**
 * What the store says of a session it read: that it is format 4 (and, where its v3 copy beside it
 * is up to date, that it is migrated: no `migrate` left to run), and what of it pi cannot be given.
 */
export function findingsOf(read: Read, isFile: boolean, copy: { path: string; current: boolean }): Finding[] {
  const { session, translation } = read;
  const migrated = copy.current ? `; migrated: its v3 copy ${copy.path} is up to date` : "";
  const out: Finding[] = [agentCoreFinding("agent-core-format-4", `stored in agent-core's storage format 4 (${isFile ? "a JSONL file" : "a SQLite container"}, session ${session.id}), which pi 1.6 cannot open${migrated}`, isFile ? { line: 1 } : {}, copy.current)];
  for (const c of translation.unmatched) {
    out.push(agentCoreFinding("agent-core-kept-tail", `compaction ${c.id} keeps ${c.tail} message${c.tail === 1 ? "" : "s"}; pi can be given ${c.kept} of them from the entries of its branch`, { entryId: c.id }));
  }
  if (session.damaged.length > 0) {
    const first = session.damaged[0]!;
    const where = isFile ? `line${session.damaged.length === 1 ? "" : "s"} ${session.damaged.map((d) => d.line).join(", ")}` : `${session.damaged.length} row${session.damaged.length === 1 ? "" : "s"}`;
    out.push(agentCoreFinding("agent-core-unreadable-lines", `${where} of the session ${session.damaged.length === 1 ? "is" : "are"} not a write agent-core replays (the first: ${first.reason})`, isFile && first.line > 0 ? { line: first.line } : {}));
  }
  if (session.torn) out.push(agentCoreFinding("agent-core-torn-line", "the last line is cut short (no newline): a transaction the writer did not finish"));
  for (const op of session.openOperations) out.push(agentCoreFinding("agent-core-operation-open", `operation ${op.id} was in progress when the session was last written${op.at ? ` (at ${op.at})` : ""}: a crash or a kill`));
  return out;
}
