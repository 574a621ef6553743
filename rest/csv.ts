const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/** One CSV field per RFC 4180: quoted when it holds a comma, quote or line break. */
function field(value: unknown): string {
  const text =
    value === null || value === undefined
      ? ''
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value);
  // OWASP: a leading =, +, -, @, tab or carriage return would run as a formula in a spreadsheet;
  // only a plain decimal number in full (-12.5) is safe to leave as it is.
  const safe = /^[=+\-@\t\r]/.test(text) && !PLAIN_DECIMAL.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A header row of every key in the items (first-seen order), then one row per item. */
export function toCsv(items: readonly Record<string, unknown>[]): string {
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const item of items) {
    for (const key of Object.keys(item)) {
      if (!seen.has(key)) {
        seen.add(key);
        columns.push(key);
      }
    }
  }
  const lines = [columns.map(field).join(',')];
  for (const item of items) lines.push(columns.map((c) => field(item[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
