import { sanitize, sanitizeOneLine } from "./safe.js";
import { layoutWidth, type Style } from "./style.js";
import { formatBytes, plural } from "./units.js";
import { cutToWidth, displayWidth } from "./width.js";

/**
 * A unified diff (`migrate --dry-run`, `repair --dry-run`) for people. Piped, or with `full`, it is
 * the whole diff, as `patch` and scripts need it. On a terminal it stays a diff a person can read:
 * one changed record of a real session is a line of thousands of characters, and a v1 migration
 * changes every line. There, each line is cut to the width and says how many bytes it left out,
 * runs of unchanged lines between changes fold into one line saying how many, and removed and
 * added lines are red and green.
 */
export function renderDiff(diff: string, style: Style, full = false): string {
  const fit = layoutWidth(style);
  if (fit === undefined || full) return sanitize(diff);
  const { c } = style;
  const out: string[] = [];
  let unchanged = 0;
  const fold = () => {
    if (unchanged === 1) out.push(c.dim("  (1 unchanged line)"));
    else if (unchanged > 1) out.push(c.dim(`  (${plural(unchanged, "unchanged line")})`));
    unchanged = 0;
  };
  const lines = diff.split("\n").map((l) => sanitizeOneLine(l));
  if (lines[lines.length - 1] === "") lines.pop();
  // Where each removed or added line first differs from its counterpart (the removed line and the
  // added line that replaced it, paired in order), so that its cut shows the change.
  const focus = new Map<number, number>();
  for (let i = 0; i < lines.length; ) {
    // (the two names, `--- a @ leaf` and `+++ a @ other`: where they differ, so that their cuts do not read alike)
    if (lines[i]!.startsWith("--- ") && lines[i + 1]?.startsWith("+++ ")) {
      const d = firstDifference(lines[i]!, lines[i + 1]!, HEAD_MARK);
      focus.set(i, d);
      focus.set(i + 1, d);
      i += 2;
      continue;
    }
    if (lines[i]![0] !== "-" || lines[i]!.startsWith("---")) {
      i++;
      continue;
    }
    let j = i;
    while (j < lines.length && lines[j]![0] === "-") j++;
    let k = j;
    while (k < lines.length && lines[k]![0] === "+" && !lines[k]!.startsWith("+++")) k++;
    for (let p = 0; p < Math.min(j - i, k - j); p++) {
      const d = firstDifference(lines[i + p]!, lines[j + p]!);
      focus.set(i + p, d);
      focus.set(j + p, d);
    }
    i = k;
  }
  lines.forEach((line, i) => {
    const mark = line[0];
    if (mark === " ") {
      unchanged++;
      return;
    }
    fold();
    const paint = line.startsWith("---") || line.startsWith("+++") ? c.bold : mark === "-" ? c.red : mark === "+" ? c.green : mark === "@" ? c.cyan : (s: string) => s;
    out.push(paint(cutLine(line, fit, focus.get(i))));
  });
  fold();
  return out.map((l) => `${l}\n`).join("");
}

/** How long a file's head line's mark is (`--- `, `+++ `). */
const HEAD_MARK = 4;

/** Where two diff lines (their marks, `mark` characters, aside) first differ. */
function firstDifference(a: string, b: string, mark = 1): number {
  let d = mark;
  while (d < a.length && d < b.length && a.charCodeAt(d) === b.charCodeAt(d)) d++;
  return d;
}

/** A message's rule in a context, as its line in a diff: its mark, \`── name \`, and a run of \`─\` (the run, group 1). */
const RULE = /^[-+ ]── .* (─+)$/;

/** Columns a cut line keeps before the change it shows. */
const LEAD = 24;

/**
 * A diff line cut to `width` columns, saying how many bytes it left out. With `focus` (where it
 * differs from its counterpart) past what the start would show, it shows the change instead:
 * its mark, an ellipsis, a little of what comes before the change, and the change. A file's head
 * line (`--- name`) whose difference lies in its end shows its end.
 */
function cutLine(line: string, width: number, focus?: number): string {
  const over = displayWidth(line) - width;
  if (over <= 0) return line;
  // (a message's rule, \`── role ───\`: drawn to the width, shorter; none of what it says is left out)
  const rule = RULE.exec(line);
  if (rule && rule[1]!.length - 3 >= over) return line.slice(0, line.length - over);
  // (the note's own width, for a count of up to six digits and a unit)
  const room = width - 18;
  let shown: string;
  // (a file's head line whose names differ near their end, `… @ leaf`: its end, which tells the two apart)
  const head = /^(---|\+\+\+) /.test(line) ? line.slice(HEAD_MARK) : undefined;
  if (head !== undefined && displayWidth(line.slice(focus ?? line.length)) <= width - HEAD_MARK - 1) return `${line.slice(0, HEAD_MARK)}${cutToWidth(head, width - HEAD_MARK, "end")}`;
  if (focus !== undefined && displayWidth(line.slice(0, focus)) > room - LEAD) {
    const mark = head !== undefined ? HEAD_MARK : 1;
    const before = cutToWidth(line.slice(mark, focus), LEAD, "end").slice(1);
    shown = `${line.slice(0, mark)}…${before}${cutToWidth(line.slice(focus), room - mark - 1 - displayWidth(before)).replace(/…$/, "")}`;
  } else shown = cutToWidth(line, room).replace(/…$/, "");
  const left = Buffer.byteLength(line) - Buffer.byteLength(shown);
  return left > 0 ? `${shown}… (${formatBytes(left)} more)` : shown;
}
