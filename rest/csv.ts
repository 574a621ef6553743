import { stringify } from 'csv-stringify/sync';

/** A plain decimal number in full (`-12`, `3.50`): a spreadsheet reads it as a number, never a formula. */
const plainNumber = /^-?\d+(\.\d+)?$/;

/** The OWASP rule: a cell starting with =, +, -, @, tab or carriage return would run as a formula. */
const formulaStart = /^[=+\-@\t\r]/;

function cell(value: unknown): string {
  const text =
    value === null || value === undefined
      ? ''
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value);
  return formulaStart.test(text) && !plainNumber.test(text) ? `'${text}` : text;
}

/** A header row of every key in the items (first-seen order), then one row per item (RFC 4180, CRLF). */
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
  const rows = [columns.map(cell), ...items.map((item) => columns.map((c) => cell(item[c])))];
  return stringify(rows, { record_delimiter: '\r\n', eof: true });
}
