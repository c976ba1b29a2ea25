import type { Finding, Severity } from "../format/index.js";
import { shellQuote } from "../errors.js";
import { sanitize, type Style } from "./text.js";

/** `file:line: severity code: message (hint)`, one finding a line. */
export function renderFindings(file: string, findings: readonly Finding[], style: Style, options: { indent?: string; minSeverity?: Severity } = {}): string {
  const { c } = style;
  const rank: Record<Severity, number> = { error: 0, warning: 1, info: 2 };
  const limit = rank[options.minSeverity ?? "info"];
  const paint: Record<Severity, (s: string) => string> = { error: c.red, warning: c.yellow, info: c.dim };
  let out = "";
  for (const f of findings) {
    if (rank[f.severity] > limit) continue;
    const where = `${sanitize(file)}${f.line !== undefined ? `:${f.line}` : ""}`;
    const hint = f.hint.replaceAll("FILE", shellQuote(file));
    out += `${options.indent ?? ""}${where}: ${paint[f.severity](f.severity)} ${c.bold(f.code)}: ${sanitize(f.message)} ${c.dim(`(${sanitize(hint)})`)}\n`;
  }
  return out;
}
