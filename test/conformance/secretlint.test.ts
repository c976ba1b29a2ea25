/**
 * The rule set against its oracle: `@secretlint/core` 13.1.0 (a devDependency) linting each text
 * as secretlint lints a text with no file path, with the recommended preset's rules and the same
 * options. What `RuleSet` reports must be what core reports, text for text, on every string of the
 * fixtures and the real corpus, and on secrets of every planted shape in several surroundings; the
 * rules a string holds no anchor of are never run, so this also proves the anchors. Then the line
 * read: a line is passed over unparsed only where its bytes hold no anchor, and a read of every
 * line must find the same secrets, on the same files and on copies written with JSON's escapes.
 */
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { lintSource } from "@secretlint/core";
import { creator } from "@secretlint/secretlint-rule-preset-recommend";
import { describe, expect, it } from "vitest";
import { FileSource } from "../../src/format/read/source.js";
import { Detector } from "../../src/format/redact/detector.js";
import { Placeholders } from "../../src/format/redact/placeholder.js";
import { ownRules } from "../../src/format/redact/own-rules.js";
import { ANCHOR_FOLLOWS, loadRuleSet, RULE_ANCHORS, RULE_OPTIONS, URL_RULES, type RuleHit } from "../../src/format/redact/rules.js";
import { planRedaction, sessionHead } from "../../src/format/write/redact.js";
import { corpusFiles, fixtureFiles } from "../helpers/paths.js";
import { plantedSession, secrets } from "../helpers/secrets.js";

type Preset = Array<{ meta: { id: string; type: string } }>;
const RULES = (creator as unknown as { rules: Preset }).rules;
const LEFT_OUT = "@secretlint/secretlint-rule-filter-comments";
/** The planted secrets of kinds the preset lacks (test/helpers/secrets.ts): our rules find them. */
const OURS = ["jwt", "bearer", "google", "xai", "openrouter"];

/** What core reports in `text`, as `RuleSet.find` gives it. */
async function coreHits(text: string): Promise<string[]> {
  const rules = RULES.filter((r) => r.meta.id !== LEFT_OUT).map((r) => ({ id: r.meta.id, rule: r, options: RULE_OPTIONS[r.meta.id] ?? {} }));
  const result = await lintSource({ source: { content: text, filePath: "session-text", ext: "", contentType: "text" }, options: { config: { rules: rules as never }, noPhysicFilePath: true } });
  return result.messages.map((m) => `${m.ruleId} ${m.messageId} ${m.range[0]}-${m.range[1]}`).sort();
}

/** What the preset's rules report, run here (ours, own-rules.ts, have no oracle: their own tests below). */
const ours = (hits: RuleHit[]) => hits.filter((h) => h.ruleId.startsWith("@secretlint/")).map((h) => `${h.ruleId} ${h.messageId} ${h.range[0]}-${h.range[1]}`).sort();

/** Every string (and key) of a JSON value. */
function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === "object")
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      strings(x, out);
    }
  return out;
}

function texts(): string[] {
  const out = new Set<string>();
  for (const file of [...fixtureFiles(), ...corpusFiles()]) {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      try {
        for (const s of strings(JSON.parse(line))) if (s.length >= 8) out.add(s);
      } catch {
        // a broken line: its text as it is
        if (line.length >= 8) out.add(line);
      }
    }
  }
  for (const p of secrets(3)) {
    for (const around of [(s: string) => s, (s: string) => `x${s}y`, (s: string) => `\ufeff${s}`, (s: string) => `a ${s}\nb ${s}`, (s: string) => `"${s}"`, (s: string) => `key: '${s}',`]) out.add(around(p.text));
  }
  return [...out];
}

describe("secretlint's rules, run here as @secretlint/core runs them", () => {
  it("the anchor a line holds only where a credential or a webhook follows it, `://`, is the anchor of the rules that condition is read from, and of no other", () => {
    const withUrl = Object.entries(RULE_ANCHORS).filter(([, anchors]) => (anchors as readonly string[]).includes("://")).map(([id]) => id);
    expect(withUrl.sort()).toEqual([...URL_RULES].sort());
    expect([...ANCHOR_FOLLOWS.keys()]).toEqual(["://"]);
  });

  it("every scanner rule of the preset has its anchors, and none is named that the preset lacks", () => {
    const ids = RULES.filter((r) => r.meta.type === "scanner" && r.meta.id !== LEFT_OUT).map((r) => r.meta.id).sort();
    expect(Object.keys(RULE_ANCHORS).sort()).toEqual(ids);
  });

  it("report what core reports, text for text, on every string of the fixtures and the corpus and on planted secrets", async () => {
    const rules = await loadRuleSet();
    const all = texts();
    let found = 0;
    for (const [k, text] of all.entries()) {
      // (core's profiler marks each rule's run in the process's performance timeline: cleared as it goes)
      if (k % 1000 === 0) performance.clearMarks();
      const want = await coreHits(text);
      expect(ours(rules.find(text)), text.slice(0, 80)).toEqual(want);
      found += want.length;
    }
    // (the planted secrets are found: the comparison is not of nothing with nothing)
    expect(found).toBeGreaterThan(secrets(3).filter((p) => !OURS.includes(p.name)).length * 6);
    console.log(`secretlint conformance: ${all.length} texts, ${found} findings equal to core's`);
  }, 120_000);
});

describe("our rules (the kinds the preset lacks), run where their anchors are", () => {
  it("report, on every string of the fixtures and the corpus and on planted secrets, what each reports run on every string", async () => {
    const rules = await loadRuleSet();
    const own = ownRules();
    const ids = new Set(own.map((r) => r.meta.id));
    // (each run alone, on every text: what an anchor left out would lose)
    const everywhere = (text: string) => {
      const hits: string[] = [];
      for (const rule of own) {
        const handler = rule.create({ report: (d) => hits.push(`${rule.meta.id} ${d.message.messageId} ${d.range[0]}-${d.range[1]}`) });
        handler.file({ content: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text });
      }
      return hits.sort();
    };
    let found = 0;
    for (const text of texts()) {
      const want = everywhere(text);
      expect(rules.find(text).filter((h) => ids.has(h.ruleId)).map((h) => `${h.ruleId} ${h.messageId} ${h.range[0]}-${h.range[1]}`).sort(), text.slice(0, 80)).toEqual(want);
      found += want.length;
    }
    // (every planted kind of ours is found, in each surrounding that leaves it standing alone)
    const kinds = secrets(3).filter((p) => OURS.includes(p.name));
    expect(kinds.length).toBe(5);
    expect(found).toBeGreaterThanOrEqual(kinds.length * 5);
    // (and every anchor of ours is the rule set's, which the line prefilter searches for)
    for (const rule of own) for (const anchor of rule.anchors) expect(rules.anchors).toContain(anchor);
  }, 60_000);
});

describe("the anchors, in every case a rule matches", () => {
  /**
   * A rule that matched its pattern's letters in any case would find what its anchors (matched
   * byte for byte, in a line's bytes and in a string) let pass: each planted secret in upper, lower
   * and mixed case, and the names rules read beside values in the cases they take, must give what
   * each rule gives run on every text (core for the preset's, each of ours alone).
   */
  it("every case of the planted texts and of the names the rules read finds, gated by the anchors, what the rules find ungated", async () => {
    const rules = await loadRuleSet();
    const own = ownRules();
    const ids = new Set(own.map((r) => r.meta.id));
    const swapped = (s: string) => [...s].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join("");
    const titled = (s: string) => s.replace(/\b[a-z]/g, (c) => c.toUpperCase());
    const cases: string[] = [];
    for (const p of secrets(4)) {
      const value = p.secret.split("\n")[0]!;
      cases.push(p.text, p.text.toUpperCase(), p.text.toLowerCase(), swapped(p.text), titled(p.text));
      for (const name of ["AWS_SECRET_ACCESS_KEY", "aws_secret_access_key", "Aws_Secret_Access_Key", "SECRET_ACCESS_KEY", "Secret_Access_Key", "sEcReT_aCcEsS_kEy"]) cases.push(`${name}=${value}`, `"${name}": "${value}"`);
      for (const scheme of ["Bearer", "bearer", "BEARER", "bEARER", "BeArEr"]) cases.push(`Authorization: ${scheme} ${value}`);
    }
    for (const name of ["AWS_ACCOUNT_ID", "aws_account_id", "Aws_Account_Id", "ACCOUNT", "Account", "aCcOuNt_Id"]) cases.push(`${name}: 1234-5678-9012`, `${name}=123456789012`);
    for (const url of ["HTTPS://HOOKS.SLACK.COM/SERVICES/T0123ABCD/B0123ABCD/abcdefghijklmnopqrstuvwx", "Https://Hooks.Slack.Com/services/T0123ABCD/B0123ABCD/abcdefghijklmnopqrstuvwx", "POSTGRESQL://app:Zx9Qw7Er5Ty3Ui1Op@db.example.com/x", "MongoDB+SRV://admin:Zx9Qw7Er5Ty3Ui1Op@c.example.net/app", "MYSQL://u:Zx9Qw7Er5Ty3Ui1Op@h/d", "HTTPS://DEPLOY:Zx9Qw7Er5Ty3Ui1Op@GIT.EXAMPLE.COM/R.GIT"]) cases.push(url);
    let preset = 0;
    let oursFound = 0;
    for (const text of cases) {
      const want = await coreHits(text);
      expect(ours(rules.find(text)), text.slice(0, 80)).toEqual(want);
      preset += want.length;
      const everywhere: string[] = [];
      for (const rule of own) rule.create({ report: (d) => everywhere.push(`${rule.meta.id} ${d.range[0]}-${d.range[1]}`) }).file({ content: text });
      expect(rules.find(text).filter((h) => ids.has(h.ruleId)).map((h) => `${h.ruleId} ${h.range[0]}-${h.range[1]}`).sort(), text.slice(0, 80)).toEqual(everywhere.sort());
      oursFound += everywhere.length;
    }
    // (the cases find something: lower-case AWS names, upper-case schemes and hosts, every Bearer the rule takes)
    expect(preset).toBeGreaterThan(100);
    expect(oursFound).toBeGreaterThan(60);
  }, 60_000);
});

describe("lines passed over unparsed hold nothing to find", () => {
  /** The findings of `file` as read (anchors first), and as read when every line is parsed (a --deny that never matches). */
  async function both(file: string): Promise<[unknown[], unknown[]]> {
    const rules = await loadRuleSet();
    const env = { OPENAI_API_KEY: "env-value-0123456789" };
    const key = Buffer.alloc(32, 7);
    const read = (every: boolean) => {
      const source = new FileSource(file);
      try {
        const detector = new Detector(rules, { env, secrets: ["given-value-9876"], ...(every ? { deny: ["(?!)"] } : {}) }).forSession(sessionHead(source).cwd);
        expect(detector.everyLine).toBe(every);
        return planRedaction(source, detector, new Placeholders(key), { dropImages: false }).findings;
      } finally {
        source.close();
      }
    };
    return [read(false), read(true)];
  }

  it("on the fixtures, the corpus and planted sessions, as they are and written with JSON's other escapes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-anchors-"));
    const { file } = plantedSession(dir);
    // (each secret alone on a line, then the same lines written with the escapes other writers use:
    // every letter as `\u00XX`, every `/` as `\/`; no anchor is then left in the bytes as it is)
    const single = join(dir, "single.jsonl");
    const header = JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/home/mkowalski/app" });
    const one = (text: string, k: number) => JSON.stringify({ type: "message", id: `m${k}`, parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: text, timestamp: 1 } });
    // (URLs whose credentials or webhook a line's bytes hold only after its `://`: escaped and wide characters in a password, any case, several URLs on a line)
    const urls = [
      "see HTTPS://HOOKS.SLACK.COM/SERVICES/T0123ABCD/B0123ABCD/abcdefghijklmnopqrstuvwx now",
      `docs at https://example.com/a and postgres://app:p"\u00e4\u20ac${"Q9w8e7r6t".repeat(20)}@db.example.com:5432/prod`,
      "mongodb+srv://admin:Zx9Qw7Er5Ty3Ui1Op@cluster0.example.net/app and https://user:Ab3Cd5Ef7Gh9Ij1@host.example.org/x",
      "https://hooks.slack.com/services/T0123ABCD/B0123ABCD/abcdefghijklmnopqrstuvwx",
    ];
    writeFileSync(single, [header, ...secrets(5).map((p, k) => one(`see ${p.text} there`, k)), ...urls.map((u, k) => one(u, 50 + k)), one("at /home/mkowalski/x", 99), one("env-value-0123456789 and given-value-9876", 98)].join("\n") + "\n");
    const letters = join(dir, "letters.jsonl");
    writeFileSync(letters, readFileSync(single, "utf8").replace(/(?<=":")[^"]*(?=")/g, (body) => body.replace(/(?<!\\)[A-Za-z]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`)));
    const slashes = join(dir, "slashes.jsonl");
    writeFileSync(slashes, readFileSync(single, "utf8").replace(/\//g, "\\/"));
    const escaped = join(dir, "escaped.jsonl");
    writeFileSync(escaped, readFileSync(file, "utf8").replace(/g/g, "\\u0067").replace(/\//g, "\\/"));
    // (a terminal's colours around each secret, written as JSON writes them: `\u001b[31m`; and each
    // secret's letters written `\u00XX` on a line whose bytes hold other anchors as they are, which
    // no finding holds: a line's anchors taken from its bytes alone would miss the secret's)
    const colours = join(dir, "colours.jsonl");
    writeFileSync(colours, [header, ...secrets(5).map((p, k) => one(`\u001b[1;31m${p.text}\u001b[0m and \u001b[32m${p.text}`, k)), ...urls.map((u, k) => one(`\u001b[4m${u}\u001b[0m`, 50 + k)), one("at \u001b[36m/home/mkowalski/x and \u001b[1mmkowalski\u001b[0m", 99), one("\u001b[33menv-value-0123456789\u001b[0m and \u001b[33mgiven-value-9876", 98)].join("\n") + "\n");
    const mixed = join(dir, "mixed.jsonl");
    const escapeLetters = (body: string) => body.replace(/(?<!\\)[A-Za-z]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
    writeFileSync(mixed, readFileSync(single, "utf8").replace(/(?<="content":")((?:[^"\\]|\\.)*)(?=")/g, (body) => `${escapeLetters(body)} then sk-ant-api0, AKIA, ://x@ and secret`));
    let total = 0;
    for (const f of [...fixtureFiles(), ...corpusFiles(), file, escaped, single, letters, slashes, colours, mixed]) {
      const [anchored, every] = await both(f);
      expect(anchored, f).toEqual(every);
      total += anchored.length;
    }
    const [planted] = await both(escaped);
    expect(planted.length).toBeGreaterThan(50);
    for (const f of [letters, slashes, mixed]) expect((await both(f))[0].length, f).toBe((await both(single))[0].length);
    // (on each line of colours.jsonl, twice what the line of single.jsonl with the same text gives; its URLs once)
    const perLine = (findings: unknown[]) => findings.reduce<Map<number, number>>((m, f) => m.set((f as { line: number }).line, (m.get((f as { line: number }).line) ?? 0) + 1), new Map());
    const [plain, coloured] = [perLine((await both(single))[0]), perLine((await both(colours))[0])];
    for (let line = 2; line <= 1 + secrets(5).length + urls.length; line++) expect(coloured.get(line) ?? 0, `colours.jsonl:${line}`).toBe((plain.get(line) ?? 0) * (line <= 1 + secrets(5).length ? 2 : 1));
    expect((await both(single))[0].length).toBeGreaterThan(secrets(5).length);
    // (each of our kinds is found on a line of its own, and written with escapes: the prefilter passes over none of them)
    const kinds = new Set(((await both(single))[0] as Array<{ kind: string }>).map((f) => f.kind));
    for (const p of secrets(5).filter((p) => OURS.includes(p.name))) expect(kinds, p.name).toContain(p.kind);
    for (const kind of ["incoming-webhook", "postgresql-connection", "mongodb-connection", "basic-auth"]) expect(kinds, kind).toContain(kind);
    for (const f of [letters, slashes, mixed, colours]) expect(new Set(((await both(f))[0] as Array<{ kind: string }>).map((x) => x.kind)), f).toEqual(kinds);
    console.log(`anchors: ${total} findings, the same with every line parsed`);
  }, 60_000);
});
