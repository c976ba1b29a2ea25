import { CliError } from "./errors.js";
/**
 * The parsed command line as a command reads it: yargs' values (with `-` restored: see cli.ts),
 * each read with its type checked, so that a command's `options` says what it takes without casts.
 * yargs has already checked the values against the options it was told of; a value of another
 * type here is a bug in that registration, not the user's mistake.
 */
export class Args {
  constructor(private readonly values: Readonly<Record<string, unknown>>) {}

  /** A required string (a positional argument). */
  string(key: string): string {
    const v = this.optionalString(key);
    if (v === undefined) throw new Error(`argument ${key} is missing`);
    return v;
  }

  optionalString(key: string): string | undefined {
    const v = this.values[key];
    if (v === undefined) return undefined;
    if (typeof v !== "string") throw new Error(`argument ${key} is not a string`);
    return v;
  }

  /** A list of strings (a variadic positional argument). */
  strings(key: string): string[] {
    const v = this.values[key];
    if (v === undefined) return [];
    if (!Array.isArray(v)) throw new Error(`argument ${key} is not a list`);
    return v.map(String);
  }

  /** An option given any number of times (a command's `repeatable`): its values, in order. */
  repeated(key: string): string[] {
    const v = this.values[key];
    if (v === undefined) return [];
    return (Array.isArray(v) ? v : [v]).map(String);
  }

  /** A boolean option: true only when given (or defaulting to) true. */
  flag(key: string): boolean {
    return this.values[key] === true;
  }

  /** A number an option's `coerce` made, or undefined. */
  number(key: string): number | undefined {
    const v = this.values[key];
    if (v === undefined) return undefined;
    if (typeof v !== "number") throw new Error(`argument ${key} is not a number`);
    return v;
  }

  /** One of `choices` (yargs checked it), else `fallback`. */
  choice<T extends string>(key: string, choices: readonly T[], fallback: T): T {
    const v = this.values[key];
    return choices.includes(v as T) ? (v as T) : fallback;
  }

  /** The raw value, for an option a command parses itself (`--min-size 4K`). */
  raw(key: string): unknown {
    return this.values[key];
  }

  /** A size (`1024`, `4K`, `1M`, `2G`) in bytes, or undefined; anything else is a usage error naming `--option`. */
  bytes(key: string, option: string): number | undefined {
    const v = this.values[key];
    if (v === undefined) return undefined;
    const m = /^(\d+)([kKmMgG]?)[bB]?$/.exec(String(v).trim());
    const unit = m?.[2] ? 1024 ** (" kmg".indexOf(m[2].toLowerCase())) : 1;
    const n = m ? Number(m[1]) * unit : NaN;
    if (!Number.isSafeInteger(n) || n < 1) throw new CliError(`--${option} ${String(v)}: give a size in bytes (e.g. 1024, 4K, 1M)`);
    return n;
  }

  /**
   * A point in time an age names (`7d`, `4w`, `3m`, `1y` before `now`) or a date (`2026-03-01`),
   * as epoch milliseconds, or undefined; anything else is a usage error naming `--option`.
   */
  before(key: string, option: string, now: number): number | undefined {
    const v = this.values[key];
    if (v === undefined) return undefined;
    const text = String(v).trim();
    const age = /^(\d+)([hdwmy])$/.exec(text);
    if (age) {
      const n = Number(age[1]);
      const at = new Date(now);
      if (age[2] === "m") at.setMonth(at.getMonth() - n);
      else if (age[2] === "y") at.setFullYear(at.getFullYear() - n);
      else at.setTime(now - n * { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 }[age[2] as "h" | "d" | "w"]);
      return at.getTime();
    }
    const date = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : NaN;
    if (Number.isNaN(date)) throw new CliError(`--${option} ${JSON.stringify(text)}: give an age (12h, 7d, 4w, 3m, 1y) or a date (2026-03-01)`);
    return date;
  }
}
