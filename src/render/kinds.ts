import type { Session } from "../format/session/session.js";
import { kindName } from "../format/session/summary.js";
import { displayWidth } from "./width.js";

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/**
 * Each node's `kindName` (`message/user`, `compaction`, …) as a listing draws it (`draw`: painted,
 * padded), made once for each type and role a session has: `tree` and `path` draw one a line.
 */
export class KindNames {
  private readonly made = new Map<number, string>();
  private readonly widths = new Map<number, number>();

  constructor(
    private readonly session: Session,
    private readonly draw: (name: string) => string,
  ) {}

  of(node: number): string {
    const key = this.session.nodeKindKey(node);
    let name = key < 0 ? undefined : this.made.get(key);
    if (name === undefined) {
      name = this.draw(kindName(this.session, node));
      if (key >= 0) this.made.set(key, name);
    }
    return name;
  }

  /** The display width of `of(node)`, colour left out. */
  widthOf(node: number): number {
    const key = this.session.nodeKindKey(node);
    let width = key < 0 ? undefined : this.widths.get(key);
    if (width === undefined) {
      width = displayWidth(this.of(node).replace(ANSI, ""));
      if (key >= 0) this.widths.set(key, width);
    }
    return width;
  }
}
