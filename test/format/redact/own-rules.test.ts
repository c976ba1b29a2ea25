/**
 * Our rules (src/format/redact/own-rules.ts): the kinds secretlint's preset does not look for, which
 * `export --redact` masked before `redact` (JWTs, `Bearer` values, Google, xAI and OpenRouter keys, private key blocks of any body, and
 * OpenAI's keys that end in `-`, which the preset misses),
 * each found with its kind and range through the detector as the preset's are, and what only looks
 * like one kept. Secrets are made from pieces at test time (test/helpers/secrets.ts).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { Detector, type SessionDetector } from "../../../src/format/redact/detector.js";
import { loadRuleSet } from "../../../src/format/redact/rules.js";
import { generatedKeys, opensshKey } from "../../helpers/private-keys.js";
import { LOOK_ALIKES, secrets } from "../../helpers/secrets.js";

let detector: SessionDetector;
beforeAll(async () => {
  detector = new Detector(await loadRuleSet()).forSession(undefined);
});
const planted = secrets(21);
const byName = (name: string) => planted.find((p) => p.name === name)!;
/** What the detector finds in `text`: each finding's kind, rule and the text it covers. */
const found = (text: string) => detector.find(text).map((m) => [m.kind, m.rule, text.slice(m.start, m.end)]);

describe("our rules: the kinds the preset lacks", () => {
  it.each([
    ["jwt", "jwt", "pi-session-rule-jwt"],
    ["bearer", "bearer-token", "pi-session-rule-bearer"],
    ["google", "google-api-key", "pi-session-rule-google"],
    ["xai", "xai-api-key", "pi-session-rule-xai"],
    ["openrouter", "openrouter-api-key", "pi-session-rule-openrouter"],
  ])("%s: found as %s by %s, in prose, in code, in a URL and in JSON", (name, kind, rule) => {
    const p = byName(name);
    for (const around of [(s: string) => s, (s: string) => `use ${s} now`, (s: string) => `KEY="${s}"\n`, (s: string) => `https://api.example.com/v1?key=${s}&x=1`, (s: string) => JSON.stringify({ k: s }), (s: string) => `'${s}',`]) {
      const text = around(p.text);
      expect(found(text), text).toEqual([[kind, rule, p.secret]]);
    }
  });

  it("an OpenAI project key that ends in `-`, which the preset's rule misses (its pattern ends at a word boundary), as the preset's kind; a key both find is one finding", async () => {
    const rules = await loadRuleSet();
    const key = byName("openai").secret;
    const dashed = `${key.slice(0, -1)}-`;
    for (const text of [dashed, `use ${dashed} now`, JSON.stringify({ OPENAI_API_KEY: dashed }), `OPENAI_API_KEY=${dashed}\n`]) {
      expect(rules.find(text).filter((h) => h.ruleId.startsWith("@secretlint/")), text).toEqual([]);
      expect(found(text), text).toEqual([["openai-token", "pi-session-rule-openai", dashed]]);
    }
    for (const text of [`use ${key} now`, `${key.slice(0, -1)}_ x`]) expect(found(text).map((f) => f[0]), text).toEqual(["openai-token"]);
    // (ours not inside a longer run of a key's characters)
    expect(rules.find(`${dashed}x_`).filter((h) => h.ruleId === "pi-session-rule-openai")).toEqual([]);
    expect(rules.find(`x${dashed}`).filter((h) => h.ruleId === "pi-session-rule-openai").length).toBe(1);
  });

  it("a JWT in a Bearer header is one secret; the scheme in any case", () => {
    const token = byName("jwt").secret;
    expect(found(`Authorization: Bearer ${token}`).map((f) => f[2])).toEqual([token]);
    const value = byName("bearer").secret;
    for (const scheme of ["bearer", "BEARER"]) expect(found(`authorization: ${scheme} ${value}`)).toEqual([["bearer-token", "pi-session-rule-bearer", value]]);
  });

  it("keeps what only looks like one: a Bearer that is a SHA, an id, a variable or a stand-in; base64 and image data; a JWT whose header names no algorithm; a key's shape inside a longer token", () => {
    const jwtParts = byName("jwt").secret.split(".");
    const noAlg = [Buffer.from('{"typ":"JWT"}').toString("base64url"), jwtParts[1], jwtParts[2]].join(".");
    const google = byName("google").secret;
    for (const text of [
      LOOK_ALIKES.bearerSha,
      LOOK_ALIKES.bearerUuid,
      LOOK_ALIKES.bearerCode,
      LOOK_ALIKES.base64,
      LOOK_ALIKES.dataUrl,
      LOOK_ALIKES.image,
      "Bearer tokens are sent in the Authorization header; the bearer authentication scheme",
      "Authorization: Bearer $GITHUB_TOKEN and Bearer ${API_KEY} and Bearer <token> and Bearer {{token}}",
      noAlg,
      `x${google}`,
      `${google}9`,
      `sk-or-v1-${"0123456789abcdef".repeat(3)}`,
      `xai-${"A1".repeat(20)}`,
    ])
      expect(found(text), text.slice(0, 80)).toEqual([]);
  });
});

describe("our rules: a private key of any body", () => {
  const keys = [...generatedKeys(), ["openssh ed25519", opensshKey()] as [string, string]];
  /** The blocks secretlint's preset takes too (its body starts `MI` or `b3Bl`, 100 characters or more, and is base64 alone). */
  const presetTakes = (pem: string) => {
    const body = pem.split("\n").slice(1, -2).join("");
    return /^(?:MI|b3Bl)[A-Za-z0-9+/]+=*$/.test(body) && body.length >= 100;
  };

  it.each(keys)("%s: the block found whole, as one finding, newlines decoded or written `\\n`", async (_name, pem) => {
    const rules = await loadRuleSet();
    const block = pem.trimEnd();
    for (const text of [`$ cat key.pem\n${pem}$ `, `KEY="${block}"`, JSON.stringify({ private_key: pem })]) {
      const written = text.includes("\\n") ? JSON.stringify(block).slice(1, -1) : block;
      const f = detector.find(text);
      expect(f.length, text).toBe(1);
      expect(text.slice(f[0]!.start, f[0]!.end), text).toBe(written);
      expect(f[0]!.kind).toBe("private-key");
      const preset = rules.find(text).some((h) => h.ruleId === "@secretlint/secretlint-rule-privatekey");
      expect(f[0]!.rule).toBe(preset ? "secretlint-rule-privatekey" : "pi-session-rule-private-key");
    }
  });

  it("the preset misses the shapes ours is for (an ed25519 key, an encrypted PEM, a short OpenSSH body): ours finds them", async () => {
    const rules = await loadRuleSet();
    const missed = keys.filter(([, pem]) => !presetTakes(pem));
    expect(missed.map(([name]) => name)).toEqual(expect.arrayContaining(["ed25519 pkcs8", "x25519 pkcs8", "rsa pkcs1 encrypted", "ec sec1 encrypted"]));
    for (const [name, pem] of missed) expect(rules.find(pem).filter((h) => h.ruleId === "@secretlint/secretlint-rule-privatekey"), name).toEqual([]);
    const short = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----";
    expect(found(`x ${short} y`)).toEqual([["private-key", "pi-session-rule-private-key", short]]);
  });

  it("a block cut off before its END: through its base64 and header lines, not the prose after", () => {
    const pem = generatedKeys()[0]![1];
    const cut = pem.split("\n").slice(0, 2).join("\n");
    expect(found(`${cut}\n[output truncated]`)).toEqual([["private-key", "pi-session-rule-private-key", cut]]);
    const enc = generatedKeys().find(([n]) => n === "rsa pkcs1 encrypted")![1].split("\n").slice(0, 5).join("\n");
    expect(found(`${enc}\nmore words here`)).toEqual([["private-key", "pi-session-rule-private-key", enc]]);
  });

  it("keeps a key's name without a block: prose, a public key, a certificate", () => {
    for (const text of ["the PRIVATE KEY goes in ~/.ssh", "-----BEGIN PRIVATE KEY-----", "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----", "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----"]) expect(found(text), text).toEqual([]);
  });
});
