/**
 * Seeded corruptions of session files, one per mode README's `repair` lists, each saying which original records
 * it destroys on purpose (a torn record, a role-less message): every other record must survive a
 * repair.
 */
import { rng } from "./generate.js";

export interface Corrupted {
  bytes: Buffer;
  /** Indices (into the original's lines) of records the corruption destroys. */
  destroyed: Set<number>;
  /** Lines (original indices) whose record must survive as a separate record (fused halves, joined lines). */
  mustSurvive: Set<number>;
  /** The header is gone (a synthesized one replaces it). */
  headerLost?: boolean;
}

export type CorruptionKind = (typeof CORRUPTIONS)[number];

export const CORRUPTIONS = [
  "bom",
  "crlf",
  "blank-lines",
  "torn-last-line",
  "no-final-newline",
  "fused-whole",
  "fused-torn",
  "fused-torn-spaced",
  "fused-typeless",
  "fused-nul",
  "split-by-newline",
  "nul-line",
  "nul-glued",
  "garbage",
  "invalid-utf8",
  "header-missing",
  "header-moved",
  "header-duplicate",
  "entry-without-id",
  "duplicate-identical",
  "duplicate-different",
  "parent-dangling",
  "parent-self",
  "parent-forward",
  "message-without-role",
  "truncated",
  "line-lost",
  "duplicate-earlier",
  "compaction-kept-damaged",
] as const;

export function corrupt(original: Buffer, kind: CorruptionKind, seed: number): Corrupted | undefined {
  const r = rng(seed);
  const lines = original.toString("utf8").split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const entries = lines.map((_, i) => i).filter((i) => i > 0);
  if (entries.length < 3) return undefined;
  const pick = () => entries[Math.floor(r() * entries.length)]!;
  const pickInner = () => entries[Math.floor(r() * (entries.length - 1))]!; // has a next line
  const destroyed = new Set<number>();
  const mustSurvive = new Set<number>();
  const out = (ls: Array<string | Buffer>, end = "\n") => Buffer.concat(ls.map((l, i) => Buffer.concat([typeof l === "string" ? Buffer.from(l) : l, Buffer.from(i < ls.length - 1 ? "\n" : end)])));
  const v3 = /"version":3/.test(lines[0]!);
  const obj = (i: number) => JSON.parse(lines[i]!) as Record<string, unknown>;
  switch (kind) {
    case "bom":
      return { bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), original]), destroyed, mustSurvive };
    case "crlf":
      return { bytes: out(lines.map((l) => l + "\r")), destroyed, mustSurvive };
    case "blank-lines": {
      const ls = [...lines];
      ls.splice(pick(), 0, "", "   ");
      return { bytes: out(ls), destroyed, mustSurvive };
    }
    case "torn-last-line": {
      const last = lines.length - 1;
      destroyed.add(last);
      const ls = [...lines];
      ls[last] = ls[last]!.slice(0, Math.max(1, Math.floor(ls[last]!.length / 2)));
      return { bytes: out(ls, ""), destroyed, mustSurvive };
    }
    case "no-final-newline":
      return { bytes: out(lines, ""), destroyed, mustSurvive };
    case "fused-whole": {
      const i = pickInner();
      mustSurvive.add(i).add(i + 1);
      const ls = [...lines];
      ls.splice(i, 2, ls[i]! + ls[i + 1]!);
      return { bytes: out(ls), destroyed, mustSurvive };
    }
    case "fused-torn": {
      const i = pickInner();
      destroyed.add(i);
      mustSurvive.add(i + 1);
      const ls = [...lines];
      ls.splice(i, 2, ls[i]!.slice(0, Math.floor(ls[i]!.length * r())) + ls[i + 1]!);
      return { bytes: out(ls), destroyed, mustSurvive };
    }
    case "fused-torn-spaced": {
      // a torn write, then a record from another JSON writer (a space after each brace and colon)
      const i = pickInner();
      destroyed.add(i);
      mustSurvive.add(i + 1);
      const ls = [...lines];
      ls.splice(i, 2, ls[i]!.slice(0, Math.floor(ls[i]!.length * r())) + JSON.stringify(obj(i + 1), null, 1).replace(/\n/g, ""));
      return { bytes: out(ls), destroyed, mustSurvive };
    }
    case "fused-typeless": {
      // typeless objects fused between two records: dropped, the records kept
      const i = pickInner();
      mustSurvive.add(i).add(i + 1);
      const ls = [...lines];
      ls.splice(i, 2, ls[i]! + '{"a":1}' + ls[i + 1]! + '{"b":[2]}');
      return { bytes: out(ls), destroyed, mustSurvive };
    }
    case "fused-nul": {
      const i = pickInner();
      mustSurvive.add(i).add(i + 1);
      const ls: Array<string | Buffer> = [...lines];
      ls.splice(i, 2, Buffer.concat([Buffer.from(lines[i]!), Buffer.alloc(1 + Math.floor(r() * 64)), Buffer.from(lines[i + 1]!)]));
      return { bytes: out(ls), destroyed, mustSurvive };
    }
    case "split-by-newline": {
      const candidates = entries.filter((i) => lines[i]!.includes("\\n"));
      if (candidates.length === 0) return undefined;
      const i = candidates[Math.floor(r() * candidates.length)]!;
      mustSurvive.add(i);
      const ls = [...lines];
      ls[i] = ls[i]!.replace("\\n", "\n");
      return { bytes: out(ls), destroyed, mustSurvive };
    }
    case "nul-line": {
      const ls: Array<string | Buffer> = [...lines];
      ls.splice(pick(), 0, Buffer.alloc(1 + Math.floor(r() * 200)));
      return { bytes: out(ls), destroyed, mustSurvive };
    }
    case "nul-glued": {
      const i = pick();
      const ls: Array<string | Buffer> = [...lines];
      ls[i] = Buffer.concat([Buffer.alloc(16), Buffer.from(lines[i]!)]);
      mustSurvive.add(i);
      return { bytes: out(ls), destroyed, mustSurvive };
    }
    case "garbage": {
      const ls = [...lines];
      ls.splice(pick(), 0, "this is not json", "42", "[1,2]", '{"no":"type"}', "{");
      return { bytes: out(ls), destroyed, mustSurvive };
    }
    case "invalid-utf8": {
      const ls: Array<string | Buffer> = [...lines];
      ls.splice(pick(), 0, Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
      return { bytes: out(ls), destroyed, mustSurvive };
    }
    case "header-missing":
      return { bytes: out(lines.slice(1)), destroyed: new Set([0]), mustSurvive, headerLost: true };
    case "header-moved": {
      const ls = [...lines];
      const [h] = ls.splice(0, 1);
      ls.splice(Math.min(2, ls.length), 0, h!);
      return { bytes: out(ls), destroyed, mustSurvive };
    }
    case "header-duplicate": {
      const ls = [...lines];
      ls.splice(pick(), 0, lines[0]!.replace(/"id":"[^"]*"/, '"id":"another-header"'));
      return { bytes: out(ls), destroyed, mustSurvive };
    }
    case "entry-without-id": {
      if (!v3) return undefined;
      const i = pick();
      const e = obj(i);
      delete e.id;
      const ls = [...lines];
      ls[i] = JSON.stringify(e);
      return { bytes: out(ls), destroyed, mustSurvive };
    }
    case "duplicate-identical": {
      const i = pick();
      const ls = [...lines];
      ls.splice(i + 1, 0, lines[i]!);
      return { bytes: out(ls), destroyed, mustSurvive };
    }
    case "duplicate-different": {
      if (!v3) return undefined;
      const i = pick();
      const e = { ...obj(i), timestamp: "2030-01-01T00:00:00.000Z", note: "a different entry with the same id" };
      const ls = [...lines];
      ls.push(JSON.stringify(e));
      return { bytes: out(ls), destroyed, mustSurvive };
    }
    case "parent-dangling":
    case "parent-self":
    case "parent-forward": {
      if (!v3) return undefined;
      const i = kind === "parent-forward" ? pickInner() : pick();
      const e = obj(i);
      e.parentId = kind === "parent-dangling" ? "zzzzzzzz" : kind === "parent-self" ? e.id : (obj(lines.length - 1).id as string);
      const ls = [...lines];
      ls[i] = JSON.stringify(e);
      return { bytes: out(ls), destroyed, mustSurvive };
    }
    case "message-without-role": {
      const candidates = entries.filter((i) => obj(i).type === "message");
      if (candidates.length === 0) return undefined;
      const i = candidates[Math.floor(r() * candidates.length)]!;
      const e = obj(i);
      e.message = { content: "no role" };
      destroyed.add(i);
      const ls = [...lines];
      ls[i] = JSON.stringify(e);
      return { bytes: out(ls), destroyed, mustSurvive };
    }
    case "truncated": {
      // the file cut off at a byte in its last quarter: the lines after lost, the one there torn
      const cut = Math.floor(original.length * (0.75 + r() * 0.25));
      let at = 0;
      const ls: string[] = [];
      for (const [i, l] of lines.entries()) {
        const end = at + Buffer.byteLength(l) + 1;
        if (end <= cut) ls.push(l);
        else {
          destroyed.add(i);
          if (at < cut - 1) ls.push(Buffer.from(l).subarray(0, cut - at - 1).toString("utf8").replace(/\uFFFD$/, ""));
        }
        at = end;
      }
      if (ls.length < 2) return undefined;
      return { bytes: out(ls, ""), destroyed, mustSurvive };
    }
    case "line-lost": {
      // a line gone without a trace (a crash between two writes, a hand edit)
      const i = pick();
      destroyed.add(i);
      const ls = lines.filter((_, j) => j !== i);
      return { bytes: out(ls), destroyed, mustSurvive };
    }
    case "duplicate-earlier": {
      // another entry written with an id used earlier, in the middle of the file
      if (!v3) return undefined;
      const i = pick();
      const j = pickInner();
      const e = { ...obj(i), timestamp: "2030-01-01T00:00:00.000Z", note: "a different entry with an earlier id" };
      const ls = [...lines];
      ls.splice(Math.max(i, j) + 1, 0, JSON.stringify(e));
      return { bytes: out(ls), destroyed, mustSurvive };
    }
    case "compaction-kept-damaged": {
      // a compaction made to keep from another entry of the file (a result among them) or from none
      const candidates = entries.filter((i) => obj(i).type === "compaction");
      if (candidates.length === 0 || !v3) return undefined;
      const i = candidates[Math.floor(r() * candidates.length)]!;
      const e = obj(i);
      const others = entries.filter((j) => j < i && typeof obj(j).id === "string");
      e.firstKeptEntryId = r() < 0.2 || others.length === 0 ? "zzzzzzzz" : (obj(others[Math.floor(r() * others.length)]!).id as string);
      const ls = [...lines];
      ls[i] = JSON.stringify(e);
      return { bytes: out(ls), destroyed, mustSurvive };
    }
  }
}
