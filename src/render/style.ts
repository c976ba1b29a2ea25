import pc from "picocolors";

type Colors = ReturnType<typeof pc.createColors>;

/** How human output is styled: colour on or off, and the widths text is laid out for. */
export interface Style {
  c: Colors;
  /** The width previews and rules are made for (the terminal's, else 100). */
  width: number;
  /** On a terminal: its width, which tables, listings and wrapped lines fit; undefined when output is piped (one full layout). */
  terminalWidth?: number;
  /** On a terminal that says it: how many lines it shows (a screenful of `search`'s matches). */
  terminalRows?: number;
  /** `--wide`: every table column whole, nothing cut or dropped. */
  wide?: boolean;
}

export function makeStyle(color: boolean, width = 100, layout: { terminalWidth?: number; terminalRows?: number; wide?: boolean } = {}): Style {
  return { c: pc.createColors(color), width, ...layout };
}

/** The width lines must fit: the terminal's, unless `--wide` or piped (then none). */
export function layoutWidth(style: Style): number | undefined {
  return style.wide ? undefined : style.terminalWidth;
}
