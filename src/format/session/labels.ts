import { messageText, type AgentMessage } from "../schema/types.js";

/**
 * What people name in a session, by pi's rules, in one place.
 *
 * Labels: label entries are applied in file order; one with a truthy `label` sets its target's
 * label, any other clears it (pi's `labelsById`). `value` makes what a caller keeps for a label
 * (the text, its line, its timestamp).
 */
export function applyLabel<T>(labels: Map<string, T>, entry: object, value: (label: string) => T): void {
  const { targetId, label } = entry as { targetId?: unknown; label?: unknown };
  if (typeof targetId !== "string") return;
  if (label) labels.set(targetId, value(String(label)));
  else labels.delete(targetId);
}

/** The session's name after a `session_info` entry: its `name`, trimmed; a blank or missing one clears it. */
export function sessionName(entry: object): string | undefined {
  const { name } = entry as { name?: unknown };
  return typeof name === "string" ? name.trim() || undefined : undefined;
}

/** A UUID of version 7 (as pi 1.6 makes session ids): its first 48 bits are the time it was made in milliseconds, the rest random. */
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A session id in 8 characters, for a label that tells sessions apart: the start of most ids, the
 * random end of a UUIDv7, whose first 8 characters are its time and the same for every session
 * made within about a minute.
 */
export function shortSessionId(id: string): string {
  return UUID_V7.test(id) ? id.slice(-8) : id.slice(0, 8);
}

/**
 * A user message as a session's title: what the person wrote, without the envelope OpenClaw wraps
 * around a message that arrives on a channel. Before the text it puts, each where configured:
 * queued system events (`System: [<time>] …`, a line each), blocks of metadata each headed
 * `<what> (untrusted metadata):` or `(untrusted, for context):` (a fenced JSON block, else lines up
 * to a blank one), and the time it was sent (`[Mon 2026-02-23 23:41 GMT+8] `, or with the channel
 * and sender, `[Telegram Ada id:1604754210 +3m 2026-02-07 05:19 GMT+1] `); after it, on a line
 * of its own, the channel's `[message_id: …]`. Those are passed over; what is left is the title. A
 * text that is envelope only, or holds none of it, is given back as it is.
 */
export function messageGist(text: string): string {
  let t = text;
  for (;;) {
    const rest = t.replace(/^\s+/, "");
    const system = SYSTEM_EVENT.exec(rest);
    // (a block's heading is a short first line: looked at alone, so that a long message costs its length once)
    const nl = rest.indexOf("\n");
    const head = system || nl < 0 || nl > 300 ? undefined : UNTRUSTED_HEAD.exec(rest.slice(0, nl + 1));
    if (system) t = rest.slice(system[0].length);
    else if (head) {
      const body = rest.slice(head[0].length);
      const fence = FENCED.exec(body);
      const end = fence ? fence[0].length : body.search(/\n[ \t]*\n|$/);
      t = body.slice(end);
    } else break;
  }
  const gist = t.trim().replace(SENT_AT, "").replace(MESSAGE_ID, "").trim();
  return gist && gist !== text.trim() ? gist : text;
}

const SYSTEM_EVENT = /^System: \[[^\]\n]*\][^\n]*(?:\n|$)/;
const UNTRUSTED_HEAD = /^[^\n]*\((?:untrusted|metadata)\b[^\n]*\):[ \t]*\n/i;
const FENCED = /^```[^\n]*\n[\s\S]*?\n```[ \t]*(?:\n|$)/;
const SENT_AT = /^\[(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)|[^\]\n]{1,80} \+\d+[smhd]) \d{4}-\d{2}-\d{2} \d{2}:\d{2}(?::\d{2})?(?: [^\]\n]{1,40})?\] /;
const MESSAGE_ID = /\n\[message_id: [^\]\n]{1,200}\]$/;

/**
 * A session's title from its entries, as they are read: the latest name (a blank one clears it),
 * else what the first user message says (`messageGist`, its first 300 characters). What `grep`
 * and `search` head a session's matches with; `ls` says the same of its sessions. Read in parts
 * (`search` reads what was appended since), it is given what the parts before found.
 */
export class SessionTitle {
  constructor(
    public name: string | undefined = undefined,
    public firstUser: string | undefined = undefined,
  ) {}

  see(entry: Record<string, unknown>): void {
    if (entry.type === "session_info") this.name = sessionName(entry);
    else if (this.firstUser === undefined && entry.type === "message" && (entry.message as Record<string, unknown> | undefined)?.role === "user") {
      const text = messageText(entry.message as AgentMessage);
      // (what the person wrote: an OpenClaw channel message without its envelope)
      const gist = text && messageGist(text);
      if (gist) this.firstUser = gist.length > 300 ? gist.slice(0, 300) : gist;
    }
  }

  get title(): string | undefined {
    return this.name ?? this.firstUser;
  }

  /** Whether the first user message's gist is found (a later one can no longer be the title). */
  get hasFirstUser(): boolean {
    return this.firstUser !== undefined;
  }
}
