// Exact arithmetic on decimal strings: values are stored and served as text, and money never passes
// through a float. One module for the database, the import and the tools (db/ cannot import tools/).

/** `units / 10^scale`. */
export interface Decimal {
  /** The digits without the point, signed. */
  readonly units: bigint;
  /** How many of the digits are after the point. */
  readonly scale: number;
}

/** Decimal places kept in a converted amount: finer than any currency's minor unit. */
export const CONVERTED_SCALE = 6;

const NUMBER = /^([+-]?)(\d*)(?:(\.)(\d*))?$/;

/**
 * `loose` also reads `.5` and `5.` (stored values as the analytics tools read them); otherwise only a
 * plain decimal: digits, and digits after a point if there is one. Never white space, exponents or grouping.
 */
function parse(text: string, loose: boolean): Decimal | null {
  const m = NUMBER.exec(text);
  if (!m) return null;
  const whole = m[2]!;
  const fraction = m[4] ?? '';
  if (loose ? whole === '' && fraction === '' : whole === '' || (m[3] !== undefined && fraction === ''))
    return null;
  const units = BigInt(`${whole}${fraction}` || '0');
  return { units: m[1] === '-' ? -units : units, scale: fraction.length };
}

/** A plain decimal string (`12`, `-0.5`, `+3`, `1000.00`) exactly as given; null for anything else. */
export function parseDecimal(text: string): Decimal | null {
  return parse(text, false);
}

/**
 * A stored value as the analytics tools read it: a plain decimal, white space around it ignored, and
 * also `.5` and `5.`; null for anything else (exponents, grouping, text).
 */
export function readDecimal(text: string): Decimal | null {
  return parse(text.trim(), true);
}

/** A plain decimal with white space around it ignored. */
function parseTrimmed(text: string): Decimal | null {
  return parse(text.trim(), false);
}

function strict(text: string): Decimal {
  const d = parse(text, false);
  if (!d) throw new Error(`not a decimal: ${text}`);
  return d;
}

/** True for a plain decimal number such as `12`, `-0.5`, `1000.00`, white space around it ignored. */
export function isDecimal(text: string): boolean {
  return parseTrimmed(text) !== null;
}

/** Digits after the point of a decimal string (0 for an integer or a non-decimal). */
export function scaleOf(text: string): number {
  return parseTrimmed(text)?.scale ?? 0;
}

/** The decimal string at its own scale: `1000.50` stays `1000.50`; never `-0`. */
export function toText(a: Decimal): string {
  const negative = a.units < 0n;
  const digits = (negative ? -a.units : a.units).toString().padStart(a.scale + 1, '0');
  const whole = digits.slice(0, digits.length - a.scale);
  const fraction = digits.slice(digits.length - a.scale);
  const body = a.scale > 0 ? `${whole}.${fraction}` : whole;
  return negative ? `-${body}` : body;
}

/**
 * The canonical form of a plain decimal string (`+007.50` → `7.50`, `-0` → `0`): sign and leading
 * zeros normalised, the caller's decimal places kept. Null when the text is not a plain decimal
 * (exponents, grouping, spaces and empty strings are rejected).
 */
export function normalizeDecimal(text: string): string | null {
  const d = parseDecimal(text);
  return d && toText(d);
}

/**
 * The most significant digits (first non-zero digit to the last digit written) and decimal places a
 * decimal taken from a caller may have: far beyond any amount, share count, price or rate, and small
 * enough that every computation over it stays fast and every answer small.
 */
export const MAX_DECIMAL_DIGITS = 30;

/** Why a plain decimal has too many digits to be taken, or undefined when it has at most MAX_DECIMAL_DIGITS of each. */
export function decimalDigitsProblem(text: string): string | undefined {
  const d = parseTrimmed(text);
  if (!d) return undefined;
  const significant = d.units === 0n ? 0 : (d.units < 0n ? -d.units : d.units).toString().length;
  if (significant > MAX_DECIMAL_DIGITS) {
    return `has ${significant} significant digits; at most ${MAX_DECIMAL_DIGITS} are accepted`;
  }
  if (d.scale > MAX_DECIMAL_DIGITS) {
    return `has ${d.scale} decimal places; at most ${MAX_DECIMAL_DIGITS} are accepted`;
  }
  return undefined;
}

/** A JSON number's text as its digits without leading or trailing zeros, and `e` with value = 0.digits × 10^e. */
function digitsAndExponent(text: string): { negative: boolean; digits: string; exponent: number } | null {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return null;
  const all = m[2]! + (m[3] ?? '');
  const lead = /^0*/.exec(all)![0].length;
  const digits = all.slice(lead).replace(/0+$/, '');
  if (digits === '') return { negative: false, digits: '', exponent: 0 };
  return { negative: m[1] === '-', digits, exponent: Number(m[4] ?? 0) + m[2]!.length - lead };
}

/**
 * Whether a JSON number's source text means exactly the double it parsed to, as that double's shortest
 * text (`0.1`, `1.50`, `1e3` do; `0.1000000000000000055511151231257827` and a 40-digit integer do not).
 */
export function isExactJsonNumber(source: string, value: number): boolean {
  if (!Number.isFinite(value)) return false;
  const given = digitsAndExponent(source);
  const held = digitsAndExponent(String(value));
  return (
    given !== null &&
    held !== null &&
    given.negative === held.negative &&
    given.digits === held.digits &&
    given.exponent === held.exponent
  );
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

export function fromInteger(n: number | bigint): Decimal {
  return { units: BigInt(n), scale: 0 };
}

export const ZERO: Decimal = fromInteger(0);

function rescale(a: Decimal, scale: number): bigint {
  return a.units * 10n ** BigInt(scale - a.scale);
}

export function add(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return { units: rescale(a, scale) + rescale(b, scale), scale };
}

export function sub(a: Decimal, b: Decimal): Decimal {
  return add(a, neg(b));
}

export function neg(a: Decimal): Decimal {
  return { units: -a.units, scale: a.scale };
}

export function abs(a: Decimal): Decimal {
  return a.units < 0n ? neg(a) : a;
}

export function mul(a: Decimal, b: Decimal): Decimal {
  return { units: a.units * b.units, scale: a.scale + b.scale };
}

export function sum(values: readonly Decimal[]): Decimal {
  return values.reduce(add, ZERO);
}

export function sign(a: Decimal): -1 | 0 | 1 {
  return a.units < 0n ? -1 : a.units > 0n ? 1 : 0;
}

export function compare(a: Decimal, b: Decimal): -1 | 0 | 1 {
  return sign(sub(a, b));
}

/** `n / d` rounded half away from zero. */
function roundedQuotient(n: bigint, d: bigint): bigint {
  const negative = n < 0n !== d < 0n;
  const mn = n < 0n ? -n : n;
  const md = d < 0n ? -d : d;
  let q = mn / md;
  if ((mn % md) * 2n >= md) q += 1n;
  return negative ? -q : q;
}

/** `a / b` rounded half away from zero to `places` decimals. Throws on division by zero. */
export function div(a: Decimal, b: Decimal, places: number): Decimal {
  if (b.units === 0n) throw new RangeError('division by zero');
  // a/b = A·10^sb / (B·10^sa); scaled by 10^places.
  const n = a.units * 10n ** BigInt(b.scale + places);
  const d = b.units * 10n ** BigInt(a.scale);
  return { units: roundedQuotient(n, d), scale: places };
}

/** Rounded half away from zero to exactly `places` decimals. */
export function round(a: Decimal, places: number): Decimal {
  if (a.scale <= places) return { units: rescale(a, places), scale: places };
  return { units: roundedQuotient(a.units, 10n ** BigInt(a.scale - places)), scale: places };
}

/** Trailing zeros after the point dropped, keeping at least `minScale` places: `1.500` → `1.5`. */
function trim(a: Decimal, minScale: number): Decimal {
  let { units, scale } = a;
  while (scale > minScale && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  return { units, scale };
}

/** Rounded half away from zero and printed with exactly `places` decimals. */
export function toFixed(a: Decimal, places: number): string {
  return toText(round(a, places));
}

/** For a fractional power only; loses exactness beyond about 15 significant digits. */
export function toNumber(a: Decimal): number {
  return Number(toText(a));
}

/**
 * `a × b`, exact, then rounded half away from zero to at most `maxScale` decimal places. Trailing
 * zeros are dropped down to `minScale` places, so `1000.00 × 1.1` stays `1100.00`.
 * White space around an operand is ignored; null when either operand is not a decimal.
 */
export function multiplyDecimal(a: string, b: string, maxScale: number, minScale = 0): string | null {
  const x = parseTrimmed(a);
  const y = parseTrimmed(b);
  if (!x || !y) return null;
  const product = mul(x, y);
  return toText(trim(product.scale > maxScale ? round(product, maxScale) : product, minScale));
}

/**
 * `value × rate` as a converted amount: at most CONVERTED_SCALE places, and at least as many as the
 * value has (up to that), so `1000.00` at `1.1` is `1100.00`. Null when either is not a decimal.
 */
export function convertDecimal(value: string, rate: string): string | null {
  return multiplyDecimal(value, rate, CONVERTED_SCALE, Math.min(scaleOf(value), CONVERTED_SCALE));
}

/** Exact order of two plain decimal strings: -1, 0 or 1 (`1.50` equals `1.5`). Throws on anything else. */
export function compareDecimal(a: string, b: string): number {
  return compare(strict(a), strict(b));
}

/** True when the plain decimal string is below zero. Throws on anything else. */
export function isNegativeDecimal(text: string): boolean {
  return sign(strict(text)) < 0;
}

/** True when the plain decimal string is zero (`0`, `0.00`, `-0`). Throws on anything else. */
export function isZeroDecimal(text: string): boolean {
  return sign(strict(text)) === 0;
}
