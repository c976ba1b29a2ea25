import { resolve } from "node:path";
import type { Args } from "../../args.js";
import { CliError } from "../../errors.js";
import type { EntryFilter } from "../../format/grep/filter.js";
import { Calendar } from "../../format/usage/calendar.js";
import { calendarFor, dayRange } from "./dates.js";

/**
 * The filters `grep` and `search` share (docs/commands.md, "grep"): `--role`, `--tool`, `--since`
 * and `--until` (in `--timezone`), `--cwd`, `--branch current`. Read from the command line once
 * (`filterOptions`), made serializable for the worker threads (`filterSettings`) and made the
 * entry filter (`entryFilter`, format/grep/filter.ts) where entries are read.
 */

/** What `--role` takes: a message role, or an entry type that has text. */
const ENTRY_ROLES = ["user", "assistant", "toolResult", "bashExecution", "custom", "system", "compaction", "branch_summary", "custom_message", "session_info", "label"];

/** The filters as the command line gives them. */
export interface FilterOptions {
  roles?: string[];
  tool?: string;
  since?: string;
  until?: string;
  timezone?: string;
  cwd?: string;
  /** `--branch current`: only entries on each session's current branch. */
  branch?: "current";
}

/** The filters read from the command line (`--role` repeated, or a list: user,assistant); an unknown role is a usage error naming the roles. */
export function filterOptions(args: Args): FilterOptions {
  const given = args.raw("role");
  const roles = (Array.isArray(given) ? given.map(String) : typeof given === "string" ? [given] : []).flatMap((r) => r.split(",")).map((r) => r.trim()).filter(Boolean);
  for (const role of roles) {
    if (ENTRY_ROLES.includes(role)) continue;
    const near = ENTRY_ROLES.find((r) => r.toLowerCase() === role.toLowerCase() || (role === "tool" && r === "toolResult"));
    throw new CliError(`unknown --role \`${role}\`${near ? ` (did you mean ${near}?)` : ""}; the roles are ${ENTRY_ROLES.join(", ")}`);
  }
  return {
    roles: roles.length > 0 ? roles : undefined,
    tool: args.optionalString("tool"),
    since: args.optionalString("since"),
    until: args.optionalString("until"),
    timezone: args.optionalString("timezone"),
    cwd: args.optionalString("cwd"),
    branch: args.raw("branch") === "current" ? "current" : undefined,
  };
}

/** The filters as a read is given them: serializable, so that worker threads get them as they are. */
export interface FilterSettings {
  roles?: string[];
  tool?: string;
  /** Local days (`Calendar.day`) in `timezone` (`local`: the machine's own zone), inclusive. */
  since?: number;
  until?: number;
  timezone: string;
  local: boolean;
  currentBranch?: boolean;
  /** A resolved path. */
  cwd?: string;
}

/** The filters made settings: the days in the time zone asked for (else the machine's), the cwd resolved. */
export function filterSettings(options: FilterOptions, env: NodeJS.ProcessEnv, now: number): FilterSettings {
  const calendar = calendarFor(options.timezone, env);
  const { since, until } = dayRange(options.since, options.until, calendar, now);
  return {
    roles: options.roles,
    tool: options.tool,
    since,
    until,
    timezone: calendar.timeZone,
    local: calendar.local,
    currentBranch: options.branch === "current",
    cwd: options.cwd === undefined ? undefined : resolve(options.cwd),
  };
}

/** The entry filter of `settings` (`calendar`: theirs, made once a run where many files are read). */
export function entryFilter(settings: FilterSettings, calendar: Calendar = new Calendar(settings.timezone, settings.local)): EntryFilter {
  const when =
    settings.since !== undefined || settings.until !== undefined
      ? (ms: number) => {
          const day = calendar.day(ms);
          return day !== undefined && (settings.since === undefined || day >= settings.since) && (settings.until === undefined || day <= settings.until);
        }
      : undefined;
  return { roles: settings.roles ? new Set(settings.roles) : undefined, tool: settings.tool, when };
}
