import type { GridCell } from '../../parsing/grid.ts';

/** A period a header cell names: the date it ends on and its cadence. */
export interface Period {
  end: string;
  cadence: 'month' | 'quarter' | 'year';
}

/** Whether a column holds actual, budget or forecast figures, as its header or block says. */
export type Kind = 'actual' | 'budget' | 'forecast';

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/** The last day of a month (1–12) of a year, as YYYY-MM-DD. */
export function monthEnd(year: number, month: number): string {
  const y = year + Math.floor((month - 1) / 12);
  const m = ((((month - 1) % 12) + 12) % 12) + 1;
  const day = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return `${y}-${String(m).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

function fullYear(text: string): number {
  const n = Number(text);
  return text.length === 2 ? 2000 + n : n;
}

const KIND_WORDS: [RegExp, Kind][] = [
  [/\b(budget|bud|bdgt|plan)\b/i, 'budget'],
  [/\b(forecast|fcst|fc|outlook|reforecast)\b/i, 'forecast'],
  [/\b(actuals?|act)\b/i, 'actual'],
];

/** The kind a header or block label names, if any. */
export function kindOf(text: string): Kind | undefined {
  for (const [pattern, kind] of KIND_WORDS) if (pattern.test(text)) return kind;
  return undefined;
}

/** The kind words, each compiled once to remove all of them from a header. */
const KIND_WORDS_ALL = KIND_WORDS.map(([pattern]) => new RegExp(pattern.source, 'gi'));

/** Whether a text holds a digit: every period spelled in text does. */
function hasDigit(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}

/** A header text without the kind words and punctuation around a period (`Jan-26 Actual` → `Jan-26`). */
function bare(text: string): string {
  let t = text;
  for (const pattern of KIND_WORDS_ALL) t = t.replace(pattern, ' ');
  return t
    .replace(/[()[\]:|]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The period a header cell names, in the company's fiscal calendar (`fyEndMonth`, 1–12): months
 * (`Jan-26`, `January 2026`, `2026-01`, date cells), quarters (`Q1 2026` a calendar quarter, `Q1 FY26`
 * a fiscal one), years (`FY2025`, `FY25` the fiscal year ending in 2025; `2025` likewise).
 */
export function periodOf(cell: GridCell, fyEndMonth = 12): Period | undefined {
  if (cell === null) return undefined;
  if (typeof cell === 'object') {
    const [y, m] = cell.date.split('-').map(Number);
    return { end: monthEnd(y!, m!), cadence: 'month' };
  }
  if (typeof cell === 'number') {
    return Number.isInteger(cell) && cell >= 1990 && cell <= 2100
      ? { end: monthEnd(cell, fyEndMonth), cadence: 'year' }
      : undefined;
  }
  if (cell.length > 80 || !hasDigit(cell)) return undefined;
  const text = bare(cell).toLowerCase();
  if (text.length > 40) return undefined;
  let m = /^(\d{4})[-/.](\d{1,2})$/.exec(text);
  if (m && Number(m[2]) >= 1 && Number(m[2]) <= 12)
    return { end: monthEnd(Number(m[1]), Number(m[2])), cadence: 'month' };
  m = /^([a-z]{3,9})\.?[\s\-'’/]*(\d{4}|\d{2})$/.exec(text);
  if (m) {
    const month = MONTHS.indexOf(m[1]!.slice(0, 3)) + 1;
    const named = month > 0 && (m[1]!.length === 3 || m[1]!.startsWith(MONTHS[month - 1]!));
    if (named) return { end: monthEnd(fullYear(m[2]!), month), cadence: 'month' };
  }
  m =
    /^q([1-4])[\s\-'’/]*(fy)?[\s\-'’]*(\d{4}|\d{2})$/.exec(text) ??
    /^(?:fy)[\s\-'’]*(\d{4}|\d{2})[\s-]*q([1-4])$/.exec(text);
  if (m) {
    const fiscal = m[2] === 'fy' || text.startsWith('fy');
    const [quarter, year] = text.startsWith('fy')
      ? [Number(m[2]), fullYear(m[1]!)]
      : [Number(m[1]), fullYear(m[3]!)];
    if (!fiscal) return { end: monthEnd(year, quarter * 3), cadence: 'quarter' };
    return { end: monthEnd(year, fyEndMonth - 12 + quarter * 3), cadence: 'quarter' };
  }
  m = /^(?:fy|fye|year)[\s\-'’]*(\d{4}|\d{2})$/.exec(text) ?? /^(\d{4})$/.exec(text);
  if (m) {
    const year = fullYear(m[1]!);
    if (year >= 1990 && year <= 2100) return { end: monthEnd(year, fyEndMonth), cadence: 'year' };
  }
  return undefined;
}
