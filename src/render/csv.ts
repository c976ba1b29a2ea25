/**
 * CSV for spreadsheets (RFC 4180): fields separated by commas, lines ended by CRLF, a field that
 * holds a comma, a quote or a line break quoted with its quotes doubled. A text field that a
 * spreadsheet would run as a formula (it starts with `=`, `+`, `-`, `@`, a tab or a carriage
 * return) is prefixed with `'`, so that a session's text cannot become one (OWASP's advice).
 */
export function csvLine(fields: ReadonlyArray<string | number>): string {
  return `${fields.map(csvField).join(",")}\r\n`;
}

function csvField(value: string | number): string {
  if (typeof value === "number") return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
