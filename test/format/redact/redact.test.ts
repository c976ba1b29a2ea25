/**
 * Redaction's parts: the placeholder (keyed, one a secret, none of its characters), the names it
 * reads (variables named like a secret, a cwd's user name), where a finding is (secretlint
 * 13.1.0's AWS range, a URL's password), what a record keeps, a second run finding nothing, and
 * the line pass over damaged files. Secrets are made from pieces (test/helpers/secrets.ts).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { BufferSource } from "../../../src/format/read/source.js";
import { Detector, secretVariables, userOfCwd, type SessionDetector } from "../../../src/format/redact/detector.js";
import { kindOf, Placeholders } from "../../../src/format/redact/placeholder.js";
import { redactRecord } from "../../../src/format/redact/record.js";
import { loadRuleSet, type RuleSet } from "../../../src/format/redact/rules.js";
import { RejectedOutputError, replaceFile, stampOf } from "../../../src/format/write/atomic.js";
import { planRedaction, writeRedaction } from "../../../src/format/write/redact.js";
import { secrets } from "../../helpers/secrets.js";

let rules: RuleSet;
let detector: SessionDetector;
beforeAll(async () => {
  rules = await loadRuleSet();
  detector = new Detector(rules).forSession("/home/mkowalski/app");
});
const planted = secrets(11);
const byName = (name: string) => planted.find((p) => p.name === name)!;

describe("placeholders", () => {
  it("one a secret, the same throughout a run, another in the next; none of the secret's characters, short or long", () => {
    const a = new Placeholders();
    const gh = byName("github").secret;
    const p = a.of("github-token", gh);
    expect(p).toMatch(/^«redacted:github-token:[0-9a-f]{4}»$/);
    expect(a.of("anything", gh)).toBe(p);
    expect(a.of("github-token", gh + "x")).not.toBe(p);
    expect(new Placeholders().of("github-token", gh)).not.toBe(p);
    for (const secret of ["abcd", gh]) for (const piece of [secret.slice(0, 4), secret.slice(-4)]) expect(a.of("k", secret)).not.toContain(piece);
  });

  it("gives each secret its own, however many share a short suffix: a longer one", () => {
    const a = new Placeholders(Buffer.alloc(32, 1));
    const seen = new Set<string>();
    for (let i = 0; i < 70_000; i++) seen.add(a.of("k", `secret-${i}`));
    expect(seen.size).toBe(70_000);
    expect([...seen].some((p) => p.length > "«redacted:k:0000»".length)).toBe(true);
  });

  it("a worker thread's placeholders (whole, under the run's key), settled in the run's order, are the ones the run would have made: suffixes lengthened alike", () => {
    const key = Buffer.alloc(32, 5);
    const alone = new Placeholders(key);
    const worker = new Placeholders(key, true);
    const run = new Placeholders(key);
    const kinds = ["k", "j"];
    for (let i = 0; i < 70_000; i++) {
      const secret = `secret-${i % 60_000}`;
      const kind = kinds[i % 2]!;
      const whole = worker.of(kind, secret);
      expect(whole).toMatch(/^«redacted:[kj]:[0-9a-f]{64}»$/);
      expect(run.settle(kind, whole)).toBe(alone.of(kind, secret));
    }
    expect(run.size).toBe(60_000);
    // (another key's are other placeholders)
    expect(new Placeholders(Buffer.alloc(32, 6)).settle("k", new Placeholders(Buffer.alloc(32, 6), true).of("k", "secret-1"))).not.toBe(new Placeholders(key).of("k", "secret-1"));
    expect(() => run.settle("k", "«redacted:k:abcd»")).toThrow(/not a whole placeholder/);
  });

  it("names a kind from a rule's message id", () => {
    expect(["GITHUB_TOKEN", "AWSSecretAccessKey", "PostgreSQLConnection", "AWSAccessKeyID", "BasicAuth", "Npmrc_authToken"].map(kindOf)).toEqual(["github-token", "aws-secret-access-key", "postgresql-connection", "aws-access-key-id", "basic-auth", "npmrc-auth-token"]);
  });
});

describe("what is a secret besides the rules", () => {
  it("variables named like a secret, of 8 characters or more", () => {
    const env = { OPENAI_API_KEY: "0123456789", GITHUB_TOKEN: "abcdefgh", npm_config__authToken: "tok-12345", DB_PASSWORD: "hunter22", MY_SECRETS: "s3cr3t-values", apikey: "k-1234567", SHORT_KEY: "1234567", npm_package_keywords_0: "sessions", KEYTIMEOUT: "100000000", HOME: "/home/x/y/z" };
    expect(secretVariables(env).map(([k]) => k)).toEqual(["DB_PASSWORD", "GITHUB_TOKEN", "MY_SECRETS", "OPENAI_API_KEY", "apikey", "npm_config__authToken"]);
  });

  it("the user name of a cwd's home folder, in its three forms", () => {
    expect(["/home/ada/x", "/Users/Ada Lovelace/code", "C:\\Users\\ada\\src", "c:/Users/ada", "/srv/app", "/home", undefined].map(userOfCwd)).toEqual(["ada", "Ada Lovelace", "ada", "ada", undefined, undefined, undefined]);
  });

  it("the user name in home paths always, and as a word where it is long and no account's usual name", () => {
    const find = (cwd: string, text: string) => new Detector(rules).forSession(cwd).find(text).map((m) => text.slice(m.start, m.end));
    expect(find("/home/mkowalski", "ls /home/mkowalski/x; mkowalski@host; mkowalskis")).toEqual(["mkowalski", "mkowalski"]);
    expect(find("/home/pi", "the pi agent in /home/pi/x and C:\\Users\\pi")).toEqual(["pi", "pi"]);
    expect(find("/home/al", "al in /Users/al and /home/alma")).toEqual(["al"]);
  });

  it("each session of a run its own user name: the run's detector is made once a user, never another's", () => {
    const run = new Detector(rules);
    const text = "mkowalski and ajohnson were here";
    const found = (cwd: string | undefined) => run.forSession(cwd).find(text).map((m) => text.slice(m.start, m.end));
    for (let k = 0; k < 2; k++) {
      expect(found("/home/mkowalski/a")).toEqual(["mkowalski"]);
      expect(found("/Users/ajohnson/b")).toEqual(["ajohnson"]);
      expect(found(undefined)).toEqual([]);
    }
    expect(run.forSession("/home/mkowalski/c")).toBe(run.forSession("/home/mkowalski/d"));
    expect(run.forSession("/home/mkowalski/c").lines).toBe(run.forSession("/home/mkowalski/d").lines);
  });
});

describe("where a finding is", () => {
  it("an AWS secret access key is its value, not its name (secretlint 13.1.0 reports the name's range)", () => {
    const value = byName("aws-secret").secret;
    for (const text of [`aws_secret_access_key = ${value}`, `export AWS_SECRET_ACCESS_KEY="${value}"`, `{"aws_secret_access_key": "${value}"}`]) {
      const found = detector.find(text);
      expect(found.length, text).toBe(1);
      expect(text.slice(found[0]!.start, found[0]!.end)).toBe(value);
    }
    const hit = rules.find(`aws_secret_access_key = ${value}`)[0]!;
    expect(`aws_secret_access_key = ${value}`.slice(...hit.range)).not.toBe(value);
  });

  it("of a URL, the password alone", () => {
    for (const name of ["url", "postgres"]) {
      const p = byName(name);
      const found = detector.find(`clone ${p.text} now`);
      expect(found.map((m) => `clone ${p.text} now`.slice(m.start, m.end))).toEqual([p.secret]);
    }
  });

  it("in a terminal's colours, the token itself: a colour's letter before it hides nothing, the escapes are kept, a link's URL is read", () => {
    const names = ["github", "npm", "google", "xai", "jwt", "openrouter", "aws-id", "slack", "stripe"];
    for (const name of names) {
      const p = byName(name);
      for (const text of [`\u001b[1;31m${p.text}\u001b[0m`, `Token: \u001b[32m${p.text}\u001b(B\u001b[m done`, `\u001bM${p.text}`]) {
        const found = detector.find(text);
        expect(found.map((m) => text.slice(m.start, m.end)), `${name} ${JSON.stringify(text.slice(0, 20))}`).toEqual([p.secret]);
        const out = redactRecord({ type: "custom", data: text }, detector, new Placeholders(), false).value as { data: string };
        expect(out.data.startsWith(text.slice(0, text.indexOf(p.text))), name).toBe(true);
        expect(out.data).not.toContain(p.secret.slice(0, 12));
      }
    }
    // (an OSC 8 link: what it carries is read, its URL's password found)
    const url = byName("url");
    const link = `\u001b]8;;${url.text}\u001b\\here\u001b]8;;\u0007`;
    expect(detector.find(link).map((m) => link.slice(m.start, m.end))).toEqual([url.secret]);
    // (the user name as a word, after a colour)
    expect(detector.find("by \u001b[1mmkowalski\u001b[0m").length).toBe(1);
  });

  it("a second run finds nothing in what the first wrote; a placeholder written by hand beside a secret hides nothing", () => {
    const text = planted.map((p) => p.text).join("\n") + " /home/mkowalski";
    const record = { type: "custom", data: text };
    const first = redactRecord(record, detector, new Placeholders(), false);
    expect(first.findings.length).toBeGreaterThan(planted.length);
    expect(detector.find((first.value as { data: string }).data)).toEqual([]);
    const gh = byName("github").secret;
    expect(detector.find(`«redacted:x:abcd»${gh}`).length).toBe(1);
  });
});

describe("a record", () => {
  it("keeps ids, types, roles, times, call ids, tool names, signatures and image data; reads every other string and key", () => {
    const gh = byName("github").secret;
    const record = {
      type: "message",
      id: gh,
      parentId: gh,
      timestamp: gh,
      message: {
        role: "assistant",
        toolCallId: gh,
        content: [
          { type: "thinking", thinking: `t ${gh}`, thinkingSignature: gh },
          { type: "toolCall", id: gh, name: gh, arguments: { id: gh, [gh]: 1 } },
          { type: "image", data: gh, mimeType: "image/png" },
        ],
        model: gh,
        errorMessage: gh,
      },
    };
    const r = redactRecord(record, detector, new Placeholders(), false);
    const v = r.value as any;
    expect([v.id, v.parentId, v.timestamp, v.message.toolCallId, v.message.model]).toEqual([gh, gh, gh, gh, gh]);
    expect([v.message.content[0].thinkingSignature, v.message.content[1].id, v.message.content[1].name, v.message.content[2].data]).toEqual([gh, gh, gh, gh]);
    expect(v.message.content[0].thinking).not.toContain(gh);
    expect(v.message.content[1].arguments.id).not.toContain(gh);
    expect(Object.keys(v.message.content[1].arguments).join()).not.toContain(gh);
    expect(v.message.errorMessage).not.toContain(gh);
    expect(r.findings.map((f) => f.field)).toEqual(["message.content[0].thinking", "message.content[1].arguments.id", expect.stringMatching(/^message\.content\[1\]\.arguments\["«redacted:github-token:[0-9a-f]+»"\]$/), "message.errorMessage"]);
  });
});

describe("the line pass", () => {
  const run = (text: string) => {
    const source = new BufferSource("t.jsonl", Buffer.from(text));
    const placeholders = new Placeholders();
    const plan = planRedaction(source, detector, placeholders, { dropImages: false });
    let out = "";
    writeRedaction(source, plan, detector, placeholders, { dropImages: false }, (c) => (out += typeof c === "string" ? c : Buffer.from(c).toString()));
    return { plan, out };
  };
  const gh = () => byName("github").secret;
  const line = (id: string, text: string) => JSON.stringify({ type: "message", id, parentId: null, timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content: text } });

  it("keeps lines byte for byte where nothing is found (spacing, escapes and key order as they were)", () => {
    const odd = '{ "type" : "message",  "id":"a", "message":{"content":"caf\\u00e9 \\/ ok", "role":"user"}}';
    const { plan, out } = run(`${odd}\n${line("b", `x ${gh()}`)}\n`);
    expect(plan.changedLines).toBe(1);
    expect(out.split("\n")[0]).toBe(odd);
    expect(out.split("\n")[1]).not.toContain(gh());
  });

  it("a fused line: its records read, redacted and written each on a line; a torn one dropped and said; a record split by a raw newline joined", () => {
    const a = line("a", `one ${gh()}`);
    const b = line("b", `two ${gh()}`);
    const c = line("c", `three ${gh()}`);
    const split = c.replace("three ", "three\n");
    const { plan, out } = run(`${a}${b}\n${split}\n${line("d", `four ${gh()}`).slice(0, 60)}`);
    expect(out.split("\n").filter(Boolean).map((l) => JSON.parse(l).id)).toEqual(["a", "b", "c"]);
    expect(out).not.toContain(gh().slice(0, 12));
    expect(plan.unread.map((u) => [u.line, u.what])).toEqual([[1, "fused"], [2, "joined"], [4, "torn"]]);
    expect(plan.findings.map((f) => f.line)).toEqual([1, 1, 2]);
  });

  it("an in-place write keeps no backup, and a check that rejects the new content leaves the file as it was", () => {
    const dir = mkdtempSync(join(tmpdir(), "pi-session-atomic-"));
    const file = join(dir, "s.jsonl");
    writeFileSync(file, "old\n");
    expect(() => replaceFile(file, (w) => w("new\n"), { expect: stampOf(file), backup: false, check: () => { throw new RejectedOutputError("no"); } })).toThrow(RejectedOutputError);
    expect([readFileSync(file, "utf8"), readdirSync(dir)]).toEqual(["old\n", ["s.jsonl"]]);
    expect(replaceFile(file, (w) => w("new\n"), { expect: stampOf(file), backup: false, check: (temp) => expect(readFileSync(temp, "utf8")).toBe("new\n") })).toBeUndefined();
    expect([readFileSync(file, "utf8"), readdirSync(dir), existsSync(`${file}.bak`)]).toEqual(["new\n", ["s.jsonl"], false]);
  });
});

describe("the rule set's loading", () => {
  it("is asked for by rules.ts alone, with a dynamic import: no other command's start loads it", async () => {
    const { readdirSync: list } = await import("node:fs");
    const src = join(import.meta.dirname, "../../../src");
    const naming = list(src, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith(".ts") && readFileSync(join(src, f), "utf8").includes("@secretlint/"));
    expect(naming).toEqual(["format/redact/rules.ts"]);
    const text = readFileSync(join(src, "format/redact/rules.ts"), "utf8");
    expect(text).toMatch(/await import\("@secretlint\/secretlint-rule-preset-recommend"\)/);
    expect(text).not.toMatch(/^import .*@secretlint/m);
  });
});

describe("what holds a session", () => {
  it("a session whose first line is longer than the first MB read is one; a binary file is none", async () => {
    const { sessionHead } = await import("../../../src/format/write/redact.js");
    const big = JSON.stringify({ type: "message", id: "a", parentId: null, timestamp: "2026-01-01T00:00:00.000Z", message: { role: "user", content: "x".repeat(3 << 20) } });
    expect(sessionHead(new BufferSource("big.jsonl", Buffer.from(`${big}\n`))).records).toBe(1);
    expect(sessionHead(new BufferSource("bin", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]))).records).toBe(0);
    expect(sessionHead(new BufferSource("bin", Buffer.alloc(2 << 20, 0x41))).records).toBe(0);
    expect(sessionHead(new BufferSource("s", Buffer.from('{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/home/x"}\n'))).cwd).toBe("/home/x");
  });

  it("the working directory of a header behind lines the first 64 KB do not settle: a long one, or many", async () => {
    const { sessionHead } = await import("../../../src/format/write/redact.js");
    const header = '{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/home/x"}';
    const note = (n: number) => JSON.stringify({ type: "note", text: "y".repeat(n) });
    for (const lines of [[note(200_000), header], [...Array.from({ length: 10 }, () => note(10_000)), header], ["not json ".repeat(20_000), header]]) {
      const head = sessionHead(new BufferSource("s", Buffer.from(lines.join("\n") + "\n")));
      expect([head.cwd, head.records > 0]).toEqual(["/home/x", true]);
    }
    // (past the 16th line, or the first MB, none is read)
    expect(sessionHead(new BufferSource("s", Buffer.from([...Array.from({ length: 16 }, () => note(10)), header].join("\n") + "\n"))).cwd).toBeUndefined();
    expect(sessionHead(new BufferSource("s", Buffer.from([note(1_100_000), header].join("\n") + "\n"))).cwd).toBeUndefined();
  });
});
