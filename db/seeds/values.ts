/**
 * The fixed calendar of the demo data and the helpers that turn numbers into the stored text forms:
 * dates 'YYYY-MM-DD', instants 'YYYY-MM-DDTHH:MM:SS.000Z', decimals as strings (never floats).
 */
import { multiplyDecimal } from '../../core/decimal.ts';

/** The demo world's "today": data runs to October 2026 and the Q3 2026 reports are due. */
export const DEMO_TODAY = '2026-11-16';

export interface Month {
  /** 0 for the first data month (November 2021). */
  index: number;
  year: number;
  /** 1..12 */
  month: number;
  /** 'YYYY-MM' */
  key: string;
  /** First day, 'YYYY-MM-01'. */
  start: string;
  /** Last day: monthly values are dated at the period end. */
  end: string;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

export function monthEnd(year: number, month: number): string {
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${year}-${pad(month)}-${pad(last)}`;
}

export function makeMonth(year: number, month: number, index: number): Month {
  return {
    index,
    year,
    month,
    key: `${year}-${pad(month)}`,
    start: `${year}-${pad(month)}-01`,
    end: monthEnd(year, month),
  };
}

/** `count` consecutive months from year-month, indexed from `firstIndex`. */
export function monthRange(year: number, month: number, count: number, firstIndex = 0): Month[] {
  const out: Month[] = [];
  for (let i = 0; i < count; i++) {
    const total = year * 12 + (month - 1) + i;
    out.push(makeMonth(Math.floor(total / 12), (total % 12) + 1, firstIndex + i));
  }
  return out;
}

/** The 60 data months: November 2021 to October 2026. */
export const DATA_MONTHS: readonly Month[] = monthRange(2021, 11, 60);

export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00.000Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

export function addMonths(date: string, months: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const total = y * 12 + (m - 1) + months;
  const year = Math.floor(total / 12);
  const month = (total % 12) + 1;
  const last = Number(monthEnd(year, month).slice(8));
  return `${year}-${pad(month)}-${pad(Math.min(d, last))}`;
}

/** Whole months from a to b (by calendar month, ignoring days). */
export function monthsBetween(a: string, b: string): number {
  const [ya, ma] = a.split('-').map(Number) as [number, number];
  const [yb, mb] = b.split('-').map(Number) as [number, number];
  return (yb - ya) * 12 + (mb - ma);
}

/** The earlier of two dates (or instants). */
export function earlier(a: string, b: string): string {
  return a <= b ? a : b;
}

/** The later of two dates (or instants). */
export function later(a: string, b: string): string {
  return a >= b ? a : b;
}

/** An ISO 8601 UTC instant on a date. */
export function instant(date: string, hour = 9, minute = 0, second = 0): string {
  return `${date}T${pad(hour)}:${pad(minute)}:${pad(second)}.000Z`;
}

/** An instant `minutes` after another one. */
export function addMinutes(iso: string, minutes: number): string {
  return new Date(new Date(iso).getTime() + minutes * 60_000).toISOString();
}

export function quarterOf(month: number): number {
  return Math.floor((month - 1) / 3) + 1;
}

export function isQuarterEnd(month: number): boolean {
  return month % 3 === 0;
}

// ---- decimals ------------------------------------------------------------------------------

/** Integer cents as a decimal string with 2 decimals: 123456 → '1234.56', -5 → '-0.05'. */
export function fmtCents(cents: number): string {
  if (!Number.isSafeInteger(cents)) throw new Error(`not an integer amount of cents: ${cents}`);
  const neg = cents < 0;
  const abs = Math.abs(cents);
  const units = Math.floor(abs / 100);
  return `${neg ? '-' : ''}${units}.${pad(abs % 100)}`;
}

/** A float rounded to `digits` decimals, as text, without a negative zero. */
export function fmtFixed(x: number, digits: number): string {
  const s = x.toFixed(digits);
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s;
}

/** A whole number as text. */
export function fmtInt(x: number): string {
  return String(Math.round(x));
}

/** A fraction for a percentage category: 0.6234 (62.34 %). */
export function fmtFraction(x: number): string {
  return fmtFixed(x, 4);
}

/** Rounds a float amount of currency units to integer cents. */
export function toCents(units: number): number {
  return Math.round(units * 100);
}

/** Rounds a positive amount to a "nice" figure with two significant digits (1 234 567 → 1 200 000). */
export function nice(units: number, digits = 2): number {
  if (units <= 0) return 0;
  const magnitude = 10 ** (Math.floor(Math.log10(units)) - (digits - 1));
  return Math.round(units / magnitude) * magnitude;
}

/**
 * value × rate, exactly: `cents` are integer cents and `rate` a decimal string; the result is a
 * decimal string with 2 decimals, rounded half away from zero.
 */
export function mulRate(cents: number, rate: string): string {
  const product = multiplyDecimal(fmtCents(cents), rate, 2, 2);
  if (product === null) throw new Error(`not a decimal rate: ${rate}`);
  return product;
}

/** Integer cents of a decimal string with at most 2 decimals. */
export function parseCents(value: string): number {
  const neg = value.startsWith('-');
  const [whole, frac = ''] = (neg ? value.slice(1) : value).split('.');
  const cents = Number(whole) * 100 + Number(frac.padEnd(2, '0').slice(0, 2));
  return neg ? -cents : cents;
}
