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
}
