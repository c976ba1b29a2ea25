/**
 * A store of OpenClaw's SQLite era made here, for the importer's copies read once: five transcripts
 * as rows of an agent's database, each with the importer's copy of it; two copies the same size as
 * their transcript but of other bytes (another entry id in one turn), one transcript with no time
 * in it, two larger than what is held in memory to compare.
 */
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentDatabase } from "./agent-database.js";
import { assistant, header, jsonl, user } from "./builders.js";

export const id = (n: number) => `0000000${n}-aaaa-4bbb-8ccc-dddddddddddd`;
const BIG = "x".repeat(4_500_000);

/** Each transcript: its lines in the database, and its copy's (the same, or of the same size but other bytes). */
export const transcripts = (() => {
  const s1 = jsonl(header({ id: id(1) }), user("u1", null, "hello"), assistant("a1", "u1", "hi", { message: { role: "assistant", content: [], provider: "anthropic", model: "claude", stopReason: "stop", usage: usage(100) } }));
  // (the copy's turn has another id, in as many bytes: another entry, counted as well)
  const s2 = jsonl(header({ id: id(2) }), user("u2", null, "hello"), assistant("aaaaaaa2", "u2", "hi", { message: { role: "assistant", content: [], provider: "anthropic", model: "claude", stopReason: "stop", usage: usage(200) } }));
  const s2copy = Buffer.from(s2.toString().replace('"aaaaaaa2"', '"bbbbbbb2"'));
  // (no time anywhere: a row's last activity is its file's own time)
  const s3 = jsonl({ type: "session", version: 3, id: id(3), cwd: "/w" });
  // (past what is held: compared a chunk at a time; 5's copy differs in its last bytes)
  const s4 = jsonl(header({ id: id(4) }), user("u4", null, BIG), assistant("a4", "u4", "hi", { message: { role: "assistant", content: [], provider: "anthropic", model: "claude", stopReason: "stop", usage: usage(300) } }));
  const s5 = jsonl(header({ id: id(5) }), user("u5", null, BIG), assistant("aaaaaaa5", "u5", "hi", { message: { role: "assistant", content: [], provider: "anthropic", model: "claude", stopReason: "stop", usage: usage(500) } }));
  const s5copy = Buffer.from(s5.toString().replace('"aaaaaaa5"', '"bbbbbbb5"'));
  return [
    { n: 1, db: s1, copy: s1 },
    { n: 2, db: s2, copy: s2copy },
    { n: 3, db: s3, copy: s3 },
    { n: 4, db: s4, copy: s4 },
    { n: 5, db: s5, copy: s5copy },
  ];
})();

function usage(input: number) {
  return { input, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: input + 10, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.01 } };
}

/** The store: the transcripts as rows of an agent's database (`created_at` 2026-01-01), their copies in the importer's folder (mtime 2025-06-01). */
export function twinsStore(): string {
  const { root, db: d } = agentDatabase("pi-session-twins-");
  const insert = d.prepare("INSERT INTO transcript_events VALUES (?, ?, ?, ?, NULL, NULL, '{}')");
  const imported = join(root, "agents/main/session-sqlite-import-archive");
  mkdirSync(imported, { recursive: true });
  for (const t of transcripts) {
    t.db.toString().trimEnd().split("\n").forEach((line, seq) => insert.run(id(t.n), seq, line, Date.parse("2026-01-01T00:00:00.000Z")));
    const copy = join(imported, `agent_main_main.${id(t.n)}.jsonl.imported-1796192004837`);
    writeFileSync(copy, t.copy);
    utimesSync(copy, new Date("2025-06-01T00:00:00Z"), new Date("2025-06-01T00:00:00Z"));
  }
  d.close();
  return root;
}

