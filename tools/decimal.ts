// Decimal strings in and out of the API: money, multiples and share counts stay exact text end to end.
// Multiplication lives in db/decimal.ts; these are the parsing and ordering helpers tools need.

const PLAIN = /^([+-]?)(\d+)(?:\.(\d+))?$/;

/**
 * The canonical form of a plain decimal string (`+007.50` → `7.50`, `-0` → `0`): sign and leading
 * zeros normalised, the caller's decimal places kept. Null when the text is not a plain decimal
 * (exponents, grouping, spaces and empty strings are rejected).
 */
export function normalizeDecimal(text: string): string | null {
  const m = PLAIN.exec(text);
  if (!m) return null;
  const whole = m[2]!.replace(/^0+(?=\d)/, '');
  const fraction = m[3] ?? '';
  const body = fraction ? `${whole}.${fraction}` : whole;
  const zero = /^[0.]*$/.test(body);
  return m[1] === '-' && !zero ? `-${body}` : body;
}

/** A finite JSON number as a plain decimal string (`1e21` → `1000000000000000000000`); null otherwise. */
export function decimalFromNumber(n: number): string | null {
  if (!Number.isFinite(n)) return null;
  const text = String(n);
  const m = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!m) return normalizeDecimal(text);
  // Shift the point of the shortest round-trip digits by the exponent.
  const digits = m[2]! + (m[3] ?? '');
  const point = m[2]!.length + Number(m[4]);
  let body: string;
  if (point <= 0) body = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) body = digits + '0'.repeat(point - digits.length);
  else body = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return normalizeDecimal(m[1] + body);
}

function parts(text: string): { negative: boolean; whole: string; fraction: string } {
  const m = PLAIN.exec(text);
  if (!m) throw new Error(`not a decimal: ${text}`);
  const whole = m[2]!.replace(/^0+(?=\d)/, '');
  const fraction = (m[3] ?? '').replace(/0+$/, '');
  const zero = whole === '0' && fraction === '';
  return { negative: m[1] === '-' && !zero, whole, fraction };
}

/** Exact order of two decimal strings: -1, 0 or 1 (`1.50` equals `1.5`). */
export function compareDecimal(a: string, b: string): number {
  const x = parts(a);
  const y = parts(b);
  if (x.negative !== y.negative) return x.negative ? -1 : 1;
  const sign = x.negative ? -1 : 1;
  if (x.whole.length !== y.whole.length) return x.whole.length < y.whole.length ? -sign : sign;
  if (x.whole !== y.whole) return x.whole < y.whole ? -sign : sign;
  const width = Math.max(x.fraction.length, y.fraction.length);
  const fx = x.fraction.padEnd(width, '0');
  const fy = y.fraction.padEnd(width, '0');
  if (fx === fy) return 0;
  return fx < fy ? -sign : sign;
}

/** True when the decimal string is below zero. */
export function isNegativeDecimal(text: string): boolean {
  return parts(text).negative;
}

/** True when the decimal string is zero (`0`, `0.00`, `-0`). */
export function isZeroDecimal(text: string): boolean {
  const p = parts(text);
  return p.whole === '0' && p.fraction === '';
}
