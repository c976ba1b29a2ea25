import { PLACEHOLDER } from "./placeholder.js";
import { kindOf } from "./placeholder.js";
import { AnchorScan, StringAnchors, type Follows } from "./anchors.js";
import type { RuleHit, RuleSet } from "./rules.js";

/**
 * What is a secret in a decoded string (README, "What redact finds"): what the rule set reports,
 * the values of the environment's variables named like a secret, the user name of the session's
 * working directory, and what the user adds (`--secret`, `--deny`). Each finding is a range of the
 * string with its kind (the placeholder's) and what found it (the report's `rule`); findings that
 * overlap are one.
 */

export interface DetectOptions {
  /** The environment: the values of its variables named like a secret (`secretVariables`) are secrets. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Values given with `--secret`. */
  secrets?: readonly string[];
  /** Patterns given with `--deny` (JavaScript regular expressions; where one has a group, what its first group matched is the secret). */
  deny?: readonly string[];
}

export interface Match {
  start: number;
  end: number;
  /** The placeholder's kind: `github-token`, `env-variable`, `user-name`, `secret`, `deny`. */
  kind: string;
  /** What found it, without its value: `secretlint-rule-github`, `env OPENAI_API_KEY`, `cwd`, `--secret 1`, `--deny 2`. */
  rule: string;
}

/**
 * A variable whose name says it holds a secret: KEY, TOKEN, SECRET or PASSWORD in it, in any case,
 * not running on into another word (`OPENAI_API_KEY`, `GITHUB_TOKEN`, `npm_config__authToken`,
 * `apikey`; not `npm_package_keywords_0` nor `KEYTIMEOUT`).
 */
const SECRET_NAME = /(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD)S?(?![A-Za-z])/i;

/** The least length of a variable's value taken as a secret (shorter ones are flags and counts). */
const SECRET_VALUE_LENGTH = 8;

/** The environment's variables named like a secret whose values are secrets, as [name, value], by name. */
export function secretVariables(env: Readonly<Record<string, string | undefined>>): Array<[string, string]> {
  return Object.entries(env)
    .filter((e): e is [string, string] => SECRET_NAME.test(e[0]) && typeof e[1] === "string" && e[1].length >= SECRET_VALUE_LENGTH)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** The user name a working directory's home folder holds (`/home/NAME`, `/Users/NAME`, `C:\Users\NAME`), if any. */
export function userOfCwd(cwd: string | undefined): string | undefined {
  if (!cwd) return undefined;
  const m = /^(?:\/home|\/Users)\/([^/]+)/.exec(cwd) ?? /^[A-Za-z]:[\\/]Users[\\/]([^\\/]+)/i.exec(cwd);
  const name = m?.[1];
  return name && name !== "." && name !== ".." ? name : undefined;
}

/**
 * Account names that say nothing of the person (a CI runner's, a container's, a board's): replaced
 * in home folders' paths, but not as words wherever they stand (`node`, `app`, `pi` and `root` are
 * words of every session). A name under three characters is likewise replaced in paths only.
 */
const GENERIC_USERS = new Set(["root", "user", "users", "admin", "administrator", "ubuntu", "debian", "runner", "node", "app", "dev", "pi", "home", "ec2-user", "vagrant", "docker", "builder", "build", "test", "ci", "guest", "shared", "public", "default", "runneradmin"]);

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** A JavaScript regular expression as `--deny` takes it: `/source/flags`, or a source. */
export function denyPattern(text: string): RegExp {
  const literal = /^\/(.+)\/([a-z]*)$/s.exec(text);
  const source = literal ? literal[1]! : text;
  const flags = new Set([...(literal ? literal[2]! : ""), "g", "d"]);
  flags.delete("y");
  return new RegExp(source, [...flags].join(""));
}

/** A rule's value that looks like what is never a secret: a git SHA-1, a SHA-256, a UUID. */
const LOOK_ALIKE = /^(?:[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

/** A URL's password (basic auth, a database's connection string): what is replaced of a URL a rule reports. */
const URL_PASSWORD = /^(?:[A-Za-z][A-Za-z0-9+.-]*:)+\/\/([^:@/\s]*):([^@/\s]+)@/;

/** Data fields a rule reports that name no value (the token's type, a file's name). */
const NO_VALUE = new Set(["typeName", "FILE_NAME"]);

/**
 * Where a rule's finding is in the text. A rule that reports where its whole match starts with its
 * value's length (secretlint 13.1.0's AWS secret access key, and npm's `_authToken`, report the
 * variable's name) gives the value in its data: the value is taken where the rule found it. Of a URL
 * (basic auth, a database's connection string) the password alone is the secret.
 */
function locate(hit: RuleHit, text: string, offset: number): [number, number] {
  let start = hit.range[0] + offset;
  let end = hit.range[1] + offset;
  const found = text.slice(start, end);
  const values = Object.entries(hit.data ?? {}).filter((e): e is [string, string] => !NO_VALUE.has(e[0]) && typeof e[1] === "string" && e[1].length > 0).map((e) => e[1]);
  if (values.length > 0 && !values.includes(found)) {
    for (const value of values.sort((a, b) => b.length - a.length)) {
      const at = text.indexOf(value, start);
      if (at >= 0 && at - start <= 512) {
        start = at;
        end = at + value.length;
        break;
      }
    }
  }
  const url = URL_PASSWORD.exec(text.slice(start, end));
  if (url) {
    const password = url[2]!;
    start += url[0].length - 1 - password.length;
    end = start + password.length;
  }
  return [start, end];
}

/**
 * Finds secrets in strings: the rule set with what the run adds (the environment's secrets,
 * `--secret`, `--deny`); `forSession` adds a session's own (its user name).
 */
export class Detector {
  private readonly literals: Array<{ value: string; kind: string; rule: string }> = [];
  private readonly deny: Array<{ pattern: RegExp; rule: string }>;
  private readonly sessions = new Map<string, SessionDetector>();

  constructor(
    private readonly rules: RuleSet,
    options: DetectOptions = {},
  ) {
    for (const [name, value] of secretVariables(options.env ?? {})) this.literals.push({ value, kind: "env-variable", rule: `env ${name}` });
    for (const [k, value] of (options.secrets ?? []).entries()) if (value.length > 0) this.literals.push({ value, kind: "secret", rule: `--secret ${k + 1}` });
    this.deny = (options.deny ?? []).map((text, k) => ({ pattern: denyPattern(text), rule: `--deny ${k + 1}` }));
  }

  /** The detector for a session whose working directory is `cwd` (its user name a secret too). */
  forSession(cwd: string | undefined): SessionDetector {
    // (one a user name: a store's sessions share theirs, and their detector with its tables)
    const user = userOfCwd(cwd);
    let detector = this.sessions.get(user ?? "");
    if (!detector) this.sessions.set(user ?? "", (detector = new SessionDetector(this.rules, this.literals, this.deny, user)));
    return detector;
  }
}

/** A session's detector: `find` in a decoded string; `anchors` and `everyLine` for which lines may hold any. */
export class SessionDetector {
  /** Strings a string holds when anything may be found in it (every rule's, every literal). */
  readonly anchors: readonly string[];
  /** Of them, those a line's bytes hold only where what follows says so (the rules', `RuleSet.follows`, less any a literal is too). */
  readonly follows: ReadonlyMap<string, Follows>;
  /** `--deny` was given: any string may hold a match. */
  readonly everyLine: boolean;
  private scan: AnchorScan | undefined;
  private readonly inPath: RegExp | undefined;
  /** Which anchors a string holds. */
  private readonly present: StringAnchors;
  private readonly asWord: RegExp | undefined;

  constructor(
    private readonly rules: RuleSet,
    private readonly literals: ReadonlyArray<{ value: string; kind: string; rule: string }>,
    private readonly deny: ReadonlyArray<{ pattern: RegExp; rule: string }>,
    user: string | undefined,
  ) {
    const anchors = [...rules.anchors, ...literals.map((l) => l.value)];
    if (user) {
      const name = escapeRegExp(user);
      this.inPath = new RegExp(`(?:/home/|/[Uu]sers/|\\\\[Uu]sers\\\\)(${name})(?![A-Za-z0-9_-])`, "gd");
      if (user.length >= 3 && !GENERIC_USERS.has(user.toLowerCase())) {
        this.asWord = new RegExp(`(?<![A-Za-z0-9])${name}(?![A-Za-z0-9])`, "g");
        anchors.push(user);
      } else anchors.push(...["/home/", "/Users/", "/users/", "\\Users\\", "\\users\\"].map((home) => home + user));
    }
    this.anchors = anchors;
    const own = new Set(anchors.slice(rules.anchors.length));
    this.follows = new Map([...rules.follows].filter(([anchor]) => !own.has(anchor)));
    this.present = new StringAnchors(anchors);
    this.everyLine = deny.length > 0;
  }

  /** Which lines' bytes may hold a secret (`anchors`, `follows`), made once. */
  get lines(): AnchorScan {
    return (this.scan ??= new AnchorScan(this.anchors, this.follows));
  }

  /** The secrets in `text`, in order, none overlapping. */
  find(text: string): Match[] {
    const found: Match[] = [];
    const present = this.present.within(text);
    if (this.everyLine || present) {
      const offset = text.charCodeAt(0) === 0xfeff ? 1 : 0;
      // (the text as it is, and where it holds a terminal's escapes, without them: `ESC[31mghp_…` has a letter before the token)
      const views = text.includes("\x1b") ? [text, unstyled(text)] : [text];
      for (const view of views) {
        for (const hit of this.rules.find(view, this.everyLine ? undefined : present)) {
          const [start, end] = locate(hit, view, offset);
          if (end <= start || LOOK_ALIKE.test(view.slice(start, end))) continue;
          found.push({ start, end, kind: kindOf(hit.messageId), rule: hit.ruleId.replace(/^@secretlint\//, "") });
        }
      }
      for (const l of this.literals) {
        if (present && !present.has(l.value) && !this.everyLine) continue;
        for (let at = text.indexOf(l.value); at >= 0; at = text.indexOf(l.value, at + l.value.length)) found.push({ start: at, end: at + l.value.length, kind: l.kind, rule: l.rule });
      }
      if (this.inPath) {
        this.inPath.lastIndex = 0;
        for (const m of text.matchAll(this.inPath)) found.push({ start: m.indices![1]![0], end: m.indices![1]![1], kind: "user-name", rule: "cwd" });
      }
      if (this.asWord) {
        for (const view of views) {
          this.asWord.lastIndex = 0;
          for (const m of view.matchAll(this.asWord)) found.push({ start: m.index, end: m.index + m[0].length, kind: "user-name", rule: "cwd" });
        }
      }
      for (const d of this.deny) {
        d.pattern.lastIndex = 0;
        for (const m of text.matchAll(d.pattern)) {
          const span = m.indices![1] ?? m.indices![0]!;
          if (span[1] > span[0]) found.push({ start: span[0], end: span[1], kind: "deny", rule: d.rule });
        }
      }
    }
    return found.length === 0 ? found : merged(withoutPlaceholders(found, text));
  }
}

/**
 * A terminal's escape sequences (a colour, a cursor's move: `ESC [ … letter`; an OSC's opening
 * `ESC ]` and its end, `BEL` or `ESC \\`; `ESC` and one character), each character of them a space
 * (so that every index is the same in both). A tool's output keeps its colours, and the rules take
 * a token only where no letter stands before it: `ESC[1;31mghp_…` reads `m` there. What an OSC
 * carries (a link's URL) stays to be read.
 */
const TERMINAL_ESCAPE = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\]|\x1b\\|\x1b[@-Z^_]|\x07/g;

function unstyled(text: string): string {
  return text.replace(TERMINAL_ESCAPE, (m) => " ".repeat(m.length));
}

/**
 * Findings less what is a placeholder already (a second run over a redacted session finds
 * nothing): one inside a placeholder, or one whose only letters and digits are a placeholder's
 * (a database URL's password that a run replaced), is dropped.
 */
function withoutPlaceholders(found: Match[], text: string): Match[] {
  if (!text.includes("«redacted:")) return found;
  const spans = [...text.matchAll(PLACEHOLDER)].map((m) => [m.index, m.index + m[0].length] as const);
  return found.filter((f) => {
    let rest = "";
    let at = f.start;
    for (const [s, e] of spans) {
      if (e <= at || s >= f.end) continue;
      rest += text.slice(at, Math.max(at, s));
      at = Math.max(at, e);
    }
    rest += text.slice(at, Math.max(at, f.end));
    return /[\p{L}\p{N}]/u.test(rest);
  });
}

/** Findings in order, those that overlap made one (the earliest, then the longest, names it). */
function merged(found: Match[]): Match[] {
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Match[] = [];
  for (const f of found) {
    const last = out[out.length - 1];
    if (last && f.start < last.end) last.end = Math.max(last.end, f.end);
    else out.push({ ...f });
  }
  return out;
}
