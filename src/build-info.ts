/**
 * What this build is: the package's version (for `--version`, which must not depend on where the
 * command runs from) and a hash of the rules that describe a session (the format library and the
 * `ls` row), which keys `ls`'s cache so that an upgrade that changes them rebuilds every row.
 * Both are written into the bundle by scripts/bundle.mjs; code run from the sources sees "dev".
 */
declare const __PI_SESSION_BUILD__: { version: string; rules: string } | undefined;

export const BUILD: { version: string; rules: string } = typeof __PI_SESSION_BUILD__ !== "undefined" ? __PI_SESSION_BUILD__ : { version: "0.0.0-dev", rules: "dev" };
