import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CliError } from "../../errors.js";
import { FileSource, type ByteSource } from "../../format/read/source.js";
import { Detector, secretVariables, type SessionDetector } from "../../format/redact/detector.js";
import { Placeholders } from "../../format/redact/placeholder.js";
import { redactRecord } from "../../format/redact/record.js";
import { loadRuleSet } from "../../format/redact/rules.js";
import { planRedaction, redactionLeft, sessionHead, writeRedaction, type RedactFinding, type RedactPlan } from "../../format/write/redact.js";

/**
 * A run's redaction (`redact`, `export --redact`): the rule set, loaded when the run asks for it,
 * with what the run adds (the environment's secrets, `--secret`, `--deny`), and the run's
 * placeholders (a secret reads the same in every session of the run, and differently in the next).
 */

export interface RedactionOptions {
  /** Values given with `--secret`. */
  secrets: readonly string[];
  /** Patterns given with `--deny`. */
  deny: readonly string[];
  /** Images become a text block saying what was there (`--drop-images`). */
  dropImages: boolean;
}

/** What a worker thread is given to read a run's sessions as the run does (`Redaction.settings`): structured-cloneable. */
export interface RedactionSettings extends RedactionOptions {
  /** The environment's variables named like a secret, by name (`secretVariables`): the rest of it is not sent. */
  env: Record<string, string>;
  /** The run's placeholders' key: a secret reads the same in every session of the run, whichever thread read it. */
  key: Uint8Array;
}

export class Redaction {
  private constructor(
    private readonly detector: Detector,
    readonly options: RedactionOptions,
    readonly placeholders: Placeholders,
    private readonly env: Record<string, string>,
  ) {}

  /** The run's redaction: the rule set loaded, the environment's secret-named variables read from `env`. */
  static async load(options: RedactionOptions, env: Readonly<Record<string, string | undefined>>): Promise<Redaction> {
    const secrets = Object.fromEntries(secretVariables(env));
    return new Redaction(new Detector(await loadRuleSet(), { env: secrets, secrets: options.secrets, deny: options.deny }), options, new Placeholders(), secrets);
  }

  /**
   * The run's redaction in a worker thread (`settings` the run's): its placeholders carry their
   * whole hash under the run's key, and the run `settle`s them in the order it reads the results.
   */
  static async inWorker(settings: RedactionSettings): Promise<Redaction> {
    const { env, key, ...options } = settings;
    return new Redaction(new Detector(await loadRuleSet(), { env, secrets: options.secrets, deny: options.deny }), options, new Placeholders(Buffer.from(key), true), env);
  }

  /** What a worker thread needs to read sessions as this run does. */
  get settings(): RedactionSettings {
    const { secrets, deny, dropImages } = this.options;
    return { secrets, deny, dropImages, env: this.env, key: new Uint8Array(this.placeholders.key) };
  }

  /** What a session's first lines say: whether it holds a session, and the detector for it (its user name a secret too). */
  session(source: ByteSource): { records: number; detector: SessionDetector } {
    const head = sessionHead(source);
    return { records: head.records, detector: this.detector.forSession(head.cwd) };
  }

  plan(source: ByteSource, detector: SessionDetector, findOnly = false): RedactPlan {
    return planRedaction(source, detector, this.placeholders, { dropImages: this.options.dropImages, findOnly });
  }

  write(source: ByteSource, plan: RedactPlan, detector: SessionDetector, write: (chunk: string | Uint8Array) => void): void {
    writeRedaction(source, plan, detector, this.placeholders, { dropImages: this.options.dropImages }, write);
  }

  /**
   * The session `source` holds, redacted, as a source of its own under the same name (`export
   * --redact` exports it): written to a temporary file (removed when the source is closed), read
   * again for anything left, and refused where something is; `text` redacts a string from outside
   * its lines (what its store says of it) as its lines were.
   */
  copy(source: ByteSource): { source: ByteSource; plan: RedactPlan; text: (text: string) => string } {
    const { records, detector } = this.session(source);
    if (records === 0) throw new CliError(`${source.name}: not a pi session file: none of its first lines is a JSON record; nothing was exported`);
    const plan = this.plan(source, detector);
    const dir = mkdtempSync(join(tmpdir(), "pi-session-redact-"));
    const path = join(dir, "session.jsonl");
    let copy: ByteSource | undefined;
    try {
      const fd = openSync(path, "wx", 0o600);
      try {
        this.write(source, plan, detector, (chunk) => {
          const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
          for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
        });
      } finally {
        closeSync(fd);
      }
      copy = new NamedCopy(source.name, new FileSource(path), dir);
      const left = redactionLeft(copy, detector);
      if (left) throw new CliError(leftMessage(source.name, left, "nothing was exported"));
      const text = (t: string) => String((redactRecord(t, detector, this.placeholders, false).value as string) ?? t);
      return { source: copy, plan, text };
    } catch (error) {
      if (copy) copy.close();
      else rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }
}

/** What a redacted copy still held, said without its value. */
export function leftMessage(name: string, left: RedactFinding, outcome: string): string {
  return `${name}:${left.line}: the redacted copy still held a secret (${left.kind}, found by ${left.rule}, in ${left.field || "the line"}); ${outcome}. This is a bug in pi-session: please report it, naming the rule`;
}

/** A temporary copy read as the session it was made from (its name), removed with its folder when closed. */
class NamedCopy implements ByteSource {
  readonly size: number;

  constructor(
    readonly name: string,
    private readonly file: FileSource,
    private readonly dir: string,
  ) {
    this.size = file.size;
  }

  read(offset: number, length: number): Buffer {
    return this.file.read(offset, length);
  }

  readInto(target: Buffer, offset: number): number {
    return this.file.readInto(target, offset);
  }

  close(): void {
    this.file.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
