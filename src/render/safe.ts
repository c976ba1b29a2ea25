/**
 * Session text is untrusted: it can hold ANSI/OSC escapes, carriage returns, other C0/C1 controls
 * and bidi overrides that would rewrite the screen, set the window title or reorder what is read.
 * Each such character is shown as a visible escape (`\x1b`, `\r`, `\u202e`): `sanitize` keeps
 * newlines and tabs, `sanitizeOneLine` escapes them too.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const UNSAFE_TEST = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
// eslint-disable-next-line no-control-regex
const UNSAFE_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const UNSAFE_ONE_LINE_TEST = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

function escapeChar(ch: string): string {
  const code = ch.charCodeAt(0);
  if (ch === "\r") return "\\r";
  if (ch === "\n") return "\\n";
  if (ch === "\t") return "\\t";
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

export function sanitize(text: string): string {
  // (tested first: most text is safe, and a test costs less than a replace that finds nothing)
  return UNSAFE_TEST.test(text) ? text.replace(UNSAFE, escapeChar) : text;
}

/** `sanitize`, with newlines and tabs escaped too: text that must stay on one line. */
export function sanitizeOneLine(text: string): string {
  return UNSAFE_ONE_LINE_TEST.test(text) ? text.replace(UNSAFE_ONE_LINE, escapeChar) : text;
}
