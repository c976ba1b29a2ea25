import { entryRole } from "./pattern.js";

/**
 * What an entry must be to be searched, as `grep` and `search` take it (docs/commands.md, "grep"):
 * of a role, of a time, of a tool's calls and results. The one rule both commands filter by.
 */
export interface EntryFilter {
  /** Only these roles (a message's role, else the entry's type: `entryRole`). */
  roles?: ReadonlySet<string>;
  /** Only the calls and results of this tool (asked of each text as it is matched: `firstMatch`'s `tool`). */
  tool?: string;
  /** Only entries whose time (ms; NaN for none) this accepts. */
  when?: (time: number) => boolean;
}

/** The entry's role and time when it is of the role and time the filter asks for, else undefined. */
export function admits(entry: Record<string, unknown>, filter: EntryFilter): { role: string; timestamp: string | undefined } | undefined {
  const role = entryRole(entry);
  if (filter.roles && !filter.roles.has(role)) return undefined;
  const timestamp = typeof entry.timestamp === "string" ? entry.timestamp : undefined;
  if (filter.when && !filter.when(timestamp === undefined ? NaN : Date.parse(timestamp))) return undefined;
  return { role, timestamp };
}
