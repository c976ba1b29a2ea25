import { crypto } from "../common/builtins.js";

/**
 * The text a secret is replaced by: `«redacted:KIND:SUFFIX»`, its suffix a keyed hash of the
 * secret (HMAC-SHA-256 under a key drawn afresh for each run), so that the same secret reads the
 * same throughout a run (a reader can follow one token through a session) and nothing of it can be
 * guessed back: not its first or last characters, and no short secret by trying each value, since
 * the key is never written. Two secrets whose short suffixes meet in a run get longer ones.
 */
export class Placeholders {
  /** The run's key (a worker thread reading the run's sessions is given it: `Placeholders.whole`). */
  readonly key: Buffer;
  private readonly byDigest = new Map<string, string>();
  private readonly taken = new Set<string>();

  /** `whole`: each placeholder with the whole hash, none shortened (a worker's, `settle`d by the run). */
  constructor(
    key?: Buffer,
    private readonly whole = false,
  ) {
    this.key = key ?? crypto().randomBytes(32);
  }

  /** The placeholder of `secret` in this run (the first kind it was found as names it). */
  of(kind: string, secret: string): string {
    return this.named(kind, crypto().createHmac("sha256", this.key).update(secret, "utf8").digest("hex"));
  }

  /**
   * The run's placeholder for one a worker thread made under the run's key (`whole`): the one `of`
   * would have given its secret here, the secrets being settled in the order the run found them
   * (which suffixes are lengthened depends on what came before).
   */
  settle(kind: string, placeholder: string): string {
    const digest = /:([0-9a-f]{64})»$/.exec(placeholder)?.[1];
    if (digest === undefined) throw new Error(`not a whole placeholder: ${placeholder}`);
    return this.named(kind, digest);
  }

  private named(kind: string, digest: string): string {
    if (this.whole) return `«redacted:${kind}:${digest}»`;
    const known = this.byDigest.get(digest);
    if (known !== undefined) return known;
    let placeholder = "";
    for (let length = 4; length <= digest.length; length += 2) {
      placeholder = `«redacted:${kind}:${digest.slice(0, length)}»`;
      if (!this.taken.has(placeholder)) break;
    }
    this.taken.add(placeholder);
    this.byDigest.set(digest, placeholder);
    return placeholder;
  }

  /** How many secrets have a placeholder in this run. */
  get size(): number {
    return this.byDigest.size;
  }
}

/** A placeholder this tool writes, in a text (a run of redaction reads its own output again). */
export const PLACEHOLDER = /«redacted:[a-z0-9-]+:[0-9a-f]{4,64}»/g;

/**
 * A placeholder's kind: a rule's message id in lower case, words joined by `-` (`GITHUB_TOKEN`,
 * `AWSSecretAccessKey`, `PostgreSQLConnection`, `AWSAccessKeyID` -> `github-token`,
 * `aws-secret-access-key`, `postgresql-connection`, `aws-access-key-id`).
 */
export function kindOf(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z][a-z])/g, "$1-$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1-$2")
    .replace(/([a-z0-9])([A-Z]+)$/, "$1-$2")
    .replace(/[^A-Za-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .toLowerCase();
}
