/**
 * The second rule source: secrets of kinds secretlint's recommended preset does not look for, which
 * `export --redact` masked before `redact` (README, "What redact finds"). Only kinds whose shape
 * names them are here, each held to its shape: a JSON Web Token (its header decoded, naming its
 * algorithm), an HTTP `Bearer` credential, a Google API key, an xAI key, an OpenRouter key, a PEM
 * private key block of any body (the preset's rule takes only bodies it knows the start of); and
 * OpenAI's project keys that end in `-`, which the preset's rule misses. The preset finds Groq's
 * keys and OpenAI's others (`T3BlbkFJ` in them) already; a generic `password=`
 * or `token=` assignment is left to `--deny` (code is full of them holding no secret). They are
 * written here because no maintained npm package carries them (gitleaks' rules are Go and TOML).
 *
 * Each is a rule in the preset's shape (`create` a handler whose `file` reports ranges), run by
 * `RuleSet` with the preset's: the same anchors (a rule runs on a string, and a line is parsed,
 * only where one is held), the same look-alikes dropped (a value wholly a git SHA or a UUID), the
 * same placeholders and report. The anchors follow `RULE_ANCHORS`' rule (rules.ts): letters,
 * digits and `_ - . : /` only, and every text a rule reports on holds one.
 */

/** A handler's report, as `RuleSet` gives its rules the means to make one. */
interface Report {
  report(descriptor: { message: { messageId: string; data?: Record<string, unknown> }; range: readonly [number, number] }): void;
}

/** One of the rules, its pattern's first group (else its whole match) the secret; `valid` refuses a match its shape does not hold to. */
interface OwnRule {
  /** The id the report names (`rule`: `pi-session-rule-jwt`). */
  id: string;
  /** The placeholder's kind, as the preset's message ids are written (`JWT` -> `jwt`). */
  messageId: string;
  anchors: readonly string[];
  pattern: RegExp;
  valid?: (secret: string) => boolean;
}

/** A JWT's first part, decoded: a JSON object naming its algorithm (`{"alg":"HS256",…}`). */
function jwtHeader(token: string): boolean {
  const head = token.slice(0, token.indexOf("."));
  try {
    const header: unknown = JSON.parse(Buffer.from(head, "base64url").toString("utf8"));
    return typeof header === "object" && header !== null && typeof (header as { alg?: unknown }).alg === "string";
  } catch {
    return false;
  }
}

/** A credential has letters and digits both: `Bearer YOUR_ACCESS_TOKEN_HERE` and prose do not. */
const lettersAndDigits = (s: string) => /[A-Za-z]/.test(s) && /[0-9]/.test(s);

/**
 * Not inside a longer run of a token's or base64's characters (image data holds every short shape
 * by chance); a key may follow `=` (a URL's query), and base64's padding ends a run.
 */
const BEFORE = "(?<![A-Za-z0-9_+/-])";
const AFTER = "(?![A-Za-z0-9_+/=-])";

const OWN_RULES: readonly OwnRule[] = [
  {
    id: "pi-session-rule-jwt",
    messageId: "JWT",
    // (a signed token's header and claims are each a JSON object: base64url of `{"` is `eyJ`, and a dot stands between them)
    anchors: [".eyJ"],
    pattern: new RegExp(`${BEFORE}(eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{16,})${AFTER}`, "gd"),
    valid: jwtHeader,
  },
  {
    id: "pi-session-rule-bearer",
    messageId: "BEARER_TOKEN",
    // (RFC 6750's credential: the scheme, then a b64token; the scheme's case is free)
    anchors: ["earer", "EARER"],
    pattern: /(?<![A-Za-z0-9])[Bb](?:earer|EARER)[ \t]+([A-Za-z0-9._~+/-]{16,}=*)(?![A-Za-z0-9._~+/=-])/dg,
    valid: lettersAndDigits,
  },
  {
    id: "pi-session-rule-google",
    messageId: "GOOGLE_API_KEY",
    anchors: ["AIza"],
    pattern: new RegExp(`${BEFORE}(AIza[0-9A-Za-z_-]{35})${AFTER}`, "gd"),
  },
  {
    id: "pi-session-rule-xai",
    messageId: "XAI_API_KEY",
    anchors: ["xai-"],
    pattern: new RegExp(`${BEFORE}(xai-[0-9A-Za-z]{70,90})${AFTER}`, "gd"),
  },
  {
    // (the preset's OpenAI rule ends its pattern at a word boundary, so a project key whose last
    // character is `-` (one in 64) is found only when a letter or digit follows it: the same shape,
    // ended where no key character follows, and the preset's kind; where both find a key it is one)
    id: "pi-session-rule-openai",
    messageId: "OPENAI_TOKEN",
    anchors: ["T3BlbkFJ"],
    pattern: /(sk-(?:proj|svcacct|admin)-(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})T3BlbkFJ(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58}))(?![A-Za-z0-9_-])/dg,
  },
  {
    // (the preset's rule takes a block whose body starts `MI` or `b3Bl` and is 100 characters or
    // more: an ed25519 PKCS#8 key (64 characters, `MC4C`), an encrypted PEM with `Proc-Type:`
    // headers, a short or unusual OpenSSH body are not. Any block named a private key is one here,
    // its body whole, whatever it holds, up to its END line; one whose END is missing (a tool's
    // output cut off) through the lines of base64 (or `Name: value` headers) after it. Where the
    // preset finds the block too it is one finding)
    id: "pi-session-rule-private-key",
    messageId: "PrivateKey",
    anchors: ["PRIVATE KEY"],
    pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]{0,20000}?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?:(?:(?:\r?\n|\\r?\\n)[ \t]*)+(?:[A-Za-z0-9+/=]+|[A-Za-z-]+: [^\n\\]*)(?=\r?\n|\\r?\\n|$))+)/dg,
  },
  {
    id: "pi-session-rule-openrouter",
    messageId: "OPENROUTER_API_KEY",
    anchors: ["sk-or-v1-"],
    pattern: new RegExp(`${BEFORE}(sk-or-v1-[0-9a-f]{64})${AFTER}`, "gd"),
  },
];

/** The rules in the preset's shape (`RuleSet` runs them with its own). */
export function ownRules(): Array<{ meta: { id: string; type: string; supportedContentTypes: readonly string[] }; anchors: readonly string[]; create(context: Report): { file(source: { content: string }): void } }> {
  return OWN_RULES.map((rule) => ({
    meta: { id: rule.id, type: "scanner", supportedContentTypes: ["text"] },
    anchors: rule.anchors,
    create: (context: Report) => ({
      file(source: { content: string }) {
        rule.pattern.lastIndex = 0;
        for (const m of source.content.matchAll(rule.pattern)) {
          const [start, end] = m.indices![1] ?? m.indices![0]!;
          if (rule.valid && !rule.valid(source.content.slice(start, end))) continue;
          context.report({ message: { messageId: rule.messageId }, range: [start, end] });
        }
      },
    }),
  }));
}
