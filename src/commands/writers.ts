import { existsSync, statSync } from "node:fs";
import { basename } from "node:path";
import type { CommandContext } from "../command.js";
import { CliError } from "../errors.js";
import { expandInputs } from "../input.js";
import { renderTable } from "../render/table.js";
import { preview, type Style } from "../render/text.js";

/** The per-file table of a directory run (migrate, repair) and the line of counts under it. */
export function renderSummaryTable<S extends string>(head: string[], rows: string[][], summary: Record<S, number>, words: Record<S, string>, style: Style): string {
  return renderTable(head, rows.map((r) => r.map((cell, i) => (i === 0 ? preview(cell, 60) : preview(cell, 70)))), style) + summaryLine(summary, words);
}

/**
 * The per-file loop of a writing command: inputs expanded (directories searched), stdin refused,
 * progress shown, and a count by status. `many`: more than one file, so output goes to a table
 * and `--out` is a directory.
 */
export function overFiles<S extends string, R extends { status: S }>(
  command: string,
  inputs: string[],
  ctx: CommandContext,
  statuses: readonly S[],
  one: (file: string, many: boolean) => R,
): { files: R[]; summary: Record<S, number> } {
  if (inputs.includes("-")) throw new CliError(`${command} writes files: give paths, not - (stdin)`);
  const files = expandInputs(inputs, ctx.sessionDir);
  const many = files.length > 1 || inputs.some((f) => existsSync(f) && statSync(f).isDirectory());
  const results: R[] = [];
  for (const [i, file] of files.entries()) {
    ctx.progress(i, files.length, basename(file));
    results.push(one(file, many));
  }
  ctx.progress(files.length, files.length);
  const summary = Object.fromEntries(statuses.map((s) => [s, 0])) as Record<S, number>;
  for (const r of results) summary[r.status]++;
  return { files: results, summary };
}

/** The options `migrate` and `repair` share, normalised from the parsed arguments. */
export function writerOptions(args: Record<string, unknown>) {
  return {
    files: (args.files as string[]).map(String),
    dryRun: args.dryRun === true,
    check: args.check === true,
    out: args.out as string | undefined,
    backupDir: args.backupDir as string | undefined,
    force: args.force === true,
  };
}

/** "3 migrated, 1 refused": the non-zero counts of a summary, in words. */
export function summaryLine<S extends string>(summary: Record<S, number>, words: Record<S, string>): string {
  const parts = (Object.entries(summary) as Array<[S, number]>).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${words[k]}`);
  return `${parts.join(", ") || "no files"}\n`;
}
