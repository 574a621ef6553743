// Roll-ups of the series in series.ts: months, calendar or fiscal quarters or years, flows summed over
// the period, stocks taken at its end. Shared by get_company_performance and get_budget_variance.
import * as D from '../core/decimal.ts';
import { bucket, byCodeUnits, isStock, type Month, monthOf, monthText, type Observation } from './series.ts';

export const PERIOD_UNITS = ['month', 'quarter', 'year'] as const;
export type PeriodUnit = (typeof PERIOD_UNITS)[number];
export const PERIOD_MONTHS: Record<PeriodUnit, number> = { month: 1, quarter: 3, year: 12 };

/**
 * The period a budget figure covers, dated at its end: its month, calendar quarter, half year or year, or
 * the months it covers (`2026-08/2026-10`) when those are fiscal, not calendar (its date for a day or week).
 */
export function figurePeriod(cadence: string, date: string): string {
  const year = date.slice(0, 4);
  const month = Number(date.slice(5, 7));
  const months = { quarter: 3, half_year: 6, year: 12 }[cadence];
  if (months && month % months !== 0) {
    const end = monthOf(date);
    return `${monthText(end - months + 1)}/${monthText(end)}`;
  }
  if (cadence === 'quarter') return `${year}-Q${month / 3}`;
  if (cadence === 'half_year') return `${year}-H${month / 6}`;
  if (cadence === 'year') return year;
  if (cadence === 'day' || cadence === 'week') return date;
  return date.slice(0, 7);
}

/**
 * The actual a budgeted flow is compared with, like for like: the latest of `actuals` with the figure's
 * cadence in the figure's period. Used by get_budget_variance and the budget figures of screen_companies.
 */
export function flowActual<T extends { cadence: string; date: string }>(
  figure: { cadence: string; date: string },
  actuals: readonly T[],
): T | undefined {
  const period = figurePeriod(figure.cadence, figure.date);
  return actuals
    .filter((a) => a.cadence === figure.cadence && figurePeriod(a.cadence, a.date) === period)
    .sort((a, b) => byCodeUnits(a.date, b.date))
    .at(-1);
}

/**
 * Where a year starts: 0 for calendar periods; for fiscal ones the month index (0–11) after the fiscal year
 * end, so a year ending 31 January starts in February (1).
 */
export type YearStart = number;

/** The first month of a fiscal year ending `fiscalYearEnd` (MM-DD): 0 (January) for a year ending in December. */
export function fiscalYearStart(fiscalYearEnd: string): YearStart {
  const month = Number(fiscalYearEnd.slice(0, 2));
  return Number.isInteger(month) && month >= 1 && month <= 12 ? month % 12 : 0;
}

const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** What the periods of an answer are: `calendar`, or `fiscal (year ends 31 Jan)`. */
export function periodsText(fiscalYearEnd: string | null): string {
  if (fiscalYearEnd === null) return 'calendar';
  const month = MONTH_NAMES[(Number(fiscalYearEnd.slice(0, 2)) + 11) % 12] ?? 'Dec';
  return `fiscal (year ends ${Number(fiscalYearEnd.slice(3, 5))} ${month})`;
}

const mod = (a: number, n: number) => ((a % n) + n) % n;

/** The first month of the period holding `m`, calendar or fiscal (`yearStart`). */
export function periodStart(unit: PeriodUnit, m: Month, yearStart: YearStart = 0): Month {
  const size = PERIOD_MONTHS[unit];
  const into = mod(m - yearStart, 12);
  return m - into + Math.floor(into / size) * size;
}

/**
 * `2026-03`, `2026-Q1` or `2026`; a fiscal period `FY2027-Q3` or `FY2027`, the fiscal year named by the
 * calendar year it ends in.
 */
export function periodLabel(unit: PeriodUnit, m: Month, yearStart: YearStart = 0): string {
  if (unit === 'month') return monthText(m);
  const first = periodStart('year', m, yearStart);
  const quarter = Math.floor((m - first) / 3) + 1;
  if (yearStart === 0) return unit === 'year' ? String(first / 12) : `${first / 12}-Q${quarter}`;
  const fy = `FY${Math.floor((first + 11) / 12)}`;
  return unit === 'year' ? fy : `${fy}-Q${quarter}`;
}

/** One period of one category. */
export interface Rolled {
  label: string;
  from: Month;
  to: Month;
  /** Flow: the sum of its rows; stock: the value at the latest month with one. Null when a row holds no number. */
  value: D.Decimal | null;
  /** Flow: rows cover every month; stock: a value at the period's last month. */
  complete: boolean;
  /** Months of the period the rows cover. */
  monthsCovered: number;
  cadence: string | null;
  rows: Observation[];
  reason: string | null;
}

/** The cadences a flow row can cover a period with, finest first: a row never spans two periods. */
const FLOW_CADENCES = [
  { cadence: 'month', months: 1 },
  { cadence: 'quarter', months: 3 },
  { cadence: 'year', months: 12 },
] as const;

function rolled(label: string, from: Month, to: Month, cadence: string | null, rows: Observation[]): Rolled {
  const size = to - from + 1;
  const step = FLOW_CADENCES.find((c) => c.cadence === cadence)?.months ?? 1;
  const bad = rows.find((o) => !o.value);
  return {
    label,
    from,
    to,
    value: bad || rows.length === 0 ? null : D.sum(rows.map((o) => o.value!)),
    complete: rows.length * step === size,
    monthsCovered: Math.min(size, rows.length * step),
    cadence,
    rows,
    reason: bad ? bad.reason : rows.length === 0 ? 'no data in the period' : null,
  };
}

/**
 * Every period of `unit` (calendar, or fiscal from `yearStart`) between the first and last month with data
 * (or [from, to]). A flow sums the rows of the finest cadence that covers the period (monthly, else
 * quarterly, else yearly rows); a quarterly or yearly row, dated at the end of the months it covers, counts
 * only in a period that holds exactly whole rows of its cadence (a fiscal quarter Aug–Oct is no calendar
 * quarter). A stock takes its point-in-time value at the latest month of the period.
 */
export function rollUp(
  category: string,
  observations: readonly Observation[],
  unit: PeriodUnit,
  range?: { from: Month; to: Month },
  yearStart: YearStart = 0,
): Rolled[] {
  const size = PERIOD_MONTHS[unit];
  const stock = isStock(category);
  const cadences = stock
    ? [{ cadence: 'point_in_time', months: 1 }]
    : FLOW_CADENCES.filter((c) => c.months <= size);
  const series = cadences.map((c) => ({ ...c, byMonth: bucket(observations, c.cadence) }));
  const months = series.flatMap((s) => [...s.byMonth.keys()]);
  if (months.length === 0 && !range) return [];
  const first = periodStart(unit, range?.from ?? Math.min(...months), yearStart);
  const last = range?.to ?? Math.max(...months);
  const out: Rolled[] = [];
  for (let from = first; from <= last; from += size) {
    const to = from + size - 1;
    const label = periodLabel(unit, from, yearStart);
    const inPeriod = (byMonth: Map<Month, Observation>, step = 1) =>
      [...byMonth.entries()]
        .filter(([m]) => m >= from + step - 1 && m <= to && (m - from + 1) % step === 0)
        .sort((a, b) => a[0] - b[0])
        .map(([, o]) => o);
    if (stock) {
      const rows = inPeriod(series[0]!.byMonth);
      const end = rows.at(-1);
      out.push({
        label,
        from,
        to,
        value: end?.value ?? null,
        complete: end?.month === to,
        monthsCovered: rows.length,
        cadence: 'point_in_time',
        rows: end ? [end] : [],
        reason: end ? end.reason : 'no data in the period',
      });
      continue;
    }
    const candidates = series.map((s) => rolled(label, from, to, s.cadence, inPeriod(s.byMonth, s.months)));
    const best =
      candidates.find((c) => c.complete) ??
      candidates.reduce((a, b) => (b.monthsCovered > a.monthsCovered ? b : a));
    if (best.rows.length) out.push(best);
    else out.push({ ...best, cadence: null, reason: misaligned(series, from, to) ?? best.reason });
  }
  return out;
}

/** Why a period has no value although coarser rows end in it: they cover other months (fiscal quarters, say). */
function misaligned(
  series: { cadence: string; months: number; byMonth: Map<Month, Observation> }[],
  from: Month,
  to: Month,
) {
  for (const s of series) {
    const end = [...s.byMonth.keys()].find((m) => m - s.months + 1 <= to && m >= from);
    if (end !== undefined && s.months > 1)
      return `the ${s.cadence}ly row dated ${s.byMonth.get(end)!.date} covers ${monthText(end - s.months + 1)} to ${monthText(end)}, not whole periods of this one; a row counts only in periods it covers exactly`;
  }
  return null;
}

/**
 * Gross margin per period recomputed from the sums: Σ(margin × revenue) / Σ revenue × 100 over the months
 * (or quarters) that have both, so a period's margin is its gross profit over its revenue.
 */
export function marginRollUp(
  margin: readonly Observation[],
  revenue: readonly Observation[],
  unit: PeriodUnit,
  range?: { from: Month; to: Month },
  yearStart: YearStart = 0,
): Rolled[] {
  const key = (o: Observation) => `${o.cadence}|${o.month}`;
  const revenueOf = new Map<string, Observation[]>();
  for (const o of revenue) revenueOf.set(key(o), [...(revenueOf.get(key(o)) ?? []), o]);
  const profit: Observation[] = [];
  const base: Observation[] = [];
  for (const cadence of ['month', 'quarter', 'year']) {
    const margins = bucket(margin, cadence);
    const revenues = bucket(revenue, cadence);
    for (const [m, g] of margins) {
      const r = revenues.get(m);
      if (!r) continue;
      const value = g.value && r.value ? D.div(D.mul(g.value, r.value), D.fromInteger(100), 12) : null;
      profit.push({ ...g, value, reason: value ? null : (g.reason ?? r.reason) });
      base.push(r);
    }
  }
  const profits = rollUp('revenue', profit, unit, range, yearStart);
  const revenues = rollUp('revenue', base, unit, range, yearStart);
  return profits.map((p, i) => {
    const r = revenues[i]!;
    const rows = [...p.rows, ...r.rows];
    if (p.value === null || r.value === null) return { ...p, rows, value: null };
    if (D.sign(r.value) === 0)
      return { ...p, rows, value: null, reason: 'revenue over the period is 0, so there is no margin' };
    return { ...p, rows, value: D.div(D.mul(p.value, D.fromInteger(100)), r.value, 12) };
  });
}

const CADENCE_WORDS: Record<string, string> = {
  month: 'monthly',
  quarter: 'quarterly',
  half_year: 'half-yearly',
  year: 'annual',
  week: 'weekly',
  day: 'daily',
};

/**
 * A budget's cadence from the cadences of its figures: `monthly`, `quarterly`, `annual` (flows), or
 * `point_in_time` when it holds stocks only; several flow cadences are listed (`monthly, quarterly`);
 * null without figures.
 */
export function budgetCadence(cadences: readonly string[]): string | null {
  const flows = cadences.filter((c) => c !== 'point_in_time');
  if (flows.length === 0) return cadences.length ? 'point_in_time' : null;
  return [...new Set(flows)]
    .sort((a, b) => (PERIOD_ORDER[a] ?? 9) - (PERIOD_ORDER[b] ?? 9))
    .map((c) => CADENCE_WORDS[c] ?? c)
    .join(', ');
}
const PERIOD_ORDER: Record<string, number> = { day: 0, week: 1, month: 2, quarter: 3, half_year: 4, year: 5 };

/** The cadence word of one figure's cadence: `monthly`, `quarterly`, `annual`. */
export function cadenceWord(cadence: string): string {
  return CADENCE_WORDS[cadence] ?? cadence;
}
