import type { Follows } from "./anchors.js";
import { ownRules } from "./own-rules.js";

/**
 * The secrets a maintained rule set finds: secretlint's recommended preset
 * (`@secretlint/secretlint-rule-preset-recommend`, README "Dependencies"), its rules run here one
 * decoded string at a time, synchronously, as `@secretlint/core`'s `lintSource` runs them over a
 * text without a file path (test/conformance/secretlint.test.ts holds the two to each other,
 * string for string). Core is not what runs them: its `lintSource` is a Promise a text and about
 * 0.2 ms a call, and a session is millions of strings read in a synchronous pass over its lines.
 *
 * Ours (own-rules.ts: JWTs, `Bearer` values, Google, xAI and OpenRouter keys, private key blocks of any body, which the preset
 * does not look for) run after the preset's, in the same shape.
 *
 * The preset is loaded when a command asks for it (`loadRuleSet`): no other command pays for it.
 */

/** A rule of the preset, as much of its shape as is used here; one of ours (own-rules.ts) carries its anchors. */
interface PresetRule {
  meta: { id: string; type: string; supportedContentTypes: readonly string[] };
  anchors?: readonly string[];
  create(context: RuleContext, options: Record<string, unknown>): { file?: (source: RuleSource) => unknown };
}

/** What a rule reports through (`@secretlint/types`' rule context, as core makes it). */
interface RuleContext {
  sharedOptions: Record<string, unknown>;
  createTranslator(messages: unknown): (messageId: string, data?: Record<string, unknown>) => { message: string; messageId: string; data?: Record<string, unknown> };
  report(descriptor: { message: { messageId: string; data?: Record<string, unknown> }; range: readonly [number, number] }): void;
  ignore(descriptor: unknown): void;
}

/** The text a rule reads: a string with no file path, as core gives a text linted without one. */
interface RuleSource {
  content: string;
  filePath: undefined;
  ext: string;
  contentType: "text";
}

/**
 * `secretlint-disable` comments in the text itself switch rules off: a session's text would then
 * decide what is found in it (a model, or a file it read, writing the comment). Left out.
 */
const LEFT_OUT = new Set(["@secretlint/secretlint-rule-filter-comments"]);

/**
 * For each rule, strings every text it reports on holds (one of them), read from its patterns:
 * a rule runs on a string only when the string holds one, and a line is parsed only when its bytes
 * hold one (`anchors`). Each is written with letters, digits and `_ - . : /` and spaces only, which
 * JSON writes as they are (a line with any `\u` or `\/` escape is parsed whatever it holds).
 * Keyed by the preset's rule ids: a rule the preset adds has none, and a test fails until it does;
 * the conformance test checks that nothing a rule finds without them is missed with them.
 */
export const RULE_ANCHORS = {
  // (the secret access key's name; with `enableIDScanRule` an access key id's prefixes and an account id's name)
  "@secretlint/secretlint-rule-aws": ["SECRET", "ecret", "A3T", "AKIA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "ASIA", "ACCOUNT", "ccount"],
  // (a service account's JSON and a .p12 are looked for in files of those names only: a text has none)
  "@secretlint/secretlint-rule-gcp": [],
  // (`_authToken=` and GitHub's x-oauth-basic in files named .npmrc and package.json only)
  "@secretlint/secretlint-rule-npm": ["npm_"],
  "@secretlint/secretlint-rule-slack": ["xox", "xapp-", "://"],
  "@secretlint/secretlint-rule-basicauth": ["://"],
  "@secretlint/secretlint-rule-openai": ["T3BlbkFJ"],
  "@secretlint/secretlint-rule-anthropic": ["sk-ant-api0"],
  "@secretlint/secretlint-rule-groq": ["gsk_"],
  "@secretlint/secretlint-rule-huggingface": ["hf_"],
  "@secretlint/secretlint-rule-linear": ["lin_api_"],
  "@secretlint/secretlint-rule-notion": ["ntn_"],
  "@secretlint/secretlint-rule-privatekey": ["PRIVATE KEY"],
  "@secretlint/secretlint-rule-sendgrid": ["SG."],
  "@secretlint/secretlint-rule-shopify": ["shp"],
  "@secretlint/secretlint-rule-stripe": ["k_live_", "k_test_"],
  "@secretlint/secretlint-rule-github": ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
  "@secretlint/secretlint-rule-gitlab": ["glpat-"],
  "@secretlint/secretlint-rule-grafana": ["glc_", "glsa_"],
  "@secretlint/secretlint-rule-1password": ["ops_ey"],
  "@secretlint/secretlint-rule-database-connection-string": ["://"],
  "@secretlint/secretlint-rule-hashicorp-vault": ["hvs.", "hvb.", "hvr."],
  "@secretlint/secretlint-rule-vercel": ["vcp_", "vci_", "vca_", "vcr_", "vck_"],
  "@secretlint/secretlint-rule-databricks": ["dapi"],
  "@secretlint/secretlint-rule-docker": ["dckr_pat_"],
  "@secretlint/secretlint-rule-figma": ["figd_"],
  "@secretlint/secretlint-rule-cloudflare": ["cfk_", "cfut_", "cfat_"],
  "@secretlint/secretlint-rule-tailscale": ["tskey-"],
} as const satisfies Record<string, readonly string[]>;

/** The rules whose anchor `://` is (`ANCHOR_FOLLOWS` holds for these alone: a test names them). */
export const URL_RULES = ["@secretlint/secretlint-rule-slack", "@secretlint/secretlint-rule-basicauth", "@secretlint/secretlint-rule-database-connection-string"];

/** A URL's `user:password@` lies within this many bytes after `://` (100 + 200 characters of a connection string's, 4 bytes each at most, and the colon; basic auth's 256 + 256 are ASCII). */
const CREDENTIAL_BYTES = 1300;

/** `hooks.slack.com`, Slack's incoming webhook's host, which its rule looks for in any case. */
const SLACK_HOOKS = Buffer.from("hooks.slack.com");

/**
 * `://` counts in a line's bytes only where what follows can be found by one of its rules
 * (`URL_RULES`): a `user:password@` (basic auth's and a connection string's: an `@` with no `/`
 * nor space before it, within `CREDENTIAL_BYTES`), or Slack's webhook host, in any case. Most
 * URLs hold neither, and their lines were half of the lines a store's --check parsed. (A line
 * with a `\u` or `\/` escape is parsed whatever it holds: its bytes need not say it.)
 */
function urlCredential(b: Uint8Array, at: number, end: number): boolean {
  let hooks = at + SLACK_HOOKS.length <= end;
  for (let k = 0; hooks && k < SLACK_HOOKS.length; k++) hooks = (b[at + k]! | 0x20) === SLACK_HOOKS[k];
  if (hooks) return true;
  const last = Math.min(end, at + CREDENTIAL_BYTES);
  for (let i = at; i < last; i++) {
    const c = b[i]!;
    if (c === 0x40) return true;
    if (c === 0x2f || c === 0x20) return false;
  }
  return false;
}

/**
 * Anchors held in a line's bytes only where what follows them says so (`AnchorScan`): each rule
 * that has the anchor finds nothing elsewhere. In a decoded string they are held as they are.
 */
export const ANCHOR_FOLLOWS: ReadonlyMap<string, Follows> = new Map([["://", urlCredential]]);

/**
 * Options a rule is given (secretlint's own): AWS access key ids (`AKIA…`, which GitHub's secret
 * scanning reports too) and account ids are looked for as well as secret access keys.
 */
export const RULE_OPTIONS: Readonly<Record<string, Record<string, unknown>>> = {
  "@secretlint/secretlint-rule-aws": { enableIDScanRule: true },
};

/** What a rule reported, as core reports it: the range in the text less a leading BOM (core reads a text without it). */
export interface RuleHit {
  /** The rule's id, `@secretlint/secretlint-rule-github`. */
  ruleId: string;
  messageId: string;
  data: Record<string, unknown> | undefined;
  range: [number, number];
}

/**
 * The preset's rules, and ours after them (own-rules.ts: kinds the preset lacks), each made once
 * and run on the strings that hold one of its anchors.
 */
export class RuleSet {
  private readonly rules: Array<{ id: string; anchors: readonly string[]; file: (source: RuleSource) => unknown }> = [];
  private hits: RuleHit[] = [];
  private running = "";
  /** Every rule's anchors, once each (`anchors`). */
  readonly anchors: readonly string[];
  /** Of them, those a line's bytes hold only where what follows says so (`ANCHOR_FOLLOWS`). */
  readonly follows: ReadonlyMap<string, Follows>;

  constructor(preset: readonly PresetRule[], own: readonly PresetRule[] = []) {
    const translator = () => (messageId: string, data?: Record<string, unknown>) => ({ message: "", messageId, data });
    for (const rule of [...preset, ...own]) {
      const id = rule.meta.id;
      if (LEFT_OUT.has(id) || rule.meta.type !== "scanner") continue;
      const types = rule.meta.supportedContentTypes;
      if (!types.includes("text") && !types.includes("all")) continue;
      const anchors = rule.anchors ?? (RULE_ANCHORS as Record<string, readonly string[]>)[id];
      if (anchors === undefined) throw new Error(`secretlint's rule ${id} has no anchors in RULE_ANCHORS (src/format/redact/rules.ts): read its patterns and add them`);
      const context: RuleContext = {
        sharedOptions: {},
        createTranslator: translator,
        report: (d) => this.hits.push({ ruleId: this.running, messageId: d.message.messageId, data: d.message.data, range: [d.range[0], d.range[1]] }),
        ignore: () => {},
      };
      const handler = rule.create(context, RULE_OPTIONS[id] ?? {});
      if (handler.file && anchors.length > 0) this.rules.push({ id, anchors, file: handler.file });
    }
    this.anchors = [...new Set(this.rules.flatMap((r) => r.anchors))];
    this.follows = new Map([...ANCHOR_FOLLOWS].filter(([anchor]) => this.anchors.includes(anchor)));
  }

  /**
   * What the rules report in `text` (each rule whose anchors it holds), in the order core's rules
   * report. `present`: the anchors `text` holds, where the caller knows them (`StringAnchors`).
   */
  find(text: string, present?: ReadonlySet<string>): RuleHit[] {
    // (core reads a text without its BOM, and its ranges are in that text)
    const content = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    const source: RuleSource = { content, filePath: undefined, ext: "", contentType: "text" };
    const hits: RuleHit[] = (this.hits = []);
    for (const rule of this.rules) {
      if (!(present ? rule.anchors.some((a) => present.has(a)) : rule.anchors.some((a) => content.includes(a)))) continue;
      this.running = rule.id;
      rule.file(source);
    }
    this.hits = [];
    return hits;
  }
}

/** The preset's rules and ours, loaded (once a run: the caller keeps the set). */
export async function loadRuleSet(): Promise<RuleSet> {
  const preset = (await import("@secretlint/secretlint-rule-preset-recommend")) as unknown as { creator: { rules: PresetRule[] } };
  return new RuleSet(preset.creator.rules, ownRules());
}
