import { nextSteps, type Finding, type Severity } from "../format/check/findings.js";
import { shellQuote } from "../errors.js";
import { layoutWidth, type Style } from "./style.js";
import { sanitizeOneLine } from "./safe.js";
import { formatCount } from "./units.js";
import { wrapSegments, type Segment } from "./width.js";

/**
 * A finding's command for `file` (its `FILE` is the file); for standard input, repair reads it
 * again from stdin and writes the result elsewhere (`pi-session repair - --out FIXED.jsonl`), and
 * another command's FILE stays a placeholder (the input saved to a file).
 */
export function hintFor(hint: string, file: string): string {
  if (file !== "<stdin>") return hint.replaceAll("FILE", shellQuote(file));
  return hint.replaceAll("pi-session repair FILE", "pi-session repair - --out FIXED.jsonl");
}

const RANK: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** Roots of one code on consecutive lines, from this many on, are said once with their count and lines. */
const FOLD_FROM = 3;

export interface FindingsOptions {
  indent?: string;
  minSeverity?: Severity;
  /** Under a heading that names the file: each finding by its line, and no command. */
  brief?: boolean;
  /** Each finding's hint under it: why it matters, in pi's and the providers' words. */
  verbose?: boolean;
  /** How the user named the session, where not by its path (`019ebb22`): the commands name it so. */
  as?: string;
}

/**
 * A file's findings for people (docs/commands.md, "One verdict"): each root cause once, `file:line: severity
 * code: message`; what it causes under it, a line per code with how many and on which lines; a run
 * of roots of one code said once with their count and lines; then the commands that mend them, once
 * each. On a terminal every line fits its width (later lines indented, a command never cut).
 */
export function renderFindings(file: string, findings: readonly Finding[], style: Style, options: FindingsOptions = {}): string {
  const { c } = style;
  const limit = RANK[options.minSeverity ?? "info"];
  const paint: Record<Severity, (s: string) => string> = { error: c.red, warning: c.yellow, info: c.dim };
  const width = layoutWidth(style);
  const indent = options.indent ?? "";
  const caused = new Map<string, Finding[]>();
  for (const f of findings) {
    if (!f.causedBy) continue;
    const key = `${f.causedBy.code}:${f.causedBy.line}`;
    const list = caused.get(key);
    if (list) list.push(f);
    else caused.set(key, [f]);
  }
  const roots = findings.filter((f) => !f.causedBy && RANK[f.severity] <= limit);
  let out = "";
  const where = (line: number | undefined) => (options.brief ? (line !== undefined ? `line ${formatCount(line)}` : "file") : `${sanitizeOneLine(file)}${line !== undefined ? `:${line}` : ""}`);
  /** A line of segments after a leading `lead` (kept whole: the wrapper keeps no leading space). */
  const emit = (segments: Segment[], lineIndent = `${indent}    `, lead = indent) => {
    for (const line of wrapSegments(lead ? [[lead, undefined, "whole"], ...segments] : segments, width, lineIndent)) out += `${line}\n`;
  };
  for (let i = 0; i < roots.length; ) {
    const f = roots[i]!;
    // (a root with what it causes under it is said alone)
    let j = i + 1;
    if (!caused.has(keyOf(f))) while (j < roots.length && roots[j]!.code === f.code && roots[j]!.severity === f.severity && !caused.has(keyOf(roots[j]!))) j++;
    const run = j - i >= FOLD_FROM ? roots.slice(i, j) : [f];
    const count = run.length > 1 ? [` (${formatCount(run.length)}, ${linesOf(run)})`] as Segment : undefined;
    // (the place, `file:line`, is never broken: it is pasted into an editor)
    emit([[`${where(f.line)}:`, undefined, options.brief ? "whole" : "unbroken"], [" "], [f.severity, paint[f.severity]], [" "], [f.code, c.bold], ...(count ? [count] : []), [`: ${sanitizeOneLine(f.message)}`]]);
    if (options.verbose) emit([[` ${sanitizeOneLine(hintFor(f.hint, options.as ?? file))}`, c.dim]], `${indent}    `, `${indent}   `);
    for (const group of byCode((caused.get(keyOf(f)) ?? []).filter((g) => RANK[g.severity] <= limit))) {
      const g = group[0]!;
      const lines = group.length === 1 ? (g.line !== undefined ? `line ${formatCount(g.line)}` : "") : linesOf(group);
      const head = group.length === 1 ? `${lines}: ` : `${formatCount(group.length)} × `;
      const tail = group.length === 1 ? "" : ` (${lines})`;
      emit([[` ${head}`], [g.severity, paint[g.severity]], [" "], [g.code, c.bold], [tail], [`: ${sanitizeOneLine(g.message)}`]], `${indent}        `, `${indent}    ↳`);
    }
    i += run.length;
  }
  if (!options.brief) {
    for (const next of new Set(nextSteps(roots).map((step) => hintFor(step, options.as ?? file)))) emit([[" next: ", c.dim], [sanitizeOneLine(next), c.bold, "unbroken"]], `${indent}        `, `${indent} `);
  }
  return out;
}

function keyOf(f: Finding): string {
  return `${f.code}:${f.line}`;
}

/** Findings grouped by code, in the order each code first comes. */
function byCode(findings: readonly Finding[]): Finding[][] {
  const groups = new Map<string, Finding[]>();
  for (const f of findings) {
    const list = groups.get(f.code);
    if (list) list.push(f);
    else groups.set(f.code, [f]);
  }
  return [...groups.values()];
}

/** The lines of several findings: `lines 14-15`, `lines 3, 9 and 40-60`. */
function linesOf(findings: readonly Finding[]): string {
  const lines = [...new Set(findings.map((f) => f.line).filter((l): l is number => l !== undefined))].sort((a, b) => a - b);
  if (lines.length === 0) return "the file";
  const first = lines[0]!;
  const last = lines[lines.length - 1]!;
  return first === last ? `line ${formatCount(first)}` : `lines ${formatCount(first)}-${formatCount(last)}`;
}
