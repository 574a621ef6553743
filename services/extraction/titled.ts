import type { GridCell } from '../../parsing/grid.ts';
import type { Header } from './header.ts';
import { monthEnd, type Period, periodOf } from './periods.ts';

type Dense = GridCell[][];

const CADENCE_WORDS: [RegExp, Period['cadence']][] = [
  [/\b(year|twelve months|12 months|annual)\b/i, 'year'],
  [/\b(quarter|three months|3 months)\b/i, 'quarter'],
  [/\bmonth\b/i, 'month'],
];

const monthsBetween = (from: string, to: string) =>
  (Number(to.slice(0, 4)) - Number(from.slice(0, 4))) * 12 +
  Number(to.slice(5, 7)) -
  Number(from.slice(5, 7)) +
  1;

/** A span of months as the period it is: one month, a quarter, a year; else none of ours. */
function spanned(from: Period, to: Period): Period | undefined {
  const months = monthsBetween(from.end, to.end);
  const cadence = months === 1 ? 'month' : months === 3 ? 'quarter' : months === 12 ? 'year' : undefined;
  return cadence ? { end: to.end, cadence } : undefined;
}

/**
 * The month a day or month at the end of a text names (`Income Statement 08/01/2025`), a numeric day read
 * so that it is the first of its month (a span's start) or the last (its end) when only one reading is.
 */
function dayAtEnd(text: string, edge: 'first' | 'last'): Period | undefined {
  const words = text.trim().split(' ');
  for (let k = Math.min(4, words.length); k >= 1; k--) {
    const tail = words.slice(-k).join(' ');
    const m = /^(\d{1,2})[./-](\d{1,2})[./-](\d{4})$/.exec(tail);
    if (!m) {
      const period = periodOf(tail);
      if (period) return period;
      continue;
    }
    const [a, b, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const fits = (month: number, day: number) =>
      month >= 1 && month <= 12 && day === (edge === 'first' ? 1 : Number(monthEnd(year, month).slice(8)));
    const readings = [fits(b, a) ? b : 0, fits(a, b) ? a : 0].filter(Boolean);
    if (readings.length === 1) return { end: monthEnd(year, readings[0]!), cadence: 'month' };
  }
  return undefined;
}

/** `January - March, 2026`: the start's year is the end's. */
function withYearOf(start: string, end: Period): Period | undefined {
  const year = Number(end.end.slice(0, 4));
  const own = dayAtEnd(start, 'first');
  if (own) return own;
  const month = periodOf(`${start.trim()} ${year}`);
  if (!month) return undefined;
  // A span that ends in a month before it starts runs over the new year.
  return month.end > end.end ? { ...month, end: monthEnd(year - 1, Number(month.end.slice(5, 7))) } : month;
}

/**
 * The period a statement's title names: `08/01/2025 to 08/31/2025`, `From 01 Jan 2025 To 31 Dec 2025`,
 * `January - March, 2026` (a month, quarter or year spanned); `For the year ended 31st Dec 2024`,
 * `Three months ended March 31, 2026`; `As at 31 March 2026` (a balance sheet's day, its month).
 */
export function titlePeriod(text: string): Period | undefined {
  const t = text.replace(/,/g, ' ').replace(/\s+/g, ' ').trim();
  if (t.length > 120) return undefined;
  let m = /^(.{3,80}?) (?:to|through|thru|-|–) (.{3,30})$/i.exec(t);
  if (m) {
    const end = dayAtEnd(m[2]!, 'last');
    const start = end && withYearOf(m[1]!, end);
    if (end && start) return spanned(start, end);
  }
  m = /\b(?:ended|ending) (.{3,30})$/i.exec(t);
  if (m) {
    const day = periodOf(m[1]!);
    const cadence = CADENCE_WORDS.find(([pattern]) => pattern.test(t))?.[1];
    return day && cadence ? { end: day.end, cadence } : undefined;
  }
  m = /\bas (?:at|of) (.{3,30})$/i.exec(t);
  const day = m ? periodOf(m[1]!) : undefined;
  return day ? { end: day.end, cadence: 'month' } : undefined;
}

const isFigure = (cell: GridCell | undefined) =>
  typeof cell === 'number' ||
  (typeof cell === 'string' && /^[(\-−]?\s*[$€£]?\s*[\d,]*\.?\d+\s*\)?$/.test(cell.trim()));

/**
 * The header of a statement of one period, named in its title (an accounting package's export: a
 * profit and loss for a month, a balance sheet as at a day): one column of amounts, or two side by side
 * that take turns (lines in one, their totals in the next). A sheet with more columns of amounts (cost
 * centres, comparatives) has no such header.
 */
export function titledHeader(rows: Dense): Header | undefined {
  const firstFigure = rows.findIndex((row) => row.some((c, i) => i > 0 && isFigure(c)));
  if (firstFigure < 1) return undefined;
  let period: Period | undefined;
  for (const row of rows.slice(0, Math.min(firstFigure, 10)))
    for (const cell of row) if (!period && typeof cell === 'string') period = titlePeriod(cell);
  if (!period) return undefined;
  const counts = new Map<number, number>();
  for (const row of rows.slice(firstFigure))
    row.forEach((cell, c) => {
      if (c > 0 && isFigure(cell)) counts.set(c, (counts.get(c) ?? 0) + 1);
    });
  const most = Math.max(...counts.values());
  const columns = [...counts]
    .filter(([, n]) => n >= Math.max(3, most / 5))
    .map(([c]) => c)
    .sort((a, b) => a - b);
  const adjacent = columns.length === 2 && columns[1] === columns[0]! + 1;
  if (columns.length !== 1 && !adjacent) return undefined;
  return {
    row: firstFigure - 1,
    end: firstFigure - 1,
    columns: new Map(
      columns.map((c) => [c, { period: period!, kind: 'actual' as const, stated: false, confidence: 0.8 }]),
    ),
  };
}
