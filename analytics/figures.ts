// The figures over a series: a value with its unit, period and source, growth, trailing sums and TTM growth.
import * as D from '../core/decimal.ts';
import type { Figure, LatestFigure, Period, Source, Unit } from './figure.ts';
import {
  bucket,
  byCodeUnits,
  type Chosen,
  type Month,
  monthRange,
  monthText,
  type Observation,
  period,
} from './series.ts';

export function sourceOf(categories: string[], cadence: string | null, observations: Observation[]): Source {
  const sorted = [...observations].sort((a, b) => byCodeUnits(a.date, b.date) || byCodeUnits(a.id, b.id));
  return {
    categories,
    cadence,
    dates: sorted.map((o) => o.date),
    datum_ids: sorted.map((o) => o.id),
  };
}

export function mergeSources(...sources: Source[]): Source {
  const categories = [...new Set(sources.flatMap((s) => s.categories))];
  const cadences = [...new Set(sources.map((s) => s.cadence).filter((c): c is string => c !== null))];
  const pairs = new Map<string, string>();
  for (const s of sources) {
    s.datum_ids.forEach((id, i) => {
      pairs.set(id, s.dates[i]!);
    });
  }
  const sorted = [...pairs.entries()].sort((a, b) => byCodeUnits(a[1], b[1]) || byCodeUnits(a[0], b[0]));
  return {
    categories,
    cadence: cadences.length === 1 ? cadences[0]! : cadences.length === 0 ? null : cadences.join('+'),
    dates: sorted.map(([, d]) => d),
    datum_ids: sorted.map(([id]) => id),
  };
}

export const emptySource = (categories: string[]): Source => ({
  categories,
  cadence: null,
  dates: [],
  datum_ids: [],
});

/** A reported value as text: as stored, or rounded to cents when it was converted. */
export function observedText(o: Observation): string | null {
  if (!o.value) return null;
  return o.converted ? D.toFixed(o.value, 2) : D.toText(o.value);
}

export function figure(
  value: D.Decimal | null,
  unit: Unit,
  currency: string | null,
  when: Period | null,
  source: Source,
  reason: string | null = null,
): Figure {
  return {
    value: value === null ? null : D.toFixed(value, 2),
    unit,
    currency: unit === 'money' ? currency : null,
    period: when,
    source,
    reason: value === null ? (reason ?? 'not computed') : null,
    converted: null,
  };
}

export function nullFigure(
  unit: Unit,
  currency: string | null,
  reason: string,
  source: Source,
  when: Period | null = null,
): Figure {
  return figure(null, unit, currency, when, source, reason);
}

/** A latest figure without a value, with the reason. */
export function nullLatest(
  category: string,
  unit: Unit,
  currency: string | null,
  reason: string,
): LatestFigure {
  return { ...nullFigure(unit, currency, reason, emptySource([category])), date: null };
}

/** The latest value of a series as a figure, with the months its row covers. */
export function latestFigure(
  category: string,
  unit: Unit,
  currency: string | null,
  chosen: Chosen,
  latest: Observation,
): LatestFigure {
  const source = sourceOf([category], chosen.cadence, [latest]);
  const when = period(latest.month - chosen.step + 1, latest.month);
  return {
    value: observedText(latest),
    unit,
    currency: unit === 'money' ? currency : null,
    period: when,
    source,
    reason: latest.value ? null : latest.reason,
    converted: null,
    date: latest.date,
  };
}

/** `(b − a) / a × 100`, 2 decimals. */
export function percentChange(base: D.Decimal, latest: D.Decimal): D.Decimal {
  return D.div(D.mul(D.sub(latest, base), D.fromInteger(100)), base, 2);
}

/** `n / d × 100`, 2 decimals. */
export function percentOf(n: D.Decimal, d: D.Decimal): D.Decimal {
  return D.div(D.mul(n, D.fromInteger(100)), d, 2);
}

/** Why a non-positive base makes a growth rate meaningless; null when the base is usable. */
export function badBase(base: D.Decimal, what: string): string | null {
  const s = D.sign(base);
  if (s === 0) return `base value is zero (${what}); growth from zero is undefined`;
  if (s < 0)
    return `base value is negative (${D.toText(base)}, ${what}); growth from a negative base is not meaningful`;
  return null;
}

/**
 * Growth of `latest` over the value exactly `back` months earlier in the same series (no
 * interpolation): (latest − base) / base × 100. Null with the reason when the base is missing,
 * zero or negative.
 */
export function growth(
  category: string,
  series: Chosen,
  latest: Observation | undefined,
  back: number,
  label: string,
): Figure {
  const categories = [category];
  if (!latest)
    return nullFigure('percent', null, `no ${category} value in the window`, emptySource(categories));
  if (back % series.step !== 0) {
    return nullFigure(
      'percent',
      null,
      `${category} is reported per ${series.cadence} only; ${label} growth needs ${back === 1 ? 'monthly' : 'monthly or quarterly'} values`,
      sourceOf(categories, series.cadence, [latest]),
    );
  }
  const baseMonth = latest.month - back;
  const when = period(baseMonth, latest.month);
  const base = series.byMonth.get(baseMonth);
  if (!base) {
    return nullFigure(
      'percent',
      null,
      `no value ${back} month${back === 1 ? '' : 's'} earlier (${monthText(baseMonth)}) in the ${series.cadence} ${category} series`,
      sourceOf(categories, series.cadence, [latest]),
      when,
    );
  }
  const source = sourceOf(categories, series.cadence, [base, latest]);
  if (!latest.value)
    return nullFigure('percent', null, latest.reason ?? 'latest value missing', source, when);
  if (!base.value) return nullFigure('percent', null, base.reason ?? 'base value missing', source, when);
  const bad = badBase(base.value, `${category} ${monthText(baseMonth)}`);
  if (bad) return nullFigure('percent', null, bad, source, when);
  return figure(percentChange(base.value, latest.value), 'percent', null, when, source);
}

export interface Trailing {
  total: D.Decimal | null;
  reason: string | null;
  period: Period | null;
  source: Source;
}

/**
 * The sum of a flow over the `months` months ending at `end`, from rows of one cadence: every
 * monthly row, or else (when `months` is a whole number of quarters) the quarterly rows ending with
 * the latest quarter that closes in the last three months up to `end`. Quarterly rows are taken to
 * be dated in the last month of their quarter. Any missing row makes the sum null with the reason.
 */
export function trailingSum(
  category: string,
  observations: readonly Observation[],
  end: Month,
  months: number,
): Trailing {
  const categories = [category];
  const wanted = monthRange(end - months + 1, end);
  const monthly = bucket(observations, 'month');
  const rows = wanted.map((m) => monthly.get(m));
  const missing = wanted.filter((_, i) => !rows[i]);
  if (missing.length === 0)
    return total(categories, 'month', rows as Observation[], period(end - months + 1, end));

  if (months % 3 === 0) {
    const quarterly = bucket(observations, 'quarter');
    const anchor = Math.max(-1, ...[...quarterly.keys()].filter((m) => m <= end && m > end - 3));
    if (anchor >= 0) {
      const quarters = monthRange(0, months / 3 - 1).map((k) => quarterly.get(anchor - 3 * k));
      if (quarters.every(Boolean)) {
        return total(categories, 'quarter', quarters as Observation[], period(anchor - months + 1, anchor));
      }
    }
  }
  const found = rows.filter((o): o is Observation => o !== undefined);
  const reason =
    found.length === 0
      ? `no monthly ${category} data for ${monthText(end - months + 1)} to ${monthText(end)}`
      : `${category} is missing for ${missing.map(monthText).join(', ')}; a ${months}-month total needs every month`;
  return {
    total: null,
    reason,
    period: period(end - months + 1, end),
    source: sourceOf(categories, 'month', found),
  };
}

function total(categories: string[], cadence: string, rows: Observation[], when: Period): Trailing {
  const source = sourceOf(categories, cadence, rows);
  const bad = rows.find((o) => !o.value);
  if (bad) return { total: null, reason: bad.reason, period: when, source };
  return { total: D.sum(rows.map((o) => o.value!)), reason: null, period: when, source };
}

/**
 * Year-on-year growth of a flow: the trailing twelve months ending at `end` over the twelve months before
 * them, (TTM − previous TTM) / previous TTM × 100. Null with the reason when either sum is incomplete or
 * the earlier one is not positive.
 */
export function ttmGrowth(category: string, observations: readonly Observation[], end: Month): Figure {
  const now = trailingSum(category, observations, end, 12);
  const before = trailingSum(category, observations, end - 12, 12);
  const source = mergeSources(before.source, now.source);
  const when = { from: before.period?.from ?? monthText(end - 23), to: now.period?.to ?? monthText(end) };
  if (now.total === null) {
    return nullFigure('percent', null, `TTM ${category} to ${monthText(end)}: ${now.reason}`, source, when);
  }
  if (before.total === null) {
    return nullFigure(
      'percent',
      null,
      `TTM ${category} to ${monthText(end - 12)}: ${before.reason}`,
      source,
      when,
    );
  }
  const bad = badBase(before.total, `TTM ${category} to ${monthText(end - 12)}`);
  if (bad) return nullFigure('percent', null, bad, source, when);
  return figure(percentChange(before.total, now.total), 'percent', null, when, source);
}
