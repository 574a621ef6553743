// Exact arithmetic on decimal strings: values are stored and served as text, and a conversion must
// never pass money through a float.

const DECIMAL = /^([+-]?)(\d+)(?:\.(\d+))?$/;

interface Scaled {
  /** The digits without the point, signed. */
  units: bigint;
  /** How many of the digits are after the point. */
  scale: number;
}

function parse(text: string): Scaled | null {
  const m = DECIMAL.exec(text.trim());
  if (!m) return null;
  const fraction = m[3] ?? '';
  const units = BigInt(m[2]! + fraction);
  return { units: m[1] === '-' ? -units : units, scale: fraction.length };
}

function format(units: bigint, scale: number): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale);
  const body = scale > 0 ? `${whole}.${fraction}` : whole;
  return negative && units !== 0n ? `-${body}` : body;
}

/** True for a plain decimal number such as `12`, `-0.5`, `1000.00` (no exponent, no grouping). */
export function isDecimal(text: string): boolean {
  return DECIMAL.test(text.trim());
}

/** Digits after the point of a decimal string (0 for an integer or a non-decimal). */
export function scaleOf(text: string): number {
  return parse(text)?.scale ?? 0;
}

/**
 * `a × b`, exact, then rounded half away from zero to at most `maxScale` decimal places. Trailing
 * zeros are dropped down to `minScale` places, so `1000.00 × 1.1` stays `1100.00`.
 * Null when either operand is not a decimal.
 */
export function multiplyDecimal(a: string, b: string, maxScale: number, minScale = 0): string | null {
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return null;
  let units = x.units * y.units;
  let scale = x.scale + y.scale;
  if (scale > maxScale) {
    const divisor = 10n ** BigInt(scale - maxScale);
    const magnitude = units < 0n ? -units : units;
    let quotient = magnitude / divisor;
    if ((magnitude % divisor) * 2n >= divisor) quotient += 1n;
    units = units < 0n ? -quotient : quotient;
    scale = maxScale;
  }
  while (scale > minScale && units % 10n === 0n) {
    units /= 10n;
    scale -= 1;
  }
  return format(units, scale);
}
