/**
 * Secrets of real shapes, made at test time from pieces (so that no file of the repository holds a
 * string a secret scanner flags), and sessions with them planted in every place a session keeps
 * text: user and assistant text, thinking, tool-call arguments, tool results, a compaction's and a
 * branch's summary, a custom message, a custom entry's data, a label, the session's name and the
 * header's cwd. Beside them, what looks like a secret and is not: git SHAs, SHA-256s, UUIDs, an
 * image's base64.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Characters drawn from `alphabet`, seeded (the same run to run). */
function drawn(seed: number, length: number, alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"): string {
  let a = seed >>> 0;
  let out = "";
  for (let i = 0; i < length; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out += alphabet[(((t ^ (t >>> 14)) >>> 0) % alphabet.length)]!;
  }
  return out;
}

const join2 = (...parts: string[]) => parts.join("");

/** The user name the planted sessions' cwd holds. */
export const USER = "mkowalski";

/**
 * Each secret: the text planted (what a session would hold), and the secret in it (what must not
 * be left, nor 12 characters of it). `kind`: the placeholder's kind it is expected as.
 */
export interface Planted {
  name: string;
  text: string;
  secret: string;
  kind: string;
}

export function secrets(seed = 1): Planted[] {
  const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const body = join2("MIIEpAIBAAKCAQEA", drawn(seed + 9, 48, b64), "\n", drawn(seed + 10, 64, b64), "\n", drawn(seed + 11, 64, b64));
  const pem = join2("-----BEGIN ", "RSA PRIVATE", " KEY-----\n", body, "\n-----END ", "RSA PRIVATE", " KEY-----");
  const awsSecret = drawn(seed + 3, 40, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+");
  const urlPassword = join2("pw", drawn(seed + 12, 14));
  const dbPassword = join2("db", drawn(seed + 13, 14));
  const bearer = join2(drawn(seed + 16, 30), "9", drawn(seed + 17, 9, "abcdefghijklmnopqrstuvwxyz0123456789-._~+/"));
  const list: Planted[] = [
    { name: "github", secret: join2("gh", "p_", drawn(seed, 36)), text: "", kind: "github-token" },
    { name: "openai", secret: join2("sk-", "proj-", drawn(seed + 1, 74, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"), "T3Blbk", "FJ", drawn(seed + 2, 74, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")), text: "", kind: "openai-token" },
    { name: "anthropic", secret: join2("sk-", "ant-", "api03-", drawn(seed + 4, 93, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"), "AA"), text: "", kind: "anthropic-api-key" },
    { name: "aws-secret", secret: awsSecret, text: join2("aws_secret", "_access_key = ", awsSecret), kind: "aws-secret-access-key" },
    { name: "aws-id", secret: join2("AK", "IA", drawn(seed + 5, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")), text: "", kind: "aws-access-key-id" },
    { name: "slack", secret: join2("xo", "xb-", drawn(seed + 6, 12, "0123456789"), "-", drawn(seed + 7, 12, "0123456789"), "-", drawn(seed + 8, 24)), text: "", kind: "slack-token" },
    { name: "stripe", secret: join2("sk", "_live_", drawn(seed + 14, 32)), text: "", kind: "stripe-secret-key-live" },
    // (the body is the secret: the lines around it name what it is, and are replaced with it)
    { name: "private-key", secret: body, text: pem, kind: "private-key" },
    { name: "url", secret: urlPassword, text: join2("https://", "deploy:", urlPassword, "@git.example.com/repo.git"), kind: "basic-auth" },
    { name: "postgres", secret: dbPassword, text: join2("postgres", "://app:", dbPassword, "@db.example.com:5432/prod"), kind: "postgresql-connection" },
    { name: "npm", secret: join2("np", "m_", drawn(seed + 15, 36)), text: "", kind: "npm-access-token" },
    // (kinds the preset does not look for: src/format/redact/own-rules.ts)
    { name: "jwt", secret: jwt(seed), text: "", kind: "jwt" },
    { name: "bearer", secret: bearer, text: join2("Authorization: ", "Bearer ", bearer), kind: "bearer-token" },
    { name: "google", secret: join2("AI", "za", drawn(seed + 18, 35, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")), text: "", kind: "google-api-key" },
    { name: "xai", secret: join2("xa", "i-", drawn(seed + 19, 80)), text: "", kind: "xai-api-key" },
    { name: "openrouter", secret: join2("sk-", "or-v1-", drawn(seed + 20, 64, "0123456789abcdef")), text: "", kind: "openrouter-api-key" },
  ];
  for (const p of list) if (!p.text) p.text = p.secret;
  return list;
}

/** A signed JSON Web Token: a header naming its algorithm, claims, a signature (base64url each). */
function jwt(seed: number): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return [part({ alg: "HS256", typ: "JWT" }), part({ sub: drawn(seed + 21, 12), iat: 1767225600, scope: "deploy" }), drawn(seed + 22, 43, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")].join(".");
}

/** A value the environment gives under a secret's name (`OPENAI_API_KEY`), and one `--secret` names. */
export const ENV_SECRET = join2("env-", drawn(77, 20));
export const GIVEN_SECRET = join2("given-", drawn(78, 20));

/** What looks like a secret and is none: kept byte for byte. */
export const LOOK_ALIKES = {
  sha1: drawn(90, 40, "0123456789abcdef"),
  sha256: drawn(91, 64, "0123456789abcdef"),
  uuid: [drawn(92, 8, "0123456789abcdef"), drawn(93, 4, "0123456789abcdef"), "4" + drawn(94, 3, "0123456789abcdef"), "a" + drawn(95, 3, "0123456789abcdef"), drawn(96, 12, "0123456789abcdef")].join("-"),
  // (an image's data: a JWT's and a Google key's shapes inside it, never read)
  image: [randomBytes(1440).toString("base64"), "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9", drawn(105, 20), "eyJzdWIiOiIxIn0", "AI", "za", drawn(106, 35), randomBytes(1440).toString("base64")].join(""),
  // (a Bearer credential that is a commit's SHA, or an id: the rules' look-alikes)
  bearerSha: `Authorization: Bearer ${drawn(97, 40, "0123456789abcdef")}`,
  bearerUuid: `Bearer ${[drawn(98, 8, "0123456789abcdef"), drawn(99, 4, "0123456789abcdef"), "4" + drawn(100, 3, "0123456789abcdef"), "b" + drawn(101, 3, "0123456789abcdef"), drawn(102, 12, "0123456789abcdef")].join("-")}`,
  // (base64 image data in a tool's output, with a Google key's shape and a JWT's parts inside its run)
  base64: [randomBytes(600).toString("base64"), "AI", "za", drawn(103, 35), "eyJ", drawn(104, 30), "eyJ", randomBytes(600).toString("base64")].join(""),
  // (code that sends a credential it does not hold)
  dataUrl: `data:image/png;base64,${randomBytes(300).toString("base64")}eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9${drawn(107, 20)}eyJzdWIiOiIxIn0${randomBytes(300).toString("base64")}`,
  bearerCode: 'headers: { Authorization: `Bearer ${token}` }, auth: "Bearer " + apiKey, curl -H "Authorization: Bearer YOUR_ACCESS_TOKEN_HERE"',
};

type Rec = Record<string, unknown>;

/**
 * A session (pi's v3 lines, as pi writes them) with every planted secret in every place, two
 * branches, tool calls paired with their results, a compaction, an image, and the look-alikes;
 * returns its path and its lines.
 */
export function plantedSession(dir = mkdtempSync(join(tmpdir(), "pi-session-planted-")), name = "planted.jsonl", seed = 1): { file: string; planted: Planted[]; lines: Rec[] } {
  const planted = secrets(seed);
  const all = planted.map((p) => p.text).join("\n") + `\nOPENAI_API_KEY=${ENV_SECRET}\ntoken ${GIVEN_SECRET}`;
  const look = `commit ${LOOK_ALIKES.sha1}, digest ${LOOK_ALIKES.sha256}, id ${LOOK_ALIKES.uuid}; ${LOOK_ALIKES.bearerSha}; ${LOOK_ALIKES.bearerUuid}; ${LOOK_ALIKES.bearerCode}\n${LOOK_ALIKES.base64}\n`;
  const home = `/home/${USER}`;
  let n = 0;
  let time = Date.parse("2026-03-01T10:00:00.000Z");
  const id = () => (++n).toString(16).padStart(8, "0");
  const ts = () => new Date((time += 1000)).toISOString();
  const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0.001, output: 0.002, cacheRead: 0, cacheWrite: 0, total: 0.003 } };
  const lines: Rec[] = [{ type: "session", version: 3, id: "0199aa00-1111-7222-8333-444455556666", timestamp: ts(), cwd: `${home}/code/app` }];
  const add = (entry: Rec, parent: string | null): string => {
    const e = { type: entry.type, id: id(), parentId: parent, timestamp: ts(), ...entry };
    lines.push(e);
    return e.id as string;
  };
  const msg = (message: Rec, parent: string | null) => add({ type: "message", message: { ...message, timestamp: time } }, parent);
  let p = add({ type: "model_change", provider: "anthropic", modelId: "claude-sonnet-4-5" }, null);
  p = msg({ role: "user", content: `here are my keys:\n${all}\nand ${look}` }, p);
  const call = "toolu_" + drawn(seed + 40, 24);
  p = msg({ role: "assistant", content: [{ type: "thinking", thinking: `the user pasted ${all}`, thinkingSignature: "EqQBCkgIARABGAIiQ" + drawn(seed + 41, 60) }, { type: "text", text: `I will not use ${all}. ${look}` }, { type: "toolCall", id: call, name: "bash", arguments: { command: `cat ${home}/.env && echo ${all.split("\n")[0]}`, env: { TOKEN: GIVEN_SECRET } } }], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage, stopReason: "toolUse" }, p);
  p = msg({ role: "toolResult", toolCallId: call, toolName: "bash", content: [{ type: "text", text: `${all}\n${look}` }, { type: "image", data: LOOK_ALIKES.image, mimeType: "image/png" }, { type: "text", text: LOOK_ALIKES.dataUrl }], details: { stdout: all }, isError: false }, p);
  const fork = p;
  p = msg({ role: "assistant", content: [{ type: "text", text: `done (${look})` }], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage, stopReason: "stop" }, p);
  p = add({ type: "compaction", summary: `the user shared ${all}`, firstKeptEntryId: fork, tokensBefore: 1234 }, p);
  p = add({ type: "custom_message", customType: "note", content: `remember ${all}`, display: true }, p);
  p = add({ type: "custom", customType: "state", data: { secret: all, nested: [{ value: all }] } }, p);
  add({ type: "label", targetId: fork, label: `keys ${planted[0]!.secret}` }, p);
  p = add({ type: "session_info", name: `session with ${planted[5]!.secret}` }, p);
  msg({ role: "user", content: [{ type: "text", text: `once more ${all}` }] }, p);
  // (another branch from the tool result, with a branch summary)
  const b = add({ type: "branch_summary", fromId: fork, summary: `abandoned: ${all}` }, fork);
  msg({ role: "user", content: `branch ${look}` }, b);
  const file = join(dir, name);
  writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  return { file, planted, lines };
}

/** Every run of `length` characters of `secret` (each 12 characters of it, say). */
function pieces(secret: string, length = 12): string[] {
  const out: string[] = [];
  for (let i = 0; i + length <= secret.length; i++) out.push(secret.slice(i, i + length));
  return out;
}

/** The first run of 12 characters of any of `secrets` that `text` holds, as it is or as JSON writes it (undefined: none). */
export function leaked(text: string, secretsList: readonly string[]): string | undefined {
  for (const s of secretsList) for (const piece of pieces(s)) if (text.includes(piece) || text.includes(JSON.stringify(piece).slice(1, -1))) return piece;
  return undefined;
}
