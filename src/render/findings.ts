import type { Finding, Severity } from "../format/index.js";
import { shellQuote } from "../errors.js";
import { layoutWidth, type Style } from "./style.js";
import { sanitizeOneLine } from "./safe.js";
import { wrapSegments, type Segment } from "./width.js";

/**
 * `file:line: severity code: message (hint)`, one finding a line; on a terminal, wrapped to its
 * width (later lines indented), so that no line runs past the edge.
 */
/**
 * A finding's hint for `file`, a command to run: its FILE is the file; for standard input, repair
 * reads it again from stdin and writes the result elsewhere (`pi-session repair - --out
 * FIXED.jsonl`), and another command's FILE stays a placeholder (the input saved to a file).
 */
export function hintFor(hint: string, file: string): string {
  if (file !== "<stdin>") return hint.replaceAll("FILE", shellQuote(file));
  return hint.replaceAll("pi-session repair FILE", "pi-session repair - --out FIXED.jsonl");
}

export function renderFindings(file: string, findings: readonly Finding[], style: Style, options: { indent?: string; minSeverity?: Severity; brief?: boolean } = {}): string {
  const { c } = style;
  const rank: Record<Severity, number> = { error: 0, warning: 1, info: 2 };
  const limit = rank[options.minSeverity ?? "info"];
  const paint: Record<Severity, (s: string) => string> = { error: c.red, warning: c.yellow, info: c.dim };
  let out = "";
  for (const f of findings) {
    if (rank[f.severity] > limit) continue;
    // (brief: under a heading that names the file, each finding by its line, without the hint)
    const where = options.brief ? (f.line !== undefined ? `line ${f.line}` : "file") : `${sanitizeOneLine(file)}${f.line !== undefined ? `:${f.line}` : ""}`;
    const hint = hintFor(f.hint, file);
    const segments: Segment[] = [[`${options.indent ?? ""}${where}: `], [f.severity, paint[f.severity]], [" "], [f.code, c.bold], [`: ${sanitizeOneLine(f.message)}`], ...(options.brief ? [] : [[` (${sanitizeOneLine(hint)})`, c.dim] as Segment])];
    for (const line of wrapSegments(segments, layoutWidth(style))) out += `${line}\n`;
  }
  return out;
}
