/**
 * GitHub Actions workflow commands (`--format github`): one annotation a line,
 * `::error file=F,line=N,title=CODE::message`. Escaped by GitHub's own rules (the runner and
 * @actions/core): in the message `%`, CR and LF become `%25`, `%0D`, `%0A`; in a property also `:`
 * and `,` (`%3A`, `%2C`). With every line break escaped, nothing in a finding's text can start a
 * line, so it cannot issue a command of its own.
 */

export type AnnotationLevel = "error" | "warning" | "notice";

function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

export function annotation(level: AnnotationLevel, where: { file: string; line?: number; title: string }, message: string): string {
  const props = [`file=${escapeProperty(where.file)}`, ...(where.line !== undefined ? [`line=${where.line}`] : []), `title=${escapeProperty(where.title)}`];
  return `::${level} ${props.join(",")}::${escapeData(message)}\n`;
}
