// Exact decimal arithmetic for the analytics tools: values arrive as decimal strings and money never
// passes through a float. Only a fractional power (CMGR) needs Number, and says so where it is used.

/** `units / 10^scale`. */
export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

const DECIMAL = /^([+-]?)(\d+)(?:\.(\d*))?$|^([+-]?)\.(\d+)$/;

/** A plain decimal such as `12`, `-0.5`, `1000.00`; null for anything else (exponents, grouping, text). */
export function parseDecimal(text: string): Decimal | null {
  const m = DECIMAL.exec(text.trim());
  if (!m) return null;
  const sign = m[1] ?? m[4] ?? '';
  const whole = m[2] ?? '0';
  const fraction = m[3] ?? m[5] ?? '';
  const units = BigInt(whole + fraction);
  return { units: sign === '-' ? -units : units, scale: fraction.length };
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

/** `n / d` rounded half away from zero; the caller rounds the magnitudes, this applies the sign. */
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

/** The decimal string at its own scale: `1000.50` stays `1000.50`. */
export function toText(a: Decimal): string {
  const negative = a.units < 0n;
  const digits = (negative ? -a.units : a.units).toString().padStart(a.scale + 1, '0');
  const whole = digits.slice(0, digits.length - a.scale);
  const fraction = digits.slice(digits.length - a.scale);
  const body = a.scale > 0 ? `${whole}.${fraction}` : whole;
  return negative ? `-${body}` : body;
}

/** Rounded half away from zero and printed with exactly `places` decimals. */
export function toFixed(a: Decimal, places: number): string {
  return toText(round(a, places));
}

/** For a fractional power only; loses exactness beyond about 15 significant digits. */
export function toNumber(a: Decimal): number {
  return Number(toText(a));
}
