/**
 * Validation findings: data with stable codes. Text for people is made from the code at the edge;
 * `FINDING_INFO` is keyed by every code, so a new code cannot be left without a severity and hint.
 */

export type Severity = "error" | "warning" | "info";

/** A code a store of sessions gives a finding of its own (kebab-case, beginning with the store's name): any other string. */
export type StoreFindingCode = string & { readonly storeCode?: never };

export type FindingCode =
  // file and lines
  | "file-empty"
  | "file-not-session"
  | "file-event-stream"
  | "header-missing"
  | "header-not-first"
  | "header-duplicate"
  | "session-concatenated"
  | "lines-repeated"
  | "header-invalid"
  | "version-invalid"
  | "version-unsupported"
  | "version-legacy"
  | "line-bom"
  | "line-crlf"
  | "line-blank"
  | "line-invalid-json"
  | "line-fused"
  | "line-split"
  | "line-torn"
  | "line-nul"
  | "line-invalid-utf8"
  | "line-not-object"
  | "line-no-newline"
  | "entry-no-type"
  // entries
  | "entry-missing-id"
  | "entry-missing-parent"
  | "entry-missing-timestamp"
  | "entry-unknown-type"
  | "message-invalid"
  | "message-unknown-role"
  // tree
  | "id-duplicate"
  | "parent-missing"
  | "parent-self"
  | "parent-forward"
  | "parent-cycle"
  // references
  | "compaction-target-missing"
  | "compaction-target-off-path"
  | "label-target-missing"
  | "branch-summary-from-missing"
  | "context-edit-target-missing"
  | "context-edit-drops-calls"
  // what a provider is sent
  | "tool-result-orphan"
  | "tool-result-duplicate"
  | "tool-result-no-id"
  | "compaction-keeps-result"
  | "pairing-not-sent"
  | "tool-call-unanswered"
  | "leaf-target-missing";


/**
 * What mends the findings, each step once, in the order they can be run: `repair` first (`migrate`
 * and `slim` refuse a damaged file until it has run), then `migrate`, then the rest as found.
 * Every command that says next steps (`check`, `show`) says them in this order.
 */
export function nextSteps(findings: readonly Finding[]): string[] {
  const steps = [...new Set(findings.filter((f) => !f.causedBy && f.next !== undefined).map((f) => f.next!))];
  const rank = (step: string) => (step.startsWith("pi-session repair") ? 0 : step.startsWith("pi-session migrate") ? 1 : 2);
  return steps.map((step, i) => [step, i] as const).sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1]).map(([step]) => step);
}
/**
 * A finding: one of this library's codes (`FindingCode`, keyed in `FINDING_INFO`), or a store's own
 * (a store's adapter says what it holds beyond the file's lines: docs/reference.md, "Finding codes").
 */
export interface Finding {
  code: FindingCode | StoreFindingCode;
  severity: Severity;
  /** 1-based line in the file, when the finding is about one line. */
  line?: number;
  entryId?: string;
  /**
   * For a line pi skips: how many records `repair` recovers from it (the salvage rule that both
   * follow); 0 when it drops the line.
   */
  records?: number;
  /** What is wrong, in one sentence. */
  message: string;
  /** Why it matters: what pi does with it, and what a provider answers (the provider's own words). */
  hint: string;
  /** The one command to run next (`FILE` stands for the file), where a command mends it. */
  next?: string;
  /** For a finding about a tool call or result: the call's id. */
  callId?: string;
  /**
   * The finding that explains this one (its root cause: a line pi skips that held this entry's
   * parent or call, a lost parent, a session repeated in the file, a context edit): mending that
   * mends this. Counts and output go by the root.
   */
  causedBy?: { code: FindingCode | StoreFindingCode; line?: number };
}

interface FindingInfo {
  severity: Severity;
  hint: string;
  next?: string;
}

const REPAIR = "pi-session repair FILE";
const MIGRATE = "pi-session migrate FILE";
const REFUSED = "every request from this branch is refused (Anthropic: `unexpected tool_use_id found in tool_result blocks`; OpenAI: `No tool call found for function call output`)";

export const FINDING_INFO = {
  "file-empty": { severity: "error", hint: "the file holds no session; delete it or restore it from a backup" },
  "file-not-session": { severity: "error", hint: "pi cannot open it as a session (another JSONL file?); pi-session reports it and changes nothing" },
  "file-event-stream": { severity: "error", hint: "`pi --mode json` prints this; pi keeps its sessions in ~/.pi/agent/sessions, which `pi-session ls` lists. pi-session reports it and changes nothing" },
  "header-missing": { severity: "error", hint: "pi refuses a file whose first record is not a header", next: REPAIR },
  "header-not-first": { severity: "error", hint: "pi refuses a file whose first record is not the header", next: REPAIR },
  "header-duplicate": { severity: "warning", hint: "pi ignores later headers; repair drops them", next: REPAIR },
  "session-concatenated": { severity: "error", hint: "pi opens the file as one session, the first's id and folder with the later one's conversation; repair writes each session to a file of its own, keeping both", next: REPAIR },
  "lines-repeated": { severity: "error", hint: "the same lines written again (a sync tool's append, a copy concatenated): every id in them is held twice, and pi resolves each to its last copy; repair drops the exact repeats", next: REPAIR },
  "header-invalid": { severity: "error", hint: "pi needs a string `id`, `timestamp` and `cwd`; repair fills them in from the file's name and folder", next: REPAIR },
  "version-invalid": { severity: "error", hint: "pi would read the file as v1; edit the header's `version` to the number it stands for (3 for a file whose entries have ids)" },
  "version-unsupported": { severity: "error", hint: "this file was written by a newer pi; upgrade pi-session", next: "npm install -g pi-session@latest" },
  "version-legacy": { severity: "info", hint: "pi upgrades it in place when it opens it; migrate does the same, keeping the original", next: MIGRATE },
  "line-bom": { severity: "error", hint: "pi cannot parse a header behind a byte-order mark", next: REPAIR },
  "line-crlf": { severity: "info", hint: "pi reads CRLF line ends; repair normalises them" },
  "line-blank": { severity: "info", hint: "pi skips blank lines" },
  "line-invalid-json": { severity: "error", hint: "pi skips the line; repair drops it, keeping the original as a backup", next: REPAIR },
  "line-fused": { severity: "error", hint: "pi skips the whole line; repair puts each record on a line of its own and drops torn fragments", next: REPAIR },
  "line-split": { severity: "error", hint: "pi skips these lines; repair joins them into one", next: REPAIR },
  "line-torn": { severity: "error", hint: "the last write was cut off; repair drops it", next: REPAIR },
  "line-nul": { severity: "error", hint: "NUL bytes (often left by a crash) make pi skip the line; repair removes them and keeps the line if it is a record", next: REPAIR },
  "line-invalid-utf8": { severity: "warning", hint: "pi reads it with U+FFFD in place of the bad bytes; repair writes them so", next: REPAIR },
  "line-not-object": { severity: "error", hint: "a record must be a JSON object; pi skips the line", next: REPAIR },
  "line-no-newline": { severity: "warning", hint: "pi adds one when it next opens the file; repair adds it now", next: REPAIR },
  "entry-no-type": { severity: "error", hint: "a record without `type` is not an entry; pi skips it", next: REPAIR },
  "entry-missing-id": { severity: "error", hint: "entries need an `id` in v2/v3 files; repair gives it one", next: REPAIR },
  "entry-missing-parent": { severity: "warning", hint: "entries should carry `parentId` (null for a root)" },
  "entry-missing-timestamp": { severity: "warning", hint: "entries should carry an ISO `timestamp`" },
  "entry-unknown-type": { severity: "info", hint: "kept and shown; pi ignores it in the context" },
  "message-invalid": { severity: "error", hint: "pi crashes on a message entry without `message.role`", next: REPAIR },
  "message-unknown-role": { severity: "info", hint: "kept and shown" },
  "id-duplicate": { severity: "error", hint: "pi resolves the id to the last entry holding it; repair drops an exact repeat and renames another", next: REPAIR },
  "parent-missing": { severity: "warning", hint: "pi shows the entry as an extra root; repair re-attaches it to the entry before it", next: REPAIR },
  "parent-self": { severity: "error", hint: "pi loops forever on this entry", next: REPAIR },
  "parent-forward": { severity: "warning", hint: "parents must come before children in an append-only file", next: REPAIR },
  "parent-cycle": { severity: "error", hint: "pi loops forever on a parent cycle", next: REPAIR },
  "compaction-target-missing": { severity: "warning", hint: "the compaction keeps nothing before it; pi rebuilds the context from its summary" },
  "compaction-target-off-path": { severity: "warning", hint: "the kept range starts off this branch; pi keeps nothing before the compaction" },
  "label-target-missing": { severity: "warning", hint: "the label bookmarks nothing" },
  "branch-summary-from-missing": { severity: "info", hint: "the summarised branch is not in this file" },
  "context-edit-target-missing": { severity: "warning", hint: "the edit changes nothing" },
  "context-edit-drops-calls": { severity: "error", hint: `pi sends the results of those calls without them on every branch below the edit, and ${REFUSED}; repair adds an edit omitting each such result after it (pi's own mechanism: the history stays as it was)`, next: REPAIR },
  "tool-result-orphan": { severity: "error", hint: `${REFUSED}; repair moves the result back under its call, or removes it when it has none`, next: REPAIR },
  "tool-result-duplicate": { severity: "error", hint: "providers refuse a call answered twice; repair removes the second result", next: REPAIR },
  "tool-result-no-id": { severity: "error", hint: "providers refuse a result that names no call; repair removes it", next: REPAIR },
  "compaction-keeps-result": { severity: "error", hint: "every request after the compaction is refused (its first message is a result without its call); repair makes it keep from the turn that holds the call", next: REPAIR },
  "pairing-not-sent": { severity: "info", hint: "pi never sends it, so no request fails on it; nothing needs mending, and the file is left as it is" },
  "tool-call-unanswered": { severity: "info", hint: "sendable: pi answers it with an error result; nothing needs mending" },
  "leaf-target-missing": { severity: "error", hint: "the harness leaf points at an entry that does not exist" },
} as const satisfies Record<FindingCode, FindingInfo>;

export function finding(code: FindingCode, message: string, where: { line?: number; entryId?: string; records?: number } = {}): Finding {
  const info: FindingInfo = FINDING_INFO[code];
  return { code, severity: info.severity, ...where, message, hint: info.hint, ...(info.next !== undefined ? { next: info.next } : {}) };
}

/**
 * A session's counts, as every command states them: the findings no other explains (a finding
 * caused by another is counted with its cause, whose severity is the highest of the two).
 */
export function countBySeverity(findings: readonly Finding[]): Record<Severity, number> {
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const f of findings) if (!f.causedBy) counts[f.severity]++;
  return counts;
}
