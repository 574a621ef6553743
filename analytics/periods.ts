// Calendar roll-ups of the series in series.ts: months, quarters or years, flows summed over the
// period, stocks taken at its end. Shared by get_company_performance and get_budget_variance.
import * as D from '../core/decimal.ts';
import { bucket, byCodeUnits, isStock, type Month, monthText, type Observation } from './series.ts';

export const PERIOD_UNITS = ['month', 'quarter', 'year'] as const;
export type PeriodUnit = (typeof PERIOD_UNITS)[number];
export const PERIOD_MONTHS: Record<PeriodUnit, number> = { month: 1, quarter: 3, year: 12 };

/** The period a budget figure covers: its month, quarter, half year or year (its date for a day or week). */
export function figurePeriod(cadence: string, date: string): string {
  const year = date.slice(0, 4);
  const month = Number(date.slice(5, 7));
  if (cadence === 'quarter') return `${year}-Q${Math.ceil(month / 3)}`;
  if (cadence === 'half_year') return `${year}-H${month <= 6 ? 1 : 2}`;
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

/** The first month of the calendar period holding `m`. */
export function periodStart(unit: PeriodUnit, m: Month): Month {
  const size = PERIOD_MONTHS[unit];
  return m - (m % 12) + Math.floor((m % 12) / size) * size;
}

/** `2026-03`, `2026-Q1` or `2026`. */
export function periodLabel(unit: PeriodUnit, m: Month): string {
  const year = Math.floor(m / 12);
  if (unit === 'year') return String(year);
  if (unit === 'quarter') return `${year}-Q${Math.floor((m % 12) / 3) + 1}`;
  return monthText(m);
}

/** One calendar period of one category. */
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
 * Every calendar period of `unit` between the first and last month with data (or [from, to]). A flow sums
 * the rows of the finest cadence that covers the period (monthly, else quarterly, else yearly rows, each
 * counted in the period of its date); a stock takes its point-in-time value at the latest month of the period.
 */
export function rollUp(
  category: string,
  observations: readonly Observation[],
  unit: PeriodUnit,
  range?: { from: Month; to: Month },
): Rolled[] {
  const size = PERIOD_MONTHS[unit];
  const stock = isStock(category);
  const cadences = stock
    ? [{ cadence: 'point_in_time', months: 1 }]
    : FLOW_CADENCES.filter((c) => c.months <= size);
  const series = cadences.map((c) => ({ ...c, byMonth: bucket(observations, c.cadence) }));
  const months = series.flatMap((s) => [...s.byMonth.keys()]);
  if (months.length === 0 && !range) return [];
  const first = periodStart(unit, range?.from ?? Math.min(...months));
  const last = range?.to ?? Math.max(...months);
  const out: Rolled[] = [];
  for (let from = first; from <= last; from += size) {
    const to = from + size - 1;
    const label = periodLabel(unit, from);
    const inPeriod = (byMonth: Map<Month, Observation>) =>
      [...byMonth.entries()]
        .filter(([m]) => m >= from && m <= to)
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
    const candidates = series.map((s) => rolled(label, from, to, s.cadence, inPeriod(s.byMonth)));
    const best =
      candidates.find((c) => c.complete) ??
      candidates.reduce((a, b) => (b.monthsCovered > a.monthsCovered ? b : a));
    out.push(best.rows.length ? best : { ...best, cadence: null });
  }
  return out;
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
  const profits = rollUp('revenue', profit, unit, range);
  const revenues = rollUp('revenue', base, unit, range);
  return profits.map((p, i) => {
    const r = revenues[i]!;
    const rows = [...p.rows, ...r.rows];
    if (p.value === null || r.value === null) return { ...p, rows, value: null };
    if (D.sign(r.value) === 0)
      return { ...p, rows, value: null, reason: 'revenue over the period is 0, so there is no margin' };
    return { ...p, rows, value: D.div(D.mul(p.value, D.fromInteger(100)), r.value, 12) };
  });
}
