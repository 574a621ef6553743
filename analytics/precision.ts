import { readDecimal, toFixed } from '../core/decimal.ts';

// The precision the return tools state: multiples to 4 decimals, fractions (IRR, ownership) to 6.
export const MULTIPLE_PLACES = 4;
export const FRACTION_PLACES = 6;

/** A multiple (MOIC, TVPI, DPI, RVPI) as text with 4 decimals. */
export function roundMultiple(text: string | null): string | null {
  const value = text === null ? null : readDecimal(text);
  return value ? toFixed(value, MULTIPLE_PLACES) : text;
}

/** A fraction (IRR, ownership) rounded to 6 decimals. */
export function roundFraction(n: number | null): number | null {
  return n === null ? null : Number(n.toFixed(FRACTION_PLACES)) || 0;
}
